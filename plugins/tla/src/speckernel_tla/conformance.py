"""The ``tla.conformance`` verifier: SysMoBench's conformance phase (§3.2), a model checked
against the traces of the real system with TLC.

PGo systems' TraceLink runs are checked by :mod:`speckernel_tla.conformance_pgo`, with the
mapping derived from the model; what follows is about NDJSON traces.

The traces and the budgets come from the task; the mapping from their events onto the model's
actions is the task's, unless the candidate brings its own ``mapping.yaml`` (a model in other
names needs one), and then the run's evaluator model's ``evaluator/mapping.yaml`` when it has
one (:mod:`speckernel_tla.evaluator`; verdict data ``mapped_by``);
:mod:`speckernel_tla.trace_validation` builds the TLA+ module, and one TLC run checks every trace
that shares a first line (normally all of them). Definitions, for traces of ``n_t`` lines:

* **Whole-trace validation** (SysMoBench's): trace ``t`` validates when some behaviour of the
  model starts in an initial state matching line 1 and takes, for each later line, a step of the
  line's mapped action satisfying its logged fields. Otherwise it fails at the first line ``k``
  that no behaviour matching lines ``1..k-1`` can match.
* **M_ac** = traces that validate / all traces.
* **M_c** = code actions covered without a conformance error / all code actions. The code
  actions are the distinct events of lines ``2..n_t`` (the instrumented transitions); one is
  *covered* when a line of it lies in a validated prefix (lines ``2..k-1`` of a trace failing at
  ``k``), and *erroneous* when some trace fails at a line of it. This is the counting of
  SysMoBench's PGo validation (labels reached, minus the label it failed at; notes §3), per event.
* **Window-based transition score** (each step checked alone): the window of line ``i >= 2`` is
  the triple (pre-state, event of line ``i``, post-state). It passes when some behaviour of the
  model of at most ``i`` states ends with a step matching line ``i`` (a step of its mapped action
  satisfying its logged fields) whose pre-state is reached by a ``Next`` step satisfying line
  ``i-1``'s logged fields (for ``i = 2``: is an initial state matching line 1). The pre-state is
  thus reachable, in no more steps than the trace took, and agrees with what the trace logged
  just before the step, but not with the rest of the prefix: a wrong action fails its own
  windows, not those of the actions after it, as a whole-trace prefix would. Any ``Next`` step,
  not only line ``i-1``'s own action, leads into the pre-state for the same reason.
  ``per_action`` is, per event, passing windows / windows of lines of that event, and
  ``transition_score`` passing windows / all windows.

Empty ratios are 1 (no code action, nothing failed). The budgets ``wall_s`` (per TLC run, within
the verifier's own wall time) and ``states`` (distinct states per run) apply; ``depth`` does not:
each line fixes the depth its checks need. ``states`` bounds the window search only (the free
model grows with the longest trace; the whole-trace search is bounded by the traces themselves), so
a run that exhausts it still gives every trace its verdict, and the windows not found by then count
as failing, which a diagnostic says. A run stopped by the wall time leaves the traces it had not
finished undetermined: status ``timeout``, with the facts found so far in the data.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.errors import KernelError
from speckernel.evaluation import EVALUATOR_DIR
from speckernel.model import JSON, Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits
from speckernel.yamlio import load_yaml, plain

from speckernel_tla.artifact import Deadline, ModelUnderTest, Opening
from speckernel_tla.cfg_tampering import Replacements, tampering
from speckernel_tla.conformance_pgo import check_runs, unvalidated
from speckernel_tla.fact_tags import new_tag
from speckernel_tla.specification import trace_config
from speckernel_tla.standard_names import standard_names
from speckernel_tla.tasks import TRACELINK, Budgets
from speckernel_tla.tlc import TlcOptions, run_tlc
from speckernel_tla.tlc_output import Outcome
from speckernel_tla.toolchain import Tla2ToolsToolchain
from speckernel_tla.trace_validation import (
    TRACE_SEARCH,
    Facts,
    Group,
    InputError,
    ModelConfig,
    Trace,
    TraceMapping,
    group_traces,
    introduced_names,
    mapping_problem,
    parse_mapping,
    parse_report,
    parse_trace,
    read_facts,
    trace_module,
)

MAPPING_FILE = "mapping.yaml"
EVALUATOR_MAPPING = f"{EVALUATOR_DIR}{MAPPING_FILE}"
EVALUATOR, CANDIDATE, TASK = "evaluator", "candidate", "task"
"""Who wrote the mapping the traces are read through (verdict data ``mapped_by``): the run's
evaluator model, for a candidate that brings a mapping of its own (upstream's evaluator writes
every mapping); the candidate, whose ``mapping.yaml`` is then audited
(:func:`speckernel_tla.trace_validation.mapping_problem`) but is still criteria it wrote about
itself; or the task, whose mapping reads the model in the gold model's names."""
BUDGET_OUTCOMES = frozenset({Outcome.TIMEOUT, Outcome.RESOURCE_LIMIT})


