"""Run reports: aggregate a run's samples into tables and write them as Markdown, CSV, JSON and
one self-contained HTML page.

``build_report`` is a pure function of its arguments: samples are sorted by key, every sum is
taken with ``math.fsum`` and every bootstrap has a fixed seed, so the same samples give
byte-identical files (the only timestamps are those the caller puts in ``run_info``).
``write_report`` renders a ``Report``; it reads nothing else. What the report needs from the
benchmark (its metrics, primary metric and tables) comes in a ``ReportInputs``, recorded in the
run directory while the run goes (``reportinputs.py``), so a report needs no plugin.

Definitions used throughout:

* a sample is *solved* when the benchmark said so when it was recorded (``Sample.solved``, from
  ``Benchmark.solved``); a sample recorded without that verdict is solved when it has at least
  one verdict and every verdict succeeded;
* *best-of-n* aggregates one sample per task: the best by the benchmark's ``primary_metric``
  (in the metric's ``higher_is_better`` direction, missing values last), else a solved one, ties
  going to the lowest attempt index;
* *pass@k* is the unbiased estimator of Chen et al. 2021, "Evaluating Large Language Models
  Trained on Code", eq. 1, averaged over tasks; every sample of a task counts towards its ``n``,
  including those that ended in ``error``;
* every mean (a metric aggregated by ``mean``, the solved rate, best-of-n, pass@k) comes with
  its uncertainty over tasks (``stats.clustered_mean``): the standard error clustered by task
  (Miller 2024, "Adding Error Bars to Evals", sec. 2.3: a task's samples share its difficulty,
  so they are not independent draws) and the 95 % percentile bootstrap interval resampling
  whole tasks (``RESAMPLES`` resamples, seed ``SEED``). Sums, maxima and minima have none.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs

from speckernel.charts import Bar, grouped_bar_chart, y_range
from speckernel.components import Metric, Table
from speckernel.escaping import printable
from speckernel.model import Sample, Status, strict_json, to_json
from speckernel.reportinputs import ReportInputs
from speckernel.stats import Estimate, clustered_mean

MISSING = "\u2013"
"""How a missing value (``None``, a k larger than the samples per task) is shown."""

FEW_TASKS = 10
"""Up to this many tasks the HTML plots one bar group per task instead of a histogram."""

HISTOGRAM_BINS = 10

RESAMPLES = 10_000
"""Bootstrap resamples of the tasks behind every interval of a report."""

SEED = 0
"""The bootstrap's seed: a report of the same samples is the same report."""

_PERCENT_UNITS = frozenset({"ratio", "bool"})
"""Units whose values are rates in [0, 1], shown as percentages."""

Group = tuple[str, str]
"""An (agent, model) pair: one row of the aggregate table."""

K = TypeVar("K", str, Group)


# --------------------------------------------------------------------------- the report


@attrs.frozen
class SampleRow:
    """One sample, flattened: a line of ``report.csv``.

    ``values`` holds every metric value the sample has (scores and harness measurements);
    ``tokens`` is input plus output tokens; ``unpriced_calls`` counts the model calls whose
    price was unknown (their cost is not in ``cost_usd``); ``answered_by`` is the model that
    answered the agent's calls when it is not ``model`` (a replay names the recorded model);
    ``error`` is the one-line reason of an ``error`` sample and ``None`` for every other status.
    """

    sample_id: str
    task_id: str
    agent: str
    model: str
    index: int
    status: Status
    solved: bool
    values: Mapping[str, float | None]
    tokens: int
    cost_usd: float
    duration_s: float
    error: str | None
    unpriced_calls: int = 0
    answered_by: str = ""


