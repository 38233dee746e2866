"""The benchmark's report tables: SysMoBench's Table 3 and a per-action breakdown.

Table 3 of the paper gives, per system and agent, the score of each phase and marks whether the
phase passed (✓) or not (✗); a phase the model never reached (an earlier gate failed) is a bare
✗. Here a row is a task x agent x model (means over its samples), followed by an ``all`` row per
agent x model (means over every sample).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from speckernel.components import Table
from speckernel.model import Sample
from speckernel.report import MISSING

from speckernel_tla.conformance import CANDIDATE as OWN_MAPPING
from speckernel_tla.invariants import CANDIDATE as OWN_INVARIANTS
from speckernel_tla.scoring import (
    CONFORMANCE,
    INVARIANTS,
    PHASE_METRICS,
    RUNTIME,
    SANY,
    verdict_of,
)

NOT_RUN = "✗"
NOT_AN_ACTION = MISSING
PHASES = tuple(PHASE_METRICS.values())


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def phase_cell(values: Sequence[float | None]) -> str:
    """The mean of the samples' scores that exist and a mark: ✓ when every sample scored 100 %;
    a bare ✗ when no sample reached the phase."""
    present = [v for v in values if v is not None]
    if not present:
        return NOT_RUN
    passed = len(present) == len(values) and all(v == 1.0 for v in present)
    return f"{_percent(sum(present) / len(present))} {'✓' if passed else NOT_RUN}"


def _grouped(samples: Iterable[Sample], *, by_task: bool) -> dict[tuple[str, ...], list[Sample]]:
    groups: dict[tuple[str, ...], list[Sample]] = {}
    for sample in sorted(samples, key=lambda s: s.key):
        key = sample.key
        name = (key.task_id if by_task else "all", key.agent, key.model)
        groups.setdefault(name, []).append(sample)
    return groups


def phase_table(samples: Sequence[Sample]) -> Table:
    """Table 3: syntax, runtime, conformance and invariant scores with phase marks."""
    rows = []
    overall = _grouped(samples, by_task=False)
    per_task = _grouped(samples, by_task=True)
    for agent_model, members in overall.items():
        tasks = [(k, v) for k, v in per_task.items() if k[1:] == agent_model[1:]]
        for (task, agent, model), group in [*tasks, (agent_model, members)]:
            metrics = [s.metrics() for s in group]
            rows.append((task, agent, model, len(group),
                         *(phase_cell([m.get(phase) for m in metrics]) for phase in PHASES)))
    self_judged = _counted(samples, INVARIANTS, lambda d: d.get("concretised_by") == OWN_INVARIANTS)
    self_mapped = _counted(samples, CONFORMANCE, lambda d: d.get("mapped_by") == OWN_MAPPING)
    own_scale = _counted(samples, INVARIANTS, lambda d: bool(d.get("constants_unbound")))
    return Table(
        "SysMoBench Table 3: phase scores", ("task", "agent", "model", "samples", *PHASES),
        tuple(rows),
        "Mean over the samples that reached the phase; ✓ = every sample scored 100 %; "
        "a bare ✗ = no sample reached the phase (an earlier gate failed: syntax must be 100 %, "
        "runtime free of errors)." + (
            f" The invariants of {self_judged} sample(s) are checked as the candidate wrote "
            "them (its invariants.json), which nothing audits: that M_i is as honest as its "
            "author." if self_judged else "") + (
            f" The traces of {self_mapped} sample(s) are read through the candidate's own "
            "mapping.yaml, audited for what it reads of each line, not for what it says of it "
            "(an evaluator model writes the mapping instead)." if self_mapped else "") + (
            f" The invariants of {own_scale} sample(s) are checked with constants the traces "
            "could not fix (a model in names of its own that no mapping binds): at the scale "
            "its cfg chose, which may be smaller than the system's." if own_scale else ""))


def _counted(samples: Iterable[Sample], verifier: str,
             says: Callable[[Mapping[str, Any]], bool]) -> int:
    """How many samples have a ``verifier`` verdict whose data ``says`` so."""
    return sum(1 for s in samples if (v := verdict_of(s.verdicts, verifier)) and says(v.data))


def _pass_rate(value: Any) -> float | None:
    """A per-action conformance entry as a pass rate: a number, or a mapping with ``rate`` or
    ``passed`` and ``total``."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, Mapping):
        if isinstance(value.get("rate"), int | float):
            return float(value["rate"])
        passed, total = value.get("passed"), value.get("total")
        if isinstance(passed, int | float) and isinstance(total, int | float) and total:
            return passed / total
    return None


def _per_action(sample: Sample, verifier: str) -> Mapping[str, Any] | None:
    verdict = verdict_of(sample.verdicts, verifier)
    if verdict is None:
        return None
    found = verdict.data.get("actions" if verifier == SANY else "per_action")
    return found if isinstance(found, Mapping) else None


def _entries(sources: Sequence[Mapping[str, Mapping[str, Any] | None]], verifier: str,
             name: str) -> list[Any]:
    """The data each sample's ``verifier`` recorded for action ``name``, where it has some."""
    return [found[name] for src in sources
            if (found := src[verifier]) is not None and name in found]


def _count(flags: Sequence[bool], ran: bool) -> str:
    if not flags:
        return NOT_AN_ACTION if ran else NOT_RUN
    return f"{sum(flags)}/{len(flags)}"


def per_action_table(samples: Sequence[Sample]) -> Table:
    """Per action: how many samples' action parses alone, is covered by TLC without a runtime
    error, and its conformance pass rate (mean over samples). The actions are those TLC's
    coverage or the conformance check name; for a group that never reached them, every
    top-level definition SANY checked."""
    phases = (SANY, RUNTIME, CONFORMANCE)
    rows = []
    for (task, agent, model), group in _grouped(samples, by_task=True).items():
        sources = [{v: _per_action(s, v) for v in phases} for s in group]
        ran = {v: any(src[v] is not None for src in sources) for v in phases}
        names = dict.fromkeys(n for src in sources for v in (RUNTIME, CONFORMANCE)
                              for n in (src[v] or {})) or dict.fromkeys(
            n for src in sources for n in (src[SANY] or {}))
        for name in names:
            syntax = [bool(e.get("ok")) for e in _entries(sources, SANY, name)]
            runtime = [bool(e.get("covered")) and not e.get("runtime_error")
                       for e in _entries(sources, RUNTIME, name)]
            rates = [r for e in _entries(sources, CONFORMANCE, name)
                     if (r := _pass_rate(e)) is not None]
            conformance = (_percent(sum(rates) / len(rates)) if rates
                           else NOT_AN_ACTION if ran[CONFORMANCE] else NOT_RUN)
            rows.append((task, agent, model, name, _count(syntax, ran[SANY]),
                         _count(runtime, ran[RUNTIME]), conformance))
    return Table(
        "Per action", ("task", "agent", "model", "action", "syntax pass", "runtime covered",
                       "conformance pass rate"),
        tuple(rows),
        "Actions as TLC's coverage names them (every top-level definition when no sample "
        "reached runtime). syntax pass: samples whose definition parses alone; runtime "
        "covered: samples where TLC took the action without a runtime error; "
        f"{NOT_AN_ACTION} = not an action of that phase; {NOT_RUN} = phase not reached.")