@attrs.frozen
class GroupRun:
    """One TLC run over a group of traces: the facts it printed and how it ended
    (``truncated``: the state budget stopped the window search)."""

    facts: Facts
    outcome: Outcome
    truncated: bool
    message: str

    @property
    def traces_complete(self) -> bool:
        """Whether the whole-trace search finished (the state budget spares it)."""
        return self.outcome is Outcome.OK

    @property
    def complete(self) -> bool:
        return self.traces_complete and not self.truncated

    @property
    def out_of_budget(self) -> bool:
        return self.outcome in BUDGET_OUTCOMES or self.truncated


@attrs.frozen
class TraceResult:
    """What the runs established about one trace: ``reached`` lines validated (a prefix),
    ``determined`` when the run finished (so a shorter prefix is a failure), and whether the
    window of each line ``2..n`` passed."""

    trace: Trace
    reached: int
    determined: bool
    windows: tuple[bool, ...]

    @property
    def ok(self) -> bool:
        return self.reached == len(self.trace.records)

    @property
    def failed(self) -> int | None:
        """The 1-based record index of the first line no behaviour matches, when known."""
        return self.reached + 1 if self.determined and not self.ok else None

    def data(self) -> dict[str, JSON]:
        failed = self.failed
        return {"ok": self.ok,
                "failed_line": self.trace.lines[failed - 1] if failed else None,
                "event": self.trace.event(failed) if failed else None}


def trace_results(group: Group, run: GroupRun) -> Iterator[TraceResult]:
    for t, trace in enumerate(group.traces):
        windows = tuple(run.facts.window(group.window(t, line), line)
                        for line in range(2, len(trace.records) + 1))
        yield TraceResult(trace, run.facts.reached(t + 1), run.traces_complete, windows)


# --------------------------------------------------------------------------- metrics


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def code_actions(results: Sequence[TraceResult]) -> list[str]:
    """The distinct events of the transition lines (2..n), in order of first appearance."""
    seen = (r.trace.event(i) for r in results for i in range(2, len(r.trace.records) + 1))
    return list(dict.fromkeys(seen))


def m_c(results: Sequence[TraceResult]) -> float:
    actions = code_actions(results)
    covered = {r.trace.event(i) for r in results for i in range(2, r.reached + 1)}
    erroneous = {r.trace.event(f) for r in results if (f := r.failed) and f >= 2}
    return _ratio(len(covered.intersection(actions) - erroneous), len(actions))


def window_rates(results: Sequence[TraceResult]) -> tuple[dict[str, float], float]:
    """(per event: passing windows / windows, passing windows / all windows), counted per event
    in one pass over the windows."""
    passing: Counter[str] = Counter()
    windows: Counter[str] = Counter()
    for r in results:
        for i, passed in enumerate(r.windows, 2):
            event = r.trace.event(i)
            windows[event] += 1
            passing[event] += passed
    per_action = {action: _ratio(passing[action], windows[action])
                  for action in code_actions(results)}
    return per_action, _ratio(sum(passing.values()), sum(windows.values()))


