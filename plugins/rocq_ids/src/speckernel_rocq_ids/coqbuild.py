"""Running ``coqc`` over a set of files in one sandboxed shell, and reading its output.

Every sandbox call starts from an empty directory, so one call compiles the whole project in
dependency order (the audit's clean build, notes §1.4 rule 3) and then runs any extra steps
(``Print Assumptions``, probes). A step is judged by its own exit status, which the tool cannot
write: each step's stdout and stderr go to a file of its own (``.ids-steps/<i>.log``, read back
after the call), so nothing the tool prints reaches the shell's stdout, and the shell reports
each step there as one status line opening with a nonce drawn for the call (the step's number,
exit status and clock). A line without the nonce is not a status, whatever it says.
"""

from __future__ import annotations

import re
import secrets
import shlex
from collections.abc import Iterable, Mapping, Sequence

import attrs
from speckernel.components import VerifyContext
from speckernel.model import Diagnostic, Files
from speckernel.sandbox.base import Limits, ProcessResult

from speckernel_rocq_ids.sources import LOGICAL_ROOT

STEP_DIR = ".ids-steps"
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
    """What one step printed, its exit status and how long it took."""

    name: str
    returncode: int
    output: str
    duration_s: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@attrs.frozen
class BuildResult:
    """The finished steps of a build, the process that ran them, and whether the step handed
    the whole call over (``last``, see :func:`run_build`) started."""

    steps: Mapping[str, StepResult]
    process: ProcessResult
    last_started: bool = False

    def succeeded(self, names: Iterable[str]) -> bool:
        """Whether every step in ``names`` ran and exited 0."""
        return all(name in self.steps and self.steps[name].ok for name in names)

    def failed(self) -> StepResult | None:
        """The first step that failed, if any."""
        return next((s for s in self.steps.values() if not s.ok), None)


def compile_step(file: str) -> Step:
    """``coqc`` of one file under the framework's logical root."""
    return Step(file, ("coqc", "-q", "-Q", ".", LOGICAL_ROOT, file))


def log_file(index: int) -> str:
    return f"{STEP_DIR}/{index}.log"


def script(steps: Sequence[Step], nonce: str, last: Step | None = None) -> str:
    """A POSIX shell script running ``steps``, each with its output in its own file and one
    status line on stdout: ``<nonce> <i> <exit status> <start ns> <end ns>``. ``last``, if any,
    replaces the shell once every step succeeded (after ``<nonce> <n> started``), so the
    call's own exit status and limits are that command's."""
    lines = [f"mkdir -p {STEP_DIR}", "now() { date +%s%N; }"]
    for i, step in enumerate(steps):
        stop = "" if step.keep_going else " || exit 1"
        lines.append(f"t=$(now); {shlex.join(step.argv)} </dev/null >{log_file(i)} 2>&1; "
                     f'rc=$?; echo "{nonce} {i} $rc $t $(now)"; [ $rc -eq 0 ]{stop}')
    if last is not None:
        lines.append(f'echo "{nonce} {len(steps)} started"')
        lines.append(f"exec {shlex.join(last.argv)}")
    return "\n".join(lines) + "\nexit 0\n"


def parse_steps(stdout: str, nonce: str, steps: Sequence[Step],
                logs: Mapping[str, str]) -> tuple[dict[str, StepResult], bool]:
    """The steps whose status line (with ``nonce``) is in ``stdout``, with their logs; and
    whether the ``last`` command started. Lines without the nonce are ignored."""
    done: dict[str, StepResult] = {}
    started = False
    status = re.compile(rf"^{re.escape(nonce)} (\d+) (?:(-?\d+) (\d+) (\d+)|(started))$")
    for line in stdout.splitlines():
        match = status.match(line)
        if match is None:
            continue
        index = int(match[1])
        if match[5]:
            started = index == len(steps)
        elif index < len(steps):
            step = steps[index]
            done[step.name] = StepResult(step.name, int(match[2]), logs.get(log_file(index), ""),
                                         (int(match[4]) - int(match[3])) / 1e9)
    return done, started


async def run_build(ctx: VerifyContext, files: Files, steps: Sequence[Step],
                    last: Step | None = None, limits: Limits | None = None,
                    stdin: str | None = None) -> BuildResult:
    """Materialise ``files`` in a fresh sandbox directory and run ``steps`` there, then
    ``last`` in place of the shell (its output is the call's own: ``process.stdout``)."""
    nonce = secrets.token_hex(16)
    kwargs = {"limits": limits} if limits is not None else {}
    process = await ctx.run(("sh", "-c", script(steps, nonce, last)), files=files,
                            collect=[f"{STEP_DIR}/*.log"], stdin=stdin, **kwargs)
    done, started = parse_steps(process.stdout, nonce, steps, process.files)
    return BuildResult(done, process, started)


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
