"""The runner: schedules samples, calls agents, models, verifiers, scorers and harnesses.

Concurrency has two separate budgets, as the work has two kinds of bottleneck: model calls wait on
a remote server (``model_concurrency``, default 8) and verifier runs burn local CPU
(``verifier_concurrency``, default the number of cores). Samples are started lazily, so a run of a
million samples holds only the ones in flight.

Every failure of the harness itself ends as a recorded sample with status ``error`` (re-run by
``--resume``); nothing a plugin or a model does may crash the run.
"""

from __future__ import annotations

import fnmatch
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import anyio
import anyio.to_thread
import attrs

from speckernel import runstate, validation
from speckernel.budget import Budget, check_usage
from speckernel.cache import Cache
from speckernel.components import (
    Agent,
    AgentContext,
    Benchmark,
    Harness,
    Model,
    ModelProvider,
    Phase,
    Scorer,
    ToolResolver,
    Verifier,
)
from speckernel.config import RunConfig
from speckernel.containment import plugin_call, plugin_fault
from speckernel.errors import KernelError, ProviderError, one_line, unknown_name
from speckernel.evaluation import RunEvaluator, prepared, unprepared
from speckernel.execution import Executor, LocalExecutor
from speckernel.model import (
    JSON,
    Candidate,
    Completion,
    Files,
    GenerateParams,
    Message,
    Provenance,
    Sample,
    SampleKey,
    Score,
    Status,
    Task,
    Usage,
    Verdict,
    digest_json,
    from_json,
    to_json,
)
from speckernel.plugins import Registry
from speckernel.runstate import RunState
from speckernel.sandbox.base import Sandbox
from speckernel.secrets import redact
from speckernel.store import RunStore, SampleWriter, open_writer
from speckernel.watchdog import LoopWatchdog
from speckernel.workers import WorkerPool

NO_MODEL = "none"

CACHEABLE = frozenset({Status.SUCCESS, Status.FAILURE, Status.UNKNOWN})
"""Verdicts worth reusing. A ``timeout`` depends on how busy the machine was and an ``error`` on
the infrastructure, so neither is served again from the cache."""


def sample_status(verdicts: Sequence[Verdict]) -> Status:
    """A sample's status is its first non-successful verdict's, in pipeline order."""
    if not verdicts:
        return Status.UNKNOWN
    for v in verdicts:
        if not v.passed:
            return v.status
    return Status.SUCCESS


@attrs.frozen
class Plan:
    """The resolved pieces of a run: everything looked up by name before the first sample."""

    benchmark: Benchmark
    tasks: tuple[Task, ...]
    agents: tuple[Agent, ...]
    models: tuple[str, ...]
    options: Mapping[str, Any]
    phases: tuple[Phase, ...]
    verifiers: Mapping[str, Verifier]
    scorers: tuple[Scorer, ...]
    harnesses: tuple[Harness, ...]
    left_out: Mapping[tuple[str, str], str] = attrs.field(factory=dict)
    """(task id, agent name) -> why that agent cannot attempt that task (``Agent.unsolvable``):
    those pairs get no samples."""

    def keys(self, samples: int, shard: tuple[int, int]) -> list[SampleKey]:
        """All sample keys in a stable order; a shard takes every n-th by stable hash.

        An agent that needs no model runs once per task and attempt, under model ``none``,
        whatever models the run names: it would otherwise repeat the same work per model and
        be labelled with models it never used."""
        keys = [SampleKey(t.id, a.name, m, i) for t in self.tasks for a in self.agents
                if (t.id, a.name) not in self.left_out
                for m in (self.models if a.needs_model else (NO_MODEL,))
                for i in range(samples)]
        index, count = shard
        if count == 1:
            return keys
        return [k for k in keys if int(digest_json(to_json(k))[:8], 16) % count == index]


