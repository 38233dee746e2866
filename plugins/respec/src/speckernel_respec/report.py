"""Report tables: results per domain, the judges against the verifier, the timeout sweep.

A sample's domain is the first component of its task id (``regex/kb13-00001``; the judge's tasks
keep the judged task's id as their prefix). The overall success rate is the mean of the domains'
rates, as RESpecBench reports it, so a domain with many upstream tasks does not drown the others.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from speckernel.components import Table
from speckernel.model import Sample
from speckernel.report import MISSING

from speckernel_respec.domains import DOMAINS
from speckernel_respec.scoring import BOUNDED, EQUIVALENT, INVALID, UNKNOWN, rejected, verdict_of

OVERALL = "overall"


def domain_of(sample: Sample) -> str:
    return sample.key.task_id.split("/", 1)[0]


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else MISSING


def _ratio(part: int, whole: int) -> str:
    return f"{_percent(part, whole)} ({part}/{whole})" if whole else MISSING


def _by_domain(samples: Iterable[Sample]) -> dict[str, list[Sample]]:
    """domain -> samples, domains in the benchmark's order (any other last)."""
    out: dict[str, list[Sample]] = {}
    for sample in samples:
        out.setdefault(domain_of(sample), []).append(sample)
    order = {d: i for i, d in enumerate(DOMAINS)}
    return dict(sorted(out.items(), key=lambda kv: order.get(kv[0], len(order))))


def _groups(samples: Iterable[Sample]) -> dict[tuple[str, str], dict[str, list[Sample]]]:
    """(agent, model) -> domain -> samples, domains in the benchmark's order."""
    out: dict[tuple[str, str], list[Sample]] = {}
    for sample in sorted(samples, key=lambda s: s.key):
        out.setdefault((sample.key.agent, sample.key.model), []).append(sample)
    return {k: _by_domain(v) for k, v in out.items()}


def _count(verdicts: Sequence[str | None], test: Callable[[str], bool]) -> int:
    return sum(1 for v in verdicts if v is not None and test(v))


def _domain_row(verdicts: Sequence[str | None], bounded: int) -> tuple[int, ...]:
    return (len(verdicts), _count(verdicts, lambda v: v == EQUIVALENT), bounded,
            _count(verdicts, rejected), _count(verdicts, lambda v: v == INVALID),
            _count(verdicts, lambda v: v == UNKNOWN), sum(1 for v in verdicts if v is None))


def domain_table(samples: Sequence[Sample]) -> Table:
    """Success rate per domain and overall (mean over domains); counts of each verdict."""
    rows: list[tuple[object, ...]] = []
    for (agent, model), by_domain in _groups(samples).items():
        rates = []
        totals = [0] * 7
        for domain, members in by_domain.items():
            verdicts = [verdict_of(s.verdicts) for s in members]
            counts = _domain_row(verdicts, _count(verdicts, lambda v: v == BOUNDED))
            totals = [a + b for a, b in zip(totals, counts, strict=True)]
            rates.append(counts[1] / counts[0])
            rows.append((agent, model, domain, _percent(counts[1], counts[0]), *counts))
        mean = f"{100 * math.fsum(rates) / len(rates):.1f}%" if rates else MISSING
        rows.append((agent, model, OVERALL, mean, *totals))
    return Table(
        "RESpecBench: success per domain",
        ("agent", "model", "domain", "success", "samples", "equivalent", "bounded", "refuted",
         "invalid", "unknown", "not checked"),
        tuple(rows),
        "success = proved equivalent / samples; overall = mean of the domains' success rates. "
        "bounded: SQL candidates with no counterexample up to a recorded bound (not a success, "
        "not counted in equivalent). "
        "refuted includes invalid (the candidate does not parse). not checked: the verifier "
        "broke (error) or the agent produced nothing.")


def _present(metrics: Sequence[dict[str, float | None]], name: str) -> list[float]:
    return [v for m in metrics if (v := m.get(name)) is not None]


def judge_table(samples: Sequence[Sample]) -> Table:
    """FAR, FRR and inflation of each judge against the sound verifier (RESpecBench §3.1)."""
    rows: list[tuple[object, ...]] = []
    for (agent, model), by_domain in _groups(samples).items():
        everything = [s for members in by_domain.values() for s in members]
        for domain, members in [*by_domain.items(), (OVERALL, everything)]:
            metrics = [s.metrics() for s in members]
            accepted, proved, false_accept, false_reject = (
                _present(metrics, name) for name in
                ("judge_accept", "verifier_success", "false_accept", "false_reject"))
            inflation = (f"{100 * (math.fsum(accepted) - math.fsum(proved)) / len(accepted):+.1f}"
                         " pp" if accepted else MISSING)
            malformed = sum(1 for s in members if s.verdicts and s.verdicts[-1].data.get(
                "accept") is None)
            rows.append((agent, model, domain, len(members), malformed, len(accepted),
                         _ratio(int(sum(false_accept)), len(false_accept)),
                         _ratio(int(sum(false_reject)), len(false_reject)), inflation,
                         _percent(int(sum(accepted)), len(accepted)),
                         _percent(int(sum(proved)), len(proved))))
    return Table(
        "LLM-as-a-judge against the sound verifier (RESpecBench §3.1)",
        ("judge", "model", "domain", "candidates", "malformed", "compared", "FAR", "FRR",
         "inflation", "judge accepts", "verifier proves"),
        tuple(rows),
        "compared: candidates with a well-formed judge answer and a verifier verdict other than "
        "unknown. FAR = judge accepts / verifier refuted; FRR = judge rejects / verifier proved; "
        "inflation = judge success rate - verifier success rate over the compared candidates.")


def sweep_table(runs: Sequence[tuple[float, Sequence[Sample]]]) -> Table:
    """The same candidates checked under growing per-check timeouts: how ``unknown`` shrinks."""
    rows: list[tuple[object, ...]] = []
    for timeout, samples in runs:
        for domain, members in [*_by_domain(samples).items(), (OVERALL, list(samples))]:
            verdicts = [verdict_of(s.verdicts) for s in members]
            unknown = _count(verdicts, lambda v: v == UNKNOWN)
            rows.append((f"{timeout:g}", domain, len(members),
                         _count(verdicts, lambda v: v == EQUIVALENT),
                         _count(verdicts, rejected), unknown, _percent(unknown, len(members))))
    return Table(
        "Timeout sweep: verdicts of the same candidates per check timeout",
        ("timeout (s)", "domain", "samples", "equivalent", "refuted", "unknown", "unknown rate"),
        tuple(rows),
        "Every row checks the same candidates; only the per-check timeout (option timeout_s) "
        "changes. Sound verdicts do not flip; unknown can only turn into equivalent or refuted.")


def markdown(table: Table) -> str:
    """A table as GitHub Markdown, for the tools that print one."""
    lines = [f"### {table.title}", "", "| " + " | ".join(table.columns) + " |",
             "|" + "---|" * len(table.columns)]
    lines.extend("| " + " | ".join(str(c) for c in row) + " |" for row in table.rows)
    return "\n".join([*lines, "", table.note] if table.note else lines)
