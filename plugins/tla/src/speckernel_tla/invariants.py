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

Every invariant gets the verdict one TLC run of it alone gives (upstream's way,
:meth:`InvariantSession.check_alone`), from fewer and cheaper runs:

- All templates start in one TLC run, each within one check's wall budget: the safety ones as
  ``INVARIANT``s, the liveness ones as ``PROPERTY``s. A model whose templates all hold, as a
  correct one's do, pays one search. TLC names a violated invariant, and a violated property it
  checks on states and steps (``[]P``, ``[][A]_v``, state predicates, see
  :mod:`speckernel_tla.shapes`), but never which of several tableau properties failed: those
  are then searched again, each alone, while the invariants of a run that generated every state
  hold.
- A liveness template that is a safety property (:func:`speckernel_tla.shapes.safety_obligations`:
  ``\\A x \\in S : [](R(x))``; ``[](P => []R)``, ``[](P => ~<>Q)``) is an invariant: in the shared
  run when it has no ``P``, else in one run of the model extended by a watching variable
  (:func:`speckernel_tla.shapes.monitor_module`, only on an unconstrained exploration: no depth or
  state budget, no ``TLCGet``/``TLCSet``/``Random...``/``JavaTime``, which would make the
  watched model reach other states), which finds a violation as soon as its prefix is generated
  instead of after the tableau's search of the whole product. Its holding is exact; its
  violation too where the exploration is unconstrained and the model's fairness is on sub-actions of
  its next-state relation (machine closure: every prefix extends to a fair behaviour TLC's tableau
  considers), otherwise the template is checked its own way, as is one whose invariant ends in
  anything but a pass or a violation. A violation found this way is the one TLC's own run of the
  template reports when it concludes (that run may first run out of its wall budget: ``timeout``,
  where this one concludes). Which templates are of these shapes is read from SANY's analysis of
  them (one SanyBatch JVM, only when a liveness template's text has a ``[]`` that could be one, and
  never for a model with ``LOCAL`` definitions, nor under a cfg that
  gives a value to, or replaces, a name some module of the candidate defines or an operator symbol
  (:func:`overrides_definitions`): TLC then evaluates a definition otherwise than SANY's analysis of
  the module shows).
