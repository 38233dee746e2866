"""Tests of ``speckernel.report``: exact aggregates on hand-built samples, and the four files."""

from __future__ import annotations

import csv
import json
import random
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest

from speckernel.components import Benchmark, Metric, Table
from speckernel.model import (
    Candidate,
    Diagnostic,
    Provenance,
    Sample,
    SampleKey,
    Score,
    Status,
    Task,
    Usage,
    Verdict,
)
from speckernel.report import (
    MISSING,
    AggregateRow,
    Report,
    build_report,
    format_value,
    pass_at_k,
    write_report,
)
from speckernel.reportinputs import ReportInputs
from speckernel.runner import judged

ACCURACY = Metric("accuracy", "share of checks passed", unit="ratio")
STEPS = Metric("steps", "proof steps", unit="count", higher_is_better=False, aggregate="sum")
METRICS = (ACCURACY, STEPS)
KS = (1, 2, 3, 5)
RUN_INFO = {
    "benchmark": "toy",
    "version": "1.2",
    "created": "2024-01-01T00:00:00Z",
    "seed": 7,
    "plugins": {"toy": "0.1"},
}
EVIL = "<script>alert(1)</script>"


class Toy(Benchmark):
    """Solved: every verdict passed and accuracy is 1 (the default ``Benchmark.solved``)."""

    name = "toy"
    primary_metric: ClassVar[str | None] = "accuracy"

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        return []

    def report_tables(self, samples: Sequence[Sample]) -> list[Table]:
        rows = tuple((s.key.task_id, s.metrics().get("accuracy")) for s in samples[:2])
        return [Table("Table 3 of the paper", ("task", "accuracy"), rows, "as in the paper")]


class ToyNoPrimary(Toy):
    primary_metric = None


class ToyFewestSteps(Toy):
    primary_metric = "steps"


def make(task: str, agent: str, index: int, status: Status, accuracy: float | None = None,
         steps: float | None = None, error: str | None = None) -> Sample:
    """A sample with one verdict of ``status`` (none for an error), 120 tokens for $0.01 and a
    duration of ``1 + index`` seconds."""
    if status is Status.ERROR:
        return Sample(SampleKey(task, agent, "m", index), status, error=error,
                      duration_s=1.0 + index)
    candidate = Candidate({"a.tla": "x"}, Provenance(agent, "m", usage=Usage(100, 20, 0.01, 1)))
    return Sample(
        SampleKey(task, agent, "m", index),
        status,
        candidate,
        (Verdict("check", status),),
        (Score("toy", {"accuracy": accuracy, "steps": steps}),),
        duration_s=1.0 + index,
    )


S, F, U, T = Status.SUCCESS, Status.FAILURE, Status.UNKNOWN, Status.TIMEOUT
SAMPLES = [
    # a1: t1 has c=1 (index 0), t2 has c=0; one None accuracy, one error sample.
    make("t1", "a1", 0, S, 1.0, 4), make("t1", "a1", 1, F, 0.5, 2), make("t1", "a1", 2, F, 0.0, 1),
    make("t2", "a1", 0, F, 0.25, 3), make("t2", "a1", 1, T, None, 6),
    make("t2", "a1", 2, Status.ERROR, error="agent a1: RuntimeError: boom\n  at line 3"),
    # a2: t1 has c=2 (indexes 0 and 1, tied on accuracy), t2 has c=0 (indexes 0 and 1 tied).
    make("t1", "a2", 0, S, 1.0, 2), make("t1", "a2", 1, S, 1.0, 3), make("t1", "a2", 2, F, 0.75, 1),
    make("t2", "a2", 0, U, 0.5, 2), make("t2", "a2", 1, F, 0.5, 4), make("t2", "a2", 2, F, 0.0, 0),
]


