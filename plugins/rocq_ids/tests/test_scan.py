"""The audit's textual checks on small inputs."""

from __future__ import annotations

import pytest

from speckernel_rocq_ids.scan import (
    escape_hatches,
    relation_is_equality,
    spec_aliases,
    spec_integrity,
    strip_comments,
)
from speckernel_rocq_ids.sources import sha256


@pytest.mark.parametrize("line", [
    "Admitted.", "  admit.", "Axiom ax : False.", "Conjecture c : 1 = 2.",
    "Hypothesis h : False.", "Hypotheses h1 h2 : False.", "Parameter p : nat.",
    "Parameters p q : nat.", "Unset Guard Checking.", "Local Unset Universe Checking.",
    "#[bypass_check(guard)] Fixpoint f (n : nat) : nat := f n.", "(* Admitted *)", "give_up.",
])
def test_each_escape_hatch_is_caught(line: str) -> None:
    found = escape_hatches({"Impl.v": f"Lemma l : True.\n{line}\n"})
    assert found and all(d.file == "Impl.v" and d.line == 2 for d in found)


@pytest.mark.parametrize("text", ["Qed.", "Lemma admit_free : True.",
                                  "Definition parameters := 1."])
def test_clean_words_pass(text: str) -> None:
    assert escape_hatches({"Impl.v": text}) == []


def test_spec_integrity() -> None:
    pinned = {"RYW.v": sha256("spec")}
    assert spec_integrity(pinned, {"RYW.v": "spec"}) == []
    assert spec_integrity(pinned, {"RYW.v": "spec "})[0].file == "RYW.v"
    assert spec_integrity(pinned, {})[0].code == "spec_integrity"


def test_strip_comments_keeps_positions() -> None:
    text = 'a (* b (* nested *) "c" *) d "(* in a string *)" e\nf'
    stripped = strip_comments(text)
    assert len(stripped) == len(text) and stripped.split() == ["a", "d", "e", "f"]


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
