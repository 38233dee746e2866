"""TLA+ scoring cost (issue 2), measured with the real tools and printed as figures and ratios.

1. Full scoring: wall time of ``kernel run tla`` on each bundled gold model (the reference
   agent, no cache): SANY with per-action credit, TLC runtime runs, trace conformance and the
   invariant templates, then the four SysMoBench metrics.
2. Per-action syntax scoring on a 20-action model (four copies of the spinlock protocol, each
   with its own variables and its five actions renamed), as a ratio to one whole-model SANY call:
   the ``tla.sany`` verifier with option ``per_action`` against the same verifier without it
   (goal <= 1.5x), each call with the kernel's workers started and the plugin imported in them,
   as a run has them after its first sample.
3. The same per-action scoring done the naive way, as upstream's ``action_decomposition`` does:
   one ``java -cp tla2tools.jar tla2sany.SANY FILE`` JVM per module and recovery round, in the
   same sandbox with the same JVM options, and the ratio naive / batched. Both must agree on
   every definition's verdict, rounds and declarations.
4. Whole-model scoring of a gold model (``--task``: an upstream task, default locksvc when the
   SysMoBench tree has it, else dqueue, or a bundled one) at option ``upstream_settings`` (20
   simulations x 50 behaviours x depth 50, a full search per invariant template, 60 s per TLC
   run): the plugin's phases as they run, and
   the same checks with one JVM per check (per simulation, per template, per SANY module and
   round), phase by phase, with the JVMs each started. Both must give the same verdicts. Both
   start TLC the same way (through TlcMain) and find the kernel's workers running with the
   plugin imported (a run starts them once for all its samples).
5. Planning the per-action rounds of models of 4,000 and 16,000 definitions (the Python side
   of the syntax phase, which runs in a kernel worker): linear, not quadratic (issue 20).
6. Conformance of a PGo gold model (``--task``, as in section 4) on its TraceLink runs copied
   until they weigh what raftkvs's do (34.9 MB, notes §6; raftkvs's own cannot be fetched
   here): the validation module's size, the verdict and the wall time, with the verifier's own
   limits (a 1 GB heap ran out of memory on it, and its facts passed a 1 MB output cap).

Usage: python benchmarks/tla_scoring.py [--repeat N] [--sections 1,2,3,4,5,6]
                                        [--upstream TREE] [--task NAME]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import attrs
from speckernel_tla.actions import (
    MAX_RECOVERY_ROUNDS,
    Unit,
    first_round,
    recover,
    split_definitions,
)
from speckernel_tla.artifact import Deadline, Opening
from speckernel_tla.benchmark import TlaBenchmark
from speckernel_tla.conformance import ConformanceVerifier
from speckernel_tla.invariants import InvariantSession, InvariantVerifier, concretised
from speckernel_tla.jvm import JVM_ENV, java_argv
from speckernel_tla.pgo_validation import plan
from speckernel_tla.runtime import (
    BEHAVIOURS_PER_RUN,
    RuntimeVerifier,
    simulation_seeds,
    summarise,
)
from speckernel_tla.sany import parse_modules, parse_sany_output
from speckernel_tla.stdlib import with_bundled_modules
from speckernel_tla.tasks import Budgets, bundled_root
from speckernel_tla.tlc import TlcOptions, run_tlc
from speckernel_tla.tlc_config import with_checks
from speckernel_tla.toolchain import Tla2ToolsToolchain
from speckernel_tla.verifiers import SanyVerifier

from speckernel.components import VerifyContext
from speckernel.config import RunConfig
from speckernel.model import Candidate, Provenance, Task, Verdict
from speckernel.plugins import load_registry
from speckernel.runner import Progress
from speckernel.runs import start
from speckernel.sandbox.base import Limits, ProcessResult, Sandbox, SandboxProcess
from speckernel.sandbox.local import LocalSandbox
from speckernel.store import RunStore
from speckernel.testing import verify_context

GOLD_MODELS = ("locksrv", "mutex", "rwlock", "spinlock", "twophase")
COPIES = 4
SPIN_ACTIONS = ("LockRequest", "Acquire", "TryLockSuccess", "TryLockFail", "Unlock")
SPIN_VARIABLES = ("lock_state", "pc", "call_type")
LIMITS = Limits(wall_s=300.0, memory_mb=2048)
PHASE_LIMITS = Limits(wall_s=1800.0, memory_mb=2048)
"""A phase's budget in section 4: room for every check of upstream's settings."""
UPSTREAM = Path(__file__).resolve().parents[2] / "shared" / "data" / "sysmobench"


class CountingSandbox(Sandbox):
    """The local sandbox, counting the JVMs started through it."""

    name = "local"

    def __init__(self) -> None:
        self.inner = LocalSandbox()
        self.jvms = 0

    async def run(self, argv: Any, **kwargs: Any) -> ProcessResult:
        self.jvms += argv[0] == "java"
        return await self.inner.run(argv, **kwargs)

    def open(self, argv: Any, **kwargs: Any) -> SandboxProcess:
        self.jvms += argv[0] == "java"
        return self.inner.open(argv, **kwargs)


# --------------------------------------------------------------------------- the 20-action model


def twenty_action_model() -> str:
    """Module ``Locks``: four independent spinlocks, each the gold spinlock's five actions over
    its own variables (``LockRequest_2`` acts on ``lock_state_2``, ``pc_2``, ``call_type_2``)."""
    gold = split_definitions((bundled_root() / "spinlock" / "gold" / "spinlock.tla").read_text())
    names = (*SPIN_VARIABLES, "vars", *SPIN_ACTIONS)
    copies = range(1, COPIES + 1)

    def renamed(definition: str, k: int) -> list[str]:
        """The definition's lines, blank and comment lines left out, with copy ``k``'s names."""
        return [re.sub(rf"\b({'|'.join(names)})\b", rf"\1_{k}", line)
                for line in gold[definition].splitlines()
                if line.strip() and not line.startswith("\\*")]

    variables = [f"{v}_{k}" for k in copies for v in SPIN_VARIABLES]
    lines = ["---- MODULE Locks ----", "EXTENDS Naturals, FiniteSets, TLC", "CONSTANT Threads",
             f"VARIABLES {', '.join(variables)}", "",
             *(f"vars_{k} == <<{', '.join(f'{v}_{k}' for v in SPIN_VARIABLES)}>>"
               for k in copies),
             f"vars == <<{', '.join(f'vars_{k}' for k in copies)}>>", "",
             "Init ==", *(line for k in copies for line in renamed("Init", k)[1:]), ""]
    for k in copies:
        lines += [line for action in SPIN_ACTIONS for line in [*renamed(action, k), ""]]
        others = ", ".join(f"vars_{j}" for j in copies if j != k)
        steps = " \\/ ".join(f"{action}_{k}(t)" for action in SPIN_ACTIONS)
        lines += [f"Lock_{k}(t) == ({steps}) /\\ UNCHANGED <<{others}>>", ""]
    locks = " \\/ ".join(f"Lock_{k}(t)" for k in copies)
    lines += [f"Next == \\E t \\in Threads : {locks}", "Spec == Init /\\ [][Next]_vars", "===="]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- measurements


@attrs.frozen
class Timing:
    """Medians over repeated runs: wall seconds, and CPU seconds of the JVMs (user and system
    time of the child processes), which the other load of a shared machine barely moves."""

    wall: float
    cpu: float


def median_time(repeat: int, work: Callable[..., Awaitable[Any]],
                prepare: Callable[[], Awaitable[Any]] | None = None) -> tuple[Timing, Any]:
    """The median wall and child CPU times of ``repeat`` runs of ``work``, and the last run's
    result. With ``prepare``, each run first awaits it, untimed, and ``work`` is called with
    what it returned (a verifier context whose kernel workers are started)."""
    walls, cpus, result = [], [], None

    async def timed() -> tuple[float, float, Any]:
        prepared = await prepare() if prepare is not None else None
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = await (work(prepared) if prepare is not None else work())
        wall = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done

    for _ in range(repeat):
        wall, cpu, result = anyio.run(timed)
        walls.append(wall)
        cpus.append(cpu)
    return Timing(statistics.median(walls), statistics.median(cpus)), result


def full_scoring(model: str, root: Path) -> tuple[float, dict[str, float | None]]:
    """Wall time of one uncached ``kernel run tla --task MODEL`` and the gold model's metrics."""
    config = RunConfig(benchmark="tla", tasks=(model,), cache=False)
    began = time.perf_counter()
    anyio.run(start, load_registry(), config, root / model, Progress())
    elapsed = time.perf_counter() - began
    [sample] = RunStore(root / model).load_samples()
    return elapsed, sample.metrics()


