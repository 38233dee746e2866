"""Operations on run directories: start a run, resume it, re-score it, load it for a report."""

from __future__ import annotations

import contextlib
import platform
import time
from pathlib import Path
from typing import Any

import attrs

from speckernel import __version__, reportinputs
from speckernel.cache import Cache
from speckernel.components import Benchmark, Metric
from speckernel.config import RunConfig, from_run_info, override
from speckernel.errors import KernelError
from speckernel.evaluation import preparation_failed
from speckernel.execution import Executor
from speckernel.plugins import Registry
from speckernel.runner import Engine, Plan, Progress, RunSummary, execute, plan_run
from speckernel.sandbox.base import Sandbox
from speckernel.store import RunStore, default_run_dir
from speckernel.toolchains import DetectedTools


def make_sandbox(config: RunConfig, read_only: list[str] | None = None) -> Sandbox:
    """The sandbox ``config`` names; ``read_only`` are host paths every call may read (the
    run's tools as detected, wherever the user installed them)."""
    if config.sandbox == "local":
        from speckernel.sandbox.local import LocalSandbox

        return LocalSandbox(read_only or ())
    if config.sandbox == "docker":
        from speckernel.sandbox.docker import DockerSandbox

        if not config.docker_image:
            raise KernelError("--sandbox docker needs --docker-image IMAGE")
        return DockerSandbox(config.docker_image)
    raise KernelError(f"unknown sandbox '{config.sandbox}' (known: local, docker)")


def _run_info(registry: Registry, config: RunConfig, engine: Engine) -> dict[str, Any]:
    """What ``run.yaml`` records besides the configuration: enough to audit and regenerate."""
    tool_names = run_tools(engine.plan)
    return {
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "kernel": __version__,
        "python": platform.python_version(),
        "benchmark": {"name": engine.plan.benchmark.name,
                      "version": engine.plan.benchmark.version},
        "plugins": {p.name: p.version or "" for p in registry.plugins},
        "tools": {t: engine.tool_version(t) for t in tool_names},
        "config": config.to_dict(),
    }


async def start(registry: Registry, config: RunConfig, output: Path | None,
                progress: Progress, cache: Cache | None = None) -> tuple[RunStore, RunSummary]:
    """A new run into ``output`` (default ``runs/<time>-<benchmark>``)."""
    root = output or default_run_dir(config.benchmark, time.strftime("%Y%m%d-%H%M%S"))
    store = RunStore(root, config.shard, progress.warning)
    with store.locked():
        if store.exists():
            previous = from_run_info(store.read_run_info())
            if attrs.evolve(previous, shard=config.shard,
                                            cluster=config.cluster) != config:
                raise KernelError(f"{root} holds a different run; resume it with "
                                  f"--resume {root} or choose another --output")
        return await _execute(registry, config, store, progress, cache, resume=store.exists())


async def resume(registry: Registry, root: Path, progress: Progress,
                 overrides: dict[str, Any] | None = None,
                 cache: Cache | None = None) -> tuple[RunStore, RunSummary]:
    """Continue the run in ``root``: finished samples are kept, errors and missing ones run."""
    base = from_run_info(RunStore(root).read_run_info())
    # A cluster is where this session verifies, not part of the run: resume here unless told.
    config = override(attrs.evolve(base, cluster=None), overrides or {})
    store = RunStore(root, config.shard, progress.warning)
    with store.locked():
        return await _execute(registry, config, store, progress, cache, resume=True)


def run_tools(plan: Plan) -> list[str]:
    """The toolchains the run's verifiers (under its options) and harnesses need, sorted."""
    names = {t for v in plan.verifiers.values() for t in v.tools_for(plan.options)}
    return sorted(names | {t for h in plan.harnesses for t in h.tools})


def missing_tools(plan: Plan, tools: DetectedTools) -> str | None:
    """One line naming every tool the run needs that is not found here, with the command that
    installs them all; None when nothing is missing."""
    missing = [s for s in map(tools.status, run_tools(plan)) if not s.found]
    if not missing:
        return None
    what = ", ".join(f"{s.name} ({s.detail or 'not found'})" for s in missing)
    return (f"{'a tool' if len(missing) == 1 else f'{len(missing)} tools'} this run needs "
            f"{'is' if len(missing) == 1 else 'are'} missing: {what}; install with: kernel "
            f"tools install {' '.join(s.name for s in missing)} (kernel doctor shows them)")


def _sandbox_for(config: RunConfig, plan: Plan, tools: DetectedTools) -> Sandbox:
    """The run's sandbox, with the run's tools visible in it, refusing the run up front (before
    any model call) when a tool it needs is missing or it cannot run tools on this machine."""
    problem = missing_tools(plan, tools)
    if problem is not None:
        raise KernelError(problem)
    statuses = [tools.status(name) for name in run_tools(plan)]
    sandbox = make_sandbox(config, [s.path for s in statuses if s.found and s.path])
    problem = sandbox.preflight()
    if problem is not None:
        raise KernelError(problem)
    return sandbox


async def _executor_for(registry: Registry, config: RunConfig, plan: Plan,
                        tools: DetectedTools, progress: Progress) -> Executor | None:
    """A cluster executor when the run names a cluster (None: verify here)."""
    if config.cluster is None:
        return None
    try:
        from speckernel.cluster import ClusterExecutor
    except ImportError as exc:
        raise KernelError("--cluster needs Dask: pip install 'speckernel[cluster]'") from exc

    return await ClusterExecutor.connect(
        config.cluster, registry, list(plan.verifiers.values()), plan.harnesses, plan.options,
        tools, registry.extra_modules, progress.warning)


