"""Verification on a real Dask cluster (scheduler and workers started here, on loopback), with
the fixture plugin: same verdicts as a local run, a worker lost mid-run, workers refused for a
different tool version, a worker without the tool, a scheduler that goes away."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


def records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted(run.glob("samples*.jsonl"))
            for line in path.read_text().splitlines()]


def verdicts(run: Path) -> dict[tuple[str, ...], list[tuple[str, str, tuple[str, ...]]]]:
    """Per sample key, what each verifier said (status, tool version, diagnostics)."""
    return {tuple(str(v) for v in r["key"].values()):
            [(v["status"], v["tool_version"], tuple(d["message"] for d in v["diagnostics"]))
             for v in r["verdicts"]] for r in records(run)}


def once_samples_appear(run: Path, action: Callable[[], object]) -> threading.Thread:
    """A thread that does ``action`` as soon as the run has recorded a sample (join it)."""

    def watch() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if run.joinpath("samples.jsonl").exists() and records(run):
                action()
                return
            time.sleep(0.05)

    thread = threading.Thread(target=watch)
    thread.start()
    return thread


def test_same_verdicts_and_report_as_a_local_run(
        kernel_cli, pyfunc, dask_cluster: Callable[[int], Any], tmp_path: Path) -> None:
    cluster = dask_cluster(2)
    local, remote = tmp_path / "local", tmp_path / "remote"
    assert kernel_cli("run", "pyfunc", "-n", "2", "--output", local, "--display", "none",
                      "--no-cache").exit_code == 0
    result = kernel_cli("run", "pyfunc", "-n", "2", "--output", remote, "--display", "none",
                        "--no-cache", "--cluster", cluster.address)
    assert result.exit_code == 0, result.stderr
    assert verdicts(remote) == verdicts(local) and len(verdicts(local)) == 6
    assert comparable_report(kernel_cli, local) == comparable_report(kernel_cli, remote)


def comparable_report(kernel_cli: Callable[..., Any], run: Path) -> dict[str, Any]:
    """``report.json`` without what depends on timing (wall times, the run's own metadata)."""
    assert kernel_cli("report", run).exit_code == 0
    report = json.loads((run / "report.json").read_text())
    for row in report["aggregate"]:
        row.pop("mean_wall_time_s")
    return {k: report[k] for k in ("aggregate", "distributions", "per_task", "metrics",
                                   "tables", "ks")}


def test_a_worker_killed_mid_run(kernel_cli, pyfunc, dask_cluster: Callable[[int], Any],
                                 tmp_path: Path) -> None:
    """SIGKILL one of two workers once samples are coming in: the run completes, every sample
    once, every verdict as a local run gives it."""
    cluster = dask_cluster(2)
    run = tmp_path / "run"
    killer = once_samples_appear(run, lambda: cluster.kill("w1"))
    result = kernel_cli("run", "pyfunc", "-n", "10", "--output", run, "--display", "none",
                        "--no-cache", "--cluster", cluster.address)
    killer.join()
    assert result.exit_code == 0, result.stderr
    assert cluster.workers["w1"].poll() is not None  # it was killed during the run
    keys = [tuple(r["key"].values()) for r in records(run)]
    assert len(keys) == len(set(keys)) == 30
    assert {r["status"] for r in records(run)} == {"success"}


def another_python() -> tuple[str, str, str] | None:
    """(path, its version, ours) of an interpreter whose version differs from the kernel's:
    the system's, or another installed next to ours."""
    import glob
    import subprocess
    import sys

    def version(path: str) -> str:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        return (done.stdout + done.stderr).strip()

    ours = version(sys.executable)
    siblings = glob.glob(str(Path(sys.base_prefix).parent / "*" / "bin" / "python3"))
    for path in ["/usr/bin/python3", *sorted(siblings)]:
        if Path(path).is_file() and version(path) not in (ours, ""):
            return path, version(path), ours
    return None


def test_a_worker_with_another_tool_version_is_refused(
        kernel_cli, pyfunc, dask_cluster: Callable[[int], Any], tmp_path: Path) -> None:
    found = another_python()
    if found is None:
        pytest.skip("no Python interpreter of another version on this machine")
    other, theirs, ours = found
    cluster = dask_cluster(1)
    cluster.add_worker("odd", env={"PYFUNC_PYTHON": other})
    cluster.wait_for(2)
    run = tmp_path / "run"
    result = kernel_cli("run", "pyfunc", "--output", run, "--display", "none", "--no-cache",
                        "--cluster", cluster.address)
    assert result.exit_code == 0, result.stderr
    [line] = [x for x in result.stderr.splitlines() if "refused" in x]
    assert "cluster worker odd" in line
    assert f"tool 'pyfunc-python' {theirs} vs the run's {ours}" in line
    assert {r["status"] for r in records(run)} == {"success"}


def test_only_refused_workers_stop_the_run(kernel_cli, pyfunc, dask_cluster, tmp_path) -> None:
    cluster = dask_cluster(0)
    cluster.add_worker("stale", env={"PYFUNC_PYTHON": "/usr/bin/env"})
    cluster.wait_for(1)
    result = kernel_cli("run", "pyfunc", "--output", tmp_path / "run", "--display", "none",
                        "--cluster", cluster.address)
    assert result.exit_code == 2
    assert "no usable worker" in result.stderr and "pyfunc-python" in result.stderr


def test_a_worker_without_the_tool_gives_the_tools_error_verdict(
        kernel_cli, pyfunc, dask_cluster: Callable[[int], Any], tmp_path: Path) -> None:
    cluster = dask_cluster(0)
    cluster.add_worker("bare", env={"PYFUNC_PYTHON": "/nonexistent/python"})
    cluster.wait_for(1)
    run = tmp_path / "run"
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--output", run, "--display", "none",
                        "--cluster", cluster.address)
    assert result.exit_code == 3, result.stderr  # a recorded error verdict, not a crash
    [record] = records(run)
    [verdict] = record["verdicts"]
    assert record["status"] == verdict["status"] == "error"
    assert verdict["diagnostics"][0]["message"] == (
        "tool 'pyfunc-python' is missing (/nonexistent/python does not exist); "
        "install it with: kernel tools install pyfunc-python")


