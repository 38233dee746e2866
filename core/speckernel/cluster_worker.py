"""The worker side of a run on a Dask cluster (``speckernel.cluster`` is the coordinator's).

A Dask worker process that joins a run gets ``SpeckernelWorkerPlugin``: it loads the speckernel
plugins installed on that machine, and keeps, for the life of the process, their registry, the
detected tools, a local sandbox and a pool of ``run_sync`` workers — so warm processes (a KeY
server, SanyBatch, coqtop) survive from one call to the next on that worker. The coordinator
asks every worker for ``report()`` (plugin, verifier and tool versions) before using it, and
submits ``run_verifier`` and ``run_harness`` calls, which return plain JSON.

Calls follow the same rules as on one machine (``speckernel.execution``): the verifier's tools
are checked here, on the worker, before the call.
"""

from __future__ import annotations

import importlib
import platform
import threading
from collections.abc import Sequence
from typing import Any

import anyio
import attrs
from distributed.diagnostics.plugin import WorkerPlugin

from speckernel import __version__
from speckernel.execution import HARNESS_LIMITS, KernelVerifyContext, judge, missing_tools
from speckernel.model import JSON, Candidate, Task, from_json, to_json
from speckernel.plugins import Registry, load_registry
from speckernel.sandbox.base import Limits
from speckernel.sandbox.local import LocalSandbox
from speckernel.toolchains import DetectedTools
from speckernel.workers import WorkerPool


@attrs.define
class WorkerState:
    """What one worker process keeps between calls."""

    registry: Registry
    tools: DetectedTools
    sandbox: LocalSandbox
    pool: WorkerPool


_STATE: list[WorkerState] = []
_LOCK = threading.Lock()


def state(extra_modules: Sequence[str] = (), threads: int = 1) -> WorkerState:
    """This process's state, made on first use (by the plugin's setup, normally)."""
    with _LOCK:
        if not _STATE:
            extra: dict[str, object] = {n: importlib.import_module(n) for n in extra_modules}
            registry = load_registry(extra)
            tools = DetectedTools(registry.components["toolchain"])
            paths = [s.path for s in map(tools.status, registry.components["toolchain"])
                     if s.found and s.path]
            sandbox = LocalSandbox(paths)
            _STATE.append(WorkerState(registry, tools, sandbox, WorkerPool(sandbox, threads)))
        return _STATE[0]


class SpeckernelWorkerPlugin(WorkerPlugin):
    """Loads speckernel on a worker when it joins (``extra_modules``: plugin modules to register
    besides the installed entry points, as the coordinator's ``EXTRA_PLUGINS``)."""

    name = "speckernel"

    def __init__(self, extra_modules: Sequence[str] = ()) -> None:
        self.extra_modules = tuple(extra_modules)

    def setup(self, worker: Any) -> None:
        state(self.extra_modules, max(int(getattr(worker.state, "nthreads", 1) or 1), 1))

    def teardown(self, worker: Any) -> None:
        with _LOCK:
            for held in _STATE:
                held.pool.close()


def report(tools: Sequence[str], verifiers: Sequence[str]) -> dict[str, Any]:
    """This worker's versions of what the run uses: the kernel, every plugin, the named
    verifiers (missing ones are None) and tools ("missing" when not found here)."""
    held = state()
    registry = held.registry
    known = registry.components["verifier"]
    return {
        "kernel": __version__,
        "python": platform.python_version(),
        "plugins": {p.name: p.version or "" for p in registry.plugins},
        "verifiers": {n: (known[n].version if n in known else None) for n in verifiers},
        "tools": {t: _tool_version(held.tools, t) for t in tools},
        "failed_plugins": [f.name for f in registry.failures],
    }


def _tool_version(tools: DetectedTools, name: str) -> str:
    try:
        status = tools.status(name)
    except Exception:  # a tool no plugin here declares
        return "missing"
    return status.version if status.found else "missing"


def run_verifier(name: str, candidate: JSON, task: JSON, options: JSON, limits: JSON) -> JSON:
    """One verifier call on this worker; the verdict as JSON."""
    held = state()
    verifier = held.registry.get("verifier", name)
    the_candidate, the_task = from_json(Candidate, candidate), from_json(Task, task)
    refusal = missing_tools(verifier, held.tools, options)
    if refusal is not None:
        return to_json(refusal)
    ctx = KernelVerifyContext(held.sandbox, held.tools, from_json(Limits, limits), options,
                              held.pool)

    async def call() -> JSON:
        return to_json(await judge(verifier, the_candidate, the_task, ctx))

    result: JSON = anyio.run(call)
    return result


def run_harness(name: str, candidate: JSON, task: JSON, options: JSON) -> JSON:
    """One harness measurement on this worker: ``{"measurements": ..., "log": [...]}``."""
    held = state()
    harness = held.registry.get("harness", name)
    log: list[str] = []
    ctx = KernelVerifyContext(held.sandbox, held.tools, HARNESS_LIMITS, options, held.pool,
                              log.append)

    async def call() -> JSON:
        return dict(await harness.measure(from_json(Candidate, candidate),
                                          from_json(Task, task), ctx))

    return {"measurements": anyio.run(call), "log": log}
