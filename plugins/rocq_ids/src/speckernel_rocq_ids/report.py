"""The benchmark's report tables: IDS Table 1 (synthesis) and Figure 4 (performance).

Table 1 of IDS gives, per spec, whether synthesis succeeded and what it cost in hours and
dollars. Here a row is a spec x agent x model: the pass rate over its samples, the mean agent
wall time in hours and the mean model spend in dollars (from each candidate's provenance).

Figure 4 compares the throughput, p99 latency and peak memory of synthesized stores with the
expert-written reference implementation. The figures come from the benchmark harness, which
records them in each passing sample's measurements under the names of :data:`PERFORMANCE`; a run
without the harness (or whose samples did not pass) has none, and the table says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from speckernel.components import Table
from speckernel.model import Sample
from speckernel.report import MISSING

PERFORMANCE = ("throughput_ops_s", "p99_latency_ms", "peak_rss_mb")
"""The harness's metric names, in the order Figure 4 shows them."""

EXPERT, RATIO = "expert_throughput_ops_s", "x_expert"
"""The harness's figures for the expert reference implementation run next to the candidate."""

REFERENCE_AGENT = "reference"


def _groups(samples: Iterable[Sample]) -> dict[tuple[str, str, str], list[Sample]]:
    groups: dict[tuple[str, str, str], list[Sample]] = {}
    for sample in sorted(samples, key=lambda s: s.key):
        groups.setdefault((sample.key.task_id, sample.key.agent, sample.key.model),
                          []).append(sample)
    return groups


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _fmt(value: float | None, spec: str) -> str:
    return MISSING if value is None else format(value, spec)


def passed(sample: Sample) -> bool:
    """A sample counts for Table 1 when the scorer gave it ``pass`` 1 (compiled, audited and
    extracted: bounded, live and consistent)."""
    return sample.metrics().get("pass") == 1.0


def synthesis_table(samples: Sequence[Sample]) -> Table:
    """IDS Table 1: pass rate, hours and dollars per spec, agent and model."""
    rows = []
    for (task, agent, model), group in _groups(samples).items():
        made = [s.candidate.provenance for s in group if s.candidate is not None]
        wins = sum(passed(s) for s in group)
        hours = _mean([p.wall_time_s / 3600 for p in made])
        dollars = _mean([p.usage.cost_usd for p in made])
        rows.append((task, agent, model, len(group), f"{wins}/{len(group)}",
                     f"{100 * wins / len(group):.0f}%", _fmt(hours, ".3f"), _fmt(dollars, ".2f")))
    return Table("IDS Table 1: synthesis per spec",
                 ("spec", "agent", "model", "samples", "passed", "pass rate", "hours", "dollars"),
                 tuple(rows),
                 "passed = compiled by coqc, clean under the audit and extracted (bounded "
                 "state, every key served, histories the spec allows); hours = mean agent "
                 "wall time; dollars = mean model spend per sample.")


def _measured(group: Sequence[Sample], metrics: Iterable[str]) -> dict[str, float | None]:
    """Each metric's mean over the group's passing samples that recorded it."""
    return {metric: _mean([float(s.measurements[metric]) for s in group
                           if passed(s) and isinstance(s.measurements.get(metric), int | float)])
            for metric in metrics}


def performance_table(samples: Sequence[Sample]) -> Table:
    """IDS Figure 4, headline point: each store's performance next to the expert reference
    implementation's, measured by the harness in the same cluster run (``x expert``); without
    that, against the ``reference`` agent's store in this run."""
    groups = _groups(samples)
    figures = {key: _measured(group, (*PERFORMANCE, EXPERT, RATIO))
               for key, group in groups.items()}
    baseline: Mapping[str, float | None] = {
        key[0]: values[PERFORMANCE[0]] for key, values in figures.items()
        if key[1] == REFERENCE_AGENT}
    rows = []
    for (task, agent, model), values in figures.items():
        if all(values[m] is None for m in PERFORMANCE):
            continue
        ratio, base, mine = values[RATIO], baseline.get(task), values[PERFORMANCE[0]]
        if ratio is None and base and mine is not None:
            ratio = mine / base
        rows.append((task, agent, model, _fmt(mine, ".0f"),
                     _fmt(values["p99_latency_ms"], ".2f"), _fmt(values["peak_rss_mb"], ".1f"),
                     _fmt(values[EXPERT], ".0f"), _fmt(ratio, ".2f")))
    note = ("Means over passing samples at the harness's headline point; x expert = throughput "
            "over the expert reference implementation's in the same cluster run (or over the "
            "reference agent's store in this run when the harness measured no expert).")
    if not rows:
        note = ("No harness measurements in this run (" + ", ".join(PERFORMANCE) + "): the "
                "benchmark harness did not run or no sample passed.")
    return Table("IDS Figure 4: performance against the reference implementation",
                 ("spec", "agent", "model", "throughput ops/s", "p99 ms", "peak RSS MB",
                  "expert ops/s", "x expert"), tuple(rows), note)


def sweep_table(samples: Sequence[Sample]) -> Table:
    """IDS Figure 4 across the harness's sweep: throughput and ratio to the expert store at
    every (put rate, operations per worker) point the harness measured."""
    points = sorted({name.split("@", 1)[1] for s in samples for name in s.measurements
                     if name.startswith(PERFORMANCE[0] + "@")},
                    key=lambda point: [float(n) for n in re.findall(r"\d+(?:\.\d+)?", point)])
    rows = []
    for (task, agent, model), group in _groups(samples).items():
        values = _measured(group, [f"{m}@{p}" for p in points for m in (PERFORMANCE[0], RATIO)])
        if all(v is None for v in values.values()):
            continue
        rows.append((task, agent, model, *(
            MISSING if values[f"{PERFORMANCE[0]}@{p}"] is None else
            f"{values[f'{PERFORMANCE[0]}@{p}']:.0f}"
            + ("" if values[f"{RATIO}@{p}"] is None else f" ({values[f'{RATIO}@{p}']:.2f}x)")
            for p in points)))
    return Table("IDS Figure 4: throughput (x expert) across the sweep",
                 ("spec", "agent", "model", *points), tuple(rows),
                 "ops/s at each put rate / operations per worker; in parentheses the ratio to "
                 "the expert reference implementation in the same run.")
