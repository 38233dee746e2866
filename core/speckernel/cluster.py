"""Verification on a Dask cluster (``kernel run ... --cluster tcp://HOST:PORT`` or ``local:N``).

The coordinator (this process) keeps what it owns on one machine: agents, model calls, the
cache, the run store, the display, the budget. Verifier calls and harness measurements go to
Dask workers, each an ordinary ``dask worker`` process on a machine with speckernel, the plugins
and their tools installed (``cluster_worker.py`` is their side).

Before a worker is used, it reports its versions; a worker whose plugins, verifiers or tools
differ from the run's is refused with one line naming it and the difference, since verdict
cache keys include those versions. The run's tool versions are the coordinator's where it has
the tool, otherwise the first worker's. A worker without a tool is not refused: calls that need
it get the tool's ``error`` verdict, as they would locally.

Faults: Dask reruns the calls of a worker that dies elsewhere; after
``distributed.scheduler.allowed-failures`` (3) deaths a call is an ``error`` verdict naming the
lost workers. If the scheduler goes away the run stops cleanly; ``--resume`` continues it here
or on another cluster.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import distributed

from speckernel import __version__, cluster_worker
from speckernel.components import Harness, ToolResolver, Verifier
from speckernel.errors import KernelError, one_line
from speckernel.execution import Executor
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict, from_json, to_json
from speckernel.plugins import Registry
from speckernel.sandbox.base import Limits

_JOIN_TIMEOUT_S = 60.0
"""How long to wait for the first worker to join."""
_REFRESH_S = 2.0


def _connect_timeout() -> float:
    """Seconds to connect to the scheduler, and to try reconnecting before the run stops
    (``KERNEL_CLUSTER_TIMEOUT``, default 15)."""
    try:
        return max(float(os.environ.get("KERNEL_CLUSTER_TIMEOUT", "15")), 1.0)
    except ValueError:
        return 15.0


def differences(report: Mapping[str, Any], reference: Mapping[str, Any]) -> list[str]:
    """How a worker's ``report`` differs from the run's ``reference`` (same shape), as phrases;
    a tool missing on either side is not a difference (it gives the tool's error verdict)."""
    found = []
    if report.get("kernel") != reference.get("kernel"):
        found.append(f"kernel {report.get('kernel')} vs the run's {reference.get('kernel')}")
    for name, version in reference.get("verifiers", {}).items():
        theirs = report.get("verifiers", {}).get(name)
        if theirs is None:
            found.append(f"no verifier '{name}' (is its plugin installed there?)")
        elif theirs != version:
            found.append(f"verifier '{name}' {theirs} vs the run's {version}")
    for name, version in reference.get("plugins", {}).items():
        theirs = report.get("plugins", {}).get(name)
        if theirs is not None and theirs != version:
            found.append(f"plugin '{name}' {theirs} vs the run's {version}")
    for name, version in reference.get("tools", {}).items():
        theirs = report.get("tools", {}).get(name, "missing")
        if "missing" not in (theirs, version) and theirs != version:
            found.append(f"tool '{name}' {theirs} vs the run's {version}")
    return found


class ClusterExecutor(Executor):
    """Sends verifier calls and harness measurements to the workers of a Dask cluster."""

    def __init__(self, client: Any, cluster: Any, address: str, options: Mapping[str, Any],
                 reference: dict[str, Any], warn: Callable[[str], None]) -> None:
        self.client = client
        self.cluster = cluster
        self.address = address
        self.options = dict(options)
        self.reference = reference
        self.warn = warn
        self.allowed: set[str] = set()
        self.refused: dict[str, str] = {}
        self._lost: str | None = None
        self._checked_at = 0.0
        self._lock = anyio.Lock()

    # -- connecting -------------------------------------------------------------------------

    @classmethod
    async def connect(cls, address: str, registry: Registry, verifiers: Sequence[Verifier],
                      harnesses: Sequence[Harness], options: Mapping[str, Any],
                      local_tools: ToolResolver, extra_modules: Sequence[str],
                      warn: Callable[[str], None]) -> ClusterExecutor:
        """Connect (or start ``local:N``), load speckernel on the workers, and check them."""
        cluster = None
        try:
            if address.startswith("local:"):
                count = address.removeprefix("local:")
                if not count.isdigit() or int(count) < 1:
                    raise KernelError(f"--cluster {address}: expected local:N with N >= 1")
                cluster = await distributed.LocalCluster(
                    n_workers=int(count), threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address=None, asynchronous=True,
                    silence_logs=40)
                client = await distributed.Client(cluster, asynchronous=True)
            else:
                client = await distributed.Client(address, asynchronous=True,
                                                  timeout=_connect_timeout())
        except KernelError:
            raise
        except Exception as exc:
            if cluster is not None:
                await _closed(cluster)
            raise KernelError(f"--cluster {address}: cannot connect: {one_line(exc)}") from exc
        await client.register_plugin(
            cluster_worker.SpeckernelWorkerPlugin(tuple(extra_modules)), name="speckernel")
        tool_names = sorted({t for v in verifiers for t in v.tools_for(options)}
                            | {t for h in harnesses for t in h.tools})
        reference: dict[str, Any] = {
            "kernel": __version__,
            "verifiers": {v.name: v.version for v in verifiers},
            "plugins": {p.name: p.version or "" for p in registry.plugins
                        if any(registry.plugin_of("verifier", v.name) == p.name
                               for v in verifiers)},
            "tools": {},
        }
        for name in tool_names:
            status = local_tools.status(name)
            if status.found:
                reference["tools"][name] = status.version
        executor = cls(client, cluster, address, options, reference, warn)
        executor._tool_names = tool_names
        executor._resources = {k for v in verifiers for k in v.resources}
        executor._resources |= {k for h in harnesses for k in h.resources}
        try:
            await executor._wait_for_workers()
            await executor._check_workers(force=True)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await executor.aclose()
            raise
        return executor

    async def _wait_for_workers(self) -> None:
        deadline = time.monotonic() + _JOIN_TIMEOUT_S
        while not await self._workers():
            if time.monotonic() > deadline:
                raise KernelError(f"--cluster {self.address}: no worker joined within "
                                  f"{_JOIN_TIMEOUT_S:.0f} s")
            await anyio.sleep(0.2)

    async def _workers(self) -> dict[str, Any]:
        """The scheduler's workers now (address -> info), also kept for ``slots``."""
        info = await self.client.scheduler.identity(n_workers=-1)
        self._present: dict[str, Any] = dict(info.get("workers", {}))
        return self._present

    async def _check_workers(self, force: bool = False) -> None:
        """Check workers that joined since the last look (at most every 2 s)."""
        if not force and time.monotonic() - self._checked_at < _REFRESH_S:
            return
        async with self._lock:
            self._checked_at = time.monotonic()
            present = await self._workers()
            self.allowed &= set(present)
            new = [w for w in present if w not in self.allowed and w not in self.refused]
            if new:
                reports = await self.client.run(cluster_worker.report, self._tool_names,
                                                list(self.reference["verifiers"]), workers=new)
                for worker, report in sorted(reports.items()):
                    self._admit(worker, report, present[worker])
            if not self.allowed:
                reasons = "; ".join(f"{w}: {r}" for w, r in sorted(self.refused.items()))
                raise KernelError(f"--cluster {self.address}: no usable worker ({reasons})")
            for resource in sorted(self._resources):
                if not any(resource in present[w].get("resources", {}) for w in self.allowed):
                    raise KernelError(
                        f"--cluster {self.address}: a verifier needs resource '{resource}' "
                        f"and no worker offers it (start workers with --resources "
                        f"\"{resource}=1\")")

    def _admit(self, worker: str, report: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        for name, version in report.get("tools", {}).items():  # the first worker decides
            if name not in self.reference["tools"] and version != "missing":
                self.reference["tools"][name] = version
        found = differences(report, self.reference)
        if found:
            self.refused[worker] = "; ".join(found)
            self.warn(f"cluster worker {info.get('name', worker)} ({worker}) refused: "
                      f"{self.refused[worker]}")
        else:
            self.allowed.add(worker)

    # -- calls ------------------------------------------------------------------------------

    def tool_version(self, name: str) -> str:
        version: str = self.reference["tools"].get(name, "missing")
        return version

    @property
    def lost(self) -> str | None:
        return self._lost

    @property
    def slots(self) -> int:
        """Calls the admitted workers can run at once."""
        present = self._present
        return max(sum(int(present[w].get("nthreads", 1)) for w in self.allowed
                       if w in present), 1)

    async def _submit(self, fn: Callable[..., Any], name: str, args: Sequence[Any],
                      resources: Mapping[str, float] | None) -> Any:
        await self._check_workers()
        future = self.client.submit(fn, *args, key=f"{fn.__name__}-{name}-{uuid.uuid4().hex}",
                                    workers=sorted(self.allowed), allow_other_workers=False,
                                    resources=dict(resources) if resources else None,
                                    pure=False)
        try:
            return await future
        finally:
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                if not future.done():
                    await future.cancel()

    async def verify(self, verifier: Verifier, candidate: Candidate, task: Task,
                     limits: Limits) -> Verdict:
        try:
            result = await self._submit(
                cluster_worker.run_verifier, verifier.name,
                (verifier.name, to_json(candidate), to_json(task), self.options,
                 to_json(limits)), verifier.resources)
        except distributed.scheduler.KilledWorker as exc:
            return Verdict(verifier.name, Status.ERROR, (Diagnostic(
                f"the cluster lost the workers running this call: {one_line(exc)}"),))
        except Exception as exc:
            raise self._fault(exc) from exc
        verdict: Verdict = from_json(Verdict, result)
        return verdict

    async def measure(self, harness: Harness, candidate: Candidate, task: Task,
                      log: Callable[[str], None]) -> Mapping[str, float]:
        try:
            result = await self._submit(
                cluster_worker.run_harness, harness.name,
                (harness.name, to_json(candidate), to_json(task), self.options),
                harness.resources)
        except Exception as exc:
            raise self._fault(exc) from exc
        for line in result["log"]:
            log(line)
        return {str(k): float(v) for k, v in result["measurements"].items()}

    def _fault(self, exc: BaseException) -> Exception:
        """A failure of the cluster itself: when the scheduler is gone, the run stops (the
        runner reads ``lost``) and resumes later; otherwise the call is an error."""
        if getattr(self.client, "status", "running") not in ("running", "connecting"):
            self._lost = f"the cluster at {self.address} went away ({one_line(exc)})"
            return KernelError(self._lost)
        return KernelError(f"cluster call failed: {one_line(exc)}")

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                await _closed(self.cluster)

    _tool_names: list[str]
    _resources: set[str]


async def _closed(cluster: Any) -> None:
    """Close a ``LocalCluster`` started asynchronously (its ``close`` returns an awaitable)."""
    closing = cluster.close()
    if closing is not None:
        await closing