- A liveness template with conjuncts that are fairness conditions of the model's own specification
  (the same formula, as SANY resolved both: locksvc's ``SpecNoDeadlock`` restates its specification)
  loses them (:func:`speckernel_tla.shapes.unimplied_conjuncts`): TLC's tableau conjoins the
  specification's fairness to every negated property and evaluates both copies alike, so it never
  finds a behaviour violating one. The rest is checked in its place (``Init /\\ [][Next]_vars`` on
  states and steps, with no tableau), and concludes only from a run that ends without a failure and
  has a template TLC surely checks with its liveness checker
  (:func:`speckernel_tla.shapes.searches_tableau`), which evaluates the specification's fairness on
  every state and step just as the template's own run would; otherwise the template is checked its
  own way. Never with ``TLCGet``/``TLCSet``/``Random...``/``JavaTime`` in the model or the template
  (two copies of a formula using them may evaluate differently). The template's own run, with the
  fairness branches in its tableau, may run out of its wall budget first (``timeout`` where this
  concludes ``holds``). SANY is asked about every liveness template when one names ``WF_`` or
  ``SF_``, under the same conditions.

The state space checked is the model's: the cfg's ``CONSTRAINT``, ``ACTION_CONSTRAINT``,
``VIEW`` and ``SYMMETRY`` sections are dropped for every run (a warning says so), and a search
they made finite is bounded by the default depth and state budgets where the task gives none
(upstream's full search). With them a candidate could make every invariant hold by reaching no
state: ``CONSTRAINT Never``, ``ACTION_CONSTRAINT x' < 0``, ``VIEW 0``, a symmetry identifying
everything. A cfg naming a name the verifier generates outside INVARIANT/PROPERTY, or replacing
a standard module's operator the model neither defines nor declares, is refused: every template
is an error, no run starts (:func:`speckernel_tla.cfg_tampering.tampering`).

A template using ``TLCGet``/``TLCSet``/``Random...``/``JavaTime``, or every template of a model
using them, runs alone: what TLC's registers and random choices give depends on everything
else a run evaluates. So does a template whose text could reach past its own definition in a
shared module (:func:`speckernel_tla.enclosure.enclosed`: a comment delimiter, ``====``,
``----``, a definition, declaration, ``ASSUME``, ``INSTANCE``, or a name the plugin generates),
and it is never shaped.

A group that ends without a violation all holds. A failure that names its check (a violated
invariant or property TLC names, the run's only property, a parse or evaluation error located
in a check's definition, a configuration error naming one) sets that check aside and the rest
run again; one it cannot attribute (an error inside the model itself, a run out of time: any
check may be the slow one, and the others conclude alone) splits the group: the invariants
together and each property alone, or two halves of invariants, down to single checks,
whose outcome is their own. Runs are sequential, inside the one CPU slot of the verifier call.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.evaluation import EVALUATOR_DIR
from speckernel.lines import LINE_END
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_tla.artifact import Deadline, ModelUnderTest, Opening
from speckernel_tla.cfg_tampering import Replacements, defined_names, tampering
from speckernel_tla.enclosure import GENERATED_NAME, enclosed
from speckernel_tla.sany import run_batch
from speckernel_tla.shapes import (
    SAFETY,
    SHAPE_DEFINITION,
    SHAPE_PREFIX,
    WATCHED,
    WRAPPER_EXTENDS,
    Node,
    Obligation,
    SpecParts,
    classify,
    conjunction,
    described,
    has_local,
    monitor_module,
    safety_invariant,
    safety_obligations,
    searches_tableau,
    shape_module,
    spec_parts,
    unimplied_conjuncts,
)
from speckernel_tla.standard_names import standard_names
from speckernel_tla.system_scale import at_system_scale
from speckernel_tla.tasks import Budgets
from speckernel_tla.tlc import TlcOptions, TlcRun, run_tlc
from speckernel_tla.tlc_config import (
    IDENTIFIER,
    REDUCING_SECTIONS,
    first_name,
    reductions,
    reductions_note,
    replaced_names,
    with_behaviour,
    with_checks,
    without_sections,
)
from speckernel_tla.tlc_output import Outcome
from speckernel_tla.toolchain import Tla2ToolsToolchain

INVARIANTS_FILE = "invariants.json"
EVALUATOR_INVARIANTS = f"{EVALUATOR_DIR}{INVARIANTS_FILE}"
EVALUATOR, CANDIDATE, EXAMPLES = "evaluator", "candidate", "examples"
"""Who wrote the TLA+ of the templates checked (verdict data ``concretised_by``): the run's
evaluator model, in ``evaluator/invariants.json`` (:mod:`speckernel_tla.evaluator`, upstream's
way); the candidate, in its own ``invariants.json``, which nothing audits (an M_i as honest as
its author); or the templates' own examples."""
DEFINITION_PREFIX = "SkInv_"
SAFETY_PREFIX = "SkSafe_"
MONITOR_PREFIX = "SkMon_"
RESIDUAL_PREFIX = "SkRest_"
WRAPPER_PREFIX = "SpeckernelInvariants_"
MONITOR_MODULE_PREFIX = "SpeckernelMonitor_"

_DEFINITION = re.compile(r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*==(?!=)(?P<body>.*)$",
                         re.DOTALL)
_SANY_AT = re.compile(r"line (\d+), col \d+ to line \d+, col \d+ of module (\S+)")
_PARSE_AT = re.compile(r"at line (\d+), column \d+")
_LOCATED = re.compile(r"line (\d+), col \d+ to line \d+, col \d+ of module (\S+)")
_CFG_LINE = re.compile(r"error in the configuration file at line (\d+)\b")
_SAFETY_HINT = re.compile(r"\[\](?!\s*(?:<>|\[))")
"""A ``[]`` not opening ``[]<>`` or ``[][A]_v``: a liveness template that may be a safety
property, worth asking SANY about."""
_FAIRNESS_HINT = re.compile(r"\b[WS]F_")
"""A liveness template that may restate the specification's fairness, worth asking SANY about
(with every other liveness template, to know which runs search a tableau)."""
_EXPLORATION_DEPENDENT = re.compile(r"\b(?:TLCGet|TLCSet|(?:Test)?Random\w*|JavaTime)\b")
"""Operators whose value depends on how TLC explores (its level and state counts, registers,
random choice: TLC's ``RandomElement``, the ``Randomization`` module's ``RandomSubset``,
``RandomSetOfSubsets``, ``TestRandomSetOfSubsets``, and any other name so spelt; the clock's
``JavaTime``): a model using them may reach other states once a watch is added, and a template
using them may evaluate otherwise as an invariant than in TLC's tableau, or two copies of it
differently."""

HOLDS, VIOLATED, ERROR, TIMEOUT, MISSING = "holds", "violated", "error", "timeout", "missing"
AS_INVARIANT, AS_PROPERTY = "invariant", "property"
AS_SAFETY, AS_MONITOR = "safety invariant", "watched invariant"
AS_RESIDUAL = "property less the specification's fairness"
"""How a template is checked: a safety template as INVARIANT, a liveness one as PROPERTY, a
liveness template that is a safety property TLC would search its tableau for as an invariant,
in the shared run or with a watch, or a liveness one as PROPERTY without its conjuncts that
are the specification's own fairness conditions (:mod:`speckernel_tla.shapes`)."""


@attrs.frozen
class Check:
    """One invariant to check: the template's name and type, the TLA+ body (None when the
    candidate gave no usable definition), its line span in the checking module, and how it is
    checked (``form``; by default as its type says) with what that needs: the definitions of
    its invariant (``AS_SAFETY``) or of what is left of it (``AS_RESIDUAL``), or its
    obligations (``AS_MONITOR``)."""

    name: str
    kind: str
    body: str | None
    first_line: int = 0
    last_line: int = 0
    form: str | None = None
    definitions: tuple[str, ...] = ()
    obligations: tuple[Obligation, ...] = ()

    @property
    def operator(self) -> str:
        return f"{DEFINITION_PREFIX}{self.name}"

    @property
    def how(self) -> str:
        return self.form or (AS_INVARIANT if self.kind == "safety" else AS_PROPERTY)

    @property
    def checked(self) -> str:
        """The operator TLC is given."""
        if self.how == AS_SAFETY:
            return f"{SAFETY_PREFIX}{self.name}"
        if self.how == AS_RESIDUAL:
            return f"{RESIDUAL_PREFIX}{self.name}"
        return f"{MONITOR_PREFIX}{self.name}" if self.how == AS_MONITOR else self.operator

    @property
    def invariant(self) -> bool:
        """Given to TLC as an INVARIANT (else as a PROPERTY, or in a watched run)."""
        return self.how in (AS_INVARIANT, AS_SAFETY)

    def plain(self) -> Check:
        """The check as its template's type says, the way one run of it alone checks it."""
        return attrs.evolve(self, form=None, definitions=(), obligations=())


@attrs.frozen
class CheckResult:
    """The outcome of one invariant: holds, violated, error, timeout or missing, and how it
    was checked."""

    name: str
    type: str
    outcome: str
    bounded: bool = False
    message: str = ""
    counterexample: tuple[str, ...] = ()
    checked_as: str = ""


def split_definition(text: str) -> tuple[str, str] | None:
    """``("Name", body)`` of a ``Name == body`` definition; None if ``text`` is not one."""
    match = _DEFINITION.match(text)
    return (match.group("name"), match.group("body")) if match else None


def concretiser(candidate: Candidate) -> str:
    """Who wrote the templates' TLA+ that :func:`concretised` reads for ``candidate``."""
    if EVALUATOR_INVARIANTS in candidate.files:
        return EVALUATOR
    return CANDIDATE if INVARIANTS_FILE in candidate.files else EXAMPLES


def concretised(task: Task, candidate: Candidate) -> tuple[list[Check], list[Diagnostic]]:
    """The checks for the task's templates, bodies from the evaluator's
    ``evaluator/invariants.json``, else the candidate's ``invariants.json``, else the
    templates' examples."""
    templates: Sequence[Mapping[str, str]] = task.metadata.get("invariants") or []
    notes: list[Diagnostic] = []
    by = concretiser(candidate)
    if by != EXAMPLES:
        name = EVALUATOR_INVARIANTS if by == EVALUATOR else INVARIANTS_FILE
        given, notes = _read_invariants_file(candidate.files[name], name)
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


def _read_invariants_file(text: str, name: str) -> tuple[dict[str, str], list[Diagnostic]]:
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        return {}, [Diagnostic(f"{name} is not JSON: {exc}", file=name)]
    entries = data.get("invariants") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return {}, [Diagnostic(f'{name} must be {{"invariants": ["Name == expr"]}}', file=name)]
    given: dict[str, str] = {}
    notes = []
    for entry in entries:
        parsed = split_definition(entry) if isinstance(entry, str) else None
        if parsed is None:
            notes.append(Diagnostic(f"not a definition 'Name == expr': {str(entry)[:200]}",
                                    "warning", name))
        else:
            given[parsed[0].lower()] = parsed[1]
    return given, notes


def checking_module(module: str, checks: Sequence[Check]) -> tuple[str, str, list[Check]]:
    """A module extending the model with one renamed definition per check (the model may define
    the same names itself, as the gold models do), followed by the definitions of its
    invariant where it has them: (name, text, checks with their lines). A body's lines end
    where SANY's reader ends them (``\\r\\n``, ``\\r``, ``\\n``; Python's other line
    boundaries, a form feed or U+2028, are characters of a line to SANY, a ``\\*`` comment
    runs past them), so the text is the template's and each check's lines are SANY's."""
    name = f"{WRAPPER_PREFIX}{module}"
    lines = [f"---- MODULE {name} ----", f"EXTENDS {module}, {WRAPPER_EXTENDS}"]
    placed = []
    for check in checks:
        if check.body is None:
            continue
        text = [*LINE_END.split(f"{check.operator} =={check.body}".rstrip()),
                *check.definitions]
        placed.append(attrs.evolve(check, first_line=len(lines) + 1,
                                   last_line=len(lines) + len(text)))
        lines += text
    return name, "\n".join([*lines, "===="]) + "\n", placed


class InvariantVerifier(Verifier):
    """TLC checks of the invariant templates; ``data["m_i"]`` is SysMoBench's M_i."""

    name = "tla.invariants"
    version = "7"
    description = "TLC checks of the task's invariant templates (SysMoBench invariant phase)"
    tools = (Tla2ToolsToolchain.name,)
    limits = Limits(wall_s=600.0, memory_mb=2048)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        opening = Opening.of(self.name, candidate, task, ctx)
        if opening.model is None:
            return opening.verdict
        model, scale = at_system_scale(candidate, task, opening.model)
        checks, notes = concretised(task, candidate)
        by = concretiser(candidate)
        session = InvariantSession(opening.jar, model, Budgets.of(task), ctx)
        if (tampered := tampering(model.cfg_text, model.module_texts, GENERATED_NAME.fullmatch,
                                  standard_names(opening.jar))) is not None:
            refused = f"{tampered}: no template is checked"
            ordered = [CheckResult(c.name, c.kind, ERROR, message=refused) for c in checks]
            return attrs.evolve(opening.verdict, status=Status.FAILURE,
                                diagnostics=(*notes, Diagnostic(refused, file=model.config)),
                                duration_s=time.monotonic() - started,
                                data={**_data(ordered, session, by), **scale.to_json()})
        results = {c.name: CheckResult(c.name, c.kind, MISSING,
                                       message="no definition given for this invariant")
                   for c in checks if c.body is None}
        if by != CANDIDATE:
            replacements = Replacements.of(model.cfg_text, model.module_texts)
            results |= {c.name: CheckResult(c.name, c.kind, ERROR, message=(
                f"{replacements.described(read)}, which this invariant reads (through the "
                f"model's definitions): it is not checked")) for c in checks
                if c.body is not None and (read := replacements.read_by([c.body]))}
        results |= await session.check_all([c for c in checks if c.name not in results])
        ordered = [results[c.name] for c in checks]
        if session.reductions:
            notes.append(reductions_note(session.reductions, model.config))
        return attrs.evolve(opening.verdict, status=_status(ordered),
                            diagnostics=(*notes, *_diagnostics(ordered)),
                            duration_s=time.monotonic() - started,
                            data={**_data(ordered, session, by), **scale.to_json()})


class InvariantSession:
    """The TLC runs of one verifier call, sharing its wall-clock budget."""

    def __init__(self, jar: Path, model: ModelUnderTest, budgets: Budgets,
                 ctx: VerifyContext) -> None:
        self.reductions = reductions(model.cfg_text)
        """The cfg's sections that would make TLC explore fewer states than the model reaches
        (:data:`speckernel_tla.tlc_config.REDUCING_SECTIONS`): dropped, and a search they made
        finite is bounded by the default budgets where the task gives none."""
        if self.reductions:
            model = attrs.evolve(model, files={
                **model.files, model.config: without_sections(model.cfg_text,
                                                              REDUCING_SECTIONS)})
            budgets = budgets.bounded()
        self.jar = jar
        self.model = model
        self.budgets = budgets
        self.ctx = ctx
        self.deadline = Deadline.after(ctx.limits.wall_s)
        self.runs = 0
        self.shaped = False
        self.parts: SpecParts | None = None
        self.texts: dict[str, str] = {}
        self.tableaux: set[tuple[str, str]] = set()
        """(name, how) of the checks known to make TLC search its tableau, checked that way."""

    async def check_all(self, checks: Sequence[Check]) -> dict[str, CheckResult]:
        """The verdict of every check (each with a body), as one run of it alone gives it."""
        checks = await self.shape(checks)
        results: dict[str, CheckResult] = {}
        again: list[Check] = []
        watched = [c for c in checks if c.how == AS_MONITOR]
        if watched:
            found, redo = await self.watch(watched)
            results, again = results | found, again + redo
        plain = [c for c in checks if c.how != AS_MONITOR]
        alone = [c for c in plain if self.exploration_dependent
                 or _EXPLORATION_DEPENDENT.search(c.body or "") or not enclosed(c.body or "")]
        for group in first_groups([c for c in plain if c not in alone]) + [[c] for c in alone]:
            found, redo = await self.check(self.founded(group))
            results, again = results | found, again + redo
        for check in again:  # the template's own way
            results |= (await self.check([check.plain()]))[0]
        return results

    async def check_alone(self, check: Check) -> CheckResult:
        """One TLC run of ``check`` alone, as its template's type says (upstream's way)."""
        return (await self.check([check.plain()]))[0][check.name]

    # ------------------------------------------------------------------ shapes

    async def shape(self, checks: Sequence[Check]) -> list[Check]:
        """``checks`` with the liveness templates that are safety properties TLC would search its
        tableau for given their form (:mod:`speckernel_tla.shapes`; one TLC checks on states
        and steps, naming it, stays a property), and those restating fairness conditions of the
        specification without them, from one SanyBatch JVM describing them and the model's
        specification."""
        cfg = self.model.cfg_text
        spec = first_name(cfg, "SPECIFICATION")
        properties = [c for c in checks if c.kind != "safety" and c.body is not None
                      and enclosed(c.body)]
        steady = [c for c in properties if not _EXPLORATION_DEPENDENT.search(c.body or "")]
        hinted = {c.name for c in steady if _SAFETY_HINT.search(c.body or "")}
        restatable = set() if spec is None or self.exploration_dependent else {
            c.name for c in steady if _FAIRNESS_HINT.search(c.body or "")}
        shaped = properties if restatable else [c for c in properties if c.name in hinted]
        texts = self.model.module_texts
        if not shaped or has_local(self.model.files.values()) or (
                overrides_definitions(cfg, texts)):
            return list(checks)
        limits = self.deadline.limits(self.ctx.limits, self.budgets.wall_s)
        if limits is None:
            return list(checks)
        modules = {f"{SHAPE_PREFIX}{i}": shape_module(f"{SHAPE_PREFIX}{i}", self.model.module,
                                                      c.body or "")
                   for i, c in enumerate(shaped)}
        if spec is not None:
            modules[f"{SHAPE_PREFIX}spec"] = shape_module(f"{SHAPE_PREFIX}spec",
                                                          self.model.module, f" {spec}")
        raw = await run_batch(self.ctx.sandbox, self.jar, modules, limits=limits,
                              deadline=self.deadline, extra_files=self.model.files,
                              describe=SHAPE_DEFINITION)
        self.shaped = True
        self.texts = {PurePosixPath(path).stem: text for path, text in self.model.files.items()
                      if path.endswith(".tla")} | modules
        trees = {name: described(raw[name][3]) for name in modules}
        specification = trees.get(f"{SHAPE_PREFIX}spec")
        self.parts = self._parts(cfg, specification)
        formed = {c.name: self._form(c, trees[f"{SHAPE_PREFIX}{i}"], c.name in hinted,
                                     specification if c.name in restatable else None)
                  for i, c in enumerate(shaped)}
        return [formed.get(c.name, c) for c in checks]

    def _parts(self, cfg: str, spec: Node | None) -> SpecParts | None:
        if first_name(cfg, "SPECIFICATION") is not None:
            return None if spec is None else spec_parts(self.texts, spec)
        init, step = first_name(cfg, "INIT"), first_name(cfg, "NEXT")
        return SpecParts((init,), step, True) if init and step else None

    def _form(self, check: Check, tree: Node | None, safety: bool,
              specification: Node | None) -> Check:
        """How ``check`` is checked, given SANY's tree of its formula (None: its own way):
        as a safety property if ``safety`` allows, else without the specification's fairness
        conditions (the tree of ``specification``) if it has some; noting which ways search
        TLC's tableau."""
        if tree is None:
            return check
        if searches_tableau(tree):
            self.tableaux.add((check.name, AS_PROPERTY))
        form = classify(tree)
        obligations = safety_obligations(tree) if safety and form in (SAFETY, WATCHED) else None
        if form == SAFETY and obligations:
            lines = safety_invariant(f"{SAFETY_PREFIX}{check.name}", obligations, self.texts)
            return check if lines is None else attrs.evolve(check, form=AS_SAFETY,
                                                             definitions=tuple(lines))
        if form == WATCHED and obligations and self.parts is not None and self.unconstrained:
            return attrs.evolve(check, form=AS_MONITOR, obligations=tuple(obligations))
        rest = None if specification is None else unimplied_conjuncts(self.texts, specification,
                                                                      tree)
        lines = None if rest is None else conjunction(f"{RESIDUAL_PREFIX}{check.name}", rest,
                                                      self.texts)
        if rest is None or lines is None:
            return check
        if any(searches_tableau(conjunct) for conjunct in rest):
            self.tableaux.add((check.name, AS_RESIDUAL))
        return attrs.evolve(check, form=AS_RESIDUAL, definitions=tuple(lines))

    @property
    def unconstrained(self) -> bool:
        """Whether TLC explores every reachable state of the model, and the same ones once a
        watch is added: no depth or state budget (a watch multiplies distinct states, and its
        pick can make a state's first level deeper, and a bound can cut off the fair
        continuation of a prefix TLC's tableau needs), no operator whose value depends on the
        exploration (the cfg's constraints are never used, :class:`InvariantSession`)."""
        return not (self.budgets.depth or self.budgets.states or self.exploration_dependent)

    @functools.cached_property
    def exploration_dependent(self) -> bool:
        """Whether some file of the model uses an operator whose value depends on how TLC
        explores (``_EXPLORATION_DEPENDENT``)."""
        return any(_EXPLORATION_DEPENDENT.search(text) for text in self.model.files.values())

    # ------------------------------------------------------------------ runs

    async def _run(self, checks: Sequence[Check]) -> tuple[str, list[Check], TlcRun] | None:
        """One TLC run of ``checks`` (a checking module holding just their definitions) within
        one check's wall budget: a group costs what its one property's run would (the safety
        checks ride on the same search). A run with a property, which may search TLC's tableau
        for tens of seconds, gets the JVM's optimising compiler. (module, checks placed in it,
        run)."""
        limits = self.deadline.limits(self.ctx.limits, self.budgets.wall_s)
        if limits is None:
            return None
        wrapper, text, placed = checking_module(self.model.module, checks)
        config = f"{wrapper}.cfg"
        cfg = with_checks(self.model.cfg_text, [c.checked for c in placed if c.invariant],
                          [c.checked for c in placed if not c.invariant])
        options = TlcOptions(depth=self.budgets.depth, max_states=self.budgets.states,
                             coverage_minutes=None,
                             search=any(not c.invariant for c in placed))
        self.runs += 1
        files = {**self.model.files, f"{wrapper}.tla": text, config: cfg}
        return wrapper, placed, await run_tlc(self.ctx.sandbox, self.jar, files, wrapper, config,
                                              options, limits)

    async def check(self, pending: list[Check]) -> tuple[dict[str, CheckResult], list[Check]]:
        """The verdict of each check of ``pending``: shared runs, split when a run's failure
        cannot be put down to one check; and the checks to check their template's own way
        (a safety invariant that did not end in a pass or a violation it may report)."""
        results: dict[str, CheckResult] = {}
        again: list[Check] = []
        while pending:
            ran = await self._run(pending)
            if ran is None:
                return results | {c.name: _conclusive(c, None) for c in pending}, again
            run = ran[2]
            if run.result.outcome is Outcome.OK or (
                    run.result.outcome is Outcome.TIMEOUT and len(pending) == 1):
                searched = run.result.outcome is Outcome.OK and any(
                    (c.name, c.how) in self.tableaux for c in pending)
                unfounded = [c for c in pending if c.how == AS_RESIDUAL and not searched]
                return results | {c.name: _conclusive(c, run) for c in pending
                                  if c not in unfounded}, again + unfounded
            if self._cfg_rejected(run):  # as it would be in the run of any one of them
                verdicts = {c.name: self._failed(c, run) for c in pending}
                return results | {n: v for n, v in verdicts.items() if v is not None}, again + [
                    c for c in pending if verdicts[c.name] is None]
            properties = [c for c in pending if not c.invariant]
            # out of time, the run says nothing of which check took it: any of them may be
            # slow to evaluate, and the others conclude alone
            culprit = None if run.result.outcome is Outcome.TIMEOUT else _culprit(*ran)
            if culprit is None and _unnamed_temporal(run) and len(properties) > 1:
                # every state was generated and passed every invariant; one of the
                # properties failed, TLC does not say which: each alone
                results |= {c.name: _conclusive(c, run) for c in pending if c.invariant}
                for check in properties:
                    found, redo = await self.check(self.founded([check]))
                    results, again = results | found, again + redo
                return results, again
            if culprit is None and len(pending) > 1:
                for group in _split(pending):
                    found, redo = await self.check(self.founded(group))
                    results, again = results | found, again + redo
                return results, again
            culprit = culprit or pending[0]
            if (verdict := self._failed(culprit, run)) is None:
                again.append(culprit)
            else:
                results[culprit.name] = verdict
            pending = [c for c in pending if c.name != culprit.name]
        return results, again

    def _cfg_rejected(self, run: TlcRun) -> bool:
        """Whether TLC rejected the run's cfg at a line of the model's own sections: TLC reads a
        cfg in order, so the run of any check, alone too, fails there alike. (An unfinished
        section of the model's fails at a check line, which one depending on the checks: such a
        run splits like any other.)"""
        at = _CFG_LINE.search(run.result.message)
        own = len(LINE_END.split(with_checks(self.model.cfg_text).rstrip("\n")))
        return run.result.outcome is Outcome.CONFIG_ERROR and at is not None and (
            int(at.group(1)) <= own)

    def founded(self, group: list[Check]) -> list[Check]:
        """``group``, with the checks that would be left without the specification's fairness
        checked whole unless one of the group searches TLC's tableau (which evaluates that
        fairness as their own runs would)."""
        if any((c.name, c.how) in self.tableaux for c in group):
            return group
        return [c.plain() if c.how == AS_RESIDUAL else c for c in group]

    def _failed(self, check: Check, run: TlcRun) -> CheckResult | None:
        """The verdict of ``check`` from a run that failed on it; None where the template's own
        check must give it: a template checked without the specification's fairness, or a
        safety invariant (anything but a violation, or a violation where the model's fairness
        may rule its prefix out)."""
        if check.how == AS_RESIDUAL:
            return None
        if check.how != AS_SAFETY:
            return _failed(check, run)
        if run.result.outcome is not Outcome.INVARIANT_VIOLATED or not self.closed:
            return None
        return attrs.evolve(_failed(check, run), checked_as=AS_SAFETY)

    @property
    def closed(self) -> bool:
        """Whether every finite behaviour of the model extends to a fair one TLC's tableau
        considers (so a violated safety property is violated for TLC too): machine closure
        on an unconstrained exploration."""
        return self.parts is not None and self.parts.machine_closed and self.unconstrained

    async def watch(self, pending: list[Check]) -> tuple[dict[str, CheckResult], list[Check]]:
        """The verdicts of checks with obligations, from runs of the model extended by a
        watch (:func:`speckernel_tla.shapes.monitor_module`); and the checks to check their
        template's own way."""
        results: dict[str, CheckResult] = {}
        again: list[Check] = []
        module = f"{MONITOR_MODULE_PREFIX}{self.model.module}"
        while pending:
            limits = self.deadline.limits(self.ctx.limits, self.budgets.wall_s)
            text = None if self.parts is None else monitor_module(
                module, f"{self.model.module}, {WRAPPER_EXTENDS}", self.parts,
                [(c.checked, c.obligations) for c in pending], self.texts)
            if limits is None or text is None:
                return results, again + pending
            config = f"{module}.cfg"
            cfg = with_checks(with_behaviour(self.model.cfg_text, "SkMonInit", "SkMonNext"),
                              [c.checked for c in pending])
            self.runs += 1
            run = await run_tlc(self.ctx.sandbox, self.jar,
                                {**self.model.files, f"{module}.tla": text, config: cfg},
                                module, config,
                                TlcOptions(depth=self.budgets.depth, coverage_minutes=None),
                                limits)
            result = run.result
            if result.outcome is Outcome.OK:
                return results | {c.name: CheckResult(c.name, c.kind, HOLDS,
                                                      bounded=run.truncated,
                                                      checked_as=AS_MONITOR)
                                  for c in pending}, again
            culprit = next((c for c in pending if c.checked == result.violated), None)
            if result.outcome is Outcome.EVALUATION_ERROR and len(pending) > 1:
                for check in pending:  # to tell which one TLC could not evaluate
                    found, redo = await self.watch([check])
                    results, again = results | found, again + redo
                return results, again
            if result.outcome is not Outcome.INVARIANT_VIOLATED or culprit is None:
                return results, again + pending
            if self.closed:
                steps = len(result.trace_actions)
                results[culprit.name] = CheckResult(
                    culprit.name, culprit.kind, VIOLATED, checked_as=AS_MONITOR,
                    message=f"violated after {steps} step{'s' * (steps != 1)} of the model "
                            f"(a finite behaviour no extension of which satisfies it)")
            else:  # a prefix no fair behaviour may have: the tableau's verdict
                again.append(culprit)
            pending = [c for c in pending if c is not culprit]
        return results, again


def overrides_definitions(cfg: str, texts: Sequence[str]) -> bool:
    """Whether ``cfg`` gives a value to, or replaces, a name some text defines
    (:func:`defined_names`) or any operator symbol (a user-defined infix, prefix or postfix
    operator, or one of the standard modules': every symbol counts)."""
    replaced = replaced_names(cfg)
    return bool(replaced & defined_names(texts)) or any(
        not IDENTIFIER.fullmatch(name) for name in replaced)


def _culprit(wrapper: str, pending: Sequence[Check], run: TlcRun) -> Check | None:
    """The check (placed in module ``wrapper``) a failed shared run is about: the invariant or
    property TLC names as violated (by name, or by where its violated conjunct stands), the
    only property of the run, the one check a configuration error names, or the definition an
    error points into."""
    result = run.result
    lines: list[int] = []
    if result.outcome in (Outcome.INVARIANT_VIOLATED, Outcome.PROPERTY_VIOLATED):
        named = next((c for c in pending if c.checked == result.violated), None) or next(
            (c for c in pending if c.definitions and result.violated
             and result.violated.startswith(f"{c.checked}_")), None)
        if named is not None:  # its operator, or one of the definitions placed with it
            return named
        if result.violated and (at := _LOCATED.fullmatch(result.violated)) and (
                at.group(2) == wrapper):
            lines = [int(at.group(1))]
        elif result.outcome is Outcome.PROPERTY_VIOLATED:
            properties = [c for c in pending if not c.invariant]
            return properties[0] if len(properties) == 1 else None
    elif result.outcome is Outcome.CONFIG_ERROR:  # "The property SkInv_P is not correctly defined"
        named_in = [c for c in pending if re.search(rf"\b{c.checked}\b", result.message)]
        return named_in[0] if len(named_in) == 1 else None
    elif result.outcome is Outcome.EVALUATION_ERROR:
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
    """The runs to start with: all the checks in one. TLC names a violated invariant (and a
    violated property it checks on states or steps) but never which of several tableau
    properties failed; those are then searched again, each alone, while the invariants of a
    run that generated every state hold. A model whose properties all hold, as a correct one's
    do, pays one search for all of them."""
    return [list(checks)] if checks else []


def _unnamed_temporal(run: TlcRun) -> bool:
    """The run failed a tableau property, unnamed, after generating every state (each of which
    passed every invariant)."""
    result = run.result
    return (result.outcome is Outcome.PROPERTY_VIOLATED and not result.violated
            and result.space_complete)


def _split(checks: Sequence[Check]) -> list[list[Check]]:
    """How to divide checks whose shared run failed without saying which: the invariants
    together and each property alone (TLC names a violated invariant, never a tableau
    property), or, with no property among several, two halves."""
    invariants = [c for c in checks if c.invariant]
    properties = [c for c in checks if not c.invariant]
    if properties and len(checks) > 1:
        return ([invariants] if invariants else []) + [[p] for p in properties]
    half = len(checks) // 2
    return [list(checks[:half]), list(checks[half:])]


def _conclusive(check: Check, run: TlcRun | None) -> CheckResult:
    """A run that ended without a violation: holds (``bounded`` if a budget cut the search),
    or timeout."""
    if run is None:
        return CheckResult(check.name, check.kind, TIMEOUT,
                           message="the verifier's wall budget ran out before this check",
                           checked_as=check.how)
    if run.result.outcome is Outcome.TIMEOUT:
        return CheckResult(check.name, check.kind, TIMEOUT,
                           message=f"TLC ran out of its {run.process.duration_s:.0f} s budget",
                           checked_as=check.how)
    return CheckResult(check.name, check.kind, HOLDS, bounded=run.truncated,
                       checked_as=check.how)


def _failed(check: Check, run: TlcRun) -> CheckResult:
    result = run.result
    violated = result.outcome in (Outcome.INVARIANT_VIOLATED, Outcome.PROPERTY_VIOLATED)
    text = result.message or result.parse_output or result.outcome.value
    return CheckResult(check.name, check.kind, VIOLATED if violated else ERROR,
                       message=f"{result.outcome.value}: {text}"[:2000],
                       counterexample=result.trace_actions, checked_as=check.how)


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


def _data(results: Sequence[CheckResult], session: InvariantSession,
          by: str) -> dict[str, object]:
    holding = sum(r.outcome == HOLDS for r in results)
    return {
        "m_i": holding / len(results) if results else None,
        "concretised_by": by,
        "holds": holding,
        "total": len(results),
        "invariants": {r.name: attrs.asdict(r) for r in results},
        "tlc_runs": session.runs,
        "shapes_analysed": session.shaped,
        "cfg_dropped": session.reductions,
    }