@attrs.frozen
class AggregateRow:
    """One (agent, model) over the whole run.

    ``over_samples`` aggregates each metric over all samples and ``best_of_n`` over the best
    sample of each task (see the module docstring), both with ``Metric.aggregate`` and skipping
    ``None``; the ``*_uncertainty`` mappings hold the same means with their standard errors and
    intervals (``None`` for a metric not aggregated by ``mean`` or without values). ``solved``
    is the rate of solved samples (errors count as unsolved). ``pass_at_k`` has a key for each
    requested k no larger than the fewest samples any task has; ``mean_wall_time_s`` is the
    mean of ``Sample.duration_s``; ``answered_by`` lists the models that answered when they are
    not ``model`` (a replay).
    """

    agent: str
    model: str
    n_tasks: int
    n_samples: int
    status_counts: Mapping[str, int]
    over_samples: Mapping[str, float | None]
    best_of_n: Mapping[str, float | None]
    pass_at_k: Mapping[int, float]
    tokens: int
    cost_usd: float
    mean_wall_time_s: float
    n_solved: int = 0
    solved: Estimate | None = None
    over_samples_uncertainty: Mapping[str, Estimate | None] = attrs.field(factory=dict)
    best_of_n_uncertainty: Mapping[str, Estimate | None] = attrs.field(factory=dict)
    pass_at_k_uncertainty: Mapping[int, Estimate | None] = attrs.field(factory=dict)
    unpriced_calls: int = 0
    answered_by: tuple[str, ...] = ()


@attrs.frozen
class TaskRow:
    """One task for one (agent, model): sample and solved counts and each metric's mean."""

    task_id: str
    agent: str
    model: str
    n_samples: int
    n_solved: int
    means: Mapping[str, float | None]


@attrs.frozen
class Distribution:
    """The values one metric took over one (agent, model)'s samples, ``None`` left out."""

    metric: str
    agent: str
    model: str
    values: tuple[float, ...]


@attrs.frozen
class Report:
    """Everything ``kernel report`` shows, as data; ``to_json(report)`` is ``report.json``."""

    title: str
    run_info: Mapping[str, Any]
    metrics: tuple[Metric, ...]
    ks: tuple[int, ...]
    aggregate: tuple[AggregateRow, ...]
    per_task: tuple[TaskRow, ...]
    distributions: tuple[Distribution, ...]
    tables: tuple[Table, ...]
    samples: tuple[SampleRow, ...]

    @property
    def errors(self) -> tuple[SampleRow, ...]:
        """The samples that ended in ``error``; each has its one-line ``error``."""
        return tuple(row for row in self.samples if row.status is Status.ERROR)


# --------------------------------------------------------------------------- statistics


