"""The ``verus.verify`` verifier: one Verus run on the candidate's file, typed errors back.

Verus is called the way VeruSAGE's ``veval.py`` calls it (notes B2): ``--multiple-errors 5
--output-json --error-format=json --rlimit 250`` on the task's single file (it has its own
``fn main``, so no ``--crate-type``), under a wall timeout (90 s upstream). The typed errors travel
in the verdict's ``data`` so that agents and scorers can rebuild the :class:`VerusResult`.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Mapping
from typing import Any

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits, ProcessResult

from speckernel_verus.artifact import task_file
from speckernel_verus.output import (
    TIMED_OUT,
    ErrorKind,
    Span,
    VerusError,
    VerusResult,
    error_counts,
    parse_run,
)
from speckernel_verus.toolchain import VerusToolchain, verus_env, verus_read_only

FLAGS = ("--multiple-errors", "5", "--output-json", "--error-format=json")
DEFAULT_RLIMIT = 250
DEFAULT_TIMEOUT_S = 90.0


def verus_argv(tool_path: str, file: str, options: Mapping[str, Any]) -> list[str]:
    """The command line for one run: the pinned flags, ``rlimit`` and any ``verus_args``."""
    rlimit = int(options.get("rlimit", DEFAULT_RLIMIT))
    extra = shlex.split(str(options.get("verus_args", "") or ""))
    return [tool_path, *FLAGS, file, "--rlimit", str(rlimit), *extra]


def judge_process(process: ProcessResult) -> VerusResult | str:
    """The Verus result of a finished process, or why there is none (a crash: the tool
    failed, not the artifact)."""
    if process.timed_out or process.limit in ("wall", "cpu"):
        return TIMED_OUT
    if process.limit == "memory":
        return VerusResult(-1, 999, compile_error=True, reason="verus ran out of memory")
    result = parse_run(process.stdout, process.stderr, process.returncode)
    if result.compile_error and not result.verus_errors and process.returncode != 0:
        tail = [line for line in process.stderr.splitlines() if line.strip()]
        return (f"verus crashed (exit {process.returncode}"
                f"{', signal ' + str(process.signal) if process.signal else ''}): "
                f"{tail[-1][:300] if tail else 'no output'}")
    return result


def verdict_data(result: VerusResult) -> dict[str, Any]:
    """The verdict's ``data``: counts, kinds and every error (see :func:`result_of`)."""
    return {
        "verified": result.verified,
        "errors": result.errors,
        "compile_error": result.compile_error,
        "timed_out": result.timed_out,
        "correct": result.correct,
        "reason": result.reason,
        "error_kinds": error_counts(result.verus_errors),
        "verus_errors": [attrs.asdict(e) for e in result.verus_errors],
    }


def result_of(verdict: Verdict) -> VerusResult | None:
    """The Verus result a ``verus.verify`` verdict carries (None for other verdicts, or a
    verdict without a Verus run, such as a missing tool)."""
    data = verdict.data
    if verdict.verifier != VerusVerifier.name or "verified" not in data:
        return None
    errors = tuple(
        VerusError(ErrorKind(e["kind"]), e["message"], tuple(Span(**s) for s in e["spans"]),
                   tuple(e["notes"]), bool(e["in_vstd"]))
        for e in data.get("verus_errors", ()))
    return VerusResult(int(data["verified"]), int(data["errors"]), bool(data["compile_error"]),
                       bool(data.get("timed_out", False)), errors, str(data.get("reason", "")))


def diagnostics(result: VerusResult, file: str) -> tuple[Diagnostic, ...]:
    """One diagnostic per typed error, located at its primary span."""
    out = []
    for error in result.verus_errors:
        where = error.where
        label = f" ({where.label})" if where and where.label else ""
        out.append(Diagnostic(f"{error.kind.value}: {error.message}{label}",
                              file=file if where else None,
                              line=where.line if where else None,
                              column=where.column if where else None,
                              code=error.kind.value))
    if not out and result.reason:
        out.append(Diagnostic(result.reason, file=file))
    return tuple(out)


def status_of(result: VerusResult) -> Status:
    if result.correct:
        return Status.SUCCESS
    return Status.TIMEOUT if result.timed_out else Status.FAILURE


def verdict_for(result: VerusResult, file: str, tool_version: str = "",
                duration_s: float = 0.0) -> Verdict:
    """The ``verus.verify`` verdict that carries ``result``."""
    return Verdict(VerusVerifier.name, status_of(result), diagnostics(result, file),
                   tool=VerusToolchain.name, tool_version=tool_version, duration_s=duration_s,
                   data=verdict_data(result))


class VerusVerifier(Verifier):
    """Verus on the candidate file; success means verified > 0, no errors, no compile error.

    Options: ``verus_timeout_s`` (90), ``rlimit`` (250), ``verus_args`` (extra arguments, e.g.
    the ``-L``/``--extern deps_hack=...`` pair verified-storage tasks need).
    """

    name = "verus.verify"
    version = "2"
    description = "Verus verifies the candidate (VeruSAGE's command line and success rule)"
    tools = (VerusToolchain.name,)
    limits = Limits(wall_s=DEFAULT_TIMEOUT_S, memory_mb=8192)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        tool = ctx.tools.status(VerusToolchain.name)
        verdict = Verdict(self.name, Status.ERROR, tool=tool.name, tool_version=tool.version)
        file = task_file(task)
        text = candidate.files.get(file, "")
        if not text.strip():
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=(
                Diagnostic(f"the candidate has no {file}"),), data={"reason": "no file"})
        timeout = float(ctx.options.get("verus_timeout_s", DEFAULT_TIMEOUT_S))
        process = await ctx.run(verus_argv(tool.path, file, ctx.options), files={file: text},
                                env=verus_env(), read_only=verus_read_only(tool.path),
                                limits=attrs.evolve(ctx.limits, wall_s=timeout))
        judged = judge_process(process)
        duration = time.monotonic() - started
        if isinstance(judged, str):
            return attrs.evolve(verdict, diagnostics=(Diagnostic(judged),),
                                duration_s=duration, data={"reason": judged})
        return verdict_for(judged, file, tool.version, duration)