def build(samples: Sequence[Sample], bench: Benchmark | None = None,
          info: Mapping[str, Any] = RUN_INFO, ks: Sequence[int] = KS) -> Report:
    """The report of ``samples`` as a run of ``bench`` records it: each sample judged by the
    benchmark when it was recorded, its tables made from all of them (``bench`` None: a run
    recorded before samples held their verdict)."""
    if bench is None:
        return build_report(samples, ReportInputs("", METRICS), info, ks)
    samples = [judged(bench, s) for s in samples]
    inputs = ReportInputs(bench.name, METRICS, bench.primary_metric,
                          tuple(bench.report_tables(sorted(samples, key=lambda s: s.key))))
    return build_report(samples, inputs, info, ks)


@pytest.fixture
def report() -> Report:
    return build(SAMPLES, Toy())


def row(report: Report, agent: str) -> AggregateRow:
    return next(a for a in report.aggregate if a.agent == agent)


# --------------------------------------------------------------------------- statistics


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (3, 1, 1, 1 / 3),   # 1 - C(2,1)/C(3,1) = 1 - 2/3
    (3, 1, 2, 2 / 3),   # 1 - C(2,2)/C(3,2) = 1 - 1/3
    (3, 1, 3, 1.0),     # C(2,3) = 0
    (3, 0, 2, 0.0),
    (10, 3, 5, 11 / 12),  # 1 - C(7,5)/C(10,5) = 1 - 21/252
])
def test_pass_at_k_is_chen_et_al_estimator(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(("value", "unit", "text"), [
    (0.4375, "ratio", "43.8%"),
    (1.0, "bool", "100.0%"),
    (16.0, "count", "16"),
    (7 / 3, "count", "2.33"),
    (2.0, "seconds", "2.00 s"),
    (0.05, "usd", "$0.0500"),
    (None, "ratio", MISSING),
])
def test_format_value(value: float | None, unit: str, text: str) -> None:
    assert format_value(value, unit) == text


# --------------------------------------------------------------------------- aggregates


def test_counts_tokens_cost_and_wall_time(report: Report) -> None:
    assert [(a.agent, a.model) for a in report.aggregate] == [("a1", "m"), ("a2", "m")]
    a1, a2 = row(report, "a1"), row(report, "a2")
    assert (a1.n_tasks, a1.n_samples) == (2, 6)
    assert a1.status_counts == {"success": 1, "failure": 3, "unknown": 0, "timeout": 1, "error": 1}
    assert a2.status_counts == {"success": 2, "failure": 3, "unknown": 1, "timeout": 0, "error": 0}
    assert (a1.tokens, a2.tokens) == (5 * 120, 6 * 120)
    assert a1.cost_usd == pytest.approx(0.05)
    assert a2.cost_usd == pytest.approx(0.06)
    assert a1.mean_wall_time_s == pytest.approx(2.0)


def test_metrics_over_samples_skip_none(report: Report) -> None:
    a1, a2 = row(report, "a1"), row(report, "a2")
    assert a1.over_samples["accuracy"] == pytest.approx((1.0 + 0.5 + 0.0 + 0.25) / 4)
    assert a1.over_samples["steps"] == 4 + 2 + 1 + 3 + 6
    assert a2.over_samples["accuracy"] == pytest.approx(3.75 / 6)
    assert a2.over_samples["steps"] == 2 + 3 + 1 + 2 + 4 + 0


def test_best_of_n_by_primary_metric_ties_to_lowest_index(report: Report) -> None:
    a1, a2 = row(report, "a1"), row(report, "a2")
    assert a1.best_of_n == {"accuracy": pytest.approx((1.0 + 0.25) / 2), "steps": 4 + 3}
    assert a2.best_of_n == {"accuracy": pytest.approx((1.0 + 0.5) / 2), "steps": 2 + 2}


def test_best_of_n_follows_direction_of_primary_metric() -> None:
    fewest = build(SAMPLES, ToyFewestSteps(), RUN_INFO)
    assert row(fewest, "a2").best_of_n["steps"] == 1 + 0


def test_best_of_n_without_primary_metric_prefers_solved() -> None:
    samples = [make("t", "a", 0, F, 0.9, 1), make("t", "a", 1, S, 0.2, 1)]
    by_solved = build(samples, ToyNoPrimary(), {})
    by_accuracy = build(samples, Toy(), {})
    assert row(by_solved, "a").best_of_n["accuracy"] == pytest.approx(0.2)
    assert row(by_accuracy, "a").best_of_n["accuracy"] == pytest.approx(0.9)


def test_pass_at_k_averages_over_tasks_and_omits_k_above_n(report: Report) -> None:
    a1, a2 = row(report, "a1"), row(report, "a2")
    assert a1.pass_at_k == pytest.approx({1: (1 / 3 + 0) / 2, 2: (2 / 3 + 0) / 2, 3: 0.5})
    assert a2.pass_at_k == pytest.approx({1: (2 / 3 + 0) / 2, 2: (1 + 0) / 2, 3: 0.5})


def test_without_benchmark_solved_means_every_verdict_succeeded() -> None:
    samples = [make("t", "a", 0, S, 0.0, 1), make("t", "a", 1, F, 1.0, 1),
               make("t", "a", 2, Status.ERROR, error="boom")]
    report = build(samples, None, {})
    assert row(report, "a").pass_at_k[1] == pytest.approx(1 / 3)
    assert report.tables == ()


def test_per_task_rows(report: Report) -> None:
    cells = {(t.task_id, t.agent): (t.n_samples, t.n_solved, dict(t.means))
             for t in report.per_task}
    assert cells[("t1", "a1")] == (3, 1, {"accuracy": 0.5, "steps": pytest.approx(7 / 3)})
    assert cells[("t2", "a1")] == (3, 0, {"accuracy": 0.25, "steps": 4.5})
    assert cells[("t1", "a2")] == (3, 2, {"accuracy": pytest.approx(2.75 / 3), "steps": 2.0})


def test_distributions_and_errors(report: Report) -> None:
    accuracy_a1 = next(d for d in report.distributions if (d.metric, d.agent) == ("accuracy", "a1"))
    assert accuracy_a1.values == (1.0, 0.5, 0.0, 0.25)
    assert [(e.sample_id, e.error) for e in report.errors] == [
        ("t2__a1__m__2", "agent a1: RuntimeError: boom")]


def test_error_line_falls_back_to_the_error_verdict() -> None:
    verdict = Verdict("check", Status.ERROR, (Diagnostic("tlc crashed\nat Main.java:1"),))
    sample = Sample(SampleKey("t", "a", "m", 0), Status.ERROR, verdicts=(verdict,))
    report = build([sample], Toy(), {})
    assert [e.error for e in report.errors] == ["check: tlc crashed"]


# --------------------------------------------------------------------------- files


def written(report: Report, out_dir: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in write_report(report, out_dir)}


def test_writes_four_files_byte_identical_for_the_same_samples(tmp_path: Path) -> None:
    shuffled = list(SAMPLES)
    random.Random(1).shuffle(shuffled)
    first = write_report(build(SAMPLES, Toy(), RUN_INFO), tmp_path / "1")
    second = write_report(build(shuffled, Toy(), RUN_INFO), tmp_path / "2")
    assert [p.name for p in first] == ["report.md", "report.csv", "report.json", "report.html"]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_markdown(report: Report, tmp_path: Path) -> None:
    md = written(report, tmp_path)["report.md"]
    assert md.startswith("# speckernel report: toy\n")
    for text in ("## Run info", "| plugins.toy | 0.1 |", "## Summary", "## Metrics", "## pass@k",
                 "## Per task", "## Table 3 of the paper", "| t1 | 1 |", "## Errors",
                 "agent a1: RuntimeError: boom", "standard error clustered by task"):
        assert text in md
    a2_pass = next(line for line in md.splitlines() if line.startswith("| a2 | m | 33.3%"))
    assert a2_pass == ("| a2 | m | 33.3% \u00b1 33.3 [0.0, 66.7] | "
                       "50.0% \u00b1 50.0 [0.0, 100.0] | "
                       f"50.0% \u00b1 50.0 [0.0, 100.0] | {MISSING} |")
    assert "| a1 | m | accuracy | mean | 43.8% \u00b1 9.4 [25.0, 50.0] | " in md
    assert "| a1 | m | steps | sum | 16 | 7 | " in md  # a sum has no interval


# --------------------------------------------------------------------------- uncertainty


def test_every_mean_has_its_clustered_uncertainty(report: Report) -> None:
    """a1's accuracy: t1 has 1.0, 0.5, 0.0 and t2 has 0.25 (None and the error left out).
    Mean 0.4375; each task's summed deviation is +-0.1875, so the clustered standard error is
    sqrt(2/1 * 2 * 0.1875**2) / 4 = 0.09375; a bootstrap of two tasks can only draw t1 twice
    (0.5), t2 twice (0.25) or both (0.4375), each with probability >= 1/4, so the 95 %
    percentile interval is [0.25, 0.5]."""
    a1 = row(report, "a1")
    accuracy = a1.over_samples_uncertainty["accuracy"]
    assert accuracy is not None
    assert accuracy.estimate == pytest.approx(0.4375) == a1.over_samples["accuracy"]
    assert accuracy.standard_error == pytest.approx(0.09375)
    assert (accuracy.low, accuracy.high) == (0.25, 0.5)
    assert (accuracy.n, accuracy.clusters) == (4, 2)
    assert a1.over_samples_uncertainty["steps"] is None  # aggregated by sum: no interval
    best = a1.best_of_n_uncertainty["accuracy"]
    assert best is not None and best.estimate == pytest.approx(0.625)
    assert best.standard_error == pytest.approx(0.375)  # one value per task: sd / sqrt(2)
    assert a1.solved is not None and a1.n_solved == 1
    assert a1.solved.estimate == pytest.approx(1 / 6)
    pass1 = a1.pass_at_k_uncertainty[1]
    assert pass1 is not None and pass1.estimate == pytest.approx(a1.pass_at_k[1])
    assert (pass1.low, pass1.high) == (0.0, pytest.approx(1 / 3))


def test_one_task_gives_a_mean_without_an_interval() -> None:
    report = build([make("t", "a", i, S, 0.5 * i, 1) for i in range(3)], Toy(), {})
    estimate = row(report, "a").over_samples_uncertainty["accuracy"]
    assert estimate is not None and estimate.estimate == pytest.approx(0.5)
    assert (estimate.standard_error, estimate.low, estimate.high) == (None, None, None)
    md = written(report, Path(tempfile.mkdtemp()))["report.md"]
    assert "| a | m | accuracy | mean | 50.0% | " in md


def test_csv_is_one_tidy_row_per_sample(report: Report, tmp_path: Path) -> None:
    write_report(report, tmp_path)
    with (tmp_path / "report.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(SAMPLES)
    assert list(rows[0]) == ["sample_id", "task_id", "agent", "model", "index", "status",
                             "solved", "accuracy", "steps", "tokens", "cost_usd", "duration_s",
                             "error"]
    by_id = {r["sample_id"]: r for r in rows}
    assert by_id["t2__a1__m__0"]["accuracy"] == "0.25"
    assert by_id["t2__a1__m__1"]["accuracy"] == ""
    assert by_id["t1__a1__m__0"]["solved"] == "True"
    assert by_id["t2__a1__m__2"]["status"] == "error"


def test_json_holds_the_whole_report(report: Report, tmp_path: Path) -> None:
    data = json.loads(written(report, tmp_path)["report.json"])
    assert data["run_info"] == RUN_INFO
    assert data["aggregate"][1]["pass_at_k"] == pytest.approx({"1": 1 / 3, "2": 0.5, "3": 0.5})
    assert data["tables"][0]["title"] == "Table 3 of the paper"
    assert len(data["samples"]) == len(SAMPLES)


class TagChecker(HTMLParser):
    """Fails on an end tag that does not close the innermost open element."""

    VOID: ClassVar[set[str]] = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open.pop() == tag, f"unexpected </{tag}>"


def check_html(text: str) -> None:
    checker = TagChecker()
    checker.feed(text)
    checker.close()
    assert checker.open == []
    assert "http://" not in text
    assert "https://" not in text


def test_html_is_self_contained_and_well_formed(report: Report, tmp_path: Path) -> None:
    page = written(report, tmp_path)["report.html"]
    check_html(page)
    assert "<svg" in page
    assert ">task</text>" in page  # two tasks: one bar group per task
    for text in ("Table 3 of the paper", "as in the paper", "pass@k", "43.8%", "plugins.toy"):
        assert text in page


def test_html_compares_models_side_by_side_with_error_bars(report: Report,
                                                           tmp_path: Path) -> None:
    """One chart per view with both agents' bars in it (a legend names them), error bars on
    every mean, and every table in a box that scrolls sideways rather than cut a column."""
    page = written(report, tmp_path)["report.html"]
    charts = re.findall(r"<svg .*?</svg>", page, re.DOTALL)
    # pass@k, then per metric: its summary and its per-task chart
    assert len(charts) == 1 + 2 * len(METRICS)
    for chart in charts:
        assert chart.count('<g class="legend">') == 2
        assert "a1 / m" in chart and "a2 / m" in chart
    pass_chart, accuracy_summary = charts[0], charts[1]
    assert pass_chart.count('class="errorbar"') == 2 * 3  # two arms, k = 1, 2, 3
    assert accuracy_summary.count('class="errorbar"') == 2 * 2  # all samples and best-of-n
    assert "95% interval 25.0% to 50.0%" in accuracy_summary
    assert 'class="errorbar"' not in charts[3]  # steps is a sum: no interval
    tables = page.count("<table>")
    assert page.count('<div class="scroll"><table>') == tables > 0
    assert "overflow-x: auto" in page


def test_html_skips_metrics_without_any_value(tmp_path: Path) -> None:
    samples = [make("t1", "a", 0, S, None, 1), make("t2", "a", 0, F, None, 2)]
    page = written(build(samples, Toy(), {}), tmp_path)["report.html"]
    check_html(page)
    assert "<h3>accuracy</h3>" not in page and "<h3>steps</h3>" in page


def test_html_histograms_when_there_are_many_tasks(tmp_path: Path) -> None:
    samples = [make(f"t{i:02}", "a", 0, S, i / 12, i) for i in range(12)]
    page = written(build(samples, Toy(), {}), tmp_path)["report.html"]
    check_html(page)
    assert page.count("<svg") == 1 + 2 * len(METRICS)
    assert "accuracy (bin start)" in page


def test_untrusted_text_is_escaped(tmp_path: Path) -> None:
    evil_error = '<img src=x onerror="alert(2)">'
    samples = [make(EVIL, "a", 0, S, 1.0, 1),
               make(EVIL, "a", 1, Status.ERROR, error=evil_error)]
    files = written(build(samples, Toy(), {"benchmark": EVIL}), tmp_path)
    for name in ("report.md", "report.html"):
        assert "<script" not in files[name]
        assert "<img" not in files[name]
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in files[name]
    check_html(files["report.html"])


def test_no_samples(tmp_path: Path) -> None:
    report = build([], Toy(), RUN_INFO)
    files = written(report, tmp_path)
    assert report.aggregate == ()
    assert "No samples." in files["report.md"]
    assert "No samples." in files["report.html"]
    assert files["report.csv"].count("\n") == 1
    assert json.loads(files["report.json"])["samples"] == []
    check_html(files["report.html"])