def _present(values: Iterable[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator for one task, ``1 - C(n-c, k) / C(n, k)``, where ``n``
    samples were drawn and ``c`` of them are correct (Chen et al. 2021, eq. 1). Computed as
    ``(C(n, k) - C(n-c, k)) / C(n, k)`` on exact integers, so it is rounded once; requires
    ``0 < k <= n``."""
    total = math.comb(n, k)
    return (total - math.comb(n - c, k)) / total


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


_AGGREGATES: Mapping[str, Callable[[Sequence[float]], float]] = {
    "mean": _mean,
    "sum": math.fsum,
    "max": max,
    "min": min,
}


def aggregate(values: Iterable[float | None], how: str) -> float | None:
    """``Metric.aggregate`` (mean, sum, max or min) of the values that are not ``None``;
    ``None`` when there are none."""
    present = _present(values)
    return _AGGREGATES[how](present) if present else None


def _uncertainty(per_task: Iterable[Iterable[float | None]]) -> Estimate | None:
    """The mean of the values that are not ``None``, clustered by task (``stats``)."""
    return clustered_mean([_present(values) for values in per_task], resamples=RESAMPLES,
                          seed=SEED)


# --------------------------------------------------------------------------- building


def build_report(
    samples: Sequence[Sample],
    inputs: ReportInputs,
    run_info: Mapping[str, Any],
    ks: Sequence[int] = (1, 5, 10),
) -> Report:
    """Aggregate ``samples`` into a ``Report``; ``inputs.metrics`` are its metric columns."""
    ordered = sorted(samples, key=lambda s: s.key)
    rows = tuple(_sample_row(s) for s in ordered)
    metrics = inputs.metrics
    rank = _ranking(inputs.primary_metric, metrics)
    groups = _by(rows, lambda r: (r.agent, r.model))
    return Report(
        title=_title(run_info, inputs.benchmark),
        run_info=dict(run_info),
        metrics=tuple(metrics),
        ks=tuple(ks),
        aggregate=tuple(
            _aggregate_row(group, members, metrics, ks, rank) for group, members in groups.items()
        ),
        per_task=tuple(
            _task_row(task_id, members, metrics)
            for task_id, task_rows in _by(rows, lambda r: r.task_id).items()
            for members in _by(task_rows, lambda r: (r.agent, r.model)).values()
        ),
        distributions=tuple(
            Distribution(m.name, *group, tuple(_present(r.values.get(m.name) for r in members)))
            for m in metrics
            for group, members in groups.items()
        ),
        tables=tuple(inputs.tables),
        samples=rows,
    )


def _title(run_info: Mapping[str, Any], benchmark: str) -> str:
    """``speckernel report: tla 1.0`` from run.yaml's ``benchmark`` section (a mapping with name
    and version), else the benchmark's name."""
    info = run_info.get("benchmark")
    if isinstance(info, Mapping):
        name = " ".join(str(info[k]) for k in ("name", "version") if info.get(k))
    else:
        name = str(info or benchmark)
    return f"speckernel report: {name}" if name else "speckernel report"


def default_solved(sample: Sample) -> bool:
    """The kernel's own judgement, for a sample recorded without its benchmark's: it has
    verdicts and every one passed."""
    return bool(sample.verdicts) and all(v.passed for v in sample.verdicts)


def _sample_row(sample: Sample) -> SampleRow:
    provenance = sample.candidate.provenance if sample.candidate else None
    usage = provenance.usage if provenance else None
    answered = provenance.model if provenance and provenance.model != sample.key.model else ""
    return SampleRow(
        sample_id=sample.id,
        task_id=sample.key.task_id,
        agent=sample.key.agent,
        model=sample.key.model,
        index=sample.key.index,
        status=sample.status,
        solved=default_solved(sample) if sample.solved is None else sample.solved,
        values=dict(sorted({**sample.measurements, **sample.metrics()}.items())),
        tokens=usage.input_tokens + usage.output_tokens if usage else 0,
        cost_usd=usage.cost_usd if usage else 0.0,
        duration_s=sample.duration_s,
        error=_error_line(sample),
        unpriced_calls=usage.unpriced_calls if usage else 0,
        answered_by=answered,
    )


def _error_line(sample: Sample) -> str | None:
    """The first line of an ``error`` sample's error, else of its first ``error`` verdict."""
    if sample.status is not Status.ERROR:
        return None
    text = sample.error or next(
        (f"{v.verifier}: {v.diagnostics[0].message}"
         for v in sample.verdicts if v.status is Status.ERROR and v.diagnostics),
        "",
    )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "(no message)"


def _by(rows: Iterable[SampleRow], key: Callable[[SampleRow], K]) -> dict[K, list[SampleRow]]:
    """Rows grouped by ``key``, groups in sorted key order, rows in their given order."""
    out: dict[K, list[SampleRow]] = {}
    for row in rows:
        out.setdefault(key(row), []).append(row)
    return dict(sorted(out.items()))


def _ranking(primary: str | None, metrics: Sequence[Metric]) -> Callable[[SampleRow], Any]:
    """The sort key that puts a task's best sample first (see the module docstring)."""
    if primary is None:
        return lambda r: (not r.solved, r.index)
    sign = next((1 if m.higher_is_better else -1 for m in metrics if m.name == primary), 1)

    def key(row: SampleRow) -> tuple[bool, float, int]:
        value = row.values.get(primary)
        return value is None, -sign * (value or 0.0), row.index

    return key


def _aggregate_row(
    group: Group,
    members: Sequence[SampleRow],
    metrics: Sequence[Metric],
    ks: Sequence[int],
    rank: Callable[[SampleRow], Any],
) -> AggregateRow:
    tasks = list(_by(members, lambda r: r.task_id).values())
    best = [min(rows, key=rank) for rows in tasks]
    fewest = min(len(rows) for rows in tasks)
    means = [m for m in metrics if m.aggregate == "mean"]
    per_k = {k: [pass_at_k(len(rows), sum(r.solved for r in rows), k) for rows in tasks]
             for k in ks if k <= fewest}
    return AggregateRow(
        agent=group[0],
        model=group[1],
        n_tasks=len(tasks),
        n_samples=len(members),
        status_counts={s.value: sum(r.status is s for r in members) for s in Status},
        over_samples={m.name: aggregate((r.values.get(m.name) for r in members), m.aggregate)
                      for m in metrics},
        best_of_n={m.name: aggregate((r.values.get(m.name) for r in best), m.aggregate)
                   for m in metrics},
        pass_at_k={k: _mean(values) for k, values in per_k.items()},
        tokens=sum(r.tokens for r in members),
        cost_usd=math.fsum(r.cost_usd for r in members),
        mean_wall_time_s=_mean([r.duration_s for r in members]),
        n_solved=sum(r.solved for r in members),
        solved=_uncertainty([1.0 if r.solved else 0.0 for r in rows] for rows in tasks),
        over_samples_uncertainty={
            m.name: _uncertainty([r.values.get(m.name) for r in rows] for rows in tasks)
            if m in means else None for m in metrics},
        best_of_n_uncertainty={
            m.name: _uncertainty([r.values.get(m.name)] for r in best) if m in means else None
            for m in metrics},
        pass_at_k_uncertainty={k: _uncertainty([v] for v in values)
                               for k, values in per_k.items()},
        unpriced_calls=sum(r.unpriced_calls for r in members),
        answered_by=tuple(sorted({r.answered_by for r in members if r.answered_by})),
    )


def _task_row(task_id: str, members: Sequence[SampleRow], metrics: Sequence[Metric]) -> TaskRow:
    return TaskRow(
        task_id=task_id,
        agent=members[0].agent,
        model=members[0].model,
        n_samples=len(members),
        n_solved=sum(r.solved for r in members),
        means={m.name: aggregate((r.values.get(m.name) for r in members), "mean")
               for m in metrics},
    )


# --------------------------------------------------------------------------- display tables


def format_value(value: float | None, unit: str) -> str:
    """A value for people: ratios and booleans as percentages with one decimal, seconds and
    dollars with their unit, counts as integers when they are whole; ``None`` as ``MISSING``."""
    if value is None:
        return MISSING
    if unit in _PERCENT_UNITS:
        return f"{100 * value:.1f}%"
    if unit == "seconds":
        return f"{value:.2f} s"
    if unit == "usd":
        return f"${value:.4f}"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def _bare(value: float, unit: str) -> str:
    """A standard error or interval bound: in the value's scale (percentage points for
    rates), without its unit, two decimals for counts."""
    if unit in _PERCENT_UNITS:
        return f"{100 * value:.1f}"
    if unit == "usd":
        return f"{value:.4f}"
    return f"{value:.2f}"


def format_estimate(estimate: Estimate | None, unit: str) -> str:
    """``43.8% ± 5.2 [33.1, 54.0]``: the mean, its standard error and its 95 % interval, in the
    unit's scale (percentage points for rates); only the mean when the uncertainty is unknown
    (fewer than two tasks)."""
    if estimate is None:
        return MISSING
    text = format_value(estimate.estimate, unit)
    if estimate.standard_error is None or estimate.low is None or estimate.high is None:
        return text
    return (f"{text} \u00b1 {_bare(estimate.standard_error, unit)} "
            f"[{_bare(estimate.low, unit)}, {_bare(estimate.high, unit)}]")


def format_cost(cost_usd: float, unpriced_calls: int) -> str:
    """Dollars, saying when some calls had no known price (``$0.0300 + 2 unpriced calls``)
    or none had (``unknown (3 unpriced calls)``): an unknown price is not a zero."""
    if not unpriced_calls:
        return format_value(cost_usd, "usd")
    calls = f"{unpriced_calls} unpriced call{'s' if unpriced_calls != 1 else ''}"
    if cost_usd == 0:
        return f"unknown ({calls})"
    return f"{format_value(cost_usd, 'usd')} + {calls}"


UNCERTAINTY_NOTE = (f"x \u00b1 se [low, high]: the mean, its standard error clustered by task "
                    f"and its 95% bootstrap interval ({RESAMPLES:,} resamples of the tasks, "
                    "percentile method); rates in percentage points. No interval with fewer "
                    "than two tasks.")


def _cell(value: Any) -> str:
    """A benchmark table or run info cell: floats to four significant digits."""
    if value is None:
        return MISSING
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def _flatten(info: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Nested mappings as dotted keys: ``{"tools": {"tlc": "2.19"}}`` -> ``tools.tlc``."""
    out: list[tuple[str, str]] = []
    for key, value in info.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out += _flatten(value, f"{name}.")
        else:
            out.append((name, _cell(value)))
    return out


def _display_tables(report: Report) -> list[Table]:
    """The result tables of ``report.md`` and ``report.html``, cells already formatted."""
    tables: list[Table] = []
    if report.samples:
        tables += [_summary_table(report)]
        if report.metrics:
            tables.append(_metrics_table(report))
        tables += [_pass_at_k_table(report), _task_table(report)]
    tables += [_benchmark_table(t) for t in report.tables]
    if report.errors:
        tables.append(_errors_table(report.errors))
    return tables


def _run_info_table(report: Report) -> Table:
    """Provenance, shown after the results: readers come for the numbers first."""
    return Table("Run info", ("key", "value"), tuple(_flatten(report.run_info)))


def _model_label(row: AggregateRow) -> str:
    """The model column: a replay says which model it replays."""
    if not row.answered_by:
        return row.model
    return f"{row.model} (answered by {', '.join(row.answered_by)})"


def _summary_table(report: Report) -> Table:
    statuses = [s.value for s in Status]
    columns = ("agent", "model", "tasks", "samples", *statuses, "solved", "tokens", "cost",
               "mean wall time")
    rows = tuple(
        (a.agent, _model_label(a), str(a.n_tasks), str(a.n_samples),
         *(str(a.status_counts[s]) for s in statuses),
         f"{a.n_solved} ({format_estimate(a.solved, 'ratio')})",
         str(a.tokens), format_cost(a.cost_usd, a.unpriced_calls),
         format_value(a.mean_wall_time_s, "seconds"))
        for a in report.aggregate
    )
    note = (f"solved: samples the benchmark counts as solved (errors count as unsolved), and "
            f"their rate. {UNCERTAINTY_NOTE}")
    return Table("Summary", columns, rows, note)


def _metrics_table(report: Report) -> Table:
    """One row per (agent, model, metric): readable however many metrics there are."""
    rows = []
    for a in report.aggregate:
        for m in report.metrics:
            if m.aggregate == "mean":
                over = format_estimate(a.over_samples_uncertainty.get(m.name), m.unit)
                best = format_estimate(a.best_of_n_uncertainty.get(m.name), m.unit)
            else:
                over = format_value(a.over_samples[m.name], m.unit)
                best = format_value(a.best_of_n[m.name], m.unit)
            estimate = a.over_samples_uncertainty.get(m.name)
            rows.append((a.agent, _model_label(a), m.name, m.aggregate, over, best,
                         str(estimate.n) if estimate else MISSING))
    note = ("all samples: the metric aggregated over every sample with a value (n of them); "
            "best-of-n: per task, the best sample by the primary metric (else a solved one), "
            "then aggregated over tasks. Means with \u00b1 se [95% interval], as in Summary.")
    return Table("Metrics", ("agent", "model", "metric", "aggregate", "all samples",
                             "best-of-n", "n"), tuple(rows), note)


def _pass_at_k_table(report: Report) -> Table:
    rows = tuple(
        (a.agent, _model_label(a),
         *(format_estimate(a.pass_at_k_uncertainty.get(k), "ratio") if k in a.pass_at_k
           else MISSING for k in report.ks))
        for a in report.aggregate
    )
    note = ("pass@k = 1 - C(n-c, k) / C(n, k) per task, averaged over tasks (Chen et al. 2021, "
            f"eq. 1); n = samples of the task, c = solved ones; {MISSING} when a task has fewer "
            "than k samples. \u00b1 se [95% interval] over tasks, as in Summary.")
    return Table("pass@k", ("agent", "model", *(f"pass@{k}" for k in report.ks)), rows, note)


def _task_table(report: Report) -> Table:
    columns = ("task", "agent", "model", "samples", "solved", *(m.name for m in report.metrics))
    rows = tuple(
        (t.task_id, t.agent, t.model, str(t.n_samples), str(t.n_solved),
         *(format_value(t.means[m.name], m.unit) for m in report.metrics))
        for t in report.per_task
    )
    return Table("Per task", columns, rows, "Metric columns are means over the task's samples.")


def _benchmark_table(table: Table) -> Table:
    rows = tuple(tuple(_cell(v) for v in row) for row in table.rows)
    return Table(table.title, tuple(table.columns), rows, table.note)


def _errors_table(errors: Sequence[SampleRow]) -> Table:
    rows = tuple((r.sample_id, r.error or "") for r in errors)
    return Table("Errors", ("sample", "error"), rows, "Re-run with kernel run --resume.")


# --------------------------------------------------------------------------- markdown


def render_markdown(report: Report) -> str:
    """``report.md``: the title, then each display table as a section."""
    parts = [f"# {_md_text(report.title)}"]
    if not report.samples:
        parts.append("No samples.")
    parts += [_md_section(t) for t in _display_tables(report)]
    parts.append(_md_section(_run_info_table(report)))
    return "\n\n".join(parts) + "\n"


def _md_text(text: str) -> str:
    """Text that Markdown shows literally: no raw HTML, no cell breaks, no control
    characters (``speckernel.escaping``: the file may be read on a terminal)."""
    flat = printable(text.replace("\n", " "), lines=False)
    return html.escape(flat, quote=False).replace("|", "\\|")


def _md_section(table: Table) -> str:
    lines = [f"## {_md_text(table.title)}", ""]
    lines.append("| " + " | ".join(_md_text(c) for c in table.columns) + " |")
    lines.append("|" + "---|" * len(table.columns))
    lines += ["| " + " | ".join(_md_text(c) for c in row) + " |" for row in table.rows]
    if table.note:
        lines += ["", f"_{_md_text(table.note)}_"]
    return "\n".join(lines)


# --------------------------------------------------------------------------- csv and json


def render_csv(report: Report) -> str:
    """``report.csv``: one row per sample with raw values; a missing metric is an empty cell."""
    names = [m.name for m in report.metrics]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["sample_id", "task_id", "agent", "model", "index", "status", "solved",
                     *names, "tokens", "cost_usd", "duration_s", "error"])
    for r in report.samples:
        writer.writerow([r.sample_id, r.task_id, r.agent, r.model, r.index, r.status.value,
                         r.solved, *(r.values.get(n) for n in names), r.tokens, r.cost_usd,
                         r.duration_s, r.error])
    return out.getvalue()


def render_json(report: Report) -> str:
    """``report.json``: ``to_json(report)`` with sorted keys, as strict JSON (a NaN is
    ``null``); unknown run info values as text."""
    return json.dumps(strict_json(to_json(report)), indent=2, sort_keys=True,
                      ensure_ascii=False, allow_nan=False) + "\n"


# --------------------------------------------------------------------------- html

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 90rem; padding: 0 1rem;
       color: #222; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; white-space: nowrap; }
td.text { white-space: normal; min-width: 12rem; }
th { background: #eef; }
tr:nth-child(even) td { background: #f7f7f7; }
.note { color: #555; font-size: 0.9rem; max-width: 60rem; }
details summary { font-weight: bold; cursor: pointer; margin-top: 1.5rem; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; }
svg.chart { border: 1px solid #ddd; background: #fff; }
svg.chart text { font-size: 10px; fill: #222; }
svg.chart text.title { font-size: 12px; font-weight: bold; }
svg.chart line.axis { stroke: #666; }
svg.chart line.grid { stroke: #e4e4e4; }
svg.chart g.errorbar line { stroke: #222; stroke-width: 1.4; }
"""

_LONG_TEXT = 48
"""A column holding a cell longer than this is free text (an error, a run info value) and
wraps; every other column keeps each cell on one line (numbers, names, intervals)."""


def render_html(report: Report) -> str:
    """``report.html``: the display tables, each in a box that scrolls sideways when it is
    wider than the page (no column is ever cut off), and the charts, in one file with no
    external resource; every text is escaped."""
    body = [f"<h1>{_esc(report.title)}</h1>"]
    if not report.samples:
        body.append("<p>No samples.</p>")
    body += [_html_section(t) for t in _display_tables(report)]
    if report.samples:
        body.append(_html_charts(report))
    body.append(f"<details><summary>Run info</summary>"
                f"{_html_section(_run_info_table(report))}</details>")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(report.title)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        *body,
        "</body>",
        "</html>",
        "",
    ])