def plan_run(registry: Registry, config: RunConfig, check_models: bool = True) -> Plan:
    """Look up every name the configuration uses; raise one clear error for the first bad one.

    With ``check_models`` each model is made once with the run's model options, so that an
    unknown option, a bad timeout or an unset key variable stops the run here rather than
    failing every sample (``kernel rescore``, which calls no model, skips it)."""
    benchmark: Benchmark = registry.get("benchmark", config.benchmark)
    unknown = sorted(set(config.options) - set(benchmark.options))
    if unknown:
        raise KernelError(f"benchmark '{benchmark.name}': "
                          f"{unknown_name('option', unknown[0], benchmark.options)}")
    options = {**benchmark.options, **config.options}
    agents = tuple(registry.get("agent", n) for n in (config.agents or (benchmark.default_agent,)))
    models = config.models or (NO_MODEL,)
    for agent in agents:
        if agent.benchmarks and benchmark.name not in agent.benchmarks:
            raise KernelError(
                f"agent '{agent.name}' works only with: {', '.join(agent.benchmarks)}")
        if agent.needs_model and NO_MODEL in models:
            raise KernelError(f"agent '{agent.name}' needs a model: pass --model PROVIDER:NAME")
    for m in (*models, *filter(None, [config.evaluator_model])):
        if m != NO_MODEL:
            provider_name = m.split(":", 1)[0]
            if ":" not in m:
                raise KernelError(f"model '{m}' must be PROVIDER:NAME, e.g. openai:gpt-4o")
            provider = registry.get("model", provider_name)
            if check_models:
                plugin_call(f"model '{m}'", provider.model, m.split(":", 1)[1],
                            config.model_options, name_kernel_errors=True)
    phases = tuple(plugin_call(f"benchmark '{benchmark.name}' could not give its pipeline",
                               benchmark.pipeline, options))
    verifiers = {n: registry.get("verifier", n) for p in phases for n in p.verifiers}
    scorers = tuple(registry.get("scorer", n) for n in benchmark.scorers)
    harnesses = tuple(registry.get("harness", n) for n in benchmark.harnesses)
    tasks = plugin_call(f"benchmark '{benchmark.name}' could not load its tasks",
                        lambda: list(benchmark.tasks(options)))
    if config.tasks:
        tasks = [t for t in tasks if any(fnmatch.fnmatchcase(t.id, p) for p in config.tasks)]
        if not tasks:
            raise KernelError(f"no task of '{benchmark.name}' matches {', '.join(config.tasks)}")
    if config.limit is not None:
        tasks = tasks[: config.limit]
    left_out = {(t.id, a.name): why for a in agents for t in tasks
                if (why := plugin_call(f"agent '{a.name}'", a.unsolvable, t)) is not None}
    if tasks and len(left_out) == len(tasks) * len(agents):
        (task_id, agent_name), why = next(iter(left_out.items()))
        raise KernelError(f"nothing to run: agent '{agent_name}' cannot attempt task "
                          f"'{task_id}' ({why}), nor any other task selected")
    validation.planned(len(tasks) * len(agents) * len(models) * config.samples)
    plugin_call(f"benchmark '{benchmark.name}' could not check its tools",
                benchmark.preflight, options, tuple(a.name for a in agents))
    return Plan(benchmark, tuple(tasks), agents, tuple(models), options, phases, verifiers,
                scorers, harnesses, left_out)


# --------------------------------------------------------------------------- progress


