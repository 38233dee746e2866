"""Real plugins' reference agents through a real Dask cluster give the verdicts and the report
of a local run (tla: SANY and TLC on workers; respec: Z3, DFA and SQL checks on workers)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


def verdicts(run: Path) -> dict[tuple[str, ...], list[tuple[str, tuple[str, ...]]]]:
    return {tuple(str(v) for v in r["key"].values()):
            [(v["status"], tuple(d["message"] for d in v["diagnostics"])) for v in r["verdicts"]]
            for r in map(json.loads, (run / "samples.jsonl").read_text().splitlines())}


def scores(run: Path) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    return {tuple(str(v) for v in r["key"].values()): r["scores"]
            for r in map(json.loads, (run / "samples.jsonl").read_text().splitlines())}


@pytest.mark.parametrize("plugin, args", [
    ("speckernel_tla", ["tla", "-t", "spinlock"]),
    ("speckernel_respec", ["respec", "-o", "domains=[regex, fol, gsm]", "--limit", "12"]),
])
def test_reference_run_on_the_cluster_matches_the_local_run(
        plugin: str, args: list[str], kernel_cli: Callable[..., Any],
        dask_cluster: Callable[[int], Any], tmp_path: Path) -> None:
    pytest.importorskip(plugin)
    cluster = dask_cluster(2)
    local, remote = tmp_path / "local", tmp_path / "remote"
    first = kernel_cli("run", *args, "--output", local, "--display", "none", "--no-cache")
    assert first.exit_code == 0, first.stderr
    second = kernel_cli("run", *args, "--output", remote, "--display", "none", "--no-cache",
                        "--cluster", cluster.address)
    assert second.exit_code == 0, second.stderr
    assert verdicts(local) and verdicts(remote) == verdicts(local)
    assert scores(remote) == scores(local)
    for run in (local, remote):
        assert kernel_cli("report", run).exit_code == 0
    tables = [json.loads((run / "report.json").read_text())["tables"] for run in (local, remote)]
    assert tables[0] == tables[1]
