"""The cheat checker: a candidate may only add proof code to its task.

The rules are checked by ``verus-cheatcheck``, a Rust program on ``verus_syn`` (the parser Verus
itself uses, from crates.io) kept in ``plugins/verus/cheatcheck``, built by ``kernel tools
install verus`` and run behind the kernel's sandbox (``helper.py``: one warm process serves a
whole run). It compares syntax trees with their layout erased and names resolved as Rust
resolves them, never spellings; ``cheatcheck/src/rules.rs`` states the rules in full:

- every name that assumes (``assume``, ``assume_``, ``admit``, ``external_body``,
  ``Tracked::assume_new``, ``assume_specification``, ... in any spelling, path, alias, macro
  argument or attribute, ``cfg_attr`` and inner attributes included) occurs as often as in the
  task;
- every item of the task is still present and means the same, recursively inside ``verus!``,
  ``impl``, ``trait`` and ``mod`` (layout, comments, list-ending commas, attribute spelling and
  order, item order, solver tuning and lint attributes and a proof or exec function's
  ``decreases`` do not count; a ``global`` fact may be dropped; ``fn main`` outside ``verus!``
  may change its body);
- the target function keeps its attributes, signature and requires/ensures, may add
  ``decreases``, ``opens_invariants`` and a ``by(..)`` prover, and an exec target's body equals
  the task's once ghost code is erased; a proof target's body is free;
- new items are ``spec``/``proof`` functions that are no axioms, inherent ``impl`` blocks holding
  only such functions, ``use``s, ``broadcast use``/``group`` and attribute-free ``macro_rules!``;
  nothing is added inside a trait or a trait impl; items nested in a body obey the same rules;
- no new item binds a name the task's code resolves (an inherent ``spec fn view`` would win
  over ``View::view`` for ``x@``), nor ``Ghost``, ``Tracked`` or a vstd proof macro's name.

Every broken rule is a violation with a one-line reason and the candidate line it concerns;
unparseable Rust and a removed target are violations too. The same helper transplants a ground
truth's proof into its task (``transplant_pairs``), which makes the tasks' references, and lists
a task's functions (``function_lists``), which picks its target.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, ClassVar

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.errors import CandidateError
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits, Sandbox

from speckernel_verus.artifact import task_file
from speckernel_verus.helper import Answer, HelperError, ask, ask_alone, ask_warm
from speckernel_verus.toolchain import CHEATCHECK

TOOL = CHEATCHECK
CheatCheckError = HelperError
"""The helper itself failed (missing, crashed, answered out of protocol)."""


@attrs.frozen
class Violation:
    """One broken rule, located in the candidate (``line`` 0: the file as a whole)."""

    rule: str
    reason: str
    line: int = 0

    def render(self) -> str:
        return f"line {self.line}: {self.reason}" if self.line else self.reason


@attrs.frozen
class CheatPair:
    """A task file, a candidate for it, and the function the task asks to prove (None: every
    exec or proof function with a real body)."""

    original: str
    candidate: str
    target: str | None = None

    def payload(self, mode: str = "check") -> dict[str, Any]:
        return {"mode": mode, "original": self.original, "candidate": self.candidate,
                "target": self.target}


@attrs.frozen
class CheatReport:
    """The checker's answer for one pair: safe when no rule is broken."""

    violations: tuple[Violation, ...] = ()

    @property
    def safe(self) -> bool:
        return not self.violations

    def summary(self) -> str:
        if self.safe:
            return "No cheat found: the candidate only adds proof code."
        return "\n".join(v.render() for v in self.violations)


