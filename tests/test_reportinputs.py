"""A report comes out the same wherever it is made: what it needs from the benchmark (metric
definitions, each sample's solved verdict, the benchmark's tables) is recorded in the run
directory, and a report without the plugin reads it there or refuses with one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from speckernel import cli, hookimpl
from speckernel.components import Benchmark, Metric, Phase, Scorer, Table, Verifier
from speckernel.model import Sample, Score, Status, Task, Verdict
from speckernel.runindex import load_entries

QUALITY = {"alpha": 1.0, "beta": 0.6, "gamma": 0.95}


class Graded(Verifier):
    name = "graded.check"

    async def verify(self, candidate, task, ctx):
        return Verdict(self.name, Status.SUCCESS, data={"quality": QUALITY[task.id]})


class Quality(Scorer):
    name = "graded.score"
    metrics = (Metric("quality", "how good", unit="ratio"),)

    def score(self, task, candidate, verdicts):
        return Score(self.name, {"quality": verdicts[0].data["quality"]})


class GradedBench(Benchmark):
    """Every verdict passes, but a sample counts as solved only from quality 0.9 up: the
    kernel's own judgement (every verdict passed) would say all three are."""

    name = "graded"
    phases = (Phase("check", ("graded.check",)),)
    scorers = ("graded.score",)
    primary_metric = "quality"

    def tasks(self, options):
        return [Task(t, self.name, reference={"a.txt": t}) for t in QUALITY]

    def solved(self, sample: Sample) -> bool:
        return (sample.metrics().get("quality") or 0.0) >= 0.9

    def report_tables(self, samples):
        rows = tuple((s.key.task_id, s.metrics()["quality"]) for s in samples)
        return [Table("Quality as in the paper", ("task", "quality"), rows)]


class Plugin:
    @hookimpl
    def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
        register(GradedBench())

    @hookimpl
    def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
        register(Graded())

    @hookimpl
    def register_scorers(self, register: Callable[[Scorer], None]) -> None:
        register(Quality())


@pytest.fixture
def graded_run(kernel_cli, kernel_plugins, run_dir: Path) -> Path:
    kernel_plugins(Plugin())
    result = kernel_cli("run", "graded", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert "2 solved" in result.stdout
    return run_dir


def uninstall(monkeypatch: pytest.MonkeyPatch) -> None:
    """The graded plugin is not installed any more (a reader's machine)."""
    monkeypatch.setattr(cli, "EXTRA_PLUGINS", {})


def report_json(kernel_cli, run: Path) -> dict:
    result = kernel_cli("report", run)
    assert result.exit_code == 0, result.stderr
    return json.loads((run / "report.json").read_text())


def test_a_report_is_the_same_without_the_plugin(kernel_cli, graded_run: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 17 A: without the plugin, pass@1 came out 100 % instead of 2/3 and the benchmark's
    tables vanished."""
    with_plugin = report_json(kernel_cli, graded_run)
    uninstall(monkeypatch)
    assert "graded" not in kernel_cli("list", "benchmarks").stdout
    without = report_json(kernel_cli, graded_run)
    assert without == with_plugin
    [row] = without["aggregate"]
    assert row["pass_at_k"]["1"] == pytest.approx(2 / 3) and row["n_solved"] == 2
    assert without["tables"][0]["title"] == "Quality as in the paper"
    assert [m["name"] for m in without["metrics"]] == ["quality"]
    assert "Quality as in the paper" in (graded_run / "report.html").read_text()
    solved = {e.key.task_id: e.solved for e in load_entries(graded_run).entries}
    assert solved == {"alpha": True, "beta": False, "gamma": True}  # the viewer agrees


def test_a_run_recorded_without_its_inputs_needs_the_plugin(
        kernel_cli, graded_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run from before runs recorded what reports need: reported with the plugin (as before),
    refused without it, never reported differently."""
    expected = report_json(kernel_cli, graded_run)
    (graded_run / "benchmark.json").unlink()
    samples = graded_run / "samples.jsonl"
    old = [json.loads(line) for line in samples.read_text().splitlines()]
    for record in old:
        del record["solved"]
    samples.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert report_json(kernel_cli, graded_run) == expected
    uninstall(monkeypatch)
    refused = kernel_cli("report", graded_run)
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"error: {graded_run} was recorded by an older kernel, and its benchmark 'graded' is "
        "not installed here: install its plugin to report this run (kernel plugins lists what "
        "is installed)\n")


def test_tables_made_from_other_samples_are_not_shown_as_these(
        kernel_cli, graded_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample added after the tables were made (a run stopped by Ctrl-C before it recorded
    them, a shard that finished first): the plugin makes them again, or the report refuses."""
    samples = graded_run / "samples.jsonl"
    lines = samples.read_text().splitlines()
    extra = json.loads(lines[0])
    extra["key"]["index"] = 1
    samples.write_text("\n".join([*lines, json.dumps(extra)]) + "\n")
    data = report_json(kernel_cli, graded_run)
    assert len(data["tables"][0]["rows"]) == 4
    uninstall(monkeypatch)
    refused = kernel_cli("report", graded_run)
    assert refused.exit_code == 2
    assert "has samples its recorded report tables were not made from" in refused.stderr


def test_the_verdict_is_recorded_in_each_sample(graded_run: Path) -> None:
    records = [json.loads(x) for x in (graded_run / "samples.jsonl").read_text().splitlines()]
    assert {r["key"]["task_id"]: r["solved"] for r in records} == {
        "alpha": True, "beta": False, "gamma": True}
    recorded = json.loads((graded_run / "benchmark.json").read_text())
    assert recorded["metrics"][0]["name"] == "quality" and recorded["primary_metric"] == "quality"
    assert recorded["tables"][0]["title"] == "Quality as in the paper"
