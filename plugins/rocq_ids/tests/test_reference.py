"""The bundled reference solutions pass the whole benchmark, through the CLI."""

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
    result = kernel_cli("run", "rocq_ids", "--agent", "reference", "--output", run_dir)
    assert result.exit_code == 0, result.stdout + result.stderr
    samples = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert sorted(s["key"]["task_id"] for s in samples) == ["mw", "ryw"]
    for sample in samples:
        assert sample["status"] == "success"
        assert [v["status"] for v in sample["verdicts"]] == ["success", "success"]
        assert sample["scores"][0]["values"] == {"pass": 1.0}
        audit = sample["verdicts"][1]["data"]["checks"]
        assert all(audit.values()) and len(audit) == 10