Outcome = tuple[bool, int, tuple[str, ...], tuple[str, ...]]
"""A definition's per-action check: passed, rounds, variables and stubs declared."""


def outcomes(actions: Mapping[str, Mapping[str, Any]]) -> dict[str, Outcome]:
    """The outcomes in a ``tla.sany`` verdict's ``data["actions"]``."""
    return {name: (a["ok"], a["rounds"], tuple(a["variables"]), tuple(a["stubs"]))
            for name, a in actions.items()}


async def naive_per_action(sandbox: Sandbox, jar: Path, module: str,
                           text: str) -> dict[str, Outcome]:
    """Upstream's per-action check: the same units and recovery rounds as
    :func:`speckernel_tla.actions.check_actions`, but one SANY JVM per module and round."""
    units = {name: Unit(name, body) for name, body in split_definitions(text).items()}
    verdicts: dict[str, bool] = {}
    rounds: dict[str, int] = {}
    pending = list(units)
    for attempt in range(MAX_RECOVERY_ROUNDS + 1):
        retry = []
        for name in pending:
            unit_module = f"{module}_{name}"
            run = await sandbox.run(
                java_argv([jar], "tla2sany.SANY", [f"{unit_module}.tla"], LIMITS.memory_mb),
                files=with_bundled_modules({f"{unit_module}.tla": units[name].module_text(
                    unit_module)}),
                limits=LIMITS, env=JVM_ENV)
            result = parse_sany_output(unit_module, run.output, run.returncode, run.timed_out)
            verdicts[name], rounds[name] = result.ok, attempt + 1
            if not result.ok and attempt < MAX_RECOVERY_ROUNDS:
                repaired = recover(units[name], result)
                if repaired != units[name]:
                    units[name] = repaired
                    retry.append(name)
        pending = retry
        if not pending:
            break
    return {name: (verdicts[name], rounds[name], unit.variables,
                   tuple(stub for stub, _ in unit.stubs)) for name, unit in units.items()}


