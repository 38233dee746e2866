"""Conformance of a PGo-compiled model to its system's TraceLink runs (SysMoBench's dqueue,
locksvc and raftkvs; notes §3), with the mapping derived from the model
(:mod:`speckernel_tla.pgo_validation`): one TLC run per distributed run.

Definitions, over the runs whose logs are well formed (a section is *taken* when some behaviour
of the model that respects the clocks took it; aborted sections change nothing and are no
transitions):

* a run *validates* when some behaviour takes every section of every process; it *fails* at
  the sections that were next with their clock satisfied in some reached state but never taken;
* **M_ac** = runs that validate / runs;
* **M_c** = code actions covered without a conformance error / all code actions, the code
  actions being the labels of the sections (named by the model's action for each, ``c1`` for
  ``AConsumer.c1``), *covered* when some section of it is taken, *erroneous* when a run fails at
  a section of it: SysMoBench's PGo counting (labels reached minus the label it failed at), per
  label;
* **transition score** = sections taken / all sections; ``per_action`` the same per label.

A model the mapping cannot be derived from (not compiled by PGo) cannot be checked against
these traces: the verdict is ``unknown`` and every metric None, as it is when no run is well
formed. A run TLC could not finish within its budget is undetermined (status ``timeout``), its
facts so far counting.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from speckernel.components import VerifyContext
from speckernel.model import JSON, Diagnostic, Status

from speckernel_tla.artifact import Deadline, ModelUnderTest
from speckernel_tla.cfg_tampering import module_names, tampering
from speckernel_tla.pgo_validation import plan, read_facts
from speckernel_tla.standard_names import standard_names
from speckernel_tla.tlc import TlcOptions, run_tlc
from speckernel_tla.tlc_output import Outcome
from speckernel_tla.trace_validation import ModelConfig


@attrs.frozen
class RunResult:
    """What TLC established about one run: the sections (``[file, line, label, aborted,
    action]`` per process), how many of each process's sections some behaviour took, the
    sections where it fails, whether it validates, and whether the verdict is final."""

    key: str
    records: tuple[tuple[tuple[str, int, str, bool, str], ...], ...]
    taken: tuple[int, ...]
    failing: tuple[tuple[int, int], ...]
    """(process, section), both 1-based."""
    ok: bool
    determined: bool
    message: str = ""

    def sections(self) -> list[tuple[str, bool]]:
        """Each transition's action and whether some behaviour took it."""
        return [(action, k <= self.taken[i])
                for i, rows in enumerate(self.records)
                for k, (_, _, _, aborted, action) in enumerate(rows, 1) if not aborted]

    def failures(self) -> list[tuple[str, int, str, str]]:
        """(file, line, label, action) of each section the run fails at."""
        return [(row[0], row[1], row[2], row[4])
                for row in (self.records[i - 1][k - 1] for i, k in self.failing)]


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def metrics(results: Sequence[RunResult]) -> dict[str, JSON]:
    """The data of a check: M_c, M_ac, the transition score, per action the sections taken /
    its sections, and per run where it fails first (one pass over the sections: counted per
    action, not rescanned for each)."""
    taken: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for r in results:
        for label, took in r.sections():
            total[label] += 1
            taken[label] += took
    erroneous: set[str] = set()
    traces: dict[str, JSON] = {}
    for r in results:
        failures = r.failures()
        erroneous.update(action for *_, action in failures)
        first = failures[0] if failures else None
        traces[r.key] = {"ok": r.ok, "failed_line": first[1] if first else None,
                         "file": first[0] if first else None,
                         "event": first[2] if first else None}
    covered = {label for label in total if taken[label]}
    return {"m_c": _ratio(len(covered - erroneous), len(total)),
            "m_ac": _ratio(sum(r.ok for r in results), len(results)),
            "transition_score": _ratio(sum(taken.values()), sum(total.values())),
            "per_action": {a: _ratio(taken[a], total[a]) for a in total}, "traces": traces}


def unvalidated(why: str) -> tuple[Status, tuple[Diagnostic, ...], dict[str, JSON]]:
    """A check that could not judge the model against the traces: no metric, not 0."""
    return (Status.UNKNOWN, (Diagnostic(f"the traces cannot be validated: {why}",
                                        code="not-validated"),),
            {"m_c": None, "m_ac": None, "transition_score": None, "per_action": {},
             "traces": {}})