async def _engine(registry: Registry, config: RunConfig, store: RunStore, progress: Progress,
                  cache: Cache | None, check_models: bool = True) -> Engine:
    plan = plan_run(registry, config, check_models)
    tools = DetectedTools(registry.components["toolchain"])
    # With a cluster, the coordinator's own sandbox serves only agents' draft checks.
    sandbox = _sandbox_for(config, plan, tools) if config.cluster is None else make_sandbox(config)
    executor = await _executor_for(registry, config, plan, tools, progress)
    return Engine(registry, config, plan, cache or Cache(enabled=config.cache), sandbox, tools,
                  store, executor)


async def _execute(registry: Registry, config: RunConfig, store: RunStore, progress: Progress,
                   cache: Cache | None, resume: bool) -> tuple[RunStore, RunSummary]:
    engine = await _engine(registry, config, store, progress, cache)
    plan = engine.plan
    if not store.exists():
        store.write_run_info(_run_info(registry, config, engine))
    reportinputs.record_definitions(store.root, plan.benchmark,
                                    reportinputs.metrics_of(plan.benchmark, registry.components))
    for agent in plan.agents:
        left = [f"{t} ({why})" for (t, a), why in plan.left_out.items() if a == agent.name]
        if left:
            more = f", and {len(left) - 3} more" if len(left) > 3 else ""
            progress.warning(f"agent '{agent.name}' cannot attempt {len(left)} task(s), left "
                             f"out of the run: {', '.join(left[:3])}{more}")
    done = store.prepare_resume() if resume else set()
    summary = await execute(engine, plan.keys(config.samples, config.shard), done, progress)
    _record_tables(store, plan, progress)
    return store, summary


def _record_tables(store: RunStore, plan: Plan, progress: Progress) -> None:
    """Record the benchmark's report tables of every sample the run now holds (``reportinputs``);
    a benchmark that fails at it is a warning, and a report then asks its plugin."""
    try:
        reportinputs.record_tables(store.root, plan.benchmark, store.load_samples())
    except KernelError as exc:
        progress.warning(str(exc))


async def rescore(registry: Registry, root: Path, progress: Progress,
                  options: dict[str, Any] | None = None, output: Path | None = None,
                  cache: Cache | None = None) -> tuple[RunStore, RunSummary]:
    """Judge and score the saved candidates again, calling no model.

    ``options`` override benchmark options (a timeout sweep, a fixed verifier); with ``output``
    the re-scored run is written there and ``root`` stays untouched. Samples without a candidate
    (the agent failed), whose preparation failed (it needs the evaluator model, which a rescore
    does not call; ``kernel run --resume`` runs them again), or whose task the benchmark no
    longer has, are kept as they were.
    """
    source = RunStore(root, warn=progress.warning)
    info = source.read_run_info()
    config = from_run_info(info)
    if options:
        config = attrs.evolve(config, options={**config.options, **options})
    tasks = {t.id for t in plan_run(registry, config, check_models=False).tasks}
    store = RunStore(output, warn=progress.warning) if output is not None else source
    with contextlib.ExitStack() as held:
        held.enter_context(source.locked())  # no run may write into it while it is read
        if output is not None:
            held.enter_context(store.locked())
            if store.exists():
                raise KernelError(f"{output} already holds a run; choose another --output")
        samples = source.load_samples()
        unprepared = {s.key for s in samples
                      if s.candidate is not None and preparation_failed(s.candidate)}
        for key in sorted(unprepared):
            progress.warning(f"sample {key.id} kept as it was: its preparation failed, and a "
                             "rescore calls no evaluator model (kernel run --resume runs it "
                             "again)")
        fixed = {s.key: s.candidate for s in samples if s.candidate is not None
                 and s.key.task_id in tasks and s.key not in unprepared}
        store.write_run_info({**info, "config": config.to_dict(),
                              "rescored_from": str(root.resolve())})
        store.replace_samples([s for s in samples if s.key not in fixed])
        engine = await _engine(registry, config, store, progress, cache, check_models=False)
        reportinputs.record_definitions(
            store.root, engine.plan.benchmark,
            reportinputs.metrics_of(engine.plan.benchmark, registry.components))
        summary = await execute(engine, list(fixed), set(), progress, fixed)
        _record_tables(store, engine.plan, progress)
        return store, summary


def report_run(registry: Registry, root: Path, output: Path | None = None) -> list[Path]:
    """Write the report of the run in ``root`` into ``output`` (default ``root``) and return
    the files' paths (``report.write_report``'s order: md, csv, json, html).

    What the report needs from the benchmark comes from the run directory
    (``reportinputs``); the installed plugin is asked only for a run that lacks it."""
    from collections import Counter

    from speckernel.report import build_report, write_report

    store = RunStore(root)
    if not root.is_dir():
        raise KernelError(f"{root}: no such run directory")
    info = store.read_run_info()
    bench = info.get("benchmark")
    name = str(bench.get("name", "")) if isinstance(bench, dict) else str(bench or "")

    def installed() -> tuple[Benchmark, list[Metric]] | None:
        if name not in registry.components["benchmark"]:
            return None
        benchmark: Benchmark = registry.get("benchmark", name)
        return benchmark, reportinputs.metrics_of(benchmark, registry.components)

    inputs, samples = reportinputs.load(root, name, store.load_samples(), installed)
    per_task = Counter((s.key.task_id, s.key.agent, s.key.model) for s in samples)
    n = max(per_task.values(), default=1)
    ks = sorted({1, n} | {k for k in (5, 10) if k <= n})
    return write_report(build_report(samples, inputs, info, ks), output or root)
