"""Run reports: aggregate a run's samples into tables and write them as Markdown, CSV, JSON and
one self-contained HTML page.

``build_report`` is a pure function of its arguments: samples are sorted by key and every sum is
taken with ``math.fsum``, so the same samples give byte-identical files (the only timestamps are
those the caller puts in ``run_info``). ``write_report`` renders a ``Report``; it reads nothing
else.

Definitions used throughout:

* a sample is *solved* when ``benchmark.solved(sample)`` is true; without a benchmark, when it
  has at least one verdict and every verdict succeeded (the default of ``Benchmark.solved``);
* *best-of-n* aggregates one sample per task: the best by the benchmark's ``primary_metric``
  (in the metric's ``higher_is_better`` direction, missing values last), else a solved one, ties
  going to the lowest attempt index;
* *pass@k* is the unbiased estimator of Chen et al. 2021, "Evaluating Large Language Models
  Trained on Code", eq. 1, averaged over tasks; every sample of a task counts towards its ``n``,
  including those that ended in ``error``.
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

from speckernel.components import Benchmark, Metric, Table
from speckernel.containment import plugin_call
from speckernel.escaping import printable
from speckernel.model import Sample, Status, strict_json, to_json

MISSING = "\u2013"
"""How a missing value (``None``, a k larger than the samples per task) is shown."""

FEW_TASKS = 10
"""Up to this many tasks the HTML plots one bar per task instead of a histogram."""

HISTOGRAM_BINS = 10

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
    ``tokens`` is input plus output tokens; ``error`` is the one-line reason of an ``error``
    sample and ``None`` for every other status.
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


@attrs.frozen
class AggregateRow:
    """One (agent, model) over the whole run.

    ``over_samples`` aggregates each metric over all samples and ``best_of_n`` over the best
    sample of each task (see the module docstring), both with ``Metric.aggregate`` and skipping
    ``None``; ``pass_at_k`` has a key for each requested k no larger than the fewest samples any
    task has; ``mean_wall_time_s`` is the mean of ``Sample.duration_s``.
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


# --------------------------------------------------------------------------- building


def build_report(
    samples: Sequence[Sample],
    metrics: Sequence[Metric],
    benchmark: Benchmark | None,
    run_info: Mapping[str, Any],
    ks: Sequence[int] = (1, 5, 10),
) -> Report:
    """Aggregate ``samples`` into a ``Report``; ``metrics`` are the report's metric columns."""
    ordered = sorted(samples, key=lambda s: s.key)
    rows = tuple(_sample_row(s, _is_solved(s, benchmark)) for s in ordered)
    rank = _ranking(benchmark.primary_metric if benchmark else None, metrics)
    groups = _by(rows, lambda r: (r.agent, r.model))
    return Report(
        title=_title(run_info, benchmark),
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
        tables=tuple(plugin_call(f"benchmark '{benchmark.name}' could not build its report "
                                 "tables", benchmark.report_tables, ordered)) if benchmark else (),
        samples=rows,
    )


def _title(run_info: Mapping[str, Any], benchmark: Benchmark | None) -> str:
    """``speckernel report: tla 1.0`` from run.yaml's ``benchmark`` section (a mapping with name
    and version), else from the benchmark object."""
    info = run_info.get("benchmark")
    if isinstance(info, Mapping):
        name = " ".join(str(info[k]) for k in ("name", "version") if info.get(k))
    else:
        name = str(info or (benchmark.name if benchmark else ""))
    return f"speckernel report: {name}" if name else "speckernel report"


def _is_solved(sample: Sample, benchmark: Benchmark | None) -> bool:
    if benchmark is not None:
        return bool(plugin_call(f"benchmark '{benchmark.name}' could not judge a sample solved",
                                benchmark.solved, sample))
    return bool(sample.verdicts) and all(v.passed for v in sample.verdicts)