async def check_runs(ctx: VerifyContext, jar: Path, model: ModelUnderTest, config: ModelConfig,
                     trace_constants: str | None, files: Mapping[str, str], deadline: Deadline,
                     wall_s: float, gold: str | None,
                     ) -> tuple[Status, tuple[Diagnostic, ...], dict[str, JSON]]:
    """Check every run of ``files`` (``traces/<run>/<log>``) against ``model`` from the initial
    predicate of ``config``, each step one of its next-state relation, in one TLC run whose wall
    budget is what separate runs would have had together (``wall_s`` each); the channels are
    those of the task's gold model ``gold`` when there is one."""
    planned = await ctx.run_sync(plan, model.module, model.text, model.cfg_text, config.init,
                                 config.next, trace_constants, dict(files), gold,
                                 list(config.definitions))
    if "error" in planned:
        return unvalidated(planned["error"])
    notes = [Diagnostic(f"run {run['key']} is skipped: {run['error']}", "warning",
                        code="bad-trace") for run in planned["runs"] if run["error"] is not None]
    good = [run for run in planned["runs"] if run["error"] is None]
    if not good:
        return unvalidated("no run has well-formed logs")
    introduced = module_names(planned["text"])
    if (why := tampering(model.cfg_text, model.module_texts, introduced.__contains__,
                         standard_names(jar))) is not None:
        return (Status.FAILURE, (Diagnostic(f"{why}: no run is checked", file=model.config,
                                            code="cfg-tampering"),),
                {"m_c": 0.0, "m_ac": 0.0, "transition_score": 0.0, "per_action": {},
                 "traces": {run["key"]: {"ok": False, "failed_line": None, "file": None,
                                         "event": None} for run in good}})
    limits = deadline.limits(ctx.limits, wall_s * len(good))
    output, outcome, message = "", Outcome.TIMEOUT, "the verifier's wall budget ran out first"
    if limits is not None:
        name = planned["name"]
        done = await run_tlc(ctx.sandbox, jar, {**model.files, f"{name}.tla": planned["text"],
                                                f"{name}.cfg": planned["cfg"]},
                             name, f"{name}.cfg", TlcOptions(coverage_minutes=None), limits)
        output, outcome = done.process.output, done.result.outcome
        message = (done.result.message or done.result.parse_output)[:1000]
    facts = read_facts(output, planned["tag"])
    results = [_result(run, facts.get(n, {}), outcome, message) for n, run in enumerate(good, 1)]
    notes += [Diagnostic(f"run {r.key}: {file}:{line} ({label}) does not conform: no behaviour "
                         "of the model that matches the sections before it takes this step",
                         file=file, line=line, code="trace-mismatch")
              for r in results if r.determined for file, line, label, _ in r.failures()[:1]]
    notes += [Diagnostic(f"run {r.key} could not be checked to the end: {r.message}",
                         "error" if r.determined else "warning", code=f"tlc-{outcome.value}")
              for r in results if r.message]
    if any(r.determined and not r.ok for r in results):
        status = Status.FAILURE
    else:
        status = Status.SUCCESS if all(r.ok for r in results) else Status.TIMEOUT
    return status, tuple(notes), metrics(results)


def _result(run: Mapping[str, Any], facts: Mapping[str, Any], outcome: Outcome,
            message: str) -> RunResult:
    """What TLC's facts (and how the TLC run ended) say about one replayed run."""
    records = tuple(tuple((str(f), int(n), str(label), bool(a), str(action))
                          for f, n, label, a, action in rows) for rows in run["records"])
    done = bool(facts.get("done"))
    at, ready = facts.get("at", {}), facts.get("ready", {})
    taken = tuple(at.get(i, 0) for i in range(1, len(records) + 1))
    determined = done or outcome not in (Outcome.TIMEOUT, Outcome.RESOURCE_LIMIT)
    failing = tuple((i, k) for i in range(1, len(records) + 1)
                    for k in sorted(ready.get(i, ())) if k > taken[i - 1]) if determined else ()
    note = "" if outcome is Outcome.OK or done else f"TLC {outcome.value}: {message}"
    return RunResult(str(run["key"]), records, taken, failing, done, determined, note)
