"""Verifier ``tla.runtime``: SysMoBench's runtime correctness (§3.2.2, runtime phase).

The model runs under TLC: one breadth-first search bounded by the task's depth and state budgets,
then ``simulate_runs`` x 50 random behaviours of ``simulate_depth`` steps (upstream's
``runtime_coverage`` runs ``-simulate num=50`` ``simulate_runs`` times, one JVM each). Here they
are one TLC run, ``-simulate num=<runs x 50>`` with a seed derived from the task id (so a re-run
explores the same behaviours; TLC seeds each behaviour from it): one JVM instead of twenty. A
runtime error stops a TLC run, so when the merged run hits one, the simulations also run
upstream's way, one JVM per 50 behaviours, each with its own seed, and every error any of them
finds counts. Every run reports per-action coverage (TLC's 2772
messages, ``distinct:total``); a runtime error (an evaluation error, a failing ASSUME, a broken
configuration) is blamed on the action TLC was evaluating.

    M_r = |actions covered without a runtime error| / |all actions|

where the actions are every name any run's coverage reported and an action is covered when some
run took it at least once (notes §2, ``runtime_coverage``). The verdict succeeds only when no run
hit a runtime error: SysMoBench lets only such models go on to conformance and invariants.

The model's own INVARIANT and PROPERTY sections are dropped from its cfg here: properties are the
invariant phase's business (with the expert templates), and deadlock is not checked (``-deadlock``,
as upstream). So are its constraints, view and symmetry, as in the invariant phase (the task's
budgets, or the default ones, bound the search instead): a ``CONSTRAINT`` keeping TLC out of the
states an action fails from hid the error while the action was still covered from other states
(found by an attacker; upstream keeps them, and the verdict notes that they were not used). A
cfg that tampers with the run (:mod:`speckernel_tla.cfg_tampering`: ``Assert <- NoAssert`` hid
a model's failing assertion) starts none and fails the phase. A run cut off by its wall budget
is not an error; its partial coverage counts. When every run timed out the verdict is
``timeout``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_tla.artifact import Deadline, ModelUnderTest, Opening
from speckernel_tla.cfg_tampering import tampering
from speckernel_tla.enclosure import GENERATED_NAME
from speckernel_tla.standard_names import standard_names
from speckernel_tla.system_scale import at_system_scale
from speckernel_tla.tasks import Budgets
from speckernel_tla.tlc import TlcOptions, TlcRun, run_tlc
from speckernel_tla.tlc_config import (
    REDUCING_SECTIONS,
    reductions,
    reductions_note,
    with_checks,
    without_sections,
)
from speckernel_tla.tlc_output import Outcome, TlcResult
from speckernel_tla.toolchain import Tla2ToolsToolchain

BEHAVIOURS_PER_RUN = 50
"""Behaviours per simulation run (upstream ``runtime_coverage``: ``-simulate num=50``)."""

NOT_ERRORS = frozenset({Outcome.OK, Outcome.TIMEOUT})


def simulation_seeds(task_id: str, runs: int) -> list[int]:
    """Reproducible TLC seeds for a task, in upstream's range 1..10^6."""
    return [int.from_bytes(hashlib.sha256(f"{task_id}#{i}".encode()).digest()[:8], "big")
            % 1_000_000 + 1 for i in range(runs)]


@attrs.frozen
class RunRecord:
    """One TLC run of the runtime check, as recorded in the verdict."""

    mode: str
    seed: int | None
    behaviours: int | None
    outcome: str
    error_action: str | None
    located: bool
    truncated: bool
    states: int | None
    message: str


def blamed_actions(results: Sequence[TlcResult]) -> list[tuple[str | None, bool]]:
    """For each run, the action its runtime error is blamed on and whether TLC located it.

    TLC names the failing position only in breadth-first search; a simulation run prints the
    behaviour up to the state *before* the failing step (notes §2). Such an error takes the
    action located for the same message by another run, else upstream's rule: the last action
    of the printed behaviour.
    """
    located = {r.message.split("\n", 1)[0]: r.error_action for r in results if r.error_action}
    blamed: list[tuple[str | None, bool]] = []
    for result in results:
        if result.outcome in NOT_ERRORS:
            blamed.append((None, False))
        elif result.error_action:
            blamed.append((result.error_action, True))
        else:
            same = located.get(result.message.split("\n", 1)[0])
            last = result.trace_actions[-1] if result.trace_actions else None
            blamed.append((same or last, same is not None))
    return blamed


