"""The audit's textual checks (spec integrity, spec aliasing, equality as the relation) on small
inputs."""

from __future__ import annotations

import pytest

from speckernel_rocq_ids.scan import relation_is_equality, spec_aliases, spec_integrity
from speckernel_rocq_ids.sources import sha256


def test_spec_integrity_names_a_shipped_copy_that_differs() -> None:
    pinned = {"RYW.v": sha256("spec")}
    assert spec_integrity(pinned, {"RYW.v": "spec", "Impl.v": "anything"}) == []
    assert spec_integrity(pinned, {"RYW.v": "spec "})[0].file == "RYW.v"
    assert spec_integrity(pinned, {}) == []


@pytest.mark.parametrize("text", [
    "Module RYW_Impl <: AlgDef := RYW_Spec.",
    "Module RYW_Impl := RYW.RYW_Spec.",
    "Module RYW_Impl <: AlgDef.\n  Include RYW_Spec.\nEnd RYW_Impl.",
])
def test_spec_alias_is_caught(text: str) -> None:
    assert spec_aliases(text, "RYW_Spec", "Impl.v")


def test_spec_alias_in_a_comment_is_not() -> None:
    assert spec_aliases("(* Module RYW_Impl := RYW_Spec. *)", "RYW_Spec", "Impl.v") == []


@pytest.mark.parametrize("text", [
    "Definition R (wi : WI.WorldState) (ws : WS.WorldState) : Prop := wi = ws.",
    "Definition R (wi : WI.WorldState) (ws : WS.WorldState) : Prop := (ws = wi).",
    "Definition R : WI.WorldState -> WS.WorldState -> Prop := eq.",
    "Definition R := @eq WS.WorldState.",
    "Definition R : WI.WorldState -> WS.WorldState -> Prop := fun a b => a = b.",
    "Definition R a b := a = b.",
])
def test_relation_equality_is_caught(text: str) -> None:
    assert relation_is_equality(text, "Impl.v")[0].line == 1


def test_a_real_relation_passes() -> None:
    text = ("Definition R (wi : WI.WorldState) (ws : WS.WorldState) : Prop :=\n"
            "  WI.w_reps wi = WS.w_reps ws /\\ Forall2 msg_rel (WI.w_network wi) ws.")
    assert relation_is_equality(text, "Impl.v") == []