# --------------------------------------------------------------------------- section 4


@attrs.frozen
class PhaseFigure:
    """One phase of section 4: wall seconds, JVMs started, what it concluded. (The JVMs run
    behind bubblewrap's PID namespace, whose CPU time this process's children do not show.)"""

    wall: float
    jvms: int
    verdict: Any


async def measured(sandbox: CountingSandbox, work: Callable[[], Awaitable[Any]]) -> PhaseFigure:
    sandbox.jvms = 0
    began = time.perf_counter()
    verdict = await work()
    return PhaseFigure(time.perf_counter() - began, sandbox.jvms, verdict)


async def warm_context(sandbox: Sandbox, options: Mapping[str, Any],
                       limits: Limits = PHASE_LIMITS) -> VerifyContext:
    """A verifier context on the installed tools with its kernel workers started and the
    plugin's planning imported in them, as in a run past its first sample (a run starts its
    worker pool once; the one-JVM-per-check syntax figures plan in this process, where the
    plugin is imported already)."""
    ctx = verify_context(toolchains=[Tla2ToolsToolchain()], limits=limits, options=options,
                         sandbox=sandbox)
    module = "---- MODULE Warm ----\n====\n"
    await ctx.run_sync(first_round, "Warm", module, [], {})
    await ctx.run_sync(plan, "Warm", module, "", "Init", "Next", None, {})
    return ctx


def sany_outcome(verdict: Verdict) -> Any:
    return (verdict.data["ok"], outcomes(verdict.data["actions"]))


def runtime_outcome(data: Mapping[str, Any]) -> Any:
    return (data["m_r"], sorted(n for n, a in data["per_action"].items() if a["covered"]),
            data["error_actions"])


def conformance_outcome(verdict: Verdict) -> dict[str, Any]:
    """Whether each trace (each run, for TraceLink) validates."""
    return {key: trace["ok"] for key, trace in verdict.data.get("traces", {}).items()}


def invariant_outcome(data: Mapping[str, Any]) -> Any:
    return {name: result["outcome"] for name, result in data["invariants"].items()}


