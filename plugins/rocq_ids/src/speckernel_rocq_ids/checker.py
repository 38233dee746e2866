"""Rocq as the synthesis agents' oracle on partial files, with structured feedback.

A partial ``Impl.v`` may leave proofs open with ``admit.`` or ``Admitted.`` (its *holes*); Coq
accepts such a file, which is what lets the Deductive Synthesis Agent keep type-checked partial
states. :class:`Checker` compiles the task's fixed files once into a private directory, then
compiles each draft there with a ``Show.`` before every hole, so Coq itself prints each hole's
goal and hypotheses. When a draft fails, the error (located by :func:`coqbuild.diagnostics`, the
verifier's own parser) gets the goal it failed on from a second run that stops right before the
failing sentence and shows the proof state there.

These are drafts for the agent only: the kernel's sandboxed verifiers still judge the final
artifact.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import anyio
import attrs
from speckernel.model import Task

from speckernel_rocq_ids.coqbuild import diagnostics
from speckernel_rocq_ids.scan import ESCAPE_HATCH, strip_comments
from speckernel_rocq_ids.sources import LOGICAL_ROOT
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation

HOLE = re.compile(r"\b(?:admit|Admitted)\s*\.")
_GOALS_HEADER = re.compile(r"^(\d+ goals?|No more goals\.?|This subproof is complete.*)$")
_RULE = re.compile(r"^\s*=+\s*$")
_ENVIRONMENT = "In environment"
_HYPOTHESIS = re.compile(r"^[\w']+(?:\s*,\s*[\w']+)*\s+:\s")
_SENTENCE_END = re.compile(r"\.(?=\s)")


@attrs.frozen
class Goal:
    """One proof obligation as Coq shows it: hypotheses (``name : type``) and conclusion."""

    hypotheses: tuple[str, ...]
    conclusion: str

    def render(self) -> str:
        return "\n".join((*self.hypotheses, "============================", self.conclusion))


@attrs.frozen
class Hole:
    """An ``admit``/``Admitted`` of a draft, where it is, and the goal it leaves open."""

    line: int
    goal: Goal | None


@attrs.frozen
class RocqError:
    """One Coq error: location, message, and the goal and hypotheses in force there."""

    file: str
    line: int | None
    column: int | None
    message: str
    goal: Goal | None = None

    @property
    def hypotheses(self) -> tuple[str, ...]:
        """The goal's hypotheses, or the environment Coq printed with a typing error."""
        if self.goal is not None:
            return self.goal.hypotheses
        _, found, rest = self.message.partition(_ENVIRONMENT)
        hypotheses: list[str] = []
        for line in rest.splitlines()[1:] if found else ():
            if _HYPOTHESIS.match(line):
                hypotheses.append(line.strip())
            elif hypotheses and line.startswith(" "):
                hypotheses[-1] += " " + line.strip()
            else:
                break
        return tuple(hypotheses)

    def render(self) -> str:
        where = ":".join(str(p) for p in (self.file, self.line, self.column) if p is not None)
        text = f"{where}: {self.message}"
        if self.goal is not None:
            text += f"\nGoal at the error:\n{self.goal.render()}"
        return text


@attrs.frozen
class Check:
    """What Coq said about one draft: whether it compiled, its holes, its errors."""

    compiled: bool
    holes: tuple[Hole, ...] = ()
    errors: tuple[RocqError, ...] = ()
    forbidden: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        """A type-checked partial state: compiles, and its only gaps are holes."""
        return self.compiled and not self.forbidden

    def render(self) -> str:
        """The feedback a model reads."""
        parts = [f"forbidden: {word}" for word in self.forbidden]
        parts += [error.render() for error in self.errors]
        for number, hole in enumerate(self.holes, 1):
            goal = hole.goal.render() if hole.goal else "(goal not shown)"
            parts.append(f"hole {number} at line {hole.line}:\n{goal}")
        return "\n\n".join(parts) if parts else "compiles with no holes"


def count_holes(text: str) -> int:
    """How many ``admit``/``Admitted`` a file has outside comments."""
    return len(HOLE.findall(strip_comments(text)))


def forbidden_words(text: str) -> tuple[str, ...]:
    """Escape hatches other than holes (Axiom, Parameter, ``Unset ... Checking``...): a state
    that needs one is not a partial proof but a different theorem."""
    words = (m.group(0) for m in ESCAPE_HATCH.finditer(strip_comments(text)))
    return tuple(word for word in words if word not in ("admit", "Admitted"))


