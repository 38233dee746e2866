"""Verifier ``tla.invariants``: SysMoBench's invariant correctness (§3.2.4, invariant phase).

Each of the task's invariant templates is checked on the model with TLC (notes §4): safety
templates as ``INVARIANT``, liveness templates as ``PROPERTY`` under the model's own fairness
(its cfg's ``SPECIFICATION``), with ``-deadlock`` and the task's depth, state and wall budgets.

    M_i = |invariants that hold| / |invariant templates|

The concrete TLA+ of an invariant comes from the candidate's ``invariants.json``
(``{"invariants": ["Name == expr", ...]}``, upstream's phase-3 format, names matched without
regard to case) or, when the candidate has none, from each template's ``tla_example``, which is
written in the reference model's vocabulary (its definition is the template's whatever it is
named: locksvc's ``SystemLiveness`` example defines ``Liveness``). Two deliberate differences
from upstream: a template the candidate did not concretise counts as not holding (upstream skips
it, which rewards leaving hard invariants out), and a run that exhausts its wall budget is
``timeout``, not a pass (upstream passes it; here the depth and state budgets bound the search,
and a search they cut short without a violation does hold, marked ``bounded``).

Every invariant gets its own verdict, as with one TLC run per invariant (upstream's way), but
the safety templates (``INVARIANT``s) share one run with the first liveness template
(``PROPERTY``), and each other liveness template runs alone (:func:`first_groups`: TLC never says
which of several properties failed), each run within one check's wall budget. A group that ends
without a violation all holds. A failure that names its check (a violated invariant, the run's
only property, a parse or evaluation error located in a check's definition, a configuration
error naming one; and a run out of time, its one property, whose search is what took the time)
sets that check aside and the rest run again; one it cannot attribute (an error inside the
model itself, safety checks alone out of time) splits the group: two halves of safety checks,
down to single checks, whose outcome is their own. Runs are sequential, inside the one CPU slot
of the verifier call.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_tla.artifact import Deadline, ModelUnderTest, Opening
from speckernel_tla.tasks import Budgets
from speckernel_tla.tlc import TlcOptions, TlcRun, run_tlc
from speckernel_tla.tlc_config import with_checks
from speckernel_tla.tlc_output import Outcome
from speckernel_tla.toolchain import Tla2ToolsToolchain

INVARIANTS_FILE = "invariants.json"
DEFINITION_PREFIX = "SkInv_"
WRAPPER_PREFIX = "SpeckernelInvariants_"
WRAPPER_EXTENDS = "Naturals, FiniteSets, Sequences, TLC"
"""What the checking module adds to the model: the standard modules templates use."""

_DEFINITION = re.compile(r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*==(?!=)(?P<body>.*)$",
                         re.DOTALL)
_SANY_AT = re.compile(r"line (\d+), col \d+ to line \d+, col \d+ of module (\S+)")
_PARSE_AT = re.compile(r"at line (\d+), column \d+")

HOLDS, VIOLATED, ERROR, TIMEOUT, MISSING = "holds", "violated", "error", "timeout", "missing"


@attrs.frozen
class Check:
    """One invariant to check: the template's name and type, the TLA+ body (None when the
    candidate gave no usable definition) and its line span in the checking module."""

    name: str
    kind: str
    body: str | None
    first_line: int = 0
    last_line: int = 0

    @property
    def operator(self) -> str:
        return f"{DEFINITION_PREFIX}{self.name}"


@attrs.frozen
class CheckResult:
    """The outcome of one invariant: holds, violated, error, timeout or missing."""

    name: str
    type: str
    outcome: str
    bounded: bool = False
    message: str = ""
    counterexample: tuple[str, ...] = ()


def split_definition(text: str) -> tuple[str, str] | None:
    """``("Name", body)`` of a ``Name == body`` definition; None if ``text`` is not one."""
    match = _DEFINITION.match(text)
    return (match.group("name"), match.group("body")) if match else None


def concretised(task: Task, candidate: Candidate) -> tuple[list[Check], list[Diagnostic]]:
    """The checks for the task's templates, bodies from ``invariants.json`` or the examples."""
    templates: Sequence[Mapping[str, str]] = task.metadata.get("invariants") or []
    notes: list[Diagnostic] = []
    if INVARIANTS_FILE in candidate.files:
        given, notes = _read_invariants_file(candidate.files[INVARIANTS_FILE])
    else:  # each template's own example, whatever name it gives its definition
        given = {}
        for template in templates:
            parsed = split_definition(template["tla_example"])
            if parsed:
                given[template["name"].lower()] = parsed[1]
            else:
                notes.append(Diagnostic(
                    f"invariant {template['name']}: its example is not a definition "
                    f"'Name == expr' (a parameterised operator cannot be checked alone)",
                    "warning"))
    checks = [Check(t["name"], t["type"], given.get(t["name"].lower())) for t in templates]
    return checks, notes


