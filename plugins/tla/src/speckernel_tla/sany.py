"""SANY, the TLA+ parser: reading its output, and running it on many modules in one JVM.

SysMoBench's compilation check (notes §2) runs ``tla2sany.SANY`` once per module and trusts the
exit code. The jars these machines get exit 0 even when semantic analysis failed (notes §7), so
the outcome here is judged from the output text, with the exit code as one more signal. Every
module is parsed by the SanyBatch driver (:mod:`speckernel_tla.jvm`), which prints what a separate
SANY run would print for it, less the progress lines of the modules it extends that an earlier
file of the JVM already had analysed.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import attrs
from speckernel.errors import KernelError
from speckernel.lines import split_lines
from speckernel.model import Diagnostic
from speckernel.sandbox.base import Limits, Sandbox

from speckernel_tla.artifact import Deadline
from speckernel_tla.jvm import JVM_ENV, driver_classpath, java_argv
from speckernel_tla.stdlib import with_bundled_modules
from speckernel_tla.toolchain import DRIVER

_FAILURE_MARKERS = (
    "***Parse Error***",
    "Lexical error",
    "Fatal errors",
    "Semantic errors",
    "*** Errors:",
    "Could not parse",
    "Cannot find source file",
    "Exception in thread",
)
_LOCATION = re.compile(
    r"^line (?P<line>\d+), col (?P<col>\d+) to line \d+, col \d+ of module (?P<module>\S+)$")
_OTHER_HEADER = re.compile(r"^(?:In module (?P<module>\S+)|Unknown location)$")
_SECTION = re.compile(r"^\*\*\* (?P<kind>Errors|Warnings|Abort messages): \d+$")
_PARSE_AT = re.compile(r"at line (?P<line>\d+), column (?P<col>\d+)")
_UNKNOWN_OPERATOR = re.compile(r"Unknown operator: `(?P<name>[^']+)'")
_ARITY = re.compile(r"The operator (?P<name>\S+) requires (?P<arity>\d+) argument")


@attrs.frozen
class SanyResult:
    """SANY's verdict on one module: its output, exit code, and the messages read from it.

    ``exit_code`` is None when the parse did not finish (``timed_out``) or the JVM died first.
    """

    module: str
    output: str
    exit_code: int | None
    timed_out: bool = False
    errors: tuple[Diagnostic, ...] = ()
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        return (self.exit_code == 0 and not self.timed_out
                and not any(marker in self.output for marker in _FAILURE_MARKERS))

    @property
    def unknown_operators(self) -> tuple[str, ...]:
        """Names SANY reported as ``Unknown operator``, in first-seen order."""
        names = (m.group("name") for d in self.errors for m in [_UNKNOWN_OPERATOR.search(d.message)]
                 if m)
        return tuple(dict.fromkeys(names))

    @property
    def arities(self) -> dict[str, int]:
        """Operators SANY says take arguments: ``The operator F requires 2 arguments``."""
        return {m.group("name"): int(m.group("arity"))
                for d in self.errors for m in [_ARITY.search(d.message)] if m}


def parse_sany_output(module: str, output: str, exit_code: int | None,
                      timed_out: bool = False) -> SanyResult:
    """Read one SANY run's output (stdout and stderr merged) into a :class:`SanyResult`."""
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    file = f"{module}.tla"
    lines = split_lines(output)
    section: str | None = None
    header: tuple[str | None, int | None, int | None] | None = None
    body: list[str] = []

    def flush() -> None:
        if header is not None and section is not None:
            text = "\n".join(body).strip()
            where_module, line, col = header
            target = warnings if section == "Warnings" else errors
            target.append(Diagnostic(
                text or "(no message)", "warning" if section == "Warnings" else "error",
                f"{where_module}.tla" if where_module else None, line, col,
                code="sany-" + section.split()[0].lower()))
        body.clear()

    for number, raw in enumerate(lines):
        line = raw.rstrip()
        if match := _SECTION.match(line):
            flush()
            section, header = match.group("kind"), None
        elif _parse_error_header(line):
            flush()
            section, header = None, None
            message = _paragraph(lines, number)
            at = _PARSE_AT.search(message)
            errors.append(Diagnostic(message, "error", file,
                                     int(at.group("line")) if at else None,
                                     int(at.group("col")) if at else None, code="sany-parse"))
        elif section and (match := _LOCATION.match(line)):
            flush()
            header = (match.group("module"), int(match.group("line")), int(match.group("col")))
        elif section and (match := _OTHER_HEADER.match(line)):
            flush()
            header = (match.group("module"), None, None)
        elif section and header is not None:
            body.append(line)
        elif line.startswith(("Fatal errors", "Semantic errors")):
            flush()
            section, header = None, None
    flush()
    result = SanyResult(module, output, exit_code, timed_out, tuple(errors), tuple(warnings))
    if not result.ok and not errors:
        summary = "SANY timed out" if timed_out else _tail(output)
        result = attrs.evolve(result, errors=(Diagnostic(summary, "error", file, code="sany"),))
    return result