class RuntimeVerifier(Verifier):
    """TLC simulation and bounded search with coverage; ``data["m_r"]`` is SysMoBench's M_r."""

    name = "tla.runtime"
    version = "4"
    description = "TLC runs with coverage: runtime errors and M_r (SysMoBench runtime phase)"
    tools = (Tla2ToolsToolchain.name,)
    limits = Limits(wall_s=300.0, memory_mb=2048)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        opening = Opening.of(self.name, candidate, task, ctx)
        if opening.model is None:
            return opening.verdict
        model, scale = at_system_scale(candidate, task, opening.model)
        if (tampered := tampering(model.cfg_text, model.module_texts, GENERATED_NAME.fullmatch,
                                  standard_names(opening.jar))) is not None:
            refused = Diagnostic(f"{tampered}: no TLC run is started", file=model.config,
                                 code="cfg-tampering")
            return attrs.evolve(opening.verdict, status=Status.FAILURE, diagnostics=(refused,),
                                data={"m_r": 0.0, "per_action": {}, "error_actions": [],
                                      "runs": [], **scale.to_json()},
                                duration_s=time.monotonic() - started)
        dropped = reductions(model.cfg_text)
        budgets = Budgets.of(task)
        if dropped:
            budgets = budgets.bounded()
        seeds = simulation_seeds(task.id, budgets.simulate_runs)
        merged = TlcOptions(simulate=BEHAVIOURS_PER_RUN * budgets.simulate_runs,
                            depth=budgets.simulate_depth, seed=seeds[0])
        plans: list[tuple[TlcOptions, int | None]] = [
            (TlcOptions(depth=budgets.depth, max_states=budgets.states), None),
            (merged, seeds[0])]
        runs = await self._run_all(opening.jar, model, plans, budgets, ctx)
        if len(runs) == 2 and runs[1][2].result.outcome not in NOT_ERRORS:
            plans = [(TlcOptions(simulate=BEHAVIOURS_PER_RUN, depth=budgets.simulate_depth,
                                 seed=seed), seed) for seed in seeds]
            runs += await self._run_all(opening.jar, model, plans, budgets, ctx,
                                        wall_s=ctx.limits.wall_s - (time.monotonic() - started))
        status, diagnostics, data = summarise(runs)
        if dropped:
            diagnostics = (*diagnostics, reductions_note(dropped, model.config))
        return attrs.evolve(opening.verdict, status=status, diagnostics=diagnostics,
                            data={**data, **scale.to_json()},
                            duration_s=time.monotonic() - started)

    async def _run_all(self, jar: Path, model: ModelUnderTest,
                       plans: Sequence[tuple[TlcOptions, int | None]], budgets: Budgets,
                       ctx: VerifyContext, wall_s: float | None = None,
                       ) -> list[tuple[TlcOptions, int | None, TlcRun]]:
        """The runs in order, sequentially (one CPU slot), while ``wall_s`` (default: the
        call's budget) lasts."""
        files = {**model.files, model.config: with_checks(
            without_sections(model.cfg_text, REDUCING_SECTIONS))}
        deadline = Deadline.after(ctx.limits.wall_s if wall_s is None else wall_s)
        runs = []
        for options, seed in plans:
            limits = deadline.limits(ctx.limits, budgets.wall_s)
            if limits is None:
                break
            run = await run_tlc(ctx.sandbox, jar, files, model.module, model.config, options,
                                limits)
            runs.append((options, seed, run))
        return runs


def summarise(runs: Sequence[tuple[TlcOptions, int | None, TlcRun]],
              ) -> tuple[Status, tuple[Diagnostic, ...], dict[str, object]]:
    """The verdict's status, diagnostics and data from the runs."""
    results = [run.result for _, _, run in runs]
    blamed = blamed_actions(results)
    states: dict[str, int] = {}
    for result in results:
        for entry in result.coverage:
            states[entry.name] = states.get(entry.name, 0) + max(entry.total, 0)
    error_actions = sorted({a for a, _ in blamed if a})
    names = [*states, *(a for a in error_actions if a not in states)]
    actions = {n: {"covered": states.get(n, 0) > 0, "states": states.get(n, 0),
                   "runtime_error": n in error_actions} for n in names}
    good = [n for n, a in actions.items() if a["covered"] and not a["runtime_error"]]
    records = [RunRecord("simulate" if options.simulate else "bfs", seed, options.simulate,
                         r.outcome.value, action, located, run.truncated, r.generated,
                         r.message[:2000])
               for (options, seed, run), r, (action, located) in zip(runs, results, blamed,
                                                                      strict=True)]
    errors = [r for r in results if r.outcome not in NOT_ERRORS]
    first: dict[tuple[str | None, str], TlcResult] = {}
    for result, (action, _) in zip(results, blamed, strict=True):
        if result.outcome not in NOT_ERRORS:
            first.setdefault((action, result.message.split("\n", 1)[0]), result)
    diagnostics = tuple(_diagnostic(r) for r in first.values())
    diagnostics += tuple(Diagnostic(f"action {n} was never taken", "warning")
                         for n, a in actions.items()
                         if not a["covered"] and not a["runtime_error"])
    if errors:
        status = Status.FAILURE
    elif not results or all(r.outcome is Outcome.TIMEOUT for r in results):
        status = Status.TIMEOUT
        diagnostics += (Diagnostic("no TLC run finished within the wall budget"),)
    else:
        status = Status.SUCCESS
    data: dict[str, object] = {
        "m_r": len(good) / len(actions) if actions else 0.0,
        "per_action": actions,
        "error_actions": error_actions,
        "runs": [attrs.asdict(r) for r in records],
    }
    return status, diagnostics, data


def _diagnostic(result: TlcResult) -> Diagnostic:
    where = result.error_locations[0] if result.error_locations else None
    text = result.message or result.outcome.value
    return Diagnostic(f"{result.outcome.value}: {text}"[:2000], "error",
                      f"{where.module}.tla" if where else None,
                      where.line if where else None, where.column if where else None,
                      code=f"tlc-{result.outcome.value}")
