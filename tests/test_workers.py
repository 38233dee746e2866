"""``ctx.run_sync``: plugin Python in killable, sandboxed worker processes — every check ends on
time, the candidate's own failures are verdicts, and the kernel unpickles only plain data."""

from __future__ import annotations

import pickle
import re
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from speckernel_pyfunc.hostile import a_class, greedy, nested, refuse

from speckernel import hookimpl
from speckernel.components import Benchmark, Phase, Verifier, VerifyContext
from speckernel.errors import CandidateError, KernelError, WorkerError
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox import boundary
from speckernel.sandbox.base import Limits
from speckernel.testing import verify_context
from speckernel.workers import plain_loads

pytestmark = pytest.mark.anyio

CATASTROPHIC = "((((((((((((a*)*)*)*)*)*)*)*)*)*)*)*)*b"


@pytest.fixture(autouse=True)
def boundary_available() -> None:
    if boundary.probe().problem is not None:
        pytest.skip(f"the sandbox boundary is unavailable here: {boundary.probe().problem}")


@pytest.fixture
def ctx() -> Iterable[VerifyContext]:
    context = verify_context(limits=Limits(wall_s=3, memory_mb=512))
    yield context
    context.workers.close()  # type: ignore[attr-defined]


async def test_results_and_warm_reuse(ctx: VerifyContext) -> None:
    assert await ctx.run_sync(sorted, [3, 1, 2]) == [1, 2, 3]
    started = time.monotonic()
    assert await ctx.run_sync(len, "abcd") == 4
    assert time.monotonic() - started < 0.5  # the warm worker, no new process


async def test_catastrophic_regex_is_killed_on_time(ctx: VerifyContext) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await ctx.run_sync(re.fullmatch, CATASTROPHIC, "a" * 40)
    assert time.monotonic() - started < 6
    assert await ctx.run_sync(len, "after") == 5  # a fresh worker answers next


async def test_stack_exhaustion_is_the_candidates(ctx: VerifyContext) -> None:
    with pytest.raises(CandidateError, match="RecursionError"):
        await ctx.run_sync(nested, 100_000)
    with pytest.raises(CandidateError, match="not an expression"):
        await ctx.run_sync(refuse)


async def test_memory_exhaustion_is_the_candidates(ctx: VerifyContext) -> None:
    with pytest.raises(CandidateError):
        await ctx.run_sync(greedy, 2048)


async def test_other_exceptions_are_worker_errors(ctx: VerifyContext) -> None:
    with pytest.raises(WorkerError, match="ValueError"):
        await ctx.run_sync(int, "x")


async def test_only_plain_data_comes_back(ctx: VerifyContext) -> None:
    with pytest.raises(WorkerError, match="plain data"):
        await ctx.run_sync(a_class)


def test_plain_loads_refuses_every_class() -> None:
    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (print, ("pwned",))

    with pytest.raises(pickle.UnpicklingError):
        plain_loads(pickle.dumps(Evil()))
    value = {"a": [1, 2.5, None, True], "b": ("x", b"y", frozenset({1})), "c": {3}}
    assert plain_loads(pickle.dumps(value)) == value


async def test_lambdas_and_local_functions_are_refused(ctx: VerifyContext) -> None:
    with pytest.raises(KernelError, match="module-level"):
        await ctx.run_sync(lambda: 1)


async def test_cancellation_kills_the_worker(ctx: VerifyContext) -> None:
    with anyio.move_on_after(0.5) as scope:
        await ctx.run_sync(time.sleep, 30)
    assert scope.cancelled_caught
    assert await ctx.run_sync(len, "ok") == 2


# --------------------------------------------------------------------------- through a run


class Spin(Benchmark):
    name = "spin"
    phases = (Phase("check", ("spin.check",)),)

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        for kind in ("regex", "recursion", "fine"):
            yield Task(kind, self.name, "x", reference={"answer.txt": kind})


class SpinCheck(Verifier):
    name = "spin.check"
    limits = Limits(wall_s=2)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        kind = candidate.files["answer.txt"]
        if kind == "regex":
            await ctx.run_sync(re.fullmatch, CATASTROPHIC, "a" * 40)
        elif kind == "recursion":
            await ctx.run_sync(nested, 100_000)
        return Verdict(self.name, Status.SUCCESS, (Diagnostic("fine"),))


class Blocking(Verifier):
    """A plugin that does its CPU-bound work on the event loop."""

    name = "spin.check"
    limits = Limits(wall_s=5)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        time.sleep(1.5)
        return Verdict(self.name, Status.SUCCESS)


def spin_plugin(verifier: Verifier) -> object:
    class Plugin:
        @hookimpl
        def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
            register(Spin())

        @hookimpl
        def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
            register(verifier)

    return Plugin()


def test_checks_end_on_time_and_candidates_failures_are_verdicts(
        kernel_cli, kernel_plugins, run_dir: Path) -> None:
    import json

    kernel_plugins(spin_plugin(SpinCheck()))
    started = time.monotonic()
    result = kernel_cli("run", "spin", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert time.monotonic() - started < 30
    records = {json.loads(line)["key"]["task_id"]: json.loads(line)
               for line in (run_dir / "samples.jsonl").read_text().splitlines()}
    assert records["fine"]["status"] == "success"
    assert records["regex"]["status"] == "timeout"
    assert records["recursion"]["status"] == "failure"
    assert "RecursionError" in records["recursion"]["verdicts"][0]["diagnostics"][0]["message"]


def test_the_watchdog_names_a_plugin_that_blocks_the_loop(
        kernel_cli, kernel_plugins, run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNEL_LOOP_WATCHDOG_S", "0.5")
    kernel_plugins(spin_plugin(Blocking()))
    result = kernel_cli("run", "spin", "-t", "fine", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    assert "event loop has been blocked" in result.stderr
    assert "test_workers:" in result.stderr  # the module and line of the blocking call