def _parse_error_header(line: str) -> bool:
    return line == "***Parse Error***" or line.startswith("Lexical error")


def _paragraph(lines: Sequence[str], start: int) -> str:
    """The lines from ``start`` (a parse error's header) up to the next blank line or the next
    such header (an output of many headers and no blank line otherwise made each message the
    rest of the output: quadratic)."""
    out = [lines[start].rstrip()]
    for index in range(start + 1, len(lines)):
        line = lines[index].rstrip()
        if not line.strip() or _parse_error_header(line):
            break
        out.append(line)
    return "\n".join(out)


def _tail(output: str, keep: int = 6) -> str:
    """The last meaningful lines of an output SANY gave no structured message in."""
    meaningful = [line for line in split_lines(output)
                  if line.strip() and not line.startswith(("****** SANY2", "Parsing file",
                                                            "Semantic processing"))]
    return "\n".join(meaningful[-keep:]) or "SANY failed without a message"


SHAPES_PROPERTY = "sanybatch.shapes"
"""The driver's system property naming the prefix of the definitions to describe
(``java/SanyShapes.java``)."""


def shape_blocks(output: str, nonce: str) -> dict[int, str]:
    """The SanyShapes descriptions in SanyBatch's output, by file index (files whose analysis
    gave a message, or whose description grew too long, have none)."""
    pattern = re.compile(rf"^{nonce} SHAPES (\d+)\n(.*?)^{nonce} SHAPESEND \1$",
                         re.MULTILINE | re.DOTALL)
    return {int(m.group(1)): m.group(2) for m in pattern.finditer(output)}


def frame_blocks(output: str, nonce: str) -> tuple[dict[int, tuple[str, int]], int | None]:
    """Split SanyBatch's output into ``{index: (sany output, exit code)}``, plus the index of
    the file whose parse the driver's watchdog stopped (None if none was).

    Raises ``KernelError`` if the driver never started (no java, a JVM that cannot reserve its
    heap): that is the machine's fault, not the modules'.
    """
    if not re.search(rf"^{nonce} START$", output, re.MULTILINE):
        raise KernelError(f"the {DRIVER} JVM did not start:\n{output.strip()[-2000:]}")
    blocks: dict[int, tuple[str, int]] = {}
    pattern = re.compile(
        rf"^{nonce} BEGIN (\d+)\n(.*?)\n{nonce} END \1 (\d+)$", re.MULTILINE | re.DOTALL)
    for match in pattern.finditer(output):
        blocks[int(match.group(1))] = (match.group(2), int(match.group(3)))
    stopped = re.search(rf"^{nonce} TIMEOUT (\d+)$", output, re.MULTILINE)
    return blocks, int(stopped.group(1)) if stopped else None


BATCH_OUTPUT_BYTES = 64 << 20
"""What a SanyBatch JVM may print: SANY's reports on thousands of per-action modules run past the
default output cap; a JVM cut there anyway leaves its unreported modules to the next one."""


