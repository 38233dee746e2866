"""TLA+ scoring cost (issue 2), measured with the real tools and printed as figures and ratios.

1. Full scoring: wall time of ``kernel run tla`` on each bundled gold model (the reference
   agent, no cache): SANY with per-action credit, TLC runtime runs, trace conformance and the
   invariant templates, then the four SysMoBench metrics.
2. Per-action syntax scoring on a 20-action model (four copies of the spinlock protocol, each
   with its own variables and its five actions renamed), as a ratio to one whole-model SANY call:
   the ``tla.sany`` verifier with option ``per_action`` against the same verifier without it
   (goal <= 1.5x).
3. The same per-action scoring done the naive way, as upstream's ``action_decomposition`` does:
   one ``java -cp tla2tools.jar tla2sany.SANY FILE`` JVM per module and recovery round, in the
   same sandbox with the same JVM options, and the ratio naive / batched. Both must agree on
   every definition's verdict, rounds and declarations.

Usage: python benchmarks/tla_scoring.py [--repeat N]
"""

from __future__ import annotations

import argparse
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
from speckernel_tla.actions import MAX_RECOVERY_ROUNDS, Unit, recover, split_definitions
from speckernel_tla.jvm import JVM_ENV, java_argv
from speckernel_tla.sany import parse_sany_output
from speckernel_tla.stdlib import with_bundled_modules
from speckernel_tla.tasks import bundled_root
from speckernel_tla.toolchain import Tla2ToolsToolchain
from speckernel_tla.verifiers import SanyVerifier

from speckernel.components import ToolResolver, VerifyContext
from speckernel.config import RunConfig
from speckernel.model import Candidate, Provenance, Task
from speckernel.plugins import load_registry
from speckernel.runner import Progress
from speckernel.runs import start
from speckernel.sandbox.base import Limits, Sandbox
from speckernel.sandbox.local import LocalSandbox
from speckernel.store import RunStore
from speckernel.toolchains import DetectedTools

GOLD_MODELS = ("locksrv", "mutex", "rwlock", "spinlock", "twophase")
COPIES = 4
SPIN_ACTIONS = ("LockRequest", "Acquire", "TryLockSuccess", "TryLockFail", "Unlock")
SPIN_VARIABLES = ("lock_state", "pc", "call_type")
LIMITS = Limits(wall_s=300.0, memory_mb=2048)


@attrs.define
class Context(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


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


def median_time(repeat: int, work: Callable[[], Awaitable[Any]]) -> tuple[Timing, Any]:
    """The median wall and child CPU times of ``repeat`` runs of ``work``, and the last run's
    result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        result = anyio.run(work)
        walls.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per syntax measurement (the median is printed)")
    args = parser.parse_args()
    toolchain = Tla2ToolsToolchain()
    status = toolchain.detect()
    if not status.found:
        print(f"tla2tools not available: {status.detail}", file=sys.stderr)
        return 1
    jar = Path(status.path)
    print(f"TLC {status.version}, {jar}")

    print("\n1. full four-metric scoring of the gold models (kernel run, no cache)")
    with tempfile.TemporaryDirectory() as tmp:
        for model in GOLD_MODELS:
            elapsed, metrics = full_scoring(model, Path(tmp))
            scores = " ".join(f"{m}={metrics[m]:g}" for m in
                              ("syntax", "runtime", "conformance", "invariants"))
            print(f"   {model:9} {elapsed:6.1f} s   {scores}")

    text = twenty_action_model()
    task = Task("locks", "tla", metadata={"module": "Locks"})
    candidate = Candidate({"Locks.tla": text}, Provenance("benchmark", "none"))
    sandbox = LocalSandbox()
    tools = DetectedTools({toolchain.name: toolchain})
    verifier = SanyVerifier()

    async def sany(per_action: bool) -> Any:
        options = {"per_action": per_action}
        return await verifier.verify(candidate, task, Context(sandbox, tools, LIMITS, options))

    whole, verdict = median_time(args.repeat, lambda: sany(False))
    assert verdict.passed, verdict.summary()
    batched, verdict = median_time(args.repeat, lambda: sany(True))
    batched_outcomes = outcomes(verdict.data["actions"])
    naive, naive_outcomes = median_time(1, lambda: naive_per_action(sandbox, jar, "Locks", text))
    assert naive_outcomes == batched_outcomes, "the naive and the batched check disagree"
    actions = {name: ok for name, (ok, *_) in batched_outcomes.items()}
    rounds = max(r for _, r, _, _ in batched_outcomes.values())

    print(f"\n2. per-action syntax scoring, {len(SPIN_ACTIONS) * COPIES}-action model "
          f"({len(actions)} definitions, {sum(actions.values())} parse alone, "
          f"{rounds} rounds; median of {args.repeat})")
    print("                                   wall (x whole)     JVM CPU (x whole)")
    for label, timing in (("one whole-model SANY call", whole),
                          ("per-action scoring (batched)", batched)):
        print(f"   {label:30} {timing.wall:6.2f} s {timing.wall / whole.wall:5.2f}x"
              f"   {timing.cpu:6.2f} s {timing.cpu / whole.cpu:5.2f}x")
    print("   (goal: per-action <= 1.5x the whole-model call)")
    print("\n3. the same per-action scoring, one JVM per module (upstream's way)")
    print(f"   per-action scoring (naive)     {naive.wall:6.2f} s   "
          f"{naive.wall / batched.wall:.1f}x the batched scoring (JVM CPU "
          f"{naive.cpu / batched.cpu:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
