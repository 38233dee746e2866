"""``kernel compare``: tell two or more agent/model pairs apart, task by task, with statistics.

An *arm* is one (run, agent, model): a run with two models gives two arms. Every pair of arms is
compared on the tasks both have (partly overlapping task sets are compared on their intersection,
and the comparison says so), from the run directories alone (``runindex.py``: no plugin).

For each pair (A, B):

* per task, the paired outcomes: samples, solved samples and each metric's mean over the task's
  samples, for A and for B; tasks where the solved rates differ (*disagreements*) come first;
* per metric (``solved`` is the task's solved rate; the others are the scorers' values and
  harness measurements), the mean over tasks of B - A with its paired bootstrap 95 % interval
  (``stats.paired_bootstrap``, resampling tasks), on the tasks where both have a value;
* for ``solved`` and every metric whose values are all 0 or 1, McNemar's exact test
  (``stats.mcnemar_exact``) on the first attempt of each task (its lowest-index sample), so
  that the pairs are independent, as the test assumes.

Samples that ended in ``error`` (an infrastructure failure, not a verdict) are left out, and the
comparison says how many. Runs of different benchmarks, or whose tasks of the same id differ in
content (``Sample.task_digest``), are refused with the reason: they do not measure the same thing.
P-values are not adjusted for multiple comparisons.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from speckernel.errors import KernelError
from speckernel.model import to_json
from speckernel.runindex import Entry, RunIndex, group_entries, load_entries
from speckernel.stats import Interval, mcnemar_exact, mean, paired_bootstrap

SOLVED = "solved"


@attrs.frozen
class Arm:
    """One (run, agent, model) with its label in the tables (A, B, ...)."""

    label: str
    run: str
    benchmark: str
    agent: str
    model: str
    samples: int
    tasks: int
    errors: int


@attrs.frozen
class TaskOutcome:
    """One arm on one task: samples (errors left out), solved ones, each metric's mean."""

    samples: int
    solved: int
    means: Mapping[str, float | None]

    @property
    def rate(self) -> float:
        return self.solved / self.samples


@attrs.frozen
class TaskPair:
    task_id: str
    a: TaskOutcome
    b: TaskOutcome

    @property
    def disagree(self) -> bool:
        return self.a.rate != self.b.rate


@attrs.frozen
class MetricDifference:
    """``mean_b - mean_a`` over ``tasks`` paired tasks, with its bootstrap interval."""

    metric: str
    tasks: int
    mean_a: float
    mean_b: float
    difference: Interval


@attrs.frozen
class ExactTest:
    """McNemar's exact test on the first attempts: ``only_a`` pairs solved (or scored 1) by A
    alone, ``only_b`` by B alone."""

    outcome: str
    pairs: int
    both: int
    only_a: int
    only_b: int
    neither: int
    p_value: float


@attrs.frozen
class PairComparison:
    a: str
    b: str
    tasks: tuple[TaskPair, ...]
    differences: tuple[MetricDifference, ...]
    tests: tuple[ExactTest, ...]
    notes: tuple[str, ...]

    @property
    def disagreements(self) -> int:
        return sum(t.disagree for t in self.tasks)


@attrs.frozen
class Comparison:
    """Everything ``kernel compare`` prints; ``to_json`` of it is the JSON output."""

    benchmark: str
    arms: tuple[Arm, ...]
    pairs: tuple[PairComparison, ...]
    notes: tuple[str, ...]
    confidence: float
    resamples: int
    seed: int


# --------------------------------------------------------------------------- building


def compare_runs(roots: Sequence[Path], *, resamples: int = 10_000, seed: int = 0,
                 confidence: float = 0.95) -> Comparison:
    """Read ``roots`` and compare every pair of their arms (see the module docstring)."""
    if not roots:
        raise KernelError("give at least one run directory")
    indexes = [load_entries(root) for root in roots]
    return compare_indexes(indexes, [str(r) for r in roots], resamples=resamples, seed=seed,
                           confidence=confidence)


