"""RESpecBench verifier throughput: checks per second per domain, printed as figures.

1. Single process: the domain verifier called directly, one check after the other, on the
   reference candidate (the oracle) of each of the domain's team tasks, for ``--seconds``.
2. Parallel runner: ``kernel run respec`` with the reference agent, ``--no-cache`` and one
   verifier slot per core, as many attempts per task as the single process checked in
   ``--seconds``; checks/s over the run's wall time (plugin and task loading and the durable
   record of every sample included), and per core.

Goals: >= 100 regex and >= 50 gsm/fol checks per second per core. For rocq, when the domain
offers a warm shared Coq process (``check_batch_warm`` beside the per-check ``check_one_cold``),
the ratio of one warm process for all checks against one Coq process per check.

Usage: python benchmarks/respec_throughput.py [--seconds S] [--domains a,b]
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import attrs
from speckernel_respec import plugin
from speckernel_respec.domains import DOMAINS, module_name
from speckernel_respec.tasks import load_tasks

from speckernel.cache import Cache
from speckernel.components import ToolResolver, Verifier, VerifyContext
from speckernel.config import RunConfig
from speckernel.model import Candidate, Provenance, Task
from speckernel.plugins import load_registry
from speckernel.runner import Progress
from speckernel.runs import start
from speckernel.sandbox.base import Limits, Sandbox
from speckernel.sandbox.local import LocalSandbox
from speckernel.toolchains import DetectedTools

GOALS = {"regex": 100.0, "gsm": 50.0, "fol": 50.0}
"""Checks per second per core the issue asks for."""


@attrs.define
class Context(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


def context(verifier: Verifier) -> Context:
    tools = DetectedTools({t.name: t for t in plugin.loaded().toolchains})
    return Context(LocalSandbox(), tools, verifier.limits, {"timeout_s": 4.0})


def reference(task: Task) -> Candidate:
    return Candidate(task.reference or {}, Provenance("reference", "none"))


def single_process(verifier: Verifier, tasks: Sequence[Task], seconds: float) -> float:
    """Checks per second, calling the verifier in a loop in this process."""
    ctx = context(verifier)

    async def loop() -> tuple[int, float]:
        count, start_at = 0, time.perf_counter()
        while time.perf_counter() - start_at < seconds:
            for task in tasks:
                await verifier.verify(reference(task), task, ctx)
                count += 1
        return count, time.perf_counter() - start_at

    count, elapsed = anyio.run(loop)
    return count / elapsed


def parallel_runner(domain: str, samples: int, cores: int, out: Path) -> tuple[int, float]:
    """(checks, seconds) of a kernel run of the domain's tasks, uncached, one slot per core."""
    config = RunConfig(benchmark="respec", options={"domains": [domain]}, samples=samples,
                       cache=False, verifier_concurrency=cores)
    registry = load_registry({})
    start_at = time.perf_counter()
    _, summary = anyio.run(start, registry, config, out, Progress(), Cache(enabled=False))
    return summary.finished, time.perf_counter() - start_at


def rocq_warm_ratio(tasks: Sequence[Task]) -> str:
    """The warm shared Coq process against one Coq process per check, if the domain has both."""
    rocq = importlib.import_module(module_name("rocq"))
    if not all(hasattr(rocq, f) for f in ("request", "check_batch_warm", "check_one_cold")):
        return "rocq: skipped, the domain offers no warm/cold pair (check_batch_warm, " \
               "check_one_cold)"
    verifier = plugin.loaded().verifiers["rocq"]
    ctx = context(verifier)
    requests = [r for t in tasks if isinstance(
        r := rocq.request(t, next(iter((t.reference or {}).values()))), rocq.Request)]

    async def measure() -> tuple[float, float]:
        t0 = time.perf_counter()
        await rocq.check_batch_warm(ctx, requests, 4.0)
        t1 = time.perf_counter()
        for req in requests:
            await rocq.check_one_cold(ctx, req, 4.0)
        return t1 - t0, time.perf_counter() - t1

    warm, cold = anyio.run(measure)
    return (f"rocq: {len(requests)} checks: one warm coqtop {warm:.2f} s, one coqtop per check "
            f"{cold:.2f} s; warm is {cold / warm:.1f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="single-process duration")
    parser.add_argument("--domains", default=",".join(DOMAINS))
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    loaded = plugin.loaded()
    print(f"{cores} cores; goals per core: "
          + ", ".join(f"{d} >= {g:g}/s" for d, g in GOALS.items()))
    for domain in args.domains.split(","):
        if domain not in loaded.verifiers:
            print(f"{domain}: skipped, not installed ({loaded.missing.get(domain)})")
            continue
        tasks = load_tasks({"team": True}, [domain])
        if not tasks:
            print(f"{domain}: skipped, no team tasks")
            continue
        if domain == "rocq":
            print(rocq_warm_ratio(tasks))
        single = single_process(loaded.verifiers[domain], tasks, args.seconds)
        samples = max(1, math.ceil(single * args.seconds / len(tasks)))
        with tempfile.TemporaryDirectory() as tmp:
            checks, seconds = parallel_runner(domain, samples, cores, Path(tmp) / "run")
        per_core = checks / seconds / cores
        goal = GOALS.get(domain)
        verdict = "met" if goal is not None and per_core >= goal else "MISSED"
        mark = "" if goal is None else f" (goal {goal:g}: {verdict})"
        print(f"{domain}: single process {single:.1f} checks/s; runner {checks} checks in "
              f"{seconds:.2f} s = {checks / seconds:.1f} checks/s, {per_core:.1f}/s per core"
              f"{mark}")


if __name__ == "__main__":
    main()
