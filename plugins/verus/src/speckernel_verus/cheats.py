"""The cheat checker: a candidate may only add proof code to its task.

The rules are checked by ``verus-cheatcheck``, a small Rust program on ``verus_syn`` (the parser
Verus itself uses, from crates.io) kept in ``plugins/verus/cheatcheck`` and built by
``kernel tools install verus``. One process checks any number of (task, candidate) pairs, one JSON
request per stdin line, so a whole benchmark costs one start-up. What it enforces:

- equal counts of ``assume(..)``, ``admit()``, ``#[verifier::external_body]`` and
  ``#[verifier::admit]``;
- every item of the task still present and unchanged (comments, doc comments, layout and
  list-ending commas, item order, the solver-tuning verifier attributes and a proof or exec
  function's ``decreases`` do not count), recursively inside ``verus!``, ``impl``, ``trait`` and
  ``mod``; a ``global`` fact may be dropped (fewer facts prove less); ``fn main`` outside
  ``verus!`` may change its body (Verus never sees it);
- the target function keeps its attributes (but for ``rlimit``, ``integer_ring``, ``memoize``,
  ``loop_isolation``, ``spinoff_prover``), signature and requires/ensures, may add ``decreases``,
  ``opens_invariants`` and a ``by(..)`` prover, and an exec target's body equals the task's once
  ghost code (asserts, proof blocks, vstd proof macros, ghost/tracked lets, loop invariants and
  decreases, ``Ghost``/``Tracked`` arguments, reveals, parentheses) is removed; a proof target's
  body is free. A task that names no target (Verus-Bench) makes every exec or proof function
  with a real body a target;
- new items are ``spec``/``proof`` functions that are no axioms (no ``external_body``, no
  ``axiom`` mode, a body without ``assume``/``admit``), inherent ``impl`` blocks holding only
  such functions, ``use``s and ``macro_rules!`` (not named like a vstd proof macro).

Every broken rule is a violation with a one-line reason and the candidate line it concerns;
unparseable Rust and a removed target are violations too. The same helper also transplants a
ground truth's proof into its task (``transplant_pairs``), which makes the tasks' references.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import attrs
from speckernel.components import InstallStep, Toolchain, ToolStatus, Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_verus.artifact import task_file

TOOL = "verus-cheatcheck"
BINARY_ENV = "KERNEL_VERUS_CHEATCHECK"
"""Environment variable naming a ``verus-cheatcheck`` binary built elsewhere."""

CRATE = Path(__file__).resolve().parents[2] / "cheatcheck"
"""The helper's sources (a checkout or an editable install of the plugin)."""

BUILD = (
    f'cargo build --release --locked --manifest-path "{CRATE}/Cargo.toml" --target-dir '
    f'"${{KERNEL_TOOLS_DIR:-$HOME/.local/share/speckernel/tools}}/{TOOL}"'
)


class CheatCheckError(RuntimeError):
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
    function with a real body)."""

    original: str
    candidate: str
    target: str | None = None


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


def tools_home() -> Path:
    """Where ``kernel tools install verus`` builds the helper."""
    from speckernel.toolchains import tools_dir

    return tools_dir() / TOOL


def binary_path() -> Path:
    """The helper to run: ``$KERNEL_VERUS_CHEATCHECK`` or the one the install step built."""
    named = os.environ.get(BINARY_ENV)
    return Path(named).expanduser() if named else tools_home() / "release" / TOOL


def requests(pairs: Sequence[CheatPair]) -> str:
    """The helper's stdin: one JSON request per pair, numbered in order."""
    return "".join(json.dumps({"id": i, "original": p.original, "candidate": p.candidate,
                               "target": p.target}) + "\n" for i, p in enumerate(pairs))


def read_answers(stdout: str, count: int) -> list[CheatReport]:
    """The reports in ``stdout``, in request order; ``CheatCheckError`` when the helper broke
    the protocol (fewer answers, bad JSON)."""
    reports: list[CheatReport | None] = [None] * count
    for line in stdout.splitlines():
        try:
            answer = json.loads(line)
            index = int(answer["id"])
            found = tuple(Violation(str(v["rule"]), str(v["reason"]), int(v.get("line") or 0))
                          for v in answer["violations"])
        except (ValueError, KeyError, TypeError) as exc:
            raise CheatCheckError(f"{TOOL} answered out of protocol: {line[:120]!r}") from exc
        if 0 <= index < count:
            reports[index] = CheatReport(found)
    missing = sum(r is None for r in reports)
    if missing:
        raise CheatCheckError(f"{TOOL} left {missing} of {count} requests unanswered")
    return [r for r in reports if r is not None]


def check_pairs(pairs: Sequence[CheatPair], *, jobs: int = 1, timeout_s: float = 600.0,
                binary: Path | None = None) -> list[CheatReport]:
    """Check many pairs in one helper process with ``jobs`` worker threads."""
    if not pairs:
        return []
    stdout = _run(pairs, [], jobs=jobs, timeout_s=timeout_s, binary=binary)
    return read_answers(stdout, len(pairs))


@attrs.frozen
class Transplant:
    """A ground truth's proof moved into its task (``text``), or why it could not be."""

    text: str | None
    error: str = ""