def compare_indexes(indexes: Sequence[RunIndex], names: Sequence[str], *,
                    resamples: int = 10_000, seed: int = 0,
                    confidence: float = 0.95) -> Comparison:
    """``compare_runs`` on runs already indexed (the viewer's), ``names`` naming them."""
    if resamples < 1:
        raise KernelError(f"resamples must be at least 1, got {resamples}")
    benchmarks = {name: index.benchmark_name for name, index in zip(names, indexes, strict=True)}
    if len(set(benchmarks.values())) > 1:
        raise KernelError("runs of different benchmarks cannot be compared: " + ", ".join(
            f"{name} is {bench or '(unknown)'}" for name, bench in benchmarks.items()))
    arms: list[Arm] = []
    members: list[list[Entry]] = []
    for name, index in zip(names, indexes, strict=True):
        for (agent, model), entries in group_entries(index.entries).items():
            kept = [e for e in entries if e.status != "error"]
            arms.append(Arm(_label(len(arms)), name, index.benchmark, agent, model, len(kept),
                            len({e.key.task_id for e in kept}), len(entries) - len(kept)))
            members.append(kept)
    if len(arms) < 2:
        raise KernelError("nothing to compare: the runs hold one agent/model pair between them; "
                          "give two runs, or a run with two models or agents")
    _refuse_different_tasks(arms, members)
    notes = [f"{arm.label}: {arm.errors} sample(s) ended in error and are left out"
             for arm in arms if arm.errors]
    versions = {arm.benchmark for arm in arms}
    if len(versions) > 1:
        notes.append("benchmark versions differ (" + ", ".join(sorted(versions)) + "); "
                     "every shared task has the same content")
    pairs = tuple(
        _compare_pair(arms[i], members[i], arms[j], members[j], resamples, seed, confidence)
        for i in range(len(arms)) for j in range(i + 1, len(arms)))
    return Comparison(next(iter(benchmarks.values())), tuple(arms), pairs, tuple(notes),
                      confidence, resamples, seed)