def _esc(text: object) -> str:
    """Text for the page: control characters, which HTML has no use for (a NUL, an ESC) and
    bidirectional overrides shown as escapes, then HTML-escaped."""
    return html.escape(printable(str(text)), quote=True)


def _html_section(table: Table) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in table.columns)
    kinds = [' class="text"' if any(len(str(row[i])) > _LONG_TEXT for row in table.rows
                                    if i < len(row)) else ""
             for i in range(len(table.columns))]
    rows = "".join(
        "<tr>" + "".join(f"<td{kind}>{_esc(c)}</td>"
                         for kind, c in zip(kinds, row, strict=False)) + "</tr>"
        for row in table.rows
    )
    note = f'<p class="note">{_esc(table.note)}</p>' if table.note else ""
    return (f"<section><h2>{_esc(table.title)}</h2><div class=\"scroll\">"
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
            f"{note}</section>")


def _series(report: Report) -> list[Group]:
    return [(a.agent, a.model) for a in report.aggregate]


def _series_names(report: Report) -> list[str]:
    return [f"{agent} / {model}" for agent, model in _series(report)]


def _bar(estimate: Estimate | None, value: float | None = None) -> Bar:
    if estimate is None:
        return Bar(value)
    return Bar(estimate.estimate, estimate.low, estimate.high)