def transplant_pairs(pairs: Sequence[CheatPair], *, jobs: int = 1, timeout_s: float = 600.0,
                     binary: Path | None = None) -> list[Transplant]:
    """For each (task, ground truth, target) pair, the task with its target function(s) taken
    from the ground truth and the ground truth's new items that the rules allow added, every
    other byte the task's (the helper's ``--transplant`` mode, on the same parser as the rules).
    Upstream extracted tasks and solutions separately, so a raw ground truth differs from its
    task outside the proof (stubs with bodies, renamed stub parameters, other ``use``s); the
    transplant is the proof a model is asked for."""
    if not pairs:
        return []
    stdout = _run(pairs, ["--transplant"], jobs=jobs, timeout_s=timeout_s, binary=binary)
    found: list[Transplant | None] = [None] * len(pairs)
    for line in stdout.splitlines():
        try:
            answer = json.loads(line)
            index = int(answer["id"])
            result = (Transplant(str(answer["text"])) if "text" in answer
                      else Transplant(None, str(answer["error"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise CheatCheckError(f"{TOOL} answered out of protocol: {line[:120]!r}") from exc
        if 0 <= index < len(pairs):
            found[index] = result
    if any(t is None for t in found):
        raise CheatCheckError(f"{TOOL} left transplant requests unanswered")
    return [t for t in found if t is not None]


def _run(pairs: Sequence[CheatPair], mode: list[str], *, jobs: int, timeout_s: float,
         binary: Path | None) -> str:
    """The helper's stdout for ``pairs``; ``CheatCheckError`` when it is missing or broke."""
    exe = binary or binary_path()
    if not exe.is_file():
        raise CheatCheckError(f"{TOOL} is not built ({exe}): run `kernel tools install verus`")
    try:
        done = subprocess.run([str(exe), *mode, "--jobs", str(jobs)], input=requests(pairs),
                              capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise CheatCheckError(f"{TOOL} did not finish within {timeout_s:g} s") from exc
    if done.returncode != 0:
        raise CheatCheckError(f"{TOOL} exited with {done.returncode}: {done.stderr.strip()[:200]}")
    return done.stdout


def check(original: str, candidate: str, target: str | None = None) -> CheatReport:
    """One pair (agents' tool call)."""
    return check_pairs([CheatPair(original, candidate, target)])[0]


def cheat_report(original: str, candidate: str, target: str | None = None) -> str:
    """The checker's word on a draft, as a model reads it; a broken helper says so instead."""
    try:
        return check(original, candidate, target).summary()
    except CheatCheckError as exc:
        return f"The cheat checker could not run: {exc}"


class CheatCheckToolchain(Toolchain):
    """``verus-cheatcheck``, built from the plugin's Rust sources with cargo (crates.io)."""

    name = TOOL
    description = "the cheat checker's Verus parser (Rust, verus_syn), built with cargo"
    install = (InstallStep("command", BUILD, note="cargo build of plugins/verus/cheatcheck"),)

    def detect(self) -> ToolStatus:
        exe = binary_path()
        if not exe.is_file():
            return ToolStatus(self.name, found=False,
                              detail=f"{exe} not built: `kernel tools install verus` runs {BUILD}")
        if BINARY_ENV not in os.environ and _newest_source() > exe.stat().st_mtime:
            return ToolStatus(self.name, found=False, path=str(exe),
                              detail=f"{exe} is older than {CRATE}: `kernel tools install verus` "
                                     "rebuilds it")
        banner = self.version_of([str(exe), "--version"])
        if not banner:
            return ToolStatus(self.name, found=False, path=str(exe),
                              detail=f"{exe} --version failed")
        return ToolStatus(self.name, found=True, version=banner.removeprefix(f"{TOOL} "),
                          path=str(exe))


def _newest_source() -> float:
    """When the helper's sources last changed (0 where they are not shipped)."""
    files = [CRATE / "Cargo.toml", CRATE / "Cargo.lock", *CRATE.glob("src/**/*.rs")]
    return max((f.stat().st_mtime for f in files if f.is_file()), default=0.0)


class CheatVerifier(Verifier):
    """``verus.cheats``: failure with one diagnostic per broken rule, success when the
    candidate only adds proof code to the task's file."""

    name = "verus.cheats"
    version = "1"
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
        process = await ctx.run([tool.path or str(binary_path()), "--jobs", "1"],
                                stdin=requests([pair]))
        if process.timed_out or process.limit == "wall":
            return Verdict(self.name, Status.TIMEOUT, (Diagnostic(
                f"{TOOL} ran out of its {ctx.limits.wall_s:g} s budget"),),
                tool=TOOL, tool_version=tool.version, duration_s=process.duration_s)
        try:
            if process.returncode != 0:
                raise CheatCheckError(f"{TOOL} exited with {process.returncode}: "
                                      f"{process.stderr.strip()[:200]}")
            report = read_answers(process.stdout, 1)[0]
        except CheatCheckError as exc:
            return Verdict(self.name, Status.ERROR, (Diagnostic(str(exc)),), tool=TOOL,
                           tool_version=tool.version, duration_s=process.duration_s)
        return Verdict(
            self.name,
            Status.SUCCESS if report.safe else Status.FAILURE,
            tuple(Diagnostic(v.reason, file=file, line=v.line or None, code=v.rule)
                  for v in report.violations),
            tool=TOOL, tool_version=tool.version, duration_s=process.duration_s,
            data={"violations": [attrs.asdict(v) for v in report.violations]},
        )