def _label(i: int) -> str:
    letters = ""
    i += 1
    while i:
        i, rest = divmod(i - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _refuse_different_tasks(arms: Sequence[Arm], members: Sequence[Sequence[Entry]]) -> None:
    """Refuse when a task id stands for different content in two arms."""
    seen: dict[str, tuple[str, str]] = {}
    for arm, entries in zip(arms, members, strict=True):
        for e in entries:
            if not e.task_digest:
                continue
            first = seen.setdefault(e.key.task_id, (e.task_digest, arm.run))
            if first[0] != e.task_digest:
                raise KernelError(
                    f"task '{e.key.task_id}' is not the same task in {first[1]} and {arm.run} "
                    "(its content differs): the runs used different task sets")


def _outcomes(entries: Sequence[Entry]) -> dict[str, TaskOutcome]:
    by_task: dict[str, list[Entry]] = {}
    for e in entries:
        by_task.setdefault(e.key.task_id, []).append(e)
    out = {}
    for task_id, rows in by_task.items():
        names = sorted({n for r in rows for n in r.metrics})
        means = {}
        for n in names:
            present = [v for r in rows if (v := r.metrics.get(n)) is not None]
            means[n] = mean(present) if present else None
        out[task_id] = TaskOutcome(len(rows), sum(r.solved for r in rows), means)
    return out


def _first_attempts(entries: Sequence[Entry]) -> dict[str, Entry]:
    first: dict[str, Entry] = {}
    for e in entries:
        if e.key.task_id not in first or e.key.index < first[e.key.task_id].key.index:
            first[e.key.task_id] = e
    return first


def _compare_pair(arm_a: Arm, a: Sequence[Entry], arm_b: Arm, b: Sequence[Entry],
                  resamples: int, seed: int, confidence: float) -> PairComparison:
    out_a, out_b = _outcomes(a), _outcomes(b)
    common = sorted(set(out_a) & set(out_b))
    notes = []
    if not common:
        raise KernelError(f"{arm_a.label} ({arm_a.run}) and {arm_b.label} ({arm_b.run}) have no "
                          "task in common (counting samples that did not end in error)")
    only_a, only_b = len(out_a) - len(common), len(out_b) - len(common)
    if only_a or only_b:
        notes.append(f"compared on the {len(common)} task(s) both have: {only_a} only in "
                     f"{arm_a.label}, {only_b} only in {arm_b.label} are left out")
    pairs = [TaskPair(t, out_a[t], out_b[t]) for t in common]
    pairs.sort(key=lambda p: (not p.disagree, -abs(p.b.rate - p.a.rate), p.task_id))

    metrics = [SOLVED, *sorted({n for p in pairs for n in (*p.a.means, *p.b.means)})]
    differences = []
    for name in metrics:
        paired = [(x, y) for p in pairs
                  if (x := _task_value(p.a, name)) is not None
                  and (y := _task_value(p.b, name)) is not None]
        if not paired:
            notes.append(f"{name}: no task has a value in both; not compared")
            continue
        diffs = [y - x for x, y in paired]
        if not all(math.isfinite(v) for v in (*diffs, *(x for x, _ in paired))):
            notes.append(f"{name}: values beyond the float range; not compared")
            continue
        differences.append(MetricDifference(
            name, len(paired), mean([x for x, _ in paired]), mean([y for _, y in paired]),
            paired_bootstrap(diffs, resamples=resamples, confidence=confidence, seed=seed)))

    first_a, first_b = _first_attempts(a), _first_attempts(b)
    tests = []
    for name in metrics:
        outcomes = [(x, y) for t in common
                    if (x := _binary(first_a[t], name)) is not None
                    and (y := _binary(first_b[t], name)) is not None]
        if not outcomes or not _is_binary(name, a, b):
            continue
        n_a = sum(x and not y for x, y in outcomes)
        n_b = sum(y and not x for x, y in outcomes)
        tests.append(ExactTest(name, len(outcomes), sum(x and y for x, y in outcomes), n_a, n_b,
                               sum(not x and not y for x, y in outcomes),
                               mcnemar_exact(n_a, n_b)))
    return PairComparison(arm_a.label, arm_b.label, tuple(pairs), tuple(differences),
                          tuple(tests), tuple(notes))


def _task_value(outcome: TaskOutcome, metric: str) -> float | None:
    return outcome.rate if metric == SOLVED else outcome.means.get(metric)


def _binary(entry: Entry, metric: str) -> bool | None:
    if metric == SOLVED:
        return entry.solved
    value = entry.metrics.get(metric)
    return None if value is None else value == 1.0


def _is_binary(metric: str, a: Sequence[Entry], b: Sequence[Entry]) -> bool:
    """``solved``, or a metric every present value of which is 0 or 1 in both arms."""
    if metric == SOLVED:
        return True
    return all(e.metrics.get(metric) in (None, 0.0, 1.0) for e in (*a, *b))


# --------------------------------------------------------------------------- rendering


def fmt(value: float | None) -> str:
    """Four significant digits; ``-`` for a missing value."""
    if value is None:
        return "-"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.4g}"


def fmt_p(p: float) -> str:
    return f"{p:.3g}"


def outcome_text(outcome: TaskOutcome) -> str:
    return f"{outcome.solved}/{outcome.samples}"


def interval_text(interval: Interval) -> str:
    return f"[{fmt(interval.low)}, {fmt(interval.high)}]"


def arm_text(arm: Arm) -> str:
    return f"{arm.run} · {arm.agent} · {arm.model}"


def _md(text: object) -> str:
    """Text that Markdown shows literally: no raw HTML, no cell breaks."""
    return html.escape(str(text), quote=False).replace("|", "\\|").replace("\n", " ")


