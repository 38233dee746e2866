"""The IDS coordinator (IDS §4.3) and the agents it backs: ``ids`` and ``ids-dsa``.

The coordinator runs a pool of deductive workers on one task. After each worker step it polls
the worker's hole count; a worker whose holes have not gone down for ``stall_polls`` polls is
stalled, and its reloader (the Inductive Synthesis Agent) escalates. A worker whose state is
complete (compiles, no hole) goes through the audit gate: the benchmark's own verifier pipeline
(``ctx.verify``: coqc, then the audit). An audited store is benchmarked at once (eager
benchmarking, through the benchmark's harness when it has one) and the worker stops. The run
ends when every worker has stopped or a budget is spent: ``wall_s`` seconds of wall clock or
``max_usd`` dollars of model spend. The answer is the fastest audited store (highest
``throughput_ops_s``; the first found when none was measured), else the furthest partial state.

Agent options (``--agent-option k=v``): ``workers`` (2), ``steps`` (per worker, 24),
``stall_polls`` (3), ``max_repairs`` (2), ``wall_s`` (3600), ``max_usd`` (10),
``check_timeout_s`` (120).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import anyio
import attrs
from speckernel.components import Agent, AgentContext, ToolResolver, VerifyContext
from speckernel.model import (
    Candidate,
    Completion,
    Files,
    GenerateParams,
    Message,
    Provenance,
    Task,
    Verdict,
)
from speckernel.sandbox.base import Limits, Sandbox

from speckernel_rocq_ids.checker import Checker
from speckernel_rocq_ids.deductive import ROOT, DeductiveSearch
from speckernel_rocq_ids.inductive import Reloader
from speckernel_rocq_ids.report import PERFORMANCE
from speckernel_rocq_ids.tasks import BENCHMARK, CANDIDATE_FILE

Benchmarker = Callable[[Files], Awaitable[Mapping[str, float]]]
THROUGHPUT = PERFORMANCE[0]


class BudgetSpent(Exception):
    """The dollar budget is spent; no further model call is made."""


@attrs.define
class Spend:
    """Dollars spent by this agent's model calls against ``max_usd``."""

    max_usd: float
    spent: float = 0.0

    def charge(self, completion: Completion) -> None:
        self.spent += completion.usage.cost_usd

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.max_usd


class MeteredContext(AgentContext):
    """An agent context that charges every model call to a :class:`Spend` and refuses calls
    once it is exhausted; everything else goes to the sample's context."""

    def __init__(self, inner: AgentContext, spend: Spend) -> None:
        self.inner, self.spend = inner, spend
        self.key, self.benchmark = inner.key, inner.benchmark
        self.benchmark_options = inner.benchmark_options
        self.model_name, self.options, self.seed = inner.model_name, inner.options, inner.seed

    async def generate(self, messages: Sequence[Message],
                       params: GenerateParams | None = None) -> Completion:
        if self.spend.exhausted:
            raise BudgetSpent(f"dollar budget ${self.spend.max_usd:g} spent")
        completion = await self.inner.generate(messages, params)
        self.spend.charge(completion)
        return completion

    async def verify(self, files: Files) -> list[Verdict]:
        return await self.inner.verify(files)

    def log(self, message: str) -> None:
        self.inner.log(message)


class StallMonitor:
    """Counts, per worker, the polls since its hole count last went down."""

    def __init__(self, stall_polls: int) -> None:
        self.stall_polls = stall_polls
        self.best: dict[str, int | None] = {}
        self.idle: dict[str, int] = {}

    def poll(self, worker: str, holes: int | None) -> bool:
        """Record one poll; True when the worker has just stalled (its counter restarts)."""
        best = self.best.get(worker)
        if holes is not None and holes >= 0 and (best is None or holes < best):
            self.best[worker], self.idle[worker] = holes, 0
            return False
        self.idle[worker] = self.idle.get(worker, 0) + 1
        if self.idle[worker] >= self.stall_polls:
            self.idle[worker] = 0
            return True
        return False


@attrs.frozen
class Solution:
    """An audited store and what the harness measured of it."""

    worker: str
    text: str
    measurements: Mapping[str, float]


def fastest(solutions: Sequence[Solution]) -> Solution | None:
    """The solution with the highest measured throughput; the first one when none was
    measured."""
    measured = [s for s in solutions if THROUGHPUT in s.measurements]
    if measured:
        return max(measured, key=lambda s: s.measurements[THROUGHPUT])
    return solutions[0] if solutions else None


async def audit_gate(ctx: AgentContext, text: str) -> tuple[bool, str]:
    """The benchmark's verifier pipeline on a complete store: passed, and the feedback."""
    verdicts = await ctx.verify({CANDIDATE_FILE: text})
    ok = bool(verdicts) and all(v.passed for v in verdicts)
    return ok, "\n".join(v.summary() for v in verdicts if not v.passed)


@attrs.define
class _HarnessContext(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]
    agent_log: Callable[[str], None]

    def log(self, message: str) -> None:
        self.agent_log(f"eager benchmark: {message}")


