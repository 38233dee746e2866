"""Whole runs through the kernel CLI: the reference through the cheat checker without Verus,
and an agent's run recording the missing Verus as an error verdict that names it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from verus_fixtures import SHARED

from speckernel_verus import plugin
from speckernel_verus.benchmark import VerusBenchmark

VERUS_BENCH = SHARED / "Verus-Bench"
pytestmark = [
    pytest.mark.skipif(not VERUS_BENCH.is_dir(), reason=f"no data at {VERUS_BENCH}"),
    pytest.mark.usefixtures("helper"),
]


@pytest.fixture
def no_verus(monkeypatch: pytest.MonkeyPatch, kernel_plugins: Callable[..., None],
             tools_with_helper: Path) -> None:
    monkeypatch.delenv("VERUS", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    kernel_plugins(plugin)


def samples(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]


@pytest.mark.usefixtures("no_verus")
def test_reference_passes_the_cheat_checker_without_verus(
        kernel_cli: Callable[..., Any], run_dir: Path) -> None:
    result = kernel_cli("run", "verus", "--agent", "reference", "--check-only-cheats",
                        "-o", f"data={VERUS_BENCH}", "-o", "projects=CloverBench",
                        "--output", run_dir)
    assert result.exit_code == 0, result.stderr
    done = samples(run_dir)
    assert len(done) == 11
    for sample in done:
        assert [v["verifier"] for v in sample["verdicts"]] == ["verus.cheats"]
        assert sample["verdicts"][0]["status"] == "success", sample["key"]
    assert kernel_cli("report", run_dir).exit_code == 0
    report = (run_dir / "report.md").read_text()
    assert "Verified tasks per project" in report and "Cheat attempts caught" in report


@pytest.mark.usefixtures("no_verus")
def test_an_agent_run_without_verus_is_refused_before_any_model_call(
        kernel_cli: Callable[..., Any], scripted_model: Callable[..., str], run_dir: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # with the benchmark's own preflight out of the way, the kernel's refuses the run: every
    # tool a run's verifiers need is checked before the first model call
    monkeypatch.setattr(VerusBenchmark, "preflight", lambda self, options, agents: None)
    asked: list[object] = []
    model = scripted_model(lambda messages: asked.append(messages) or "")
    result = kernel_cli("run", "verus", "--agent", "verus-hands-on", "--model", model,
                        "-o", f"data={VERUS_BENCH}", "--limit", "1", "--output", run_dir)
    assert result.exit_code == 2 and asked == []
    assert "verus" in result.stderr and "kernel tools install verus" in result.stderr
    assert not (run_dir / "samples.jsonl").exists()