def _md_table(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    return ["| " + " | ".join(_md(c) for c in columns) + " |",
            "|" + "---|" * len(columns),
            *("| " + " | ".join(_md(c) for c in row) + " |" for row in rows)]


def render_markdown(comparison: Comparison) -> str:
    """The comparison as Markdown: arms, notes, then per pair the differences, the tests and
    the tasks, disagreements first."""
    level = f"{100 * comparison.confidence:g} %"
    lines = [f"# Comparison: {_md(comparison.benchmark or 'runs')}", ""]
    lines += _md_table(("arm", "run", "agent", "model", "tasks", "samples", "errors"), [
        (a.label, a.run, a.agent, a.model, a.tasks, a.samples, a.errors)
        for a in comparison.arms])
    lines += [""] + [f"- {_md(n)}" for n in comparison.notes]
    for pair in comparison.pairs:
        lines += ["", f"## {pair.b} vs {pair.a}", ""]
        lines += [f"- {_md(n)}" for n in pair.notes]
        lines += [f"- {pair.disagreements} of {len(pair.tasks)} task(s) disagree on the solved "
                  "rate", ""]
        lines += _md_table(
            ("metric", "tasks", f"mean {pair.a}", f"mean {pair.b}", f"{pair.b} - {pair.a}",
             f"{level} interval"),
            [(d.metric, d.tasks, fmt(d.mean_a), fmt(d.mean_b), fmt(d.difference.estimate),
              interval_text(d.difference)) for d in pair.differences])
        if pair.tests:
            lines += [""]
            lines += _md_table(
                ("outcome (first attempts)", "pairs", "both", f"only {pair.a}",
                 f"only {pair.b}", "neither", "McNemar exact p"),
                [(t.outcome, t.pairs, t.both, t.only_a, t.only_b, t.neither, fmt_p(t.p_value))
                 for t in pair.tests])
        lines += [""]
        lines += _md_table(
            ("task", f"{pair.a} solved", f"{pair.b} solved", "disagree"),
            [(t.task_id, outcome_text(t.a), outcome_text(t.b), "yes" if t.disagree else "")
             for t in pair.tasks])
    lines += ["", f"_Intervals: paired bootstrap over tasks, {comparison.resamples} resamples, "
              f"percentile method, seed {comparison.seed}. McNemar's exact test on each task's "
              "first attempt; p-values not adjusted for multiple comparisons. Samples that "
              "ended in error are left out._"]
    return "\n".join(lines) + "\n"


def render_json(comparison: Comparison) -> str:
    """``to_json`` of the comparison, with each pair's disagreement count added."""
    data = to_json(comparison)
    for raw, pair in zip(data["pairs"], comparison.pairs, strict=True):
        raw["disagreements"] = pair.disagreements
        for task, row in zip(raw["tasks"], pair.tasks, strict=True):
            task["disagree"] = row.disagree
    return json.dumps(_finite(data), indent=2, sort_keys=True, ensure_ascii=False,
                      allow_nan=False, default=str) + "\n"


def _finite(data: Any) -> Any:
    """JSON has no infinity: a per-task mean beyond the float range is written as null."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_finite(v) for v in data]
    return data


def render_html(comparison: Comparison) -> str:
    """A self-contained HTML page (no external resource): the viewer's comparison page."""
    from speckernel.viewer.templating import render_page

    return render_page("compare.html", standalone=True, comparison=comparison, title=(
        f"Comparison: {comparison.benchmark}" if comparison.benchmark else "Comparison"))


FORMATS = {"md": render_markdown, "json": render_json, "html": render_html}


def render(comparison: Comparison, form: str) -> str:
    """The comparison in format ``form`` (``md``, ``json`` or ``html``)."""
    if form not in FORMATS:
        raise KernelError(f"unknown format '{form}' (known: {', '.join(FORMATS)})")
    return FORMATS[form](comparison)
