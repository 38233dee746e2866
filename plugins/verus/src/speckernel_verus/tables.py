"""The report tables in the shape of VeruSAGE's: success per project (Table 6), time, cost and
Verus runs per task (Table 7), proof length against the ground truth, and cheats caught."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from speckernel.components import Table
from speckernel.model import Sample

OVERALL = "overall"
VERUS_BENCH_SOURCES = ("CloverBench", "Diffy", "MBPP", "Misc")


def project_of(task_id: str) -> str:
    """A task's project, read from its id (samples carry no task metadata):
    ``verusage/AL__module__fn`` is AL, ``verus-bench/mbpp_task_id_105`` is MBPP."""
    name = task_id.rsplit("/", 1)[-1]
    if "__" in name:
        return name.split("__", 1)[0]
    head = name.split("_", 1)[0]
    return next((s for s in VERUS_BENCH_SOURCES if s.lower() == head.lower()), head)


def _systems(samples: Sequence[Sample]) -> list[tuple[str, str]]:
    return sorted({(s.key.agent, s.key.model) for s in samples})


def _values(samples: Sequence[Sample], metric: str) -> list[float]:
    return [v for s in samples if (v := s.metrics().get(metric)) is not None]


def _mean(values: list[float], digits: int = 2) -> float | None:
    return round(statistics.fmean(values), digits) if values else None


def _rate(samples: Sequence[Sample]) -> str:
    judged = _values(samples, "verified")
    if not judged:
        return "-"
    solved = int(sum(judged))
    return f"{solved}/{len(judged)} ({100 * solved / len(judged):.1f}%)"


def _split(samples: Sequence[Sample],
           key: Callable[[Sample], str]) -> dict[str, list[Sample]]:
    groups: dict[str, list[Sample]] = {}
    for sample in samples:
        groups.setdefault(key(sample), []).append(sample)
    return groups


def success_table(samples: Sequence[Sample]) -> Table:
    """Table 6: verified tasks per project, one row per agent and model."""
    projects = sorted({project_of(s.key.task_id) for s in samples})
    rows = []
    for agent, model in _systems(samples):
        mine = [s for s in samples if (s.key.agent, s.key.model) == (agent, model)]
        by_project = _split(mine, lambda s: project_of(s.key.task_id))
        rows.append((agent, model, *(_rate(by_project.get(p, [])) for p in projects),
                     _rate(mine)))
    return Table("Verified tasks per project (VeruSAGE Table 6)",
                 ("agent", "model", *projects, OVERALL), tuple(rows),
                 note="verified = passes the cheat checker and Verus verifies it")


def effort_table(samples: Sequence[Sample]) -> Table:
    """Table 7: mean time, cost and Verus runs per task, per project and overall."""
    rows = []
    for agent, model in _systems(samples):
        mine = [s for s in samples if (s.key.agent, s.key.model) == (agent, model)]
        groups = _split(mine, lambda s: project_of(s.key.task_id))
        for project, members in [*sorted(groups.items()), (OVERALL, mine)]:
            rows.append((agent, model, project, len(members), _rate(members),
                         _mean(_values(members, "time_s"), 1),
                         _mean(_values(members, "cost_usd"), 4),
                         _mean(_values(members, "verus_runs"), 1)))
    return Table("Time, cost and Verus runs per task (VeruSAGE Table 7)",
                 ("agent", "model", "project", "tasks", "verified", "time (s)", "cost ($)",
                  "Verus runs"), tuple(rows))


def proof_table(samples: Sequence[Sample]) -> Table:
    """Proof lines added by verified candidates (honest ones when Verus did not run) against
    the ground truth's."""
    rows = []
    for agent, model in _systems(samples):
        mine = [s for s in samples if (s.key.agent, s.key.model) == (agent, model)
                and s.metrics().get("proof_length_ratio") is not None]
        ratios = _values(mine, "proof_length_ratio")
        rows.append((agent, model, len(mine), _mean(_values(mine, "proof_lines"), 1),
                     _mean(_values(mine, "reference_proof_lines"), 1),
                     round(statistics.median(ratios), 2) if ratios else None))
    return Table("Proof length vs. ground truth",
                 ("agent", "model", "compared", "proof lines", "ground-truth lines",
                  "median ratio"), tuple(rows),
                 note="candidates that verified (without Verus: that passed the cheat checker)")


def cheat_table(samples: Sequence[Sample]) -> Table:
    """How many candidates the cheat checker caught."""
    rows = []
    for agent, model in _systems(samples):
        mine = [s for s in samples if (s.key.agent, s.key.model) == (agent, model)]
        caught = _values(mine, "cheat_caught")
        rows.append((agent, model, len(mine), int(sum(caught)), len(caught)))
    return Table("Cheat attempts caught", ("agent", "model", "samples", "caught", "checked"),
                 tuple(rows))


def report_tables(samples: Sequence[Sample]) -> list[Table]:
    if not samples:
        return []
    return [success_table(samples), effort_table(samples), proof_table(samples),
            cheat_table(samples)]
