"""Rocq as the synthesis agents' oracle on partial files, with structured feedback.

A partial ``Impl.v`` may leave proofs open with ``admit.`` or ``Admitted.`` (its *holes*); Coq
accepts such a file, which is what lets the Deductive Synthesis Agent keep type-checked partial
states. :class:`Checker` keeps one sandboxed shell per worker (``ctx.sandbox.open``: its own
user, no network, a scrubbed environment, only its directory writable) that compiles the task's
fixed files once and then each draft, with a ``Show.`` before every hole, so Coq itself prints
each hole's goal and hypotheses. When a draft fails, the error (located by
:func:`coqbuild.diagnostics`, the verifier's own parser) gets the goal it failed on from a
second run that stops right before the failing sentence and shows the proof state there.

A draft is first read by the audit's allow-list (:mod:`commands`, holes accepted): one that
loads files, extracts or switches a checker off is refused without running coqc. The shell
reports each compilation as a status line opening with a nonce it read from its stdin; coqc's
output goes to a file, never to that channel.

These are drafts for the agent only: the kernel's sandboxed verifiers still judge the final
artifact.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Sequence
from types import TracebackType

import anyio
import attrs
from speckernel.components import AgentContext
from speckernel.model import Task
from speckernel.sandbox.base import Limits, SandboxProcess

from speckernel_rocq_ids import commands
from speckernel_rocq_ids.coqbuild import diagnostics
from speckernel_rocq_ids.coqlex import blank_comments
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
    return len(HOLE.findall(blank_comments(text)))


def forbidden_words(text: str) -> tuple[str, ...]:
    """Why the allow-list refuses a draft, holes aside (an Axiom, a ``Load``, an ``Unset``...):
    a state that needs one is not a partial proof but a different theorem."""
    return tuple(d.message for d in commands.check(text, CANDIDATE_FILE, holes=True))


def instrument(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` with ``Show.`` before every hole, and the holes' line numbers."""
    code = blank_comments(text)
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


SERVER = rf"""
read -r nonce
mkdir -p .ids-check
for file in "$@"; do
  coqc -q -Q . {LOGICAL_ROOT} "$file" </dev/null >.ids-check/fixed.log 2>&1 || {{
    echo "$nonce failed $?"; exit 1; }}
done
echo "$nonce ready"
while read -r request; do
  timeout -k 5 "$CHECK_TIMEOUT" coqc -q -Q . {LOGICAL_ROOT} {CANDIDATE_FILE} </dev/null \
    >.ids-check/draft.log 2>&1
  echo "$nonce done $?"
done
"""
"""The checker's shell: compiles the fixed files given as arguments, then one draft per line
read from stdin; every status line opens with the nonce it read first."""

_TIMED_OUT, _KILLED = 124, 137
_LOG_CAP = 1_000_000


class Checker:
    """Compiles drafts of ``Impl.v`` against one task's fixed files in a sandbox of its own.

    Use as an async context manager: entering starts the sandboxed shell and compiles the task's
    framework, support files and spec once (concurrent workers each need a checker of their
    own, as every draft is ``Impl.v``); leaving kills it. ``timeout_s`` bounds each coqc call
    (a looping draft is an error, not a hang); ``lifetime_s`` the whole sandbox."""

    def __init__(self, task: Task, ctx: AgentContext, timeout_s: float = 120.0,
                 lifetime_s: float = 4 * 3600.0) -> None:
        self.task = task
        self.ctx = ctx
        self.obligation = Obligation.of(task)
        self.timeout_s = timeout_s
        self.lifetime_s = lifetime_s
        self._nonce = secrets.token_hex(16)
        self._process: SandboxProcess | None = None
        self._lock = anyio.Lock()

    @property
    def process(self) -> SandboxProcess:
        assert self._process is not None, "Checker used outside 'async with'"
        return self._process

    async def __aenter__(self) -> Checker:
        order = self.obligation.build_order
        fixed = order[:order.index(CANDIDATE_FILE)]
        self._process = self.ctx.sandbox.open(
            ("sh", "-c", SERVER, "sh", *fixed), files=dict(self.task.files),
            env={"CHECK_TIMEOUT": f"{self.timeout_s:g}"},
            limits=Limits(wall_s=self.lifetime_s, memory_mb=4096, processes=64),
            stdin=True, stdout="pipe", stderr="devnull")
        status = await self._send(self._nonce)
        if status != "ready":
            await self.__aexit__(None, None, None)
            raise RuntimeError(f"the task's fixed files do not compile in the checker's "
                               f"sandbox ({status}): {self._log('fixed.log')[-300:]}")
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._process is not None:
            await anyio.to_thread.run_sync(self._process.close)
            self._process = None

    async def _send(self, line: str) -> str:
        """Write one request line and return the status the shell answers (without the nonce),
        or why there is none."""
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout

        def exchange() -> bytes:
            stdin.write(line.encode() + b"\n")
            stdin.flush()
            return stdout.readline()

        try:
            reply = await anyio.to_thread.run_sync(exchange, abandon_on_cancel=True)
        except OSError as exc:
            reply = f"the checker's sandbox is gone ({exc})".encode()
        text = reply.decode("utf-8", "replace").strip()
        prefix = f"{self._nonce} "
        if not text.startswith(prefix):
            return f"no status from the checker's sandbox (limit: {process.limit})"
        return text.removeprefix(prefix)

    def _log(self, name: str) -> str:
        """A log the shell wrote, read without following links, cut at 1 MB."""
        try:
            fd = os.open(self.process.workdir / ".ids-check" / name, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return ""
        with os.fdopen(fd, "rb") as stream:
            return stream.read(_LOG_CAP).decode("utf-8", "replace")

    async def _coqc(self, text: str) -> tuple[int, str]:
        """Compile ``text`` as ``Impl.v``: coqc's exit status (-1 when it ran out of time or
        was killed) and its output."""
        async with self._lock:
            self.process.write_files({CANDIDATE_FILE: text})
            status = await self._send("check")
            if not status.startswith("done "):
                raise RuntimeError(status)
            code = int(status.split()[1])
            if code == _TIMED_OUT:
                return -1, f"coqc ran out of its {self.timeout_s:.0f} s budget"
            if code == _KILLED:
                return -1, "coqc was killed (out of memory, or it ignored its time budget)"
            return code, self._log("draft.log")

    async def check(self, text: str) -> Check:
        """Compile a draft; its holes come with their goals, its errors with theirs. A draft
        the allow-list refuses is not compiled."""
        forbidden = forbidden_words(text)
        if forbidden:
            return Check(False, (), (), forbidden)
        instrumented, lines = instrument(text)
        # "Show. " is inserted within a line: line numbers of errors stay those of ``text``.
        code, output = await self._coqc(instrumented)
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
        ends = list(_SENTENCE_END.finditer(blank_comments(text)[:offset]))
        prefix = text[:ends[-1].end()] if ends else ""
        _, output = await self._coqc(prefix + "\nShow.\n")
        goals = parse_goals(output)
        return goals[-1] if goals else None