async def batched_phases(sandbox: CountingSandbox, task: Task,
                         candidate: Candidate) -> dict[str, PhaseFigure]:
    """The plugin's four verifiers as a run calls them."""
    ctx = await warm_context(sandbox, {"per_action": True, "sany_timeout_s": 30.0})
    figures = {}
    for phase, verifier, read in (
            ("syntax", SanyVerifier(), sany_outcome),
            ("runtime", RuntimeVerifier(), lambda v: runtime_outcome(v.data)),
            ("conformance", ConformanceVerifier(), conformance_outcome),
            ("invariants", InvariantVerifier(), lambda v: invariant_outcome(v.data))):
        figure = await measured(sandbox, lambda v=verifier: v.verify(candidate, task, ctx))
        figures[phase] = attrs.evolve(figure, verdict=read(figure.verdict))
    return figures


async def naive_phases(sandbox: CountingSandbox, task: Task,
                       candidate: Candidate) -> dict[str, PhaseFigure]:
    """The same checks, one JVM per check: SANY per module and round, TLC per simulation of
    50 behaviours (upstream's seeds scheme) and per invariant template."""
    ctx = await warm_context(sandbox, {})
    opening = Opening.of("benchmark", candidate, task, ctx)
    model = opening.model
    assert model is not None
    jar, budgets = opening.jar, Budgets.of(task)

    async def syntax() -> Any:
        whole = await parse_modules(sandbox, jar, {model.module: model.text}, limits=LIMITS)
        actions = await naive_per_action(sandbox, jar, model.module, model.text)
        return (whole[model.module].ok, actions)

    async def runtime() -> Any:
        files = {**model.files, model.config: with_checks(model.cfg_text)}
        deadline = Deadline.after(PHASE_LIMITS.wall_s)
        plans = [(TlcOptions(depth=budgets.depth, max_states=budgets.states), None)]
        plans += [(TlcOptions(simulate=BEHAVIOURS_PER_RUN, depth=budgets.simulate_depth,
                              seed=seed), seed)
                  for seed in simulation_seeds(task.id, budgets.simulate_runs)]
        runs = []
        for options, seed in plans:
            limits = deadline.limits(PHASE_LIMITS, budgets.wall_s)
            assert limits is not None
            runs.append((options, seed, await run_tlc(sandbox, jar, files, model.module,
                                                      model.config, options, limits)))
        return runtime_outcome(summarise(runs)[2])

    async def conformance() -> Any:
        """One TLC run per trace run (per TraceLink folder), as upstream checks them."""
        keys = task.metadata.get("traces") or []
        runs: dict[str, list[str]] = {}
        for key in keys:
            runs.setdefault(key.rsplit("/", 1)[0], []).append(key)
        outcome: dict[str, Any] = {}
        for run_keys in runs.values():
            alone = attrs.evolve(task, files={k: task.files[k] for k in run_keys},
                                 metadata={**task.metadata, "traces": run_keys})
            verdict = await ConformanceVerifier().verify(candidate, alone, ctx)
            outcome |= conformance_outcome(verdict)
        return outcome

    async def invariants() -> Any:
        """Each template in its own TLC run, as its type says (INVARIANT or PROPERTY), with
        the time it needs to conclude (a run cut at upstream's 60 s would do less work)."""
        checks, _ = concretised(task, candidate)
        session = InvariantSession(jar, model, attrs.evolve(budgets, wall_s=PHASE_LIMITS.wall_s),
                                   ctx)
        return {c.name: "missing" if c.body is None else (await session.check_alone(c)).outcome
                for c in checks}

    return {phase: await measured(sandbox, work) for phase, work in (
        ("syntax", syntax), ("runtime", runtime), ("conformance", conformance),
        ("invariants", invariants))}


