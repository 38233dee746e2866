"""Kernel overhead, measured in one run and printed as figures and ratios.

1. Scheduling throughput: samples/s with a no-op agent and a no-op verifier (goal >= 2,000/s),
   every sample still recorded durably in samples.jsonl.
2. Cache-hit cost: ms per sample when every model response and verdict comes from the cache
   (goal < 5 ms).
3. Sandbox concurrency: wall time of 2 CPU-bound sandboxed verifier calls run concurrently,
   divided by the same 2 calls run one after the other (goal <= 0.6 on 2 cores).
4. The boundary's cost: ms per sandboxed call of ``true`` (bubblewrap, launcher, cgroups, a
   fresh user) against ``true`` started directly, and the round trip of a warm ``run_sync``.

Usage: python benchmarks/kernel_overhead.py [--samples N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from speckernel import hookimpl
from speckernel.cache import Cache
from speckernel.components import (
    Agent,
    AgentContext,
    Benchmark,
    Phase,
    Scorer,
    Verifier,
    VerifyContext,
)
from speckernel.config import RunConfig
from speckernel.model import Candidate, Files, Message, Score, Status, Task, Verdict
from speckernel.plugins import load_registry
from speckernel.runner import Progress
from speckernel.runs import start
from speckernel.sandbox.base import Limits
from speckernel.sandbox.local import LocalSandbox
from speckernel.testing import _SCRIPTS, ScriptedProvider

SAMPLES = 5000


class NoopBench(Benchmark):
    name = "noop"
    phases = (Phase("check", ("noop.verify",)),)
    scorers = ("noop.score",)
    options = {"tasks": SAMPLES}

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        return (Task(f"t{i}", self.name, reference={"a.txt": str(i)})
                for i in range(int(options["tasks"])))


class NoopAgent(Agent):
    name = "noop"
    needs_model = False

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        return {"a.txt": task.id}


class AskAgent(Agent):
    """One model call per sample, so the cached run measures a model-cache hit too."""

    name = "ask"

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        answer = await ctx.generate([Message("user", task.id)])
        return {"a.txt": answer.text}


class NoopVerifier(Verifier):
    name = "noop.verify"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        return Verdict(self.name, Status.SUCCESS)


class SlowVerifier(NoopVerifier):
    """Stands in for a real tool call, so a cache hit is distinguishable from a run."""

    name = "slow.verify"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        await anyio.sleep(0.02)
        return Verdict(self.name, Status.SUCCESS)


class NoopScorer(Scorer):
    name = "noop.score"

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        return Score(self.name, {"ok": 1.0})


class SlowBench(NoopBench):
    name = "slow"
    phases = (Phase("check", ("slow.verify",)),)


class Plugin:
    @hookimpl
    def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
        register(NoopBench())
        register(SlowBench())

    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        register(NoopAgent())
        register(AskAgent())

    @hookimpl
    def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
        register(NoopVerifier())
        register(SlowVerifier())

    @hookimpl
    def register_scorers(self, register: Callable[[Scorer], None]) -> None:
        register(NoopScorer())

    @hookimpl
    def register_models(self, register: Callable[[ScriptedProvider], None]) -> None:
        register(ScriptedProvider())


def timed_run(config: RunConfig, out: Path, cache: Cache) -> float:
    registry = load_registry({"overhead": Plugin()})
    t0 = time.perf_counter()
    anyio.run(start, registry, config, out, Progress(), cache)
    return time.perf_counter() - t0


def scheduling(tmp: Path, n: int) -> float:
    config = RunConfig(benchmark="noop", agents=("noop",), options={"tasks": n}, cache=False)
    return n / timed_run(config, tmp / "sched", Cache(enabled=False))


def cache_hits(tmp: Path, n: int) -> float:
    _SCRIPTS["echo"] = lambda messages: "answer"
    config = RunConfig(benchmark="slow", agents=("ask",), models=("scripted:echo",),
                       options={"tasks": n})
    cache = Cache(tmp / "cache")
    timed_run(config, tmp / "fill", cache)
    hits_before = cache.hits
    wall = timed_run(config, tmp / "hit", cache)
    assert cache.hits - hits_before == 2 * n, "every model call and verdict must be a hit"
    return wall / n * 1000


BUSY = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.5:\n    pass\n"


async def sandboxed(concurrent: bool) -> float:
    sandbox = LocalSandbox()
    limits = Limits(wall_s=60)

    async def call() -> None:
        result = await sandbox.run([sys.executable, "busy.py"], files={"busy.py": BUSY},
                                   limits=limits)
        assert result.ok, result.output

    t0 = time.perf_counter()
    if concurrent:
        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            tg.start_soon(call)
    else:
        await call()
        await call()
    return time.perf_counter() - t0


async def boundary_cost(calls: int) -> tuple[float, float, float]:
    """(ms per sandboxed ``true``, ms per direct ``true``, ms per warm ``run_sync`` call)."""
    from speckernel.testing import verify_context

    sandbox = LocalSandbox()
    await sandbox.run(["true"])  # probe the machine once, outside the timing
    t0 = time.perf_counter()
    for _ in range(calls):
        assert (await sandbox.run(["true"])).ok
    boxed = (time.perf_counter() - t0) / calls * 1000
    t0 = time.perf_counter()
    for _ in range(calls):
        await anyio.run_process(["true"])
    direct = (time.perf_counter() - t0) / calls * 1000
    ctx = verify_context()
    await ctx.run_sync(len, "warm up")
    t0 = time.perf_counter()
    for _ in range(calls):
        await ctx.run_sync(len, "abc")
    warm = (time.perf_counter() - t0) / calls * 1000
    ctx.workers.close()  # type: ignore[attr-defined]
    return boxed, direct, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=SAMPLES)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rate = scheduling(root, args.samples)
        print(f"scheduling throughput: {rate:,.0f} samples/s "
              f"({args.samples} no-op samples, fsync'd) goal >= 2,000: "
              f"{'met' if rate >= 2000 else 'NOT met'}")
        hit_ms = cache_hits(root, min(args.samples, 2000))
        print(f"cache-hit cost: {hit_ms:.2f} ms/sample (model + verdict hits) goal < 5 ms: "
              f"{'met' if hit_ms < 5 else 'NOT met'}")
        sequential = anyio.run(sandboxed, False)
        concurrent = anyio.run(sandboxed, True)
        ratio = concurrent / sequential
        print(f"sandbox concurrency: 2 CPU-bound calls concurrent {concurrent:.2f} s vs "
              f"sequential {sequential:.2f} s, ratio {ratio:.2f} goal <= 0.6: "
              f"{'met' if ratio <= 0.6 else 'NOT met'}")
        boxed, direct, warm = anyio.run(boundary_cost, 50)
        print(f"boundary cost: sandboxed `true` {boxed:.1f} ms/call vs direct {direct:.1f} "
              f"ms/call (+{boxed - direct:.1f} ms per sandboxed call); warm run_sync round "
              f"trip {warm:.2f} ms")


if __name__ == "__main__":
    main()
