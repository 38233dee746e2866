"""A run's sample list as the viewer shows it: filters, sorting, pages, and the aggregate table
of what the filters keep.

Filters and sorting live in the URL's query string (``Filters.from_query`` / ``to_query``), so a
filtered, sorted page is a permalink and the list works without JavaScript.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import attrs

from speckernel.model import Status
from speckernel.runindex import Entry, group_entries
from speckernel.stats import Interval, mean, normal_interval, total

PAGE_SIZE = 100

COLUMNS = ("task", "agent", "model", "attempt", "status", "solved", "duration", "tokens", "cost",
           "started")
"""The sortable columns besides ``metric:<name>``."""

_STATUS_RANK = {s.value: i for i, s in enumerate(Status)}


_KEYS: Mapping[str, Callable[[Entry], Any]] = {
    "task": lambda e: e.key,
    "agent": lambda e: (e.key.agent, e.key),
    "model": lambda e: (e.key.model, e.key),
    "attempt": lambda e: (e.key.index, e.key),
    "status": lambda e: (_STATUS_RANK.get(e.status, len(_STATUS_RANK)), e.key),
    "solved": lambda e: (e.solved, e.key),
    "duration": lambda e: (e.duration_s, e.key),
    "tokens": lambda e: (e.tokens, e.key),
    "cost": lambda e: (e.cost_usd, e.key),
    "started": lambda e: (e.started_at, e.key),
}


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@attrs.frozen
class Filters:
    """What the sample list keeps and in which order. Empty strings mean "any"."""

    task: str = ""
    statuses: tuple[str, ...] = ()
    agent: str = ""
    model: str = ""
    solved: str = ""  # "", "yes", "no"
    metric: str = ""
    low: float | None = None
    high: float | None = None
    sort: str = "task"
    desc: bool = False
    page: int = 1

    @classmethod
    def from_query(cls, params: Mapping[str, Sequence[str]]) -> Filters:
        """Read the query string; values that make no sense are ignored, not errors."""

        def one(name: str) -> str:
            values = params.get(name) or [""]
            return values[-1].strip()

        sort = one("sort")
        if sort not in COLUMNS and not sort.startswith("metric:"):
            sort = "task"
        try:
            page = max(1, int(one("page") or 1))
        except ValueError:
            page = 1
        return cls(task=one("task"), statuses=tuple(s for s in params.get("status", ()) if s),
                   agent=one("agent"), model=one("model"),
                   solved=one("solved") if one("solved") in ("yes", "no") else "",
                   metric=one("metric"), low=_float(one("low")), high=_float(one("high")),
                   sort=sort, desc=one("desc") == "1", page=page)

    def to_query(self, **changes: Any) -> str:
        """The query string of these filters with ``changes`` applied (defaults left out)."""
        f = attrs.evolve(self, **changes)
        pairs: list[tuple[str, str]] = []
        for name in ("task", "agent", "model", "solved", "metric"):
            if value := getattr(f, name):
                pairs.append((name, value))
        pairs += [("status", s) for s in f.statuses]
        pairs += [(n, f"{v:g}") for n, v in (("low", f.low), ("high", f.high)) if v is not None]
        if f.sort != "task":
            pairs.append(("sort", f.sort))
        if f.desc:
            pairs.append(("desc", "1"))
        if f.page != 1:
            pairs.append(("page", str(f.page)))
        return urlencode(pairs)

    @property
    def active(self) -> bool:
        return bool(self.task or self.statuses or self.agent or self.model or self.solved
                    or (self.metric and (self.low is not None or self.high is not None)))


def keep(entry: Entry, f: Filters) -> bool:
    """Whether ``entry`` passes the filters (a task glob is matched case-sensitively, like a
    run file's ``tasks``; a metric range keeps samples that have the metric within it)."""
    if f.task and not fnmatch.fnmatchcase(entry.key.task_id, f.task):
        return False
    if f.statuses and entry.status not in f.statuses:
        return False
    if (f.agent and entry.key.agent != f.agent) or (f.model and entry.key.model != f.model):
        return False
    if f.solved and entry.solved != (f.solved == "yes"):
        return False
    if f.metric and (f.low is not None or f.high is not None):
        value = entry.metrics.get(f.metric)
        if value is None:
            return False
        if (f.low is not None and value < f.low) or (f.high is not None and value > f.high):
            return False
    return True


def select(entries: Sequence[Entry], f: Filters) -> list[Entry]:
    """The entries the filters keep, in their order; a metric sort puts missing values last
    whichever the direction."""
    kept = [e for e in entries if keep(e, f)]
    if f.sort.startswith("metric:"):
        name = f.sort[len("metric:"):]
        present = [e for e in kept if e.metrics.get(name) is not None]
        missing = [e for e in kept if e.metrics.get(name) is None]
        present.sort(key=lambda e: (e.metrics[name], e.key), reverse=f.desc)
        return present + missing
    return sorted(kept, key=_KEYS[f.sort], reverse=f.desc)


def page_of(entries: Sequence[Entry], page: int) -> tuple[list[Entry], int]:
    """One page of ``entries`` and the number of pages (at least 1); a page past the end is the
    last."""
    pages = max(1, math.ceil(len(entries) / PAGE_SIZE))
    page = min(page, pages)
    return list(entries[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]), pages


# --------------------------------------------------------------------------- aggregate


@attrs.frozen
class AggregateRow:
    """One (agent, model) over the kept samples.

    ``solved`` and each metric are means over tasks of the per-task means (samples that ended in
    ``error`` left out), with a normal 95 % interval over tasks (``stats.normal_interval``: the
    task is the unit, so several attempts of one task are not counted as independent evidence).
    """

    agent: str
    model: str
    tasks: int
    samples: int
    statuses: Mapping[str, int]
    solved: Interval | None
    metrics: Mapping[str, Interval | None]
    tokens: int
    cost_usd: float
    unpriced_calls: int
    mean_duration_s: float


def metric_names(entries: Sequence[Entry]) -> list[str]:
    return sorted({name for e in entries for name in e.metrics})


def _task_interval(by_task: Mapping[str, Sequence[float]]) -> Interval | None:
    means = [mean(v) for v in by_task.values() if v]
    return normal_interval(means) if means else None


def aggregate(entries: Sequence[Entry], metrics: Sequence[str]) -> list[AggregateRow]:
    rows = []
    for (agent, model), members in group_entries(entries).items():
        judged = [e for e in members if e.status != Status.ERROR.value]
        solved: dict[str, list[float]] = {}
        values: dict[str, dict[str, list[float]]] = {m: {} for m in metrics}
        for e in judged:
            solved.setdefault(e.key.task_id, []).append(1.0 if e.solved else 0.0)
            for m in metrics:
                if (v := e.metrics.get(m)) is not None:
                    values[m].setdefault(e.key.task_id, []).append(v)
        rows.append(AggregateRow(
            agent, model, len({e.key.task_id for e in members}), len(members),
            {s.value: sum(e.status == s.value for e in members) for s in Status},
            _task_interval(solved), {m: _task_interval(values[m]) for m in metrics},
            sum(e.tokens for e in members), total(e.cost_usd for e in members),
            sum(e.unpriced_calls for e in members),
            mean([e.duration_s for e in members])))
    return rows
