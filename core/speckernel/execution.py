"""Where verifier calls and harness measurements run: on this machine (``LocalExecutor``), or on
a Dask cluster (``speckernel.cluster``). The runner owns everything else — agents, models, the
cache, the store, the budget — and hands each call to its executor.

The rules a call follows are the same wherever it runs, so they live here: a verifier whose
declared tools are missing gets an ``error`` verdict naming them (and how to install them); a
call is bounded in time even when the verifier hangs in Python; a candidate that breaks the
check is a ``failure``; any other exception an ``error`` (any ``BaseException`` the verifier
raises, ``containment``).
"""

from __future__ import annotations

import abc
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import attrs

from speckernel.components import (
    Harness,
    ToolResolver,
    Verifier,
    VerifyContext,
    Workers,
)
from speckernel.containment import plugin_fault
from speckernel.errors import CandidateError, one_line
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits, Sandbox

HARNESS_LIMITS = Limits(wall_s=600)


@attrs.define
class KernelVerifyContext(VerifyContext):
    """The runner's ``VerifyContext`` (``speckernel.testing.verify_context`` makes one too)."""

    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]
    workers: Workers
    sample_log: Callable[[str], None] | None = None

    def log(self, message: str) -> None:
        if self.sample_log is not None:
            self.sample_log(message)


def missing_tools(verifier: Verifier | Harness, tools: ToolResolver,
                  options: Mapping[str, Any]) -> Verdict | None:
    """The ``error`` verdict for a call whose declared tools are not all found here."""
    names = verifier.tools_for(options) if isinstance(verifier, Verifier) else verifier.tools
    missing = [s for s in map(tools.status, names) if not s.found]
    if not missing:
        return None
    return Verdict(verifier.name, Status.ERROR, tuple(
        Diagnostic(f"tool '{s.name}' is missing ({s.detail or 'not found'}); install it with: "
                   f"kernel tools install {s.name}") for s in missing))


async def judge(verifier: Verifier, candidate: Candidate, task: Task,
                ctx: VerifyContext) -> Verdict:
    """``verifier.verify`` with every way it can go wrong turned into a verdict. The sandbox
    bounds each process; the outer bound also covers a verifier that hangs in Python, with
    slack for its own bookkeeping."""
    bound = ctx.limits.wall_s * 2 + 30
    start = time.monotonic()
    try:
        with anyio.fail_after(bound):
            verdict = await verifier.verify(candidate, task, ctx)
    except TimeoutError:
        return Verdict(verifier.name, Status.TIMEOUT,
                       (Diagnostic(f"verifier exceeded {bound:.0f} s"),),
                       duration_s=time.monotonic() - start)
    except CandidateError as exc:
        return Verdict(verifier.name, Status.FAILURE,
                       (Diagnostic(f"the candidate broke the check: {exc}"),),
                       duration_s=time.monotonic() - start)
    except BaseException as exc:  # SystemExit, KeyboardInterrupt... are the verifier's too
        if not plugin_fault(exc):
            raise
        return Verdict(verifier.name, Status.ERROR, (Diagnostic(one_line(exc)),),
                       duration_s=time.monotonic() - start)
    if not isinstance(verdict, Verdict):
        return Verdict(verifier.name, Status.ERROR,
                       (Diagnostic(f"verifier returned {type(verdict).__name__}, "
                                   "not a Verdict"),))
    return verdict


class Executor(abc.ABC):
    """Runs verifier calls and harness measurements for one run."""

    @abc.abstractmethod
    async def verify(self, verifier: Verifier, candidate: Candidate, task: Task,
                     limits: Limits) -> Verdict:
        """One call of ``verifier``, within ``limits``; never raises for the call's failures."""

    @abc.abstractmethod
    async def measure(self, harness: Harness, candidate: Candidate, task: Task,
                      log: Callable[[str], None]) -> Mapping[str, float]:
        """One measurement of ``harness``; raises when it fails (the sample is an error)."""

    @abc.abstractmethod
    def tool_version(self, name: str) -> str:
        """The version of tool ``name`` the calls run with ("missing" when absent), for the
        verdict cache key and ``run.yaml``."""

    async def aclose(self) -> None:  # noqa: B027 - nothing to release by default
        """Release what the executor holds (the run is over)."""

    @property
    def slots(self) -> int | None:
        """How many calls it runs at once, when it knows better than the configuration (a
        cluster's worker threads)."""
        return None

    @property
    def lost(self) -> str | None:
        """Why the executor can take no more calls (its cluster went away), or None."""
        return None


class LocalExecutor(Executor):
    """Calls run here, each in one of ``slots`` CPU slots, in ``sandbox``."""

    def __init__(self, sandbox: Sandbox, tools: ToolResolver, options: Mapping[str, Any],
                 workers: Workers, slots: int) -> None:
        self.sandbox = sandbox
        self.tools = tools
        self.options = options
        self.workers = workers
        self._limiter = anyio.CapacityLimiter(slots)
        self._versions: dict[str, str] = {}

    def tool_version(self, name: str) -> str:
        if name not in self._versions:
            status = self.tools.status(name)
            self._versions[name] = status.version if status.found else "missing"
        return self._versions[name]

    async def verify(self, verifier: Verifier, candidate: Candidate, task: Task,
                     limits: Limits) -> Verdict:
        refusal = missing_tools(verifier, self.tools, self.options)
        if refusal is not None:
            return refusal
        ctx = KernelVerifyContext(self.sandbox, self.tools, limits, self.options, self.workers)
        async with self._limiter:
            return await judge(verifier, candidate, task, ctx)

    async def measure(self, harness: Harness, candidate: Candidate, task: Task,
                      log: Callable[[str], None]) -> Mapping[str, float]:
        ctx = KernelVerifyContext(self.sandbox, self.tools, HARNESS_LIMITS, self.options,
                                  self.workers, log)
        async with self._limiter:
            return await harness.measure(candidate, task, ctx)