def conformance_data(results: Sequence[TraceResult]) -> dict[str, JSON]:
    per_action, transition_score = window_rates(results)
    return {"m_c": m_c(results),
            "m_ac": _ratio(sum(r.ok for r in results), len(results)),
            "transition_score": transition_score,
            "per_action": per_action,
            "traces": {r.trace.key: r.data() for r in results}}


def unchecked_data(keys: Sequence[str]) -> dict[str, JSON]:
    """The data of a verdict that checked nothing (a malformed mapping or trace)."""
    return {"m_c": 0.0, "m_ac": 0.0, "transition_score": 0.0, "per_action": {},
            "traces": {k: {"ok": False, "failed_line": None, "event": None} for k in keys}}


# --------------------------------------------------------------------------- diagnostics


def mismatch(result: TraceResult, mapping: TraceMapping) -> Diagnostic:
    """Where and why a trace fails (``result.failed`` is set)."""
    index = result.failed or 1
    event = result.trace.event(index)
    mapped = mapping.event(event)
    if index == 1:
        why = "no initial state of the model matches it"
    elif mapped is None:
        why = f"event {event} is not in the mapping"
    else:
        why = (f"no behaviour of the model that matches lines 1-{index - 1} has a step of "
               f"{mapped.action} that matches its logged fields")
    line = result.trace.lines[index - 1]
    return Diagnostic(f"line {line} (event {event}) does not conform: {why}",
                      file=result.trace.key, line=line, code="trace-mismatch")


def run_problem(group: Group, run: GroupRun) -> Diagnostic | None:
    """What stopped a run short of a verdict on every trace of its group, if anything did."""
    if run.complete:
        return None
    keys = ", ".join(t.key for t in group.traces)
    if run.traces_complete:
        return Diagnostic(f"the window search ran out of its state budget checking {keys}: "
                          "windows not found by then count as failing", code="budget")
    if run.out_of_budget:
        reached = ", ".join(f"{t.key} to line {t.lines[run.facts.reached(n) - 1]}"
                            for n, t in enumerate(group.traces, 1) if run.facts.reached(n))
        return Diagnostic(f"TLC ran out of budget checking {keys}"
                          f"{'; validated ' + reached if reached else ''}", code="budget")
    return Diagnostic(f"TLC could not check {keys} ({run.outcome.value}): {run.message}",
                      code=f"tlc-{run.outcome.value}")


def verdict_status(results: Sequence[TraceResult], runs: Sequence[GroupRun]) -> Status:
    if any(r.failed for r in results) or any(not (r.traces_complete or r.out_of_budget)
                                             for r in runs):
        return Status.FAILURE
    return Status.SUCCESS if all(r.ok for r in results) else Status.TIMEOUT


# --------------------------------------------------------------------------- inputs


def mapping_author(candidate: Candidate) -> str:
    """Who wrote the mapping the candidate is judged through: the evaluator when its
    ``evaluator/mapping.yaml`` is there, else the candidate when it has a ``mapping.yaml``,
    else the task."""
    if EVALUATOR_MAPPING in candidate.files:
        return EVALUATOR
    return CANDIDATE if MAPPING_FILE in candidate.files else TASK


MAPPING_SOURCES = {EVALUATOR: f"the evaluator's {EVALUATOR_MAPPING}",
                   CANDIDATE: f"{MAPPING_FILE} of the candidate", TASK: "the task's mapping"}
MAPPING_FILES = {EVALUATOR: EVALUATOR_MAPPING, CANDIDATE: MAPPING_FILE}


def load_mapping(candidate: Candidate, task: Task) -> TraceMapping | None:
    """The mapping :func:`mapping_author` names: the evaluator's, the candidate's or the
    task's; None if there is none."""
    by = mapping_author(candidate)
    try:
        if by == TASK:
            raw = task.metadata.get("mapping")
        else:
            raw = plain(load_yaml(candidate.files[MAPPING_FILES[by]], MAPPING_FILES[by]))
        return None if raw is None else parse_mapping(raw)
    except (InputError, KernelError) as exc:
        raise InputError(f"{MAPPING_SOURCES[by]}: {exc}") from exc


