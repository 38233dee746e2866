"""Running ``coqc`` over a set of files in one sandboxed shell, and reading its output.

Every sandbox call starts from an empty directory, so one call compiles the whole project in
dependency order (the audit's clean build, notes §1.4 rule 3) and then runs any extra steps
(``Print Assumptions``, probes). Each step is framed by marker lines carrying its exit code and
clock, so one process's merged output splits back into per-step results.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence

import attrs
from speckernel.components import VerifyContext
from speckernel.model import Diagnostic, Files
from speckernel.sandbox.base import ProcessResult

from speckernel_rocq_ids.sources import LOGICAL_ROOT

_BEGIN, _END = "@@ids-begin", "@@ids-end"
_MARKER = re.compile(rf"^({_BEGIN}|{_END}) (\S+)(?: (\d+))? (\d+)$")
_LOCATION = re.compile(
    r'^File "(?:\./)?(?P<file>[^"]+)", line (?P<line>\d+), characters (?P<col>\d+)-\d+:$')


@attrs.frozen
class Step:
    """One command of a build: ``keep_going`` false stops the build when it fails."""

    name: str
    argv: tuple[str, ...]
    keep_going: bool = False


@attrs.frozen
class StepResult:
    """What one step printed, its exit code and how long it took."""

    name: str
    returncode: int
    output: str
    duration_s: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@attrs.frozen
class BuildResult:
    """The finished steps of a build and the process that ran them."""

    steps: Mapping[str, StepResult]
    process: ProcessResult

    def succeeded(self, names: Iterable[str]) -> bool:
        """Whether every step in ``names`` ran and exited 0."""
        return all(name in self.steps and self.steps[name].ok for name in names)

    def failed(self) -> StepResult | None:
        """The first step that failed, if any."""
        return next((s for s in self.steps.values() if not s.ok), None)


def compile_step(file: str) -> Step:
    """``coqc`` of one file under the framework's logical root."""
    return Step(file, ("coqc", "-q", "-Q", ".", LOGICAL_ROOT, file))


def script(steps: Sequence[Step]) -> str:
    """A POSIX shell script running ``steps`` with markers around each."""
    lines = ["now() { date +%s%N; }"]
    for step in steps:
        name, argv = shlex.quote(step.name), shlex.join(step.argv)
        stop = "" if step.keep_going else " || exit 1"
        lines.append(f'echo "{_BEGIN} {name} $(now)"; {argv} 2>&1; rc=$?; '
                     f'echo "{_END} {name} $rc $(now)"; [ $rc -eq 0 ]{stop}')
    return "\n".join(lines) + "\nexit 0\n"


def parse_steps(stdout: str) -> dict[str, StepResult]:
    """Split marked output into the steps that finished (a killed step has no end marker)."""
    done: dict[str, StepResult] = {}
    current: tuple[str, int, list[str]] | None = None
    for line in stdout.splitlines():
        marker = _MARKER.match(line)
        if marker is None:
            if current is not None:
                current[2].append(line)
            continue
        kind, name, code, clock = marker.groups()
        if kind == _BEGIN:
            current = (name, int(clock), [])
        elif current is not None and current[0] == name:
            done[name] = StepResult(name, int(code), "\n".join(current[2]),
                                    (int(clock) - current[1]) / 1e9)
            current = None
    return done


async def run_build(ctx: VerifyContext, files: Files, steps: Sequence[Step]) -> BuildResult:
    """Materialise ``files`` in a fresh sandbox directory and run ``steps`` there."""
    process = await ctx.run(("sh", "-c", script(steps)), files=files)
    return BuildResult(parse_steps(process.stdout), process)


def diagnostics(output: str, default_file: str) -> tuple[Diagnostic, ...]:
    """Coq's located messages (``File "X.v", line L, characters C-D:`` then the message, with
    the environment and goal when Coq prints them); unlocated output becomes one error on
    ``default_file``."""
    found: list[Diagnostic] = []
    location: re.Match[str] | None = None
    body: list[str] = []

    def flush() -> None:
        if location is None or not body:
            return
        text = "\n".join(body).strip()
        severity = "warning" if text.startswith("Warning") else "error"
        found.append(Diagnostic(text, severity, location["file"], int(location["line"]),
                                int(location["col"]) + 1))

    for line in output.splitlines():
        match = _LOCATION.match(line)
        if match is not None:
            flush()
            location, body = match, []
        elif location is not None:
            body.append(line)
    flush()
    if not any(d.severity == "error" for d in found) and output.strip():
        found.append(Diagnostic(output.strip()[-4000:], "error", default_file))
    return tuple(found)