def _read_invariants_file(text: str) -> tuple[dict[str, str], list[Diagnostic]]:
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        return {}, [Diagnostic(f"{INVARIANTS_FILE} is not JSON: {exc}", file=INVARIANTS_FILE)]
    entries = data.get("invariants") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return {}, [Diagnostic(f'{INVARIANTS_FILE} must be {{"invariants": ["Name == expr"]}}',
                               file=INVARIANTS_FILE)]
    given: dict[str, str] = {}
    notes = []
    for entry in entries:
        parsed = split_definition(entry) if isinstance(entry, str) else None
        if parsed is None:
            notes.append(Diagnostic(f"not a definition 'Name == expr': {str(entry)[:200]}",
                                    "warning", INVARIANTS_FILE))
        else:
            given[parsed[0].lower()] = parsed[1]
    return given, notes


def checking_module(module: str, checks: Sequence[Check]) -> tuple[str, str, list[Check]]:
    """A module extending the model with one renamed definition per check (the model may define
    the same names itself, as the gold models do): (name, text, checks with their lines)."""
    name = f"{WRAPPER_PREFIX}{module}"
    lines = [f"---- MODULE {name} ----", f"EXTENDS {module}, {WRAPPER_EXTENDS}"]
    placed = []
    for check in checks:
        if check.body is None:
            continue
        text = f"{check.operator} =={check.body}".rstrip().splitlines()
        placed.append(attrs.evolve(check, first_line=len(lines) + 1,
                                   last_line=len(lines) + len(text)))
        lines += text
    return name, "\n".join([*lines, "===="]) + "\n", placed


class InvariantVerifier(Verifier):
    """TLC checks of the invariant templates; ``data["m_i"]`` is SysMoBench's M_i."""

    name = "tla.invariants"
    version = "1"
    description = "TLC checks of the task's invariant templates (SysMoBench invariant phase)"
    tools = (Tla2ToolsToolchain.name,)
    limits = Limits(wall_s=600.0, memory_mb=2048)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        opening = Opening.of(self.name, candidate, task, ctx)
        if (model := opening.model) is None:
            return opening.verdict
        checks, notes = concretised(task, candidate)
        session = InvariantSession(opening.jar, model, Budgets.of(task), ctx)
        results = {c.name: CheckResult(c.name, c.kind, MISSING,
                                       message="no definition given for this invariant")
                   for c in checks if c.body is None}
        for group in first_groups([c for c in checks if c.body is not None]):
            results |= await session.check(group)
        ordered = [results[c.name] for c in checks]
        return attrs.evolve(opening.verdict, status=_status(ordered),
                            diagnostics=(*notes, *_diagnostics(ordered)),
                            duration_s=time.monotonic() - started,
                            data=_data(ordered, session.runs))


class InvariantSession:
    """The TLC runs of one verifier call, sharing its wall-clock budget."""

    def __init__(self, jar: Path, model: ModelUnderTest, budgets: Budgets,
                 ctx: VerifyContext) -> None:
        self.jar = jar
        self.model = model
        self.budgets = budgets
        self.ctx = ctx
        self.deadline = Deadline.after(ctx.limits.wall_s)
        self.runs = 0

    async def _run(self, checks: Sequence[Check]) -> tuple[str, list[Check], TlcRun] | None:
        """One TLC run of ``checks`` (a checking module holding just their definitions) within
        one check's wall budget: a group costs what its one property's run would (the safety
        checks ride on the same search). (module, checks placed in it, run)."""
        limits = self.deadline.limits(self.ctx.limits, self.budgets.wall_s)
        if limits is None:
            return None
        wrapper, text, placed = checking_module(self.model.module, checks)
        config = f"{wrapper}.cfg"
        cfg = with_checks(self.model.cfg_text,
                          [c.operator for c in placed if c.kind == "safety"],
                          [c.operator for c in placed if c.kind != "safety"])
        options = TlcOptions(depth=self.budgets.depth, max_states=self.budgets.states,
                             coverage_minutes=None)
        self.runs += 1
        files = {**self.model.files, f"{wrapper}.tla": text, config: cfg}
        return wrapper, placed, await run_tlc(self.ctx.sandbox, self.jar, files, wrapper, config,
                                              options, limits)

    async def check(self, pending: list[Check]) -> dict[str, CheckResult]:
        """The verdict of each check of ``pending``: shared runs, split when a run's failure
        cannot be put down to one check."""
        results: dict[str, CheckResult] = {}
        while pending:
            ran = await self._run(pending)
            if ran is None:
                return results | {c.name: _conclusive(c, None) for c in pending}
            run = ran[2]
            if run.result.outcome is Outcome.OK or (
                    run.result.outcome is Outcome.TIMEOUT and len(pending) == 1):
                return results | {c.name: _conclusive(c, run) for c in pending}
            if run.result.outcome is Outcome.TIMEOUT:
                # the property's search is what ran out of time: alone it would too
                culprit = next((c for c in pending if c.kind != "safety"), None) if sum(
                    c.kind != "safety" for c in pending) == 1 else None
            else:
                culprit = _culprit(*ran)
            if culprit is not None:
                results[culprit.name] = (_conclusive(culprit, run)
                                         if run.result.outcome is Outcome.TIMEOUT
                                         else _failed(culprit, run))
                pending = [c for c in pending if c.name != culprit.name]
            elif len(pending) == 1:
                return results | {pending[0].name: _failed(pending[0], run)}
            else:
                for group in _split(pending):
                    results |= await self.check(group)
                return results
        return results