def cfg_refusal(model: ModelUnderTest, introduced: frozenset[str], jar: Path,
                criteria: Sequence[str] = ()) -> Diagnostic | None:
    """Why the model's cfg tampers with the validation module (names one of the names it
    ``introduced``, or replaces a standard operator: :mod:`speckernel_tla.cfg_tampering`) or
    replaces a definition of the model that ``criteria`` (the expressions of a mapping the
    candidate did not write) read, as the diagnostic of a verdict that checks no trace; None if
    it does not."""
    why = tampering(model.cfg_text, model.module_texts, introduced.__contains__,
                    standard_names(jar))
    if why is None:
        replacements = Replacements.of(model.cfg_text, model.module_texts)
        if read := replacements.read_by(criteria):
            why = f"{replacements.described(read)}, which the mapping reads"
    return None if why is None else Diagnostic(f"{why}: no trace is checked",
                                               file=model.config, code="cfg-tampering")


def criteria(mapping: TraceMapping) -> list[str]:
    """What ``mapping`` says of the model's state: its constants', fields' and checks'
    expressions (its actions name the steps TLC takes, whatever the cfg makes of them)."""
    return [*(text for _, text in mapping.constants), *(text for _, text in mapping.init_fields),
            *(text for event in mapping.events
              for text in (*(t for _, t in event.fields), *event.checks))]


def task_mapping(task: Task) -> TraceMapping | None:
    """The task's own mapping; None if it has none or a malformed one (the verifier reports
    that where it reads the mapping to check traces with)."""
    try:
        raw = task.metadata.get("mapping")
        return None if raw is None else parse_mapping(raw)
    except InputError:
        return None


def own_mapping_problem(mapping: TraceMapping, task: Task, introduced: frozenset[str],
                        by: str) -> Diagnostic | None:
    """Why a mapping that is not the task's (the candidate's, or the evaluator's of a model in
    other names) cannot judge the model (:func:`mapping_problem`, against the task's mapping if
    it has a well-formed one), as the diagnostic of a verdict that checks no trace; None if it
    can. The evaluator's mapping is held to the same rules: what the evaluator model was shown
    is the candidate's model, and what it answers may be what the model's names asked for."""
    why = mapping_problem(mapping, task_mapping(task), introduced)
    return None if why is None else Diagnostic(f"{MAPPING_SOURCES[by]}: {why}",
                                               file=MAPPING_FILES[by], code="mapping")


def trace_keys(task: Task) -> list[str] | None:
    """The keys of ``task.files`` holding its traces, or None if the task names none."""
    keys = task.metadata.get("traces")
    if not isinstance(keys, list) or not keys or any(k not in task.files for k in keys):
        return None
    return [str(k) for k in keys]


# --------------------------------------------------------------------------- runs


@attrs.frozen
class Model:
    """The model under test with what trace validation reads of its cfg."""

    module: str
    files: Mapping[str, str]
    config: ModelConfig


async def check_group(ctx: VerifyContext, jar: Path, model: Model, mapping: TraceMapping,
                      group: Group, limits: Limits, max_states: int | None) -> GroupRun:
    """One TLC run of the trace-validation module of ``group``."""
    tag = new_tag()
    name, text, cfg = trace_module(model.module, model.config, mapping, group, tag)
    files = {**model.files, f"{name}.tla": text, f"{name}.cfg": cfg}
    options = TlcOptions(max_states=max_states, coverage_minutes=None, exempt=TRACE_SEARCH)
    run = await run_tlc(ctx.sandbox, jar, files, name, f"{name}.cfg", options, limits)
    result = run.result
    message = (parse_report(result.parse_output, name, text) if result.parse_output
               else result.message)
    return GroupRun(read_facts(run.process.output, tag), result.outcome, run.truncated, message)


# --------------------------------------------------------------------------- verifier