def upstream_section(root: Path, name: str | None) -> bool:
    """Section 4; whether batched and naive agreed on every verdict."""
    tasks = upstream_tasks(root)
    name = name or next(n for n in ("locksvc", "dqueue") if n in tasks and tasks[n].reference)
    task = tasks[name]
    assert task.reference is not None, f"{name} has no gold model in {root}"
    candidate = Candidate(task.reference, Provenance("benchmark", "none"))
    budgets = Budgets.of(task)
    print(f"\n4. whole-model scoring of the {name} gold model at upstream_settings "
          f"({budgets.simulate_runs} x {BEHAVIOURS_PER_RUN} behaviours x depth "
          f"{budgets.simulate_depth}, full invariant search, {budgets.wall_s:g} s per run)")
    sandbox = CountingSandbox()
    batched = anyio.run(batched_phases, sandbox, task, candidate)
    naive = anyio.run(naive_phases, sandbox, task, candidate)
    print("   phase          batched: wall  JVMs   one JVM per check: wall  JVMs    wall ratio")
    totals = [0.0, 0, 0.0, 0]
    for phase in batched:
        b, n = batched[phase], naive[phase]
        totals = [x + y for x, y in zip(totals, (b.wall, b.jvms, n.wall, n.jvms), strict=True)]
        print(f"   {phase:12} {b.wall:12.1f} s {b.jvms:5d}   {n.wall:19.1f} s {n.jvms:5d}"
              f"    {n.wall / b.wall:5.1f}x")
    print(f"   {'all':12} {totals[0]:12.1f} s {totals[1]:5d}   {totals[2]:19.1f} s "
          f"{totals[3]:5d}    {totals[2] / totals[0]:5.1f}x  (goal >= 5x)")
    agree = True
    for phase in batched:
        same = batched[phase].verdict == naive[phase].verdict
        agree &= same
        print(f"   {phase:12} verdicts {'identical' if same else 'DIFFER'}: "
              f"{str(batched[phase].verdict)[:160]}"
              + ("" if same else f" vs {str(naive[phase].verdict)[:160]}"))
    return agree


RAFTKVS_TRACE_BYTES = 34_900_000
"""What raftkvs's committed TraceLink logs weigh (notes §6)."""


def upstream_tasks(root: Path) -> dict[str, Task]:
    bench = TlaBenchmark()
    options = {**bench.options, "tasks_from": "all", "upstream": str(root),
               "upstream_settings": True}
    return {t.id.removeprefix("sysmobench/"): t for t in bench.tasks(options)}