def report_of(answer: Answer) -> CheatReport:
    """The report in one helper answer; ``HelperError`` for an answer out of protocol."""
    try:
        if "error" in answer:
            raise HelperError(f"{TOOL} refused the request: {answer['error']}")
        return CheatReport(tuple(
            Violation(str(v["rule"]), str(v["reason"]), int(v.get("line") or 0))
            for v in answer["violations"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise HelperError(f"{TOOL} answered out of protocol: {str(answer)[:120]}") from exc


def check_pairs(pairs: Sequence[CheatPair], *, jobs: int = 2, timeout_s: float = 600.0,
                sandbox: Sandbox | None = None) -> list[CheatReport]:
    """Check many pairs in one helper process with ``jobs`` worker threads."""
    return [report_of(a) for a in ask([p.payload() for p in pairs], sandbox=sandbox, jobs=jobs,
                                      timeout_s=timeout_s)]


def check(original: str, candidate: str, target: str | None = None) -> CheatReport:
    """One pair, in a process of its own (tests, scripts)."""
    return check_pairs([CheatPair(original, candidate, target)], jobs=1)[0]


@attrs.frozen
class Transplant:
    """A ground truth's proof moved into its task (``text``), or why it could not be."""

    text: str | None
    error: str = ""


def transplant_pairs(pairs: Sequence[CheatPair], *, jobs: int = 2, timeout_s: float = 600.0,
                     sandbox: Sandbox | None = None) -> list[Transplant]:
    """For each (task, ground truth, target) pair, the task with its target function(s) taken
    from the ground truth (keeping the task's attributes) and the ground truth's new items that
    the rules allow added, every other byte the task's. Upstream extracted tasks and solutions
    separately, so a raw ground truth differs from its task outside the proof (stubs with bodies,
    renamed stub parameters, other ``use``s); the transplant is the proof a model is asked for."""
    answers = ask([p.payload("transplant") for p in pairs], sandbox=sandbox, jobs=jobs,
                  timeout_s=timeout_s)
    return [Transplant(str(a["text"])) if "text" in a else Transplant(None, str(a.get("error")))
            for a in answers]


@attrs.frozen
class Function:
    """A function a task defines inside ``verus!``."""

    name: str
    mode: str
    body: bool
    stub: bool
    line: int
    container: str

    @property
    def provable(self) -> bool:
        """What a task may ask to prove: an exec or proof function with a real body."""
        return self.mode in ("exec", "proof") and self.body and not self.stub


def function_lists(texts: Sequence[str], *, jobs: int = 2, timeout_s: float = 600.0,
                   sandbox: Sandbox | None = None) -> list[list[Function] | str]:
    """Each text's functions, or why the text could not be read."""
    answers = ask([{"mode": "functions", "original": t} for t in texts], sandbox=sandbox,
                  jobs=jobs, timeout_s=timeout_s)
    return [[Function(str(f["name"]), str(f["mode"]), bool(f["body"]), bool(f["stub"]),
                      int(f["line"]), str(f["container"])) for f in a["functions"]]
            if "functions" in a else str(a.get("error")) for a in answers]


async def check_in(sandbox: Sandbox, pair: CheatPair, limits: Limits) -> CheatReport:
    """One pair through ``sandbox``'s warm helper within ``limits.wall_s``; if the helper died
    under it, once more in a process of its own, so a crash is put on the candidate that caused
    it: ``CandidateError`` when that process too ends without an answer, ``TimeoutError`` when
    it runs out of time."""
    payload = pair.payload()
    try:
        return report_of(await ask_warm(sandbox, payload, limits.wall_s))
    except HelperError:
        pass
    try:
        return report_of(await ask_alone(sandbox, payload, limits))
    except HelperError as exc:
        raise CandidateError(f"the candidate broke the cheat checker: {exc}") from exc


async def cheat_report(sandbox: Sandbox, original: str, candidate: str,
                       target: str | None = None) -> str:
    """The checker's word on a draft, as a model reads it (agents' tool call)."""
    try:
        report = await check_in(sandbox, CheatPair(original, candidate, target),
                                CheatVerifier.limits)
    except (HelperError, CandidateError, TimeoutError) as exc:
        return f"The cheat checker could not check this file: {exc}"
    return report.summary()


class CheatVerifier(Verifier):
    """``verus.cheats``: failure with one diagnostic per broken rule, success when the
    candidate only adds proof code to the task's file."""

    name = "verus.cheats"
    version = "5"
    description = "VeruSAGE cheat checker on verus_syn: only proof code may be added"
    tools = (TOOL,)
    limits: ClassVar[Limits] = Limits(wall_s=120.0, memory_mb=2048)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        file = task_file(task)
        text = candidate.files.get(file)
        if text is None:
            return Verdict(self.name, Status.FAILURE, (Diagnostic(
                f"the candidate has no {file}", file=file, code="missing-file"),))
        target = task.metadata.get("target")
        pair = CheatPair(task.files[file], text, target if isinstance(target, str) else None)
        tool = ctx.tools.status(TOOL)
        started = time.monotonic()
        verdict = Verdict(self.name, Status.ERROR, tool=TOOL, tool_version=tool.version)
        try:
            report = await check_in(ctx.sandbox, pair, ctx.limits)
        except TimeoutError as exc:
            return attrs.evolve(verdict, status=Status.TIMEOUT, diagnostics=(Diagnostic(
                str(exc)),), duration_s=time.monotonic() - started)
        except HelperError as exc:
            return attrs.evolve(verdict, diagnostics=(Diagnostic(str(exc)),),
                                duration_s=time.monotonic() - started)
        return attrs.evolve(
            verdict,
            status=Status.SUCCESS if report.safe else Status.FAILURE,
            diagnostics=tuple(Diagnostic(v.reason, file=file, line=v.line or None, code=v.rule)
                              for v in report.violations),
            duration_s=time.monotonic() - started,
            data={"violations": [attrs.asdict(v) for v in report.violations]},
        )