def _html_charts(report: Report) -> str:
    """The charts: pass@k, then for each metric that has a value its summary (all samples and
    best-of-n) and its distribution (per task when there are few tasks, else a histogram)."""
    few = len({t.task_id for t in report.per_task}) <= FEW_TASKS
    parts = ["<section><h2>Charts</h2>",
             f'<p class="note">Error bars: 95% intervals ({UNCERTAINTY_NOTE})</p>',
             f'<div class="charts scroll">{_pass_at_k_chart(report)}</div>']
    for m in report.metrics:
        if not any(d.values for d in report.distributions if d.metric == m.name):
            continue  # a metric no sample has: nothing to draw
        charts = [_summary_chart(report, m),
                  _per_task_chart(report, m) if few else _histogram(report, m)]
        description = f'<p class="note">{_esc(m.description)}</p>' if m.description else ""
        parts.append(f"<h3>{_esc(m.name)}</h3>{description}"
                     f'<div class="charts scroll">{"".join(charts)}</div>')
    parts.append("</section>")
    return "\n".join(parts)


def _pass_at_k_chart(report: Report) -> str:
    ks = [k for k in report.ks if any(k in a.pass_at_k for a in report.aggregate)]
    bars = [[_bar(a.pass_at_k_uncertainty.get(k), a.pass_at_k.get(k)) for a in report.aggregate]
            for k in ks]
    return grouped_bar_chart("solved: pass@k", [f"pass@{k}" for k in ks],
                             _series_names(report), bars, x_label="k", y_label="pass@k",
                             y_bounds=(0.0, 1.0), fmt_y=lambda v: format_value(v, "ratio"))