def harness_benchmarker(task: Task, ctx: AgentContext) -> Benchmarker:
    """Eager benchmarking through the benchmark's registered harnesses, on the local sandbox;
    no harness (or one that fails) measures nothing, and the coordinator ranks by discovery."""

    async def measure(files: Files) -> Mapping[str, float]:
        if not ctx.benchmark.harnesses:
            return {}
        from speckernel.plugins import load_registry
        from speckernel.sandbox.local import LocalSandbox
        from speckernel.toolchains import DetectedTools

        registry = load_registry()
        candidate = Candidate(files, Provenance(ctx.key.agent, ctx.key.model))
        out: dict[str, float] = {}
        for name in ctx.benchmark.harnesses:
            try:
                harness = registry.get("harness", name)
                tools = DetectedTools({t: registry.get("toolchain", t) for t in harness.tools})
                hctx = _HarnessContext(LocalSandbox(), tools, Limits(wall_s=600),
                                       dict(ctx.benchmark_options), ctx.log)
                out.update(await harness.measure(candidate, task, hctx))
            except Exception as exc:  # a store that cannot be benchmarked ranks last, no more
                ctx.log(f"eager benchmark {name} failed: {exc}")
        return out

    return measure


@attrs.frozen
class Settings:
    """The coordinator's knobs, read from the agent options."""

    workers: int = 2
    steps: int = 24
    stall_polls: int = 3
    max_repairs: int = 2
    wall_s: float = 3600.0
    max_usd: float = 10.0
    check_timeout_s: float = 120.0

    @classmethod
    def of(cls, options: Mapping[str, Any], **defaults: Any) -> Settings:
        base = cls(**defaults)
        return attrs.evolve(base, **{f.name: type(getattr(base, f.name))(options[f.name])
                                     for f in attrs.fields(cls) if f.name in options})


class Coordinator:
    """Runs the worker pool on one task and picks the answer (module docstring)."""

    def __init__(self, settings: Settings, inductive: bool = True,
                 benchmarker: Benchmarker | None = None) -> None:
        self.settings, self.inductive, self.benchmarker = settings, inductive, benchmarker
        self.solutions: list[Solution] = []
        self.searches: list[DeductiveSearch] = []
        self.stopped = ""

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        settings = self.settings
        metered = MeteredContext(ctx, Spend(settings.max_usd))
        monitor = StallMonitor(settings.stall_polls)
        measure = self.benchmarker or harness_benchmarker(task, ctx)
        started = time.monotonic()
        async with contextlib.AsyncExitStack() as stack:
            checkers = [await stack.enter_async_context(
                Checker(task, ctx, settings.check_timeout_s, settings.wall_s + 600))
                for _ in range(settings.workers)]
            self.searches = [DeductiveSearch(task, metered, checker, f"worker{i}",
                                             settings.max_repairs)
                             for i, checker in enumerate(checkers)]
            with anyio.move_on_after(settings.wall_s) as scope:
                try:
                    async with anyio.create_task_group() as group:
                        for search in self.searches:
                            group.start_soon(self._work, search, metered, monitor, measure)
                except* BudgetSpent as spent:
                    self.stopped = str(spent.exceptions[0])
            if scope.cancelled_caught:
                self.stopped = f"wall-clock budget {settings.wall_s:g} s spent"
        if self.stopped:
            ctx.log(f"coordinator: {self.stopped}")
        ctx.log(f"coordinator: {len(self.solutions)} audited solutions, "
                f"{time.monotonic() - started:.1f} s, ${metered.spend.spent:.4f}")
        return {CANDIDATE_FILE: self.answer()}

    def answer(self) -> str:
        """The fastest audited store, else the furthest partial state (fewest holes)."""
        best = fastest(self.solutions)
        if best is not None:
            return best.text
        states = [n for s in self.searches for n in s.tree.nodes.values() if n.id != ROOT]
        if states:
            return min(states, key=lambda n: (n.holes, -n.id)).text
        drafts = [s.last_draft for s in self.searches if s.last_draft]
        return drafts[-1] if drafts else ""

    async def _work(self, search: DeductiveSearch, ctx: AgentContext, monitor: StallMonitor,
                    measure: Benchmarker) -> None:
        reloader = Reloader()
        for _ in range(self.settings.steps):
            await search.step()
            if search.complete:
                ok, feedback = await audit_gate(ctx, search.state.text)
                if ok:
                    figures = await measure({CANDIDATE_FILE: search.state.text})
                    self.solutions.append(Solution(search.name, search.state.text, figures))
                    ctx.log(f"{search.name}: audited solution at node {search.current}"
                            + (f", {THROUGHPUT} {figures[THROUGHPUT]:g}"
                               if THROUGHPUT in figures else ""))
                    return
                search.reject("audit", search.state.text, feedback)
            stalled = monitor.poll(search.name, None if search.current == ROOT
                                   else search.state.holes)
            if stalled and self.inductive:
                await reloader.escalate(ctx, search)


class IdsAgent(Agent):
    """IDS: a pool of deductive workers with the inductive agent behind them."""

    name = "ids"
    description = "IDS coordinator: deductive workers, inductive reloads, audit gate, budgets"
    benchmarks = (BENCHMARK,)

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        return await Coordinator(Settings.of(ctx.options)).solve(task, ctx)


class DeductiveAgent(Agent):
    """The Deductive Synthesis Agent alone: one worker, no inductive reloads."""

    name = "ids-dsa"
    description = "IDS deductive agent alone: type-checked moves with backtracking"
    benchmarks = (BENCHMARK,)

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        settings = Settings.of(ctx.options, workers=1)
        return await Coordinator(settings, inductive=False).solve(task, ctx)
