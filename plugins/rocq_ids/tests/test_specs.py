"""The rest of the IDS suite (MR, RYW+MW, CC, LCC, EC with convergence): each spec compiles,
satisfies the probes its task runs (the spec's own store computes them), its obligation accepts
the shape of a candidate (the relaxed store with its simulation admitted type-checks against
it), and its audit rejects the relaxed store for each guard the spec implies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import candidate
from speckernel.model import Task

from speckernel_rocq_ids.audit import AuditVerifier
from speckernel_rocq_ids.commands import check
from speckernel_rocq_ids.coqbuild import compile_step, run_build
from speckernel_rocq_ids.probes import PROBES
from speckernel_rocq_ids.sources import coq_source
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, UNSOLVED, Obligation, all_tasks

pytestmark = pytest.mark.anyio

SUITE = {task.id: task for task in all_tasks("all")}
GUARDS = {"get_waits_for_own_put", "put_waits_for_own_earlier_put", "get_waits_for_seen_put"}

RELAXED_REFINEMENT = """
Module {prefix}_Refinement <: Refinement {prefix}_Impl {prefix}_Spec.
  Module WI := World {prefix}_Impl.
  Module WS := World {prefix}_Spec.
  Definition R (_ : WI.WorldState) (_ : WS.WorldState) : Prop := True.
  Lemma init_sim : forall reps a v0, R (WI.initWorld reps a v0) (WS.initWorld reps a v0).
  Proof. intros. exact I. Qed.
  Lemma step_sim : forall wi ws l wi', R wi ws -> WI.step wi l wi' ->
    exists hs ws', WS.step_star ws hs ws' /\\ R wi' ws' /\\ obs_of_label l = obs_proj hs.
  Proof. Admitted.
End {prefix}_Refinement.
"""

CONVERGES = """
Module EC_Convergence <: Convergent EC_Impl.
  Module W := World EC_Impl.
  Lemma converges : forall reps a v0 h w,
    W.step_star (W.initWorld reps a v0) h w ->
    (forall m, In m (W.w_network w) ->
       match m with W.MPutReq _ _ _ _ _ _ => False | _ => True end) ->
    forall k p c r1 r2, In r1 (W.w_reps w) -> In r2 (W.w_reps w) ->
    EC_Impl.getGuard k p c r1 (W.w_replicas w r1) = true ->
    EC_Impl.getGuard k p c r2 (W.w_replicas w r2) = true ->
    fst (fst (EC_Impl.get k p c r1 (W.w_replicas w r1))) =
    fst (fst (EC_Impl.get k p c r2 (W.w_replicas w r2))).
  Proof. Admitted.
End EC_Convergence.
"""


def relaxed_module() -> str:
    """The ``Relaxed`` store module exactly as the framework's Relaxed.v defines it."""
    text = coq_source("specs", "Relaxed.v")
    return text[text.index("Module Relaxed <: AlgDef."):text.index("End Relaxed.")
                + len("End Relaxed.")]


def relaxed_candidate(task: Task, proofs: bool = True) -> str:
    """The relaxed store posing as an implementation of ``task``'s spec: with ``proofs``, its
    simulation (and convergence) admitted; without, the store alone."""
    obligation = Obligation.of(task)
    prefix = obligation.impl_module.removesuffix("_Impl")
    imports = " ".join(f.removesuffix(".v") for f in (*obligation.support, obligation.spec_file))
    text = (f"From Coq Require Import List.\nFrom IDS Require Import KVStore {imports}.\n\n"
            + relaxed_module().replace("Relaxed", f"{prefix}_Impl"))
    if not proofs:
        return text
    text += RELAXED_REFINEMENT.format(prefix=prefix)
    return text + (CONVERGES if "Convergence.v" in obligation.support else "")


def test_suite_lists_every_spec() -> None:
    assert list(SUITE) == ["ryw", "mw", "mr", "rywmw", "cc", "lcc", "ec"]
    assert [task.id for task in all_tasks()] == ["ryw", "mw"]
    assert all(SUITE[g.id].reference is None for g in UNSOLVED)


async def test_spec_stores_pass_their_own_probes(make_ctx: Callable[..., Any]) -> None:
    """The probes ask nothing the guarantees do not: each spec's own store computes every probe
    of its task to true (except ``state_compressed``, which an uncompressed spec fails by
    design). One build compiles every spec and runs the probes with ``I`` the spec itself."""
    files = dict(SUITE["ec"].files)
    steps = [compile_step(f) for f in ("KVStore.v", *Obligation.of(SUITE["ec"]).support)]
    checks = []
    for guarantee in UNSOLVED:
        task = SUITE[guarantee.id]
        obligation = Obligation.of(task)
        files |= task.files
        steps.append(compile_step(obligation.spec_file))
        for probe in (p for p in obligation.probes if p != "state_compressed"):
            name = f"P_{guarantee.id}_{probe}.v"
            spec = obligation.spec_file.removesuffix(".v")
            files[name] = PROBES[probe].source(obligation).replace(" Impl.\n", ".\n").replace(
                f"Module I := IDS.Impl.{obligation.impl_module}.",
                f"Module I := IDS.{spec}.{obligation.spec_module}.")
            steps.append(compile_step(name))
            checks.append((name, probe))
    build = await run_build(make_ctx(), files, steps)
    for name, _ in checks:
        step = build.steps[name]
        assert step.ok, (name, step.output)


@pytest.mark.parametrize("task_id", [g.id for g in UNSOLVED])
async def test_obligation_accepts_a_candidate_of_the_right_shape(make_ctx: Callable[..., Any],
                                                                 task_id: str) -> None:
    """The generated obligation type-checks against a candidate defining the modules it names
    (proofs admitted: the allow-list would refuse this candidate, so it is built directly)."""
    task = SUITE[task_id]
    obligation = Obligation.of(task)
    files = {**task.files, CANDIDATE_FILE: relaxed_candidate(task)}
    build = await run_build(make_ctx(), files, [compile_step(f) for f in obligation.build_order])
    assert build.succeeded(obligation.build_order), build.failed()
    assert any("'Admitted' is not allowed" in d.message
               for d in check(files[CANDIDATE_FILE], CANDIDATE_FILE))


@pytest.mark.parametrize("task_id", [g.id for g in UNSOLVED])
async def test_relaxed_store_is_rejected(make_ctx: Callable[..., Any], task_id: str) -> None:
    """Without a proof the obligation fails, and each guard probe the spec implies names the
    relaxed store's guards."""
    task = SUITE[task_id]
    verdict = await AuditVerifier().verify(
        candidate(**{CANDIDATE_FILE: relaxed_candidate(task, proofs=False)}), task, make_ctx())
    failed = {name for name, ok in verdict.data["checks"].items() if not ok}
    expected_guards = GUARDS & set(Obligation.of(task).probes)
    assert failed == {"clean_build", *(f"probe:{p}" for p in expected_guards)}, \
        verdict.summary()