def _summary_chart(report: Report, metric: Metric) -> str:
    """The metric over all samples and best-of-n, the (agent, model)s side by side; error bars
    for a metric aggregated by mean."""
    rows = [[_bar(a.over_samples_uncertainty.get(metric.name), a.over_samples[metric.name])
             for a in report.aggregate],
            [_bar(a.best_of_n_uncertainty.get(metric.name), a.best_of_n[metric.name])
             for a in report.aggregate]]
    values = [v for row in rows for b in row for v in (b.value, b.low, b.high) if v is not None]
    return grouped_bar_chart(
        f"{metric.name} ({metric.aggregate})", ["all samples", "best-of-n"],
        _series_names(report), rows, x_label="over", y_label=f"{metric.aggregate} {metric.name}",
        y_bounds=y_range(values, metric.unit in _PERCENT_UNITS),
        fmt_y=lambda v: format_value(v, metric.unit))


def _per_task_chart(report: Report, metric: Metric) -> str:
    """One category per task: the task's mean for each (agent, model)."""
    means = {(t.task_id, t.agent, t.model): t.means[metric.name] for t in report.per_task}
    tasks = sorted({t.task_id for t in report.per_task})
    rows = [[Bar(means.get((task, agent, model))) for agent, model in _series(report)]
            for task in tasks]
    values = [b.value for row in rows for b in row if b.value is not None]
    return grouped_bar_chart(
        f"{metric.name} per task", tasks, _series_names(report), rows, x_label="task",
        y_label=f"mean {metric.name}", y_bounds=y_range(values, metric.unit in _PERCENT_UNITS),
        fmt_y=lambda v: format_value(v, metric.unit))