def instrument(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` with ``Show.`` before every hole, and the holes' line numbers."""
    code = strip_comments(text)
    starts = [m.start() for m in HOLE.finditer(code)]
    lines = tuple(text.count("\n", 0, start) + 1 for start in starts)
    out = text
    for start in reversed(starts):
        out = out[:start] + "Show. " + out[start:]
    return out, lines


def parse_goals(output: str) -> list[Goal | None]:
    """Every ``Show.`` block of coqc's output, in order: the first goal of each (None when
    no goal was left)."""
    blocks: list[list[str]] = []
    for line in output.splitlines():
        if _GOALS_HEADER.match(line):
            blocks.append([line])
        elif blocks and not line.startswith("File \""):
            blocks[-1].append(line)
    return [_first_goal(block) for block in blocks]


def _first_goal(block: Sequence[str]) -> Goal | None:
    rule = next((i for i, line in enumerate(block) if _RULE.match(line)), None)
    if rule is None:
        return None
    hypotheses: list[str] = []
    for line in block[1:rule]:
        if not line.strip():
            continue
        if hypotheses and line.startswith("    "):
            hypotheses[-1] += " " + line.strip()
        else:
            hypotheses.append(line.strip())
    conclusion: list[str] = []
    for line in block[rule + 1:]:
        if not line.strip() or line.startswith("goal "):
            break
        conclusion.append(line.strip())
    return Goal(tuple(hypotheses), " ".join(conclusion))


class Checker:
    """Compiles drafts of ``Impl.v`` against one task's fixed files in a private directory.

    Use as an async context manager: entering copies the task's framework, support files and
    spec, compiled once per process and task (every worker and every sample of the task reuses
    them; concurrent workers each need a directory of their own, as every draft is
    ``Impl.v``). ``timeout_s`` bounds each coqc call (a looping draft is an error, not a
    hang)."""

    _compiled: dict[str, tempfile.TemporaryDirectory[str]] = {}

    def __init__(self, task: Task, timeout_s: float = 120.0) -> None:
        self.task = task
        self.obligation = Obligation.of(task)
        self.timeout_s = timeout_s
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def root(self) -> Path:
        assert self._dir is not None, "Checker used outside 'async with'"
        return Path(self._dir.name)

    async def __aenter__(self) -> Checker:
        digest = self.task.digest()
        if digest not in self._compiled:
            self._dir = tempfile.TemporaryDirectory(prefix="ids-checker-")
            for name, text in self.task.files.items():
                (self.root / name).write_text(text, "utf-8")
            for name in self.obligation.build_order[:self.obligation.build_order.index(
                    CANDIDATE_FILE)]:
                code, output = await self._coqc(name)
                if code != 0:
                    raise RuntimeError(f"the task's {name} does not compile: {output[-300:]}")
            self._compiled[digest] = self._dir
        self._dir = tempfile.TemporaryDirectory(prefix="ids-checker-")
        shutil.copytree(self._compiled[digest].name, self.root, dirs_exist_ok=True)
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    async def _coqc(self, name: str) -> tuple[int, str]:
        argv = ["coqc", "-q", "-Q", ".", LOGICAL_ROOT, name]
        try:
            with anyio.fail_after(self.timeout_s):
                done = await anyio.run_process(argv, cwd=self.root, check=False)
        except TimeoutError:
            return -1, f"coqc ran out of its {self.timeout_s:.0f} s budget"
        return done.returncode, "\n".join(part.decode("utf-8", "replace")
                                          for part in (done.stdout, done.stderr))

    async def check(self, text: str) -> Check:
        """Compile a draft; its holes come with their goals, its errors with theirs."""
        forbidden = forbidden_words(text)
        instrumented, lines = instrument(text)
        # "Show. " is inserted within a line: line numbers of errors stay those of ``text``.
        (self.root / CANDIDATE_FILE).write_text(instrumented, "utf-8")
        code, output = await self._coqc(CANDIDATE_FILE)
        if code == 0:
            goals = parse_goals(output)
            holes = tuple(Hole(line, goals[i] if i < len(goals) else None)
                          for i, line in enumerate(lines))
            return Check(True, holes, (), forbidden)
        if code < 0:
            return Check(False, (), (RocqError(CANDIDATE_FILE, None, None, output),), forbidden)
        errors = []
        for found in diagnostics(output, CANDIDATE_FILE):
            if found.severity != "error":
                continue
            here = found.file in (None, CANDIDATE_FILE) and found.line is not None
            goal = await self._goal_at(text, found.line or 0, found.column) if here else None
            errors.append(RocqError(found.file or CANDIDATE_FILE, found.line, found.column,
                                    found.message, goal))
        return Check(False, (), tuple(errors), forbidden)

    async def _goal_at(self, text: str, line: int, column: int | None) -> Goal | None:
        """The proof state before the sentence holding line ``line``, column ``column``."""
        rows = text.splitlines()
        if line > len(rows):
            return None
        offset = sum(len(row) + 1 for row in rows[:line - 1]) + max((column or 1) - 1, 0)
        ends = list(_SENTENCE_END.finditer(strip_comments(text)[:offset]))
        prefix = text[:ends[-1].end()] if ends else ""
        (self.root / CANDIDATE_FILE).write_text(prefix + "\nShow.\n", "utf-8")
        _, output = await self._coqc(CANDIDATE_FILE)
        goals = parse_goals(output)
        return goals[-1] if goals else None