class ConformanceVerifier(Verifier):
    """SysMoBench §3.2 conformance: whole-trace validation (M_ac, M_c) and the window-based
    transition score of a TLA+ model against the system's traces; the module docstring gives the
    definitions. Succeeds iff every trace validates."""

    name = "tla.conformance"
    version = "4"
    description = "trace validation of the TLA+ model with TLC: M_c, M_ac, transition score"
    tools = (Tla2ToolsToolchain.name,)
    limits = Limits(wall_s=600.0, memory_mb=8192, output_bytes=64_000_000)
    """A trace module holds its traces as TLA+ values, parsed by SANY and kept by TLC, and prints
    a fact per section reached: raftkvs's 35 MB of TraceLink logs (a stand-in of that size)
    make a 5.5 MB module that ran out of a 1 GB heap, and 5 MB of facts. The heap is half the
    memory budget and grows only as used; output past its cap leaves the runs undetermined."""

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        opening = Opening.of(self.name, candidate, task, ctx, needs_config=False)
        verdict = opening.verdict
        keys = trace_keys(task)
        if keys is None:
            status, diagnostics, data = unvalidated("the task has no traces")
            return attrs.evolve(verdict, status=status, diagnostics=diagnostics, data=data)
        if opening.model is None:
            return attrs.evolve(verdict, data=unchecked_data(keys))
        budgets = Budgets.of(task)
        deadline = Deadline.after(ctx.limits.wall_s)
        config = await trace_config(ctx, opening.jar, opening.model, deadline, budgets.wall_s)
        if isinstance(config, Diagnostic):
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=(config,),
                                data=unchecked_data(keys), duration_s=time.monotonic() - started)
        if task.metadata.get("trace_format") == TRACELINK:
            status, diagnostics, data = await check_runs(
                ctx, opening.jar, opening.model, config,
                task.metadata.get("trace_constants"), {k: task.files[k] for k in keys},
                deadline, budgets.wall_s, (task.reference or {}).get(f"{opening.model.module}.tla"))
            return attrs.evolve(verdict, status=status, diagnostics=diagnostics, data=data,
                                duration_s=time.monotonic() - started)
        model = Model(opening.model.module, opening.model.files, config)
        try:
            traces = [parse_trace(k, task.files[k]) for k in keys]
        except InputError as exc:
            status, diagnostics, data = unvalidated(f"the task's trace {exc}")
            return attrs.evolve(verdict, status=status, diagnostics=diagnostics, data=data,
                                duration_s=time.monotonic() - started)
        by = mapping_author(candidate)
        try:
            mapping = load_mapping(candidate, task)
            if mapping is None:
                status, diagnostics, data = unvalidated(
                    f"no {MAPPING_FILE} in the candidate and no mapping in the task")
                return attrs.evolve(verdict, status=status, diagnostics=diagnostics, data=data,
                                    duration_s=time.monotonic() - started)
            groups = group_traces(traces, mapping)
        except InputError as exc:
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=(Diagnostic(str(exc)),),
                                data={**unchecked_data(keys), "mapped_by": by},
                                duration_s=time.monotonic() - started)
        introduced = introduced_names(model.module, model.config, mapping, groups[0])
        refused = cfg_refusal(opening.model, introduced, opening.jar,
                              () if by == CANDIDATE else criteria(mapping))
        if refused is None and by != TASK:
            refused = own_mapping_problem(mapping, task, introduced, by)
        if refused is not None:
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=(refused,),
                                data={**unchecked_data(keys), "mapped_by": by},
                                duration_s=time.monotonic() - started)
        runs = []
        for group in groups:
            left = ctx.limits.wall_s - (time.monotonic() - started)
            limits = attrs.evolve(ctx.limits, wall_s=max(min(budgets.wall_s, left), 1.0))
            runs.append(await check_group(ctx, opening.jar, model, mapping, group, limits,
                                          budgets.states))
        results = [r for g, run in zip(groups, runs, strict=True) for r in trace_results(g, run)]
        problems = [d for g, run in zip(groups, runs, strict=True) if (d := run_problem(g, run))]
        return attrs.evolve(
            verdict, status=verdict_status(results, runs),
            diagnostics=(*problems, *(mismatch(r, mapping) for r in results if r.failed)),
            data={**conformance_data(results), "mapped_by": by},
            duration_s=time.monotonic() - started)