def _histogram(report: Report, metric: Metric) -> str:
    """Samples per bin of the metric's values, on bins shared by every (agent, model)."""
    series = [next((d.values for d in report.distributions
                    if (d.metric, d.agent, d.model) == (metric.name, *g)), ())
              for g in _series(report)]
    lo, hi = y_range([v for values in series for v in values], metric.unit in _PERCENT_UNITS)
    width = (hi - lo) / HISTOGRAM_BINS
    counts = [[0] * HISTOGRAM_BINS for _ in series]
    for per_bin, values in zip(counts, series, strict=True):
        for v in values:
            if math.isfinite(v):
                per_bin[min(max(int((v - lo) / width), 0), HISTOGRAM_BINS - 1)] += 1
    labels = [format_value(lo + i * width, metric.unit) for i in range(HISTOGRAM_BINS)]
    rows = [[Bar(float(per_bin[i])) for per_bin in counts] for i in range(HISTOGRAM_BINS)]
    top = float(max((max(c) for c in counts), default=1)) or 1.0
    return grouped_bar_chart(
        f"{metric.name}: distribution", labels, _series_names(report), rows,
        x_label=f"{metric.name} (bin start)", y_label="samples", y_bounds=(0.0, top),
        fmt_y=lambda v: f"{v:g}")


# --------------------------------------------------------------------------- writing


def write_report(report: Report, out_dir: Path) -> list[Path]:
    """Write ``report.md``, ``report.csv``, ``report.json`` and ``report.html`` into ``out_dir``
    (created if missing) and return their paths in that order."""
    out_dir.mkdir(parents=True, exist_ok=True)
    renderers = {
        "report.md": render_markdown,
        "report.csv": render_csv,
        "report.json": render_json,
        "report.html": render_html,
    }
    paths = []
    for name, render in renderers.items():
        path = out_dir / name
        # A lone surrogate (model text the provider's JSON decoder let through) has no UTF-8
        # form; written as its \uXXXX escape it stays valid JSON and readable CSV.
        path.write_text(render(report), encoding="utf-8", errors="backslashreplace")
        paths.append(path)
    return paths