def _sample_row(sample: Sample, solved: bool) -> SampleRow:
    usage = sample.candidate.provenance.usage if sample.candidate else None
    return SampleRow(
        sample_id=sample.id,
        task_id=sample.key.task_id,
        agent=sample.key.agent,
        model=sample.key.model,
        index=sample.key.index,
        status=sample.status,
        solved=solved,
        values=dict(sorted({**sample.measurements, **sample.metrics()}.items())),
        tokens=usage.input_tokens + usage.output_tokens if usage else 0,
        cost_usd=usage.cost_usd if usage else 0.0,
        duration_s=sample.duration_s,
        error=_error_line(sample),
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
    tasks = _by(members, lambda r: r.task_id).values()
    best = [min(rows, key=rank) for rows in tasks]
    fewest = min(len(rows) for rows in tasks)
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
        pass_at_k={k: _mean([pass_at_k(len(rows), sum(r.solved for r in rows), k)
                             for rows in tasks])
                   for k in ks if k <= fewest},
        tokens=sum(r.tokens for r in members),
        cost_usd=math.fsum(r.cost_usd for r in members),
        mean_wall_time_s=_mean([r.duration_s for r in members]),
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
        tables += [_aggregate_table(report), _pass_at_k_table(report), _task_table(report)]
    tables += [_benchmark_table(t) for t in report.tables]
    if report.errors:
        tables.append(_errors_table(report.errors))
    return tables


def _run_info_table(report: Report) -> Table:
    """Provenance, shown after the results: readers come for the numbers first."""
    return Table("Run info", ("key", "value"), tuple(_flatten(report.run_info)))


def _aggregate_table(report: Report) -> Table:
    statuses = [s.value for s in Status]
    columns = ["agent", "model", "tasks", "samples", *statuses]
    for m in report.metrics:
        columns += [f"{m.name} ({m.aggregate})", f"{m.name} (best-of-n {m.aggregate})"]
    columns += ["tokens", "cost", "mean wall time"]
    rows = []
    for a in report.aggregate:
        metric_cells = []
        for m in report.metrics:
            metric_cells += [format_value(a.over_samples[m.name], m.unit),
                             format_value(a.best_of_n[m.name], m.unit)]
        rows.append((a.agent, a.model, str(a.n_tasks), str(a.n_samples),
                     *(str(a.status_counts[s]) for s in statuses), *metric_cells,
                     str(a.tokens), format_value(a.cost_usd, "usd"),
                     format_value(a.mean_wall_time_s, "seconds")))
    note = ("best-of-n: per task, the best sample by the primary metric (else a solved one), "
            "then aggregated over tasks.")
    return Table("Aggregate", tuple(columns), tuple(rows), note)


def _pass_at_k_table(report: Report) -> Table:
    rows = tuple(
        (a.agent, a.model, *(format_value(a.pass_at_k.get(k), "ratio") for k in report.ks))
        for a in report.aggregate
    )
    note = ("pass@k = 1 - C(n-c, k) / C(n, k) per task, averaged over tasks (Chen et al. 2021, "
            f"eq. 1); n = samples of the task, c = solved ones; {MISSING} when a task has fewer "
            "than k samples.")
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
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #eef; }
tr:nth-child(even) td { background: #f7f7f7; }
.note { color: #555; font-size: 0.9rem; }
details summary { font-weight: bold; cursor: pointer; margin-top: 1.5rem; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; }
svg.chart { border: 1px solid #ddd; background: #fff; }
svg.chart rect.bar { fill: #4a7ab8; }
svg.chart text { font-size: 10px; fill: #222; }
svg.chart text.title { font-size: 12px; font-weight: bold; }
svg.chart line { stroke: #888; }
"""


def render_html(report: Report) -> str:
    """``report.html``: the display tables and a chart per metric and (agent, model), in one
    file with no external resource; every text is escaped."""
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
    rows = "".join(
        "<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    note = f'<p class="note">{_esc(table.note)}</p>' if table.note else ""
    return (f"<section><h2>{_esc(table.title)}</h2>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{note}</section>")


def _html_charts(report: Report) -> str:
    few = len({t.task_id for t in report.per_task}) <= FEW_TASKS
    parts = ["<section><h2>Distributions</h2>"]
    for m in report.metrics:
        charts = _per_task_charts(report, m) if few else _histograms(report, m)
        description = f'<p class="note">{_esc(m.description)}</p>' if m.description else ""
        body = "".join(charts) or "<p>No values.</p>"
        parts.append(f'<h3>{_esc(m.name)}</h3>{description}<div class="charts">{body}</div>')
    parts.append("</section>")
    return "\n".join(parts)


def _value_range(values: Sequence[float], unit: str) -> tuple[float, float]:
    """The plotted range: [0, 1] for rates, else the values' range widened to include 0."""
    if unit in _PERCENT_UNITS:
        return 0.0, 1.0
    lo, hi = min(0.0, *values), max(0.0, *values)
    return (lo, hi) if hi > lo else (lo, lo + 1.0)


def _per_task_charts(report: Report, metric: Metric) -> list[str]:
    """A chart per (agent, model) with one bar per task: the task's mean."""
    bars: dict[Group, list[tuple[str, float]]] = {}
    for t in report.per_task:
        if (mean := t.means[metric.name]) is not None:
            bars.setdefault((t.agent, t.model), []).append((t.task_id, mean))
    if not bars:
        return []
    y_range = _value_range([v for group in bars.values() for _, v in group], metric.unit)
    return [
        _bar_chart(
            f"{metric.name}: {agent} / {model}",
            group,
            x_label="task",
            y_label=f"mean {metric.name}",
            y_range=y_range,
            fmt_y=lambda v: format_value(v, metric.unit),
        )
        for (agent, model), group in sorted(bars.items())
    ]


def _histograms(report: Report, metric: Metric) -> list[str]:
    """A histogram per (agent, model), on bins shared by every (agent, model)."""
    series = [d for d in report.distributions if d.metric == metric.name and d.values]
    if not series:
        return []
    lo, hi = _value_range([v for d in series for v in d.values], metric.unit)
    width = (hi - lo) / HISTOGRAM_BINS
    counts = [[0] * HISTOGRAM_BINS for _ in series]
    for per_bin, d in zip(counts, series, strict=True):
        for v in d.values:
            per_bin[min(int((v - lo) / width), HISTOGRAM_BINS - 1)] += 1
    labels = [format_value(lo + i * width, metric.unit) for i in range(HISTOGRAM_BINS)]
    top = float(max(max(c) for c in counts))
    return [
        _bar_chart(
            f"{metric.name}: {d.agent} / {d.model}",
            list(zip(labels, map(float, per_bin), strict=True)),
            x_label=f"{metric.name} (bin start)",
            y_label="samples",
            y_range=(0.0, top),
            fmt_y=lambda v: f"{v:g}",
        )
        for d, per_bin in zip(series, counts, strict=True)
    ]


_WIDTH, _HEIGHT = 360, 270
_LEFT, _RIGHT, _TOP, _BOTTOM = 62, 12, 32, 88
_LABEL_CHARS = 12


def _bar_chart(
    title: str,
    bars: Sequence[tuple[str, float]],
    *,
    x_label: str,
    y_label: str,
    y_range: tuple[float, float],
    fmt_y: Callable[[float], str],
) -> str:
    """An inline SVG bar chart with a title, labelled axes, three y ticks and a tooltip per bar;
    bars grow from 0, which ``y_range`` must include."""
    lo, hi = y_range
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM
    bottom = _TOP + plot_h

    def y(value: float) -> float:
        return _TOP + plot_h * (hi - value) / (hi - lo)

    zero = y(0.0)

    parts = [
        f'<svg class="chart" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" aria-label="{_esc(title)}">',
        f"<title>{_esc(title)}</title>",
        f'<text class="title" x="{_WIDTH / 2:.1f}" y="18" text-anchor="middle">'
        f"{_esc(title)}</text>",
        f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{bottom}"/>',
        f'<line x1="{_LEFT}" y1="{zero:.1f}" x2="{_LEFT + plot_w}" y2="{zero:.1f}"/>',
    ]
    for tick in (lo, (lo + hi) / 2, hi):
        parts.append(f'<text x="{_LEFT - 4}" y="{y(tick) + 3:.1f}" text-anchor="end">'
                     f"{_esc(fmt_y(tick))}</text>")
    slot = plot_w / len(bars)
    for i, (label, value) in enumerate(bars):
        x = _LEFT + i * slot
        y0, y1 = sorted((zero, y(value)))
        short = label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"
        cx = x + slot / 2
        parts += [
            f'<rect class="bar" x="{x + slot * 0.1:.1f}" y="{y0:.1f}" width="{slot * 0.8:.1f}" '
            f'height="{y1 - y0:.1f}"><title>{_esc(label)}: {_esc(fmt_y(value))}</title></rect>',
            f'<text x="{cx:.1f}" y="{bottom + 12}" text-anchor="end" '
            f'transform="rotate(-40 {cx:.1f} {bottom + 12})">{_esc(short)}</text>',
        ]
    parts += [
        f'<text x="{_LEFT + plot_w / 2:.1f}" y="{_HEIGHT - 6}" text-anchor="middle">'
        f"{_esc(x_label)}</text>",
        f'<text x="14" y="{_TOP + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_TOP + plot_h / 2:.1f})">{_esc(y_label)}</text>',
        "</svg>",
    ]
    return "\n".join(parts)


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