async def run_batch(
    sandbox: Sandbox,
    jar: Path,
    modules: Mapping[str, str],
    *,
    limits: Limits,
    deadline: Deadline | None = None,
    per_module_s: float = 30.0,
    extra_files: Mapping[str, str] | None = None,
    describe: str | None = None,
) -> dict[str, list[Any]]:
    """SANY's raw report on every module of ``modules`` (name -> text), in as few JVMs as
    possible: ``[output, exit code, timed out]`` per name (exit code None when the parse did not
    finish), plain data to read in a worker with :func:`parse_sany_output`. With ``describe`` (a
    name prefix), each report has a fourth item: the structure of the module's definitions so
    named (:mod:`speckernel_tla.shapes`), or None where the module did not parse cleanly.

    All modules sit in one directory with ``extra_files`` and the bundled community modules, so
    each may EXTEND the others. A name may carry a directory (``guess/M``): two versions of module
    ``M`` then parse in one JVM, each resolving what it extends from the main directory.

    A module that parses longer than ``per_module_s`` is a timeout (SysMoBench gives SANY 30 s);
    the driver stops there and the modules after it go to a fresh JVM, as do those left when a
    JVM dies, hits its wall budget or prints past its output cap, so every module ends with a
    result. Every JVM's wall budget comes out of ``deadline`` (the verifier call's); the modules
    still pending when it runs out are timeouts.
    """
    files = with_bundled_modules({**(extra_files or {}),
                                  **{f"{name}.tla": text for name, text in modules.items()}})
    classpath = [jar, driver_classpath(jar)]
    pending = list(modules)
    results: dict[str, list[Any]] = {}
    while pending:
        budget = deadline.limits(limits, limits.wall_s) if deadline else limits
        if budget is None:
            results.update({name: ["", None, True] + ([None] if describe is not None else [])
                            for name in pending})
            break
        budget = attrs.evolve(budget, output_bytes=max(budget.output_bytes, BATCH_OUTPUT_BYTES))
        nonce = secrets.token_hex(8)
        argv = java_argv(classpath, DRIVER,
                         [nonce, str(per_module_s), *(f"{name}.tla" for name in pending)],
                         budget.memory_mb)
        if describe is not None:
            argv.insert(1, f"-D{SHAPES_PROPERTY}={describe}")
        run = await sandbox.run(argv, files=files, limits=budget, env=JVM_ENV, read_only=[jar])
        blocks, stopped = frame_blocks(run.output, nonce)
        shapes = shape_blocks(run.output, nonce) if describe is not None else {}
        for index, (text, code) in blocks.items():
            results[pending[index]] = [text, code, False]
            if describe is not None:
                results[pending[index]].append(shapes.get(index))
        unfinished = [i for i in range(len(pending)) if i not in blocks]
        if not unfinished:
            break
        first = unfinished[0]
        name = pending[first]
        if run.truncated and blocks:  # cut at the output cap: the rest go to the next JVM
            pending = [pending[i] for i in unfinished]
            continue
        if stopped == first or run.timed_out:
            results[name] = ["", None, True]
        else:
            crash = f"the SANY JVM ended without a result (exit {run.returncode}):\n{run.output}"
            results[name] = [crash.strip()[-20_000:], None, False]
        if describe is not None:
            results[name].append(None)
        pending = [pending[i] for i in unfinished[1:]]
    return results


async def parse_modules(
    sandbox: Sandbox,
    jar: Path,
    modules: Mapping[str, str],
    *,
    limits: Limits,
    deadline: Deadline | None = None,
    per_module_s: float = 30.0,
    extra_files: Mapping[str, str] | None = None,
) -> dict[str, SanyResult]:
    """:func:`run_batch`, each report read into a :class:`SanyResult`: for a few modules (the
    whole model), whose reports are cheap to read where the caller runs."""
    raw = await run_batch(sandbox, jar, modules, limits=limits, deadline=deadline,
                          per_module_s=per_module_s, extra_files=extra_files)
    return {name: parse_sany_output(_module(name), output, code, bool(timed_out))
            for name, (output, code, timed_out, *_) in raw.items()}
def _module(name: str) -> str:
    """The module a ``parse_modules`` name stands for (without its directory)."""
    return PurePosixPath(name).name
