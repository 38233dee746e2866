"""The bundled reference solutions pass the whole benchmark, through the CLI: compiled, audited,
extracted with bounded state, and measured on a cluster (test hosts where this machine allows
them, else loopback)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from speckernel_rocq_ids import plugin


def test_reference_agent_passes_every_task(kernel_cli: Callable[..., Any],
                                           kernel_plugins: Callable[..., None],
                                           run_dir: Path) -> None:
    kernel_plugins(plugin)
    result = kernel_cli("run", "rocq_ids", "--agent", "reference", "--output", run_dir,
                        "--option", "cluster_ops_per_worker=[300]",
                        "--option", "cluster_put_rates=[0.1,0.9]")
    assert result.exit_code == 0, result.stdout + result.stderr
    samples = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert sorted(s["key"]["task_id"] for s in samples) == ["mw", "ryw"]
    for sample in samples:
        assert sample["status"] == "success"
        assert [v["status"] for v in sample["verdicts"]] == ["success"] * 3
        assert sample["scores"][0]["values"] == {"pass": 1.0}
        audit = sample["verdicts"][1]["data"]["checks"]
        assert all(audit.values()) and len(audit) == 10
        sizes = sample["verdicts"][2]["data"]["checkpoints"]
        assert sizes[0]["replica_words"] == sizes[1]["replica_words"]
        figures = sample["measurements"]
        assert figures["throughput_ops_s"] > 0 and figures["x_expert"] > 0
        assert {"p99_latency_ms@put0.9/ops300", "peak_rss_mb@put0.1/ops300"} <= set(figures)