def _culprit(wrapper: str, pending: Sequence[Check], run: TlcRun) -> Check | None:
    """The check (placed in module ``wrapper``) a failed shared run is about: the invariant it
    names as violated, the only property of the run, the one check a configuration error
    names, or the definition an error points into."""
    result = run.result
    if result.outcome is Outcome.INVARIANT_VIOLATED:
        return next((c for c in pending if c.operator == result.violated), None)
    if result.outcome is Outcome.PROPERTY_VIOLATED:
        properties = [c for c in pending if c.kind != "safety"]
        return properties[0] if len(properties) == 1 else None
    if result.outcome is Outcome.CONFIG_ERROR:  # "The property SkInv_P is not correctly defined"
        named = [c for c in pending if re.search(rf"\b{c.operator}\b", result.message)]
        return named[0] if len(named) == 1 else None
    lines: list[int] = []
    if result.outcome is Outcome.EVALUATION_ERROR:
        lines = [loc.line for loc in result.error_locations if loc.module == wrapper]
    elif result.outcome is Outcome.PARSE_ERROR:
        report = result.parse_output
        lines = [int(m.group(1)) for m in _SANY_AT.finditer(report)
                 if m.group(2) == wrapper]
        if f"Could not parse module {wrapper} " in report:
            lines += [int(m.group(1)) for m in _PARSE_AT.finditer(report)]
    return next((c for c in pending for line in lines
                 if c.first_line <= line <= c.last_line), None)


def first_groups(checks: Sequence[Check]) -> list[list[Check]]:
    """The runs to start with: every safety check and the first property together, then each
    other property alone. TLC names a violated invariant but never which of several properties
    failed, and a property's search is what a run costs: a failing property in a shared run would
    be searched again, alone, to be told apart."""
    safety = [c for c in checks if c.kind == "safety"]
    properties = [c for c in checks if c.kind != "safety"]
    groups = [safety + properties[:1], *([p] for p in properties[1:])]
    return [g for g in groups if g]


def _split(checks: Sequence[Check]) -> list[list[Check]]:
    """How to divide checks whose shared run failed without saying which: the safety ones
    together and each property alone (TLC names a violated invariant, never a property), or,
    with no property among several, two halves."""
    safety = [c for c in checks if c.kind == "safety"]
    properties = [c for c in checks if c.kind != "safety"]
    if properties and len(checks) > 1:
        return ([safety] if safety else []) + [[p] for p in properties]
    half = len(checks) // 2
    return [list(checks[:half]), list(checks[half:])]


def _conclusive(check: Check, run: TlcRun | None) -> CheckResult:
    """A run that ended without a violation: holds (``bounded`` if a budget cut the search),
    or timeout."""
    if run is None:
        return CheckResult(check.name, check.kind, TIMEOUT,
                           message="the verifier's wall budget ran out before this check")
    if run.result.outcome is Outcome.TIMEOUT:
        return CheckResult(check.name, check.kind, TIMEOUT,
                           message=f"TLC ran out of its {run.process.duration_s:.0f} s budget")
    return CheckResult(check.name, check.kind, HOLDS, bounded=run.truncated)


def _failed(check: Check, run: TlcRun) -> CheckResult:
    result = run.result
    violated = result.outcome in (Outcome.INVARIANT_VIOLATED, Outcome.PROPERTY_VIOLATED)
    text = result.message or result.parse_output or result.outcome.value
    return CheckResult(check.name, check.kind, VIOLATED if violated else ERROR,
                       message=f"{result.outcome.value}: {text}"[:2000],
                       counterexample=result.trace_actions)


def _status(results: Sequence[CheckResult]) -> Status:
    outcomes = {r.outcome for r in results}
    if outcomes & {VIOLATED, ERROR, MISSING}:
        return Status.FAILURE
    return Status.TIMEOUT if TIMEOUT in outcomes else Status.SUCCESS


def _diagnostics(results: Sequence[CheckResult]) -> list[Diagnostic]:
    out = []
    for r in results:
        if r.outcome == HOLDS:
            continue
        trace = f" (counterexample: {' -> '.join(r.counterexample)})" if r.counterexample else ""
        out.append(Diagnostic(f"{r.type} invariant {r.name}: {r.outcome}: {r.message}{trace}",
                              "warning" if r.outcome == TIMEOUT else "error",
                              code=f"invariant-{r.outcome}"))
    return out


def _data(results: Sequence[CheckResult], runs: int) -> dict[str, object]:
    holding = sum(r.outcome == HOLDS for r in results)
    return {
        "m_i": holding / len(results) if results else None,
        "holds": holding,
        "total": len(results),
        "invariants": {r.name: attrs.asdict(r) for r in results},
        "tlc_runs": runs,
    }