def trace_scale_section(root: Path, name: str | None) -> bool:
    """Section 6; whether the gold still conforms at raftkvs's trace size."""
    tasks = upstream_tasks(root)
    name = name or next(n for n in ("locksvc", "dqueue") if n in tasks and tasks[n].reference)
    task = tasks[name]
    assert task.reference is not None, f"{name} has no gold model in {root}"
    keys = task.metadata.get("traces") or []
    logs = {key: task.files[key] for key in keys}
    size = sum(len(text.encode()) for text in logs.values())
    copies = -(-RAFTKVS_TRACE_BYTES // size)
    big = {f"traces/copy{n:05d}/{key.removeprefix('traces/')}": text
           for n in range(copies) for key, text in logs.items()}
    scaled = attrs.evolve(task, files={**{k: v for k, v in task.files.items() if k not in logs},
                                       **big}, metadata={**task.metadata, "traces": sorted(big)})
    planned = plan(name, task.reference[f"{name}.tla"], task.reference[f"{name}.cfg"], "Init",
                   "Next", task.metadata.get("trace_constants"), big)
    print(f"\n6. conformance of the {name} gold on its {len(keys)} TraceLink logs copied "
          f"{copies} times: {sum(len(t.encode()) for t in big.values()) / 1e6:.1f} MB of logs, "
          f"a validation module of {len(planned['text'].encode()) / 1e6:.1f} MB")
    verifier = ConformanceVerifier()

    async def scored() -> Verdict:
        ctx = await warm_context(LocalSandbox(), {}, verifier.limits)
        return await verifier.verify(Candidate(task.reference or {}, Provenance("benchmark",
                                                                                 "none")),
                                     scaled, ctx)

    began = time.perf_counter()
    verdict = anyio.run(scored)
    print(f"   {time.perf_counter() - began:.1f} s: {verdict.status.value}, M_ac "
          f"{verdict.data.get('m_ac')}, M_c {verdict.data.get('m_c')} (the gold: 1.0 and 1.0), "
          f"with {verifier.limits.memory_mb} MB and {verifier.limits.output_bytes:,} bytes "
          f"of output")
    return bool(verdict.data.get("m_ac") == 1.0)


def planning_section() -> None:
    """Section 5: the per-action planning's CPU time at two model sizes."""
    print("\n5. planning the per-action rounds (splitting, guesses, module texts), in-process")
    timings = {}
    for size in (4_000, 16_000):
        lines = ["---- MODULE Big ----", "EXTENDS Naturals", "VARIABLE x"]
        lines += [f"D{i} == x + D{i - 1}" if i else "D0 == x" for i in range(size)]
        lines.append("Next == " + " \\/ ".join(f"x' = D{i}" for i in range(size)))
        text = "\n".join([*lines, "===="]) + "\n"
        began = time.process_time()
        state = first_round("Big", text, [], {})
        timings[size] = time.process_time() - began
        print(f"   {size:6d} definitions: {timings[size]:5.2f} s CPU, "
              f"{len(state['batch'])} modules planned")
    print(f"   ratio 16k/4k: {timings[16_000] / timings[4_000]:.1f}x "
          "(linear: 4x; the quadratic guesses took 16x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per syntax measurement (the median is printed)")
    parser.add_argument("--sections", default="1,2,3,4,5,6", help="which sections to run")
    parser.add_argument("--upstream", type=Path, default=UPSTREAM,
                        help="a SysMoBench tree (checkout or flat copy) for section 4")
    parser.add_argument("--task", default=None, help="the upstream task of sections 4 and 6")
    args = parser.parse_args()
    sections = {int(s) for s in args.sections.split(",")}
    toolchain = Tla2ToolsToolchain()
    status = toolchain.detect()
    if not status.found:
        print(f"tla2tools not available: {status.detail}", file=sys.stderr)
        return 1
    jar = Path(status.path)
    print(f"TLC {status.version}, {jar}; load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores")
    agree = True
    if 1 in sections:
        gold_section()
    if sections & {2, 3}:
        agree &= syntax_sections(jar, args.repeat)
    if 4 in sections:
        agree &= upstream_section(args.upstream, args.task)
    if 5 in sections:
        planning_section()
    if 6 in sections:
        agree &= trace_scale_section(args.upstream, args.task)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    return 0 if agree else 1


def gold_section() -> None:
    print("\n1. full four-metric scoring of the gold models (kernel run, no cache)")
    with tempfile.TemporaryDirectory() as tmp:
        for model in GOLD_MODELS:
            elapsed, metrics = full_scoring(model, Path(tmp))
            scores = " ".join(f"{m}={metrics[m]:g}" for m in
                              ("syntax", "runtime", "conformance", "invariants"))
            print(f"   {model:9} {elapsed:6.1f} s   {scores}")


def syntax_sections(jar: Path, repeat: int) -> bool:
    """Sections 2 and 3; whether the naive and the batched check agree."""
    text = twenty_action_model()
    task = Task("locks", "tla", metadata={"module": "Locks"})
    candidate = Candidate({"Locks.tla": text}, Provenance("benchmark", "none"))
    sandbox = LocalSandbox()
    verifier = SanyVerifier()

    async def sany(ctx: VerifyContext) -> Any:
        return await verifier.verify(candidate, task, ctx)

    whole, verdict = median_time(
        repeat, sany, lambda: warm_context(sandbox, {"per_action": False}, LIMITS))
    assert verdict.passed, verdict.summary()
    batched, verdict = median_time(
        repeat, sany, lambda: warm_context(sandbox, {"per_action": True}, LIMITS))
    batched_outcomes = outcomes(verdict.data["actions"])
    naive, naive_outcomes = median_time(1, lambda: naive_per_action(sandbox, jar, "Locks", text))
    agree = naive_outcomes == batched_outcomes
    actions = {name: ok for name, (ok, *_) in batched_outcomes.items()}
    rounds = max(r for _, r, _, _ in batched_outcomes.values())

    print(f"\n2. per-action syntax scoring, {len(SPIN_ACTIONS) * COPIES}-action model "
          f"({len(actions)} definitions, {sum(actions.values())} parse alone, "
          f"{rounds} rounds; median of {repeat})")
    print("                                   wall (x whole)     JVM CPU (x whole)")
    for label, timing in (("one whole-model SANY call", whole),
                          ("per-action scoring (batched)", batched)):
        print(f"   {label:30} {timing.wall:6.2f} s {timing.wall / whole.wall:5.2f}x"
              f"   {timing.cpu:6.2f} s {timing.cpu / whole.cpu:5.2f}x")
    print("   (goal: per-action <= 1.5x the whole-model call)")
    print("\n3. the same per-action scoring, one JVM per module (upstream's way)")
    print(f"   per-action scoring (naive)     {naive.wall:6.2f} s   "
          f"{naive.wall / batched.wall:.1f}x the batched scoring (JVM CPU "
          f"{naive.cpu / batched.cpu:.1f}x); verdicts "
          f"{'identical' if agree else 'DIFFER'}")
    return agree


if __name__ == "__main__":
    sys.exit(main())
