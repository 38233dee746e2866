"""``verus.verify`` around the parser: the command line, process outcomes (timeout, memory,
crash) as verdicts with reasons, and the typed errors travelling in the verdict's data."""

from __future__ import annotations

import pytest
from speckernel.components import ToolResolver, ToolStatus, VerifyContext
from speckernel.model import Candidate, Provenance, Status, Task
from speckernel.sandbox.base import ProcessResult
from speckernel.sandbox.local import LocalSandbox
from verus_fixtures import as_rustc_prints, parsed, recorded

from speckernel_verus.verifier import (
    VerusVerifier,
    judge_process,
    result_of,
    verdict_for,
    verus_argv,
)


def process(case: str, **changes: object) -> ProcessResult:
    stdout, stderr, code = recorded(case)
    fields: dict[str, object] = {"argv": ("verus",), "returncode": code, "stdout": stdout,
                                 "stderr": stderr, "duration_s": 1.0}
    fields.update(changes)
    return ProcessResult(**fields)  # type: ignore[arg-type]


def test_command_line_is_veruasges() -> None:
    assert verus_argv("/opt/verus/verus", "t.rs", {}) == [
        "/opt/verus/verus", "--multiple-errors", "5", "--output-json", "--error-format=json",
        "t.rs", "--rlimit", "250"]
    assert verus_argv("/v", "t.rs", {"rlimit": 500, "verus_args": "-L dependency=deps"})[-4:] == [
        "--rlimit", "500", "-L", "dependency=deps"]


def test_verdicts_carry_the_typed_errors() -> None:
    result = parsed("postcondition_overflow")
    verdict = verdict_for(result, "t.rs", "0.2025.09.11")
    assert verdict.status is Status.FAILURE
    assert [d.code for d in verdict.diagnostics] == ["ArithmeticFlow", "ArithmeticFlow",
                                                     "PostCondFail"]
    assert (verdict.diagnostics[2].line, verdict.diagnostics[2].file) == (36, "t.rs")
    assert verdict.data["error_kinds"] == {"ArithmeticFlow": 2, "PostCondFail": 1}
    assert result_of(verdict) == result
    assert verdict_for(parsed("verified"), "t.rs").passed


def test_timeout_is_a_timeout_verdict() -> None:
    judged = judge_process(process("verified", timed_out=True, limit="wall", returncode=None))
    assert not isinstance(judged, str) and judged.timed_out
    assert verdict_for(judged, "t.rs").status is Status.TIMEOUT


def test_memory_exhaustion_fails_the_candidate() -> None:
    judged = judge_process(process("crash", limit="memory", returncode=-9))
    assert not isinstance(judged, str) and "out of memory" in judged.reason


def test_a_crash_is_a_reason_not_a_result() -> None:
    judged = judge_process(process("crash"))
    assert isinstance(judged, str)
    assert judged.startswith("verus crashed (exit 101)") and "backtrace" in judged


def test_a_compile_error_is_judged_on_the_candidate() -> None:
    judged = judge_process(process("syntax_error"))
    assert not isinstance(judged, str) and judged.compile_error


def test_a_compile_error_quoting_a_line_separator_is_a_failure_not_a_crash() -> None:
    """rustc leaves U+2028 raw in its JSON: the erroring line ``counter // <U+2028>`` made
    ``str.splitlines`` drop the diagnostic, and the run read as a crash of Verus (an ``error``
    verdict, left out of the ``verified`` rate and re-run) instead of the candidate's failure."""
    _, stderr, _ = recorded("mismatched_types")
    judged = judge_process(process("mismatched_types",
                                   stderr=as_rustc_prints(stderr, "    counter // \u2028")))
    assert not isinstance(judged, str) and judged.compile_error
    assert verdict_for(judged, "t.rs").status is Status.FAILURE
    assert [d.code for d in verdict_for(judged, "t.rs").diagnostics] == ["MismatchedType"]


class _NoTools(ToolResolver):
    def status(self, name: str) -> ToolStatus:
        return ToolStatus(name, True, "0", "/nonexistent/verus")


class _Context(VerifyContext):
    def __init__(self) -> None:
        self.sandbox = LocalSandbox()
        self.tools = _NoTools()
        self.limits = VerusVerifier.limits
        self.options = {}


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_candidate_without_the_file_fails_before_verus(anyio_backend: str) -> None:
    task = Task("t", "verus", files={"t.rs": "verus! {}"}, metadata={"file": "t.rs"})
    candidate = Candidate({"other.rs": "x"}, Provenance("a", "m"))
    verdict = await VerusVerifier().verify(candidate, task, _Context())
    assert verdict.status is Status.FAILURE and "has no t.rs" in verdict.diagnostics[0].message
