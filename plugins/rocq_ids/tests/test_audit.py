"""``rocq_ids.audit`` end to end: every check is caught by a candidate exhibiting it, and only
that check (or the checks it necessarily implies) fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import candidate, reference
from speckernel.model import Status, Task, Verdict

from speckernel_rocq_ids.audit import AuditVerifier, assumptions

pytestmark = pytest.mark.anyio

RYW_PUT = ("(rs : RState) : RState :=\n    let applied := snd (cell rs k) in\n"
           "    (fst rs, NatMap.add k (v, NatMap.add c (S (count applied c)) applied) (snd rs)).")
RYW_GET_GUARD = "(rs : RState) : bool := p <=? count (snd (cell rs k)) c."
MW_PUT_GUARD = "(rs : RState) : bool := count rs c =? p."
SPEC_ALIAS = "From IDS Require Import KVStore RYW.\nModule RYW_Impl <: AlgDef := RYW_Spec.\n"


def mutate(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def store_only(text: str) -> str:
    """The implementation module without its refinement proof, which a vacuous store cannot
    have: the probes judge the store itself."""
    return text.split("Module RYW_Local")[0].split("Module MW_Local")[0]


async def audit(make_ctx: Callable[..., Any], task: Task, **files: str) -> Verdict:
    return await AuditVerifier().verify(candidate(**files), task, make_ctx())


def failed_checks(verdict: Verdict) -> set[str]:
    return {name for name, ok in verdict.data["checks"].items() if not ok}


async def test_reference_is_clean(make_ctx: Callable[..., Any], tasks: dict[str, Task]) -> None:
    verdict = await audit(make_ctx, tasks["ryw"], **{"Impl.v": reference(tasks["ryw"])})
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert failed_checks(verdict) == set()


async def test_admitted_proof_is_refused_unbuilt(make_ctx: Callable[..., Any],
                                                 tasks: dict[str, Task]) -> None:
    impl = mutate(reference(tasks["ryw"]), "  Qed.\nEnd RYW_Local.", "  Admitted.\nEnd RYW_Local.")
    verdict = await audit(make_ctx, tasks["ryw"], **{"Impl.v": impl})
    assert verdict.status is Status.FAILURE
    assert failed_checks(verdict) == {"commands", "clean_build"}
    line = impl.splitlines().index("  Admitted.") + 1
    assert f"line {line}: 'Admitted' is not allowed" in verdict.summary()


async def test_assumption_without_a_forbidden_word(make_ctx: Callable[..., Any],
                                                   tasks: dict[str, Task]) -> None:
    impl = mutate(reference(tasks["ryw"]), "  Proof. unfold crel, RYW_Impl.count.",
                  "  Proof.\n"
                  "    pose proof (@FunctionalExtensionality.functional_extensionality_dep"
                  " nat (fun _ => nat)) as Hfe.\n"
                  "    unfold crel, RYW_Impl.count.")
    impl = "From Coq Require FunctionalExtensionality.\n" + impl
    verdict = await audit(make_ctx, tasks["ryw"], **{"Impl.v": impl})
    assert failed_checks(verdict) == {"assumptions"}
    assert "functional_extensionality_dep" in verdict.summary()


async def test_edited_spec_fails_the_hash_check(make_ctx: Callable[..., Any],
                                                tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    edited = task.files["RYW.v"] + "\n(* looks harmless *)\n"
    verdict = await audit(make_ctx, task, **{"Impl.v": reference(task), "RYW.v": edited})
    assert failed_checks(verdict) == {"spec_integrity"}
    assert "RYW.v differs from the task's" in verdict.summary()
    assert "is not part of the build and is ignored" in verdict.summary()


async def test_constant_put(make_ctx: Callable[..., Any], tasks: dict[str, Task]) -> None:
    impl = mutate(store_only(reference(tasks["ryw"])), RYW_PUT, "(rs : RState) : RState := rs.")
    verdict = await audit(make_ctx, tasks["ryw"], **{"Impl.v": impl})
    assert {"probe:put_visible", "clean_build"} <= failed_checks(verdict)
    assert "probe:get_waits_for_own_put" not in failed_checks(verdict)


async def test_always_true_get_guard(make_ctx: Callable[..., Any],
                                     tasks: dict[str, Task]) -> None:
    impl = mutate(store_only(reference(tasks["ryw"])), RYW_GET_GUARD,
                  "(rs : RState) : bool := true.")
    verdict = await audit(make_ctx, tasks["ryw"], **{"Impl.v": impl})
    assert {"probe:get_waits_for_own_put", "clean_build"} <= failed_checks(verdict)
    assert "probe:put_visible" not in failed_checks(verdict)


async def test_always_true_put_guard(make_ctx: Callable[..., Any],
                                     tasks: dict[str, Task]) -> None:
    impl = mutate(store_only(reference(tasks["mw"])), MW_PUT_GUARD, "(rs : RState) : bool := true.")
    verdict = await audit(make_ctx, tasks["mw"], **{"Impl.v": impl})
    assert {"probe:put_waits_for_own_earlier_put", "clean_build"} <= failed_checks(verdict)


async def test_spec_alias(make_ctx: Callable[..., Any], tasks: dict[str, Task]) -> None:
    verdict = await audit(make_ctx, tasks["ryw"], **{"Impl.v": SPEC_ALIAS})
    assert {"spec_alias", "probe:state_compressed", "clean_build"} <= failed_checks(verdict)
    assert "reuses the spec module" in verdict.summary()


async def test_relation_equality(make_ctx: Callable[..., Any], tasks: dict[str, Task]) -> None:
    impl = SPEC_ALIAS + "Module RYW_Refinement.\n  Definition R := @eq nat.\nEnd RYW_Refinement.\n"
    verdict = await audit(make_ctx, tasks["ryw"], **{"Impl.v": impl})
    assert "relation_equality" in failed_checks(verdict)


def test_print_assumptions_parsing() -> None:
    assert assumptions("Closed under the global context\n") == []
    out = "Axioms:\nfe : forall A B, A -> B\n  (continued)\nKVStore.x : nat\n"
    assert assumptions(out) == ["fe", "KVStore.x"]


def test_closed_only_when_that_is_all_print_assumptions_says() -> None:
    """An axiom whose type prints as the closed message is still an axiom."""
    forged = "Axioms:\nx : Closed under the global context\n"
    assert assumptions(forged) == ["x"]
    assert assumptions("Closed under the global context\nAxioms:\n") != []