def test_the_scheduler_going_away_stops_the_run_resumably(
        kernel_cli, pyfunc, dask_cluster: Callable[[int], Any], tmp_path: Path) -> None:
    cluster = dask_cluster(1)
    run = tmp_path / "run"
    stopper = once_samples_appear(run, cluster.scheduler.kill)
    result = kernel_cli("run", "pyfunc", "-n", "20", "--output", run, "--display", "none",
                        "--no-cache", "--cluster", cluster.address)
    stopper.join()
    assert "went away" in result.stdout + result.stderr
    done = len(records(run))
    assert 0 < done < 60
    resumed = kernel_cli("run", "--resume", run, "--display", "none")
    assert resumed.exit_code == 0, resumed.stderr
    final = {tuple(r["key"].values()): r["status"] for r in records(run)}
    assert len(final) == 60 and set(final.values()) == {"success"}


def test_a_verifier_claiming_a_machine_needs_a_worker_offering_it(
        kernel_cli, pyfunc, dask_cluster: Callable[[int], Any], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Resources: with no worker offering "machine", the run stops with the flag to add; with
    one that does, the calls run there only."""
    from speckernel_pyfunc.plugin import RunChecks

    monkeypatch.setattr(RunChecks, "resources", {"machine": 1})
    cluster = dask_cluster(1)
    refused = kernel_cli("run", "pyfunc", "--output", tmp_path / "a", "--display", "none",
                         "--cluster", cluster.address)
    assert refused.exit_code == 2 and "--resources \"machine=1\"" in refused.stderr
    cluster.add_worker("big", resources="machine=1")
    cluster.wait_for(2)
    run = tmp_path / "b"
    result = kernel_cli("run", "pyfunc", "--output", run, "--display", "none", "--no-cache",
                        "--cluster", cluster.address)
    assert result.exit_code == 0, result.stderr
    assert {r["status"] for r in records(run)} == {"success"}
