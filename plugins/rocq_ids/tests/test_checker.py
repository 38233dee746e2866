"""The agents' Rocq feedback, on output in coqc 8.16's exact format (captured from coqc)."""

from __future__ import annotations

from speckernel_rocq_ids.checker import (
    Goal,
    RocqError,
    count_holes,
    forbidden_words,
    instrument,
    parse_goals,
)

SHOW_OUTPUT = "\n".join([
    "2 goals", "  ", "  n : nat", "  H : n = 1 /\\", "      True",
    "  ============================", "  n + 0 = n", "", "goal 2 is:", " True",
    "1 goal", "  ", "  n : nat", "  ============================", "  True",
    "No more goals.", 'File "./Impl.v", line 6, characters 0-17:', "Error: No such goal.", ""])
"""Three ``Show.`` blocks as coqc prints them (the blank lines hold two spaces)."""

TYPE_ERROR = """\
Error:
In environment
x, y : nat
H : x = 1 /\\
    y = 2
The term "H" has type "x = 1" while it is expected to have type "x + x = 2"."""


def test_show_blocks_become_goals() -> None:
    assert parse_goals(SHOW_OUTPUT) == [
        Goal(("n : nat", "H : n = 1 /\\ True"), "n + 0 = n"),
        Goal(("n : nat",), "True"),
        None,
    ]


def test_holes_are_counted_outside_comments() -> None:
    text = "Proof. admit. Admitted.\n(* Admitted. *)\nLemma admitted_free : True.\n"
    assert count_holes(text) == 2


def test_instrumenting_keeps_lines() -> None:
    text = "Lemma a : True.\nProof.\n  admit.\nAdmitted.\n"
    shown, lines = instrument(text)
    assert lines == (3, 4)
    assert shown.splitlines() == ["Lemma a : True.", "Proof.", "  Show. admit.",
                                  "Show. Admitted."]


def test_refused_commands_other_than_holes_are_forbidden() -> None:
    found = forbidden_words("Axiom x : False.\nLemma l : True.\nProof. admit. Admitted.")
    assert len(found) == 1 and found[0].startswith("line 1: 'Axiom' is not allowed")
    assert forbidden_words("Lemma l : True.\nProof. admit. Admitted.") == ()


def test_typing_errors_carry_their_environment() -> None:
    error = RocqError("Impl.v", 12, 7, TYPE_ERROR)
    assert error.hypotheses == ("x, y : nat", "H : x = 1 /\\ y = 2")
    with_goal = RocqError("Impl.v", 3, 5, "Error: boom", Goal(("x : nat",), "x = x"))
    assert with_goal.hypotheses == ("x : nat",)
    assert with_goal.render().startswith("Impl.v:3:5: Error: boom\nGoal at the error:\nx : nat")