class Progress:
    """Receives run events; the CLI's displays subclass it. The default shows nothing."""

    def start(self, total: int, skipped: int) -> None:
        """Called once, before the first sample."""

    def finished(self, sample: Sample) -> None:
        """Called after each sample is durably recorded."""

    state: RunState | None = None
    """The run's live state, once ``watch`` was called."""

    def watch(self, state: RunState) -> None:
        """Called once, before ``start``, with the run's live state (``runstate.py``), which the
        runner keeps up to date while the run goes: a display may draw it whenever it likes.
        Subclasses call this one (it keeps the state for the command line's summary)."""
        self.state = state

    def close(self) -> None:
        """Called once at the end, also on interruption."""

    def warning(self, message: str) -> None:
        """Something the user should know that is not a sample (called from any thread):
        printed to stderr by default."""
        print(f"warning: {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- contexts


class Engine:
    """Shared services of one run: limiters, cache, models, and the executor that runs
    verification (here, or on a cluster)."""

    def __init__(self, registry: Registry, config: RunConfig, plan: Plan, cache: Cache,
                 sandbox: Sandbox, tools: ToolResolver, store: RunStore | None,
                 executor: Executor | None = None) -> None:
        self.registry = registry
        self.config = config
        self.plan = plan
        self.cache = cache
        self.sandbox = sandbox
        self.tools = tools
        self.store = store
        self.model_slots = anyio.CapacityLimiter(config.model_concurrency)
        self.workers = WorkerPool(sandbox, config.verifier_concurrency)
        self.executor = executor or LocalExecutor(sandbox, tools, plan.options, self.workers,
                                                  config.verifier_concurrency)
        self.budget = Budget(config.max_cost)
        self.task_digests = {t.id: t.digest() for t in plan.tasks}
        self.options_json = to_json(plan.options)
        self._models: dict[str, tuple[Model, Mapping[str, Any]]] = {}

    # -- models -----------------------------------------------------------------------------

    def model(self, model_id: str) -> tuple[Model, Mapping[str, Any]]:
        """The model object and its cache identity, made once per run."""
        if model_id not in self._models:
            provider_name, name = model_id.split(":", 1)
            provider: ModelProvider = self.registry.get("model", provider_name)
            options = self.config.model_options
            self._models[model_id] = (provider.model(name, options),
                                      provider.cache_identity(name, options))
        return self._models[model_id]

    async def complete(self, model_id: str, messages: Sequence[Message],
                       params: GenerateParams | None, call: Mapping[str, JSON]
                       ) -> tuple[list[Message], Completion]:
        """Ask model ``model_id`` through the run's budget, cache and response log: the messages
        as sent (secrets redacted) and the completion. ``call`` tells this call from others
        with the same messages in the cache key (which sample, which of its calls)."""
        self.budget.check()
        params = params.over(self.config.params) if params else self.config.params
        try:
            validation.params(params)
        except (TypeError, ValueError) as exc:
            raise KernelError(f"invalid generation parameters: {exc}") from None
        sent = [attrs.evolve(m, content=redact(m.content)) for m in messages]
        model, identity = self.model(model_id)
        key = {"model": identity, "messages": to_json(sent), "params": to_json(params), **call}
        hit = self.cache.get("model", key)
        if hit is not None:
            completion = attrs.evolve(from_json(Completion, hit), cached=True)
        else:
            # A stalled provider (bytes dripping in, a huge Retry-After) is an outage, not a
            # verdict on the sample: an error that resume runs again, saying what happened.
            timeout = self.config.model_timeout_s
            async with self.budget.reserve(model_id, model.max_cost_usd(sent, params)):
                async with self.model_slots:
                    with anyio.move_on_after(timeout) as waited:
                        completion = await model.complete(sent, params)
                if waited.cancelled_caught:
                    raise ProviderError(f"{model_id}: no answer within {timeout:g} s "
                                        "(model_timeout_s)")
                check_usage(model_id, completion.usage)
                self.budget.charge(model_id, completion.usage)
            self.cache.put("model", key, to_json(completion))
        if self.store is not None:
            self.store.append_response({
                "model": model_id, "messages": to_json(sent),
                "params": to_json(params), "completion": to_json(completion)})
        return sent, completion

    # -- verification -----------------------------------------------------------------------

    def tool_version(self, name: str) -> str:
        return self.executor.tool_version(name)

    async def verify(self, verifier: Verifier, candidate: Candidate, task: Task) -> Verdict:
        """One verifier call: from the cache, or by the executor within its time budget."""
        tools = verifier.tools_for(self.plan.options)
        key = {
            "verifier": verifier.name, "version": verifier.version,
            "tools": {t: self.tool_version(t) for t in tools},
            "task": self.task_digests.get(task.id) or task.digest(),
            "candidate": candidate.digest(), "options": self.options_json,
        } if self.cache.enabled else None
        hit = self.cache.get("verdict", key) if key is not None else None
        if hit is not None:
            return attrs.evolve(from_json(Verdict, hit), cached=True)
        runstate.stage(f"verifying {verifier.name}")
        limits = verifier.limits
        if self.config.verify_timeout_s is not None:
            limits = attrs.evolve(limits, wall_s=self.config.verify_timeout_s)
        verdict = await self.executor.verify(verifier, candidate, task, limits)
        if key is not None and verdict.status in CACHEABLE:
            self.cache.put("verdict", key, to_json(verdict))
        return verdict

    async def pipeline(self, candidate: Candidate, task: Task) -> list[Verdict]:
        """The benchmark's phases in order; a gated phase that fails stops the pipeline.

        Verifiers within one phase run concurrently (each in its own CPU slot)."""
        verdicts: list[Verdict] = []
        for phase in self.plan.phases:
            done = await self._phase(phase.verifiers, candidate, task)
            verdicts.extend(done)
            if phase.gate and not all(v.passed for v in done):
                break
        return verdicts

    async def _phase(self, names: Sequence[str], candidate: Candidate,
                     task: Task) -> list[Verdict]:
        if len(names) == 1:  # the common case: no task group to pay for
            return [await self.verify(self.plan.verifiers[names[0]], candidate, task)]
        results: list[Verdict | None] = [None] * len(names)

        async def run_one(i: int, name: str) -> None:
            results[i] = await self.verify(self.plan.verifiers[name], candidate, task)

        async with anyio.create_task_group() as tg:
            for i, name in enumerate(names):
                tg.start_soon(run_one, i, name)
        return [r for r in results if r is not None]

    def score(self, task: Task, candidate: Candidate | None,
              verdicts: Sequence[Verdict]) -> tuple[Score, ...]:
        return tuple(s.score(task, candidate, verdicts).finite() for s in self.plan.scorers)

    async def measure(self, candidate: Candidate, task: Task,
                      log: Callable[[str], None]) -> dict[str, float]:
        out: dict[str, float] = {}
        for harness in self.plan.harnesses:
            runstate.stage(f"benchmarking {harness.name}")
            out.update(await self.executor.measure(harness, candidate, task, log))
        return out


class SampleContext(AgentContext):
    """The ``AgentContext`` of one sample: records every model call and verifier call."""

    def __init__(self, engine: Engine, key: SampleKey, task: Task) -> None:
        self.engine = engine
        self.key = key
        self.task = task
        self.benchmark = engine.plan.benchmark
        self.benchmark_options = MappingProxyType(dict(engine.plan.options))
        self.model_name = key.model
        self.options = engine.config.agent_options
        self.seed = engine.config.seed * 1_000_003 + key.index
        self.sandbox = engine.sandbox
        self.workers = engine.workers
        self.transcript: list[Message] = []
        self.usage = Usage()
        self.verifier_calls = 0
        self.lines: list[str] = []
        self.answered_by: set[str] = set()
        """The models whose completions the agent got (a replay serves the recorded model's)."""
        self._calls = 0

    async def generate(self, messages: Sequence[Message],
                       params: GenerateParams | None = None) -> Completion:
        if self.key.model == NO_MODEL:
            raise KernelError("this sample has no model (--model none)")
        runstate.stage("generating")
        sent, completion = await self.engine.complete(
            self.key.model, messages, params, {"sample": self.key.index, "call": self._calls})
        self._calls += 1
        self._record(sent, completion)
        return completion

    def _record(self, messages: Sequence[Message], completion: Completion) -> None:
        n = len(self.transcript)
        if list(messages[:n]) == self.transcript:
            self.transcript.extend(messages[n:])
        else:
            self.transcript.extend(messages)
        self.transcript.append(Message("assistant", completion.text))
        self.usage = self.usage + completion.usage
        self.answered_by.add(completion.model)
        runstate.model_call(completion.usage, completion.cached)
        self.log(f"model {self.key.model}: {completion.usage.input_tokens} in, "
                 f"{completion.usage.output_tokens} out, {completion.latency_s:.2f} s"
                 + (" (cached)" if completion.cached else ""))

    async def verify(self, files: Files) -> list[Verdict]:
        self.verifier_calls += 1
        draft = Candidate(files, Provenance(self.key.agent, self.key.model))
        verdicts = await self.engine.pipeline(draft, self.task)
        self.log(f"verify #{self.verifier_calls}: " +
                 ", ".join(f"{v.verifier}={v.status.value}" for v in verdicts))
        return verdicts

    def log(self, message: str) -> None:
        self.lines.append(redact(message))


# --------------------------------------------------------------------------- samples


async def _guard(stage: str, work: Callable[[], Awaitable[Any]]) -> tuple[Any, str | None]:
    try:
        return await work(), None
    except BaseException as exc:
        if not plugin_fault(exc):
            raise
        return None, f"{stage}: {one_line(exc)}"


async def run_sample(engine: Engine, key: SampleKey, task: Task, agent: Agent,
                     fixed: Candidate | None = None) -> Sample:
    """Produce one sample. With ``fixed`` the agent is skipped and that candidate is judged
    again (``kernel rescore``)."""
    started, t0 = time.time(), time.monotonic()
    ctx = SampleContext(engine, key, task)

    def finish(status: Status, candidate: Candidate | None = None,
               verdicts: Sequence[Verdict] = (), scores: tuple[Score, ...] = (),
               measurements: Mapping[str, float] | None = None,
               error: str | None = None) -> Sample:
        sample = Sample(key, status, candidate, tuple(verdicts), scores, measurements or {},
                        error, started, time.monotonic() - t0,
                        engine.task_digests.get(task.id, ""), tuple(ctx.lines))
        return judged(engine.plan.benchmark, sample)

    candidate = fixed
    if candidate is None:
        try:
            with anyio.move_on_after(engine.config.sample_timeout_s) as budget:
                files = await agent.solve(task, ctx)
            if budget.cancelled_caught:
                return finish(Status.TIMEOUT,
                              error=f"agent exceeded {engine.config.sample_timeout_s:g} s")
        except BaseException as exc:
            if not plugin_fault(exc):
                raise
            return finish(Status.ERROR, error=f"agent {agent.name}: {one_line(exc)}")
        if not isinstance(files, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            return finish(Status.ERROR, error=f"agent {agent.name} returned "
                          f"{type(files).__name__}, not a mapping of file names to text")
        answered = sorted(ctx.answered_by)
        candidate = Candidate(files, Provenance(
            agent.name, answered[0] if len(answered) == 1 else key.model,
            tuple(ctx.transcript), ctx.usage, time.monotonic() - t0, ctx.verifier_calls))
        evaluator = RunEvaluator(engine.config.evaluator_model, ctx.benchmark_options,
                                 engine.complete, ctx.log, key.index)
        answer = candidate
        candidate, error = await _guard("preparation", lambda: prepared(
            engine.plan.benchmark, answer, task, evaluator))
        if error:
            return finish(Status.ERROR, unprepared(answer, error), error=error)
    verdicts, error = await _guard("verification", lambda: engine.pipeline(candidate, task))
    if error:
        return finish(Status.ERROR, candidate, error=error)
    scores, error = await _guard("scoring", _async(lambda: engine.score(task, candidate, verdicts)))
    if error:
        return finish(Status.ERROR, candidate, verdicts, error=error)
    status = sample_status(verdicts)
    measurements: dict[str, float] = {}
    if status is Status.SUCCESS and engine.plan.harnesses:
        measurements, error = await _guard("benchmarking",
                                           lambda: engine.measure(candidate, task, ctx.log))
        if error:
            return finish(Status.ERROR, candidate, verdicts, scores, error=error)
    return finish(status, candidate, verdicts, scores, measurements)


def judged(benchmark: Benchmark, sample: Sample) -> Sample:
    """``sample`` with the benchmark's solved verdict recorded in it (``Sample.solved``), so
    that reports and the viewer need no plugin. A sample that ended in ``error`` is not solved;
    a ``solved`` that raises makes the sample an ``error`` naming it (resume runs it again)."""
    if sample.status is Status.ERROR:
        return attrs.evolve(sample, solved=False)
    try:
        solved = bool(benchmark.solved(sample))
    except BaseException as exc:
        if not plugin_fault(exc):
            raise
        return attrs.evolve(sample, status=Status.ERROR, solved=False,
                            error=f"benchmark {benchmark.name}: solved: {one_line(exc)}")
    return attrs.evolve(sample, solved=solved)


def _async(fn: Callable[[], Any]) -> Callable[[], Awaitable[Any]]:
    async def call() -> Any:
        return fn()
    return call


BUDGET_STOP = "max cost"
"""How ``RunSummary.stopped`` begins when ``--max-cost`` stopped the run."""


@attrs.frozen
class RunSummary:
    """How a session of a run ended: samples in all, finished before it (``skipped``) and in
    it, by status; money spent; why it stopped early (None: it did not)."""

    total: int
    skipped: int
    finished: int
    counts: Mapping[str, int]
    spent_usd: float
    stopped: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def stopped_by_budget(self) -> bool:
        return self.stopped is not None and self.stopped.startswith(BUDGET_STOP)


async def execute(engine: Engine, keys: Sequence[SampleKey], skip: set[SampleKey],
                  progress: Progress, fixed: Mapping[SampleKey, Candidate] | None = None
                  ) -> RunSummary:
    """Run every key not in ``skip``, recording each sample as soon as it finishes."""
    assert engine.store is not None
    store = engine.store
    tasks = {t.id: t for t in engine.plan.tasks}
    agents = {a.name: a for a in engine.plan.agents}
    todo = [k for k in keys if k not in skip]
    state = RunState(store.root, engine.plan.benchmark.name, len(keys), len(keys) - len(todo),
                     engine.config.max_cost)
    progress.watch(state)
    progress.start(len(keys), len(keys) - len(todo))
    counts: dict[str, int] = {}
    in_flight = anyio.CapacityLimiter(
        engine.config.model_concurrency
        + (engine.executor.slots or engine.config.verifier_concurrency))
    stopped: str | None = None

    async def one(key: SampleKey, writer: SampleWriter) -> None:
        # The slot is freed as soon as the sample is queued for writing, so the next samples
        # run while this one's line waits for the batch's fsync (group commit needs a crowd).
        runstate.enter_sample(key)
        try:
            sample = await run_sample(engine, key, tasks[key.task_id], agents[key.agent],
                                      (fixed or {}).get(key))
            durable = await writer.submit(sample)
        finally:
            in_flight.release_on_behalf_of(key)
        with anyio.CancelScope(shield=True):
            await durable.wait()
        if writer.failure is not None:  # not saved: the writer stops the run (open_writer)
            return
        counts[sample.status.value] = counts.get(sample.status.value, 0) + 1
        state.end(sample)
        progress.finished(sample)

    watchdog = LoopWatchdog(progress.warning, _watchdog_threshold())
    runstate.enter_run(state)  # this task's context: it ends with the task (anyio.run's)
    try:
        # The writer outermost: when a commit fails it cancels all inside and raises its
        # StoreError alone, not wrapped in another task group's ExceptionGroup.
        async with open_writer(store) as writer, watchdog, anyio.create_task_group() as tg:
            for key in todo:
                if engine.budget.exhausted:
                    stopped = f"max cost ${engine.budget.max_cost:g} reached"
                    break
                if engine.executor.lost:
                    stopped = engine.executor.lost
                    break
                await in_flight.acquire_on_behalf_of(key)
                tg.start_soon(one, key, writer)
        if stopped is None and engine.budget.refused:  # samples already started were refused
            stopped = f"max cost ${engine.budget.max_cost:g} reached"
    finally:
        with anyio.CancelScope(shield=True):
            await engine.executor.aclose()
            await anyio.to_thread.run_sync(engine.sandbox.close)
        engine.workers.close()
        progress.close()
    return RunSummary(len(keys), len(keys) - len(todo), sum(counts.values()), counts,
                      engine.budget.spent, stopped, tuple(watchdog.stalls))


def _watchdog_threshold() -> float:
    """Seconds the event loop may stay blocked before the watchdog names the culprit
    (``KERNEL_LOOP_WATCHDOG_S``, default 5)."""
    try:
        return max(float(os.environ.get("KERNEL_LOOP_WATCHDOG_S", "5")), 0.5)
    except ValueError:
        return 5.0
