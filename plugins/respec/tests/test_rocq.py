"""The Rocq verifier against real Coq: oracles are equivalent to themselves and to rewrites,
mutants are refuted with counterexamples that evaluation confirms, forbidden text is invalid,
loops end as unknown within the time limit (RESpecBench §2: verdicts other than unknown are sound).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping
from typing import Any

import anyio
import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from speckernel.components import ToolResolver, ToolStatus, VerifyContext
from speckernel.model import Candidate, Provenance, Task
from speckernel.sandbox.base import Limits, Sandbox
from speckernel.sandbox.local import LocalSandbox

from speckernel_respec.domains.gallina import Refused, vet
from speckernel_respec.domains.rocq import (
    CoqToolchain,
    Request,
    RocqVerifier,
    check_batch_warm,
    quickchick_stage,
    request,
)
from speckernel_respec.tasks import team_entries

needs_coq = pytest.mark.skipif(shutil.which("coqtop") is None,
                               reason="coq is not installed (apt-get install coq libcoq-hammer)")
LISTS = "Require Import List. Import ListNotations."


class Detected(ToolResolver):
    def status(self, name: str) -> ToolStatus:
        return CoqToolchain().detect()


@attrs.define
class Context(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


def context(timeout_s: float = 10.0) -> Context:
    return Context(LocalSandbox(), Detected(), Limits(wall_s=120), {"timeout_s": timeout_s})


def task(oracle: str, name: str, typ: str, preamble: str = LISTS) -> Task:
    return Task(f"rocq/{name}", "respec", metadata={
        "domain": "rocq", "oracle": oracle,
        "facts": {"preamble": preamble, "name": name, "type": typ}})


def verify(t: Task, text: str, timeout_s: float = 10.0) -> dict[str, Any]:
    candidate = Candidate({"spec.v": text}, Provenance("test", "none"))
    verdict = anyio.run(RocqVerifier().verify, candidate, t, context(timeout_s))
    return dict(verdict.data)


def team_tasks() -> list[Task]:
    return [entry.task() for entry in team_entries("rocq")]


SUM = task("Fixpoint sum (l : list nat) : nat := match l with [] => 0 | x :: r => x + sum r end.",
           "sum", "list nat -> nat")


# --------------------------------------------------------------------------- refused text


@pytest.mark.parametrize("text", [
    "Definition sum (l : list nat) : nat. Admitted.",
    "Axiom sum : list nat -> nat.",
    "Parameter sum : list nat -> nat.",
    "Unset Guard Checking. Fixpoint sum (l : list nat) : nat := sum l.",
    "#[bypass_check(guard)] Fixpoint sum (l : list nat) : nat := sum l.",
    "Program Fixpoint sum (l : list nat) {measure (length l)} : nat := 0.",
    "Function sum (l : list nat) {measure length l} : nat := 0.",
    "Definition sum (l : list nat) : nat := ltac:(admit).",
    "Local Definition sum (l : list nat) : nat := 0.",
    "Set Printing All. Definition sum (l : list nat) : nat := 0.",
    "Load evil. Definition sum (l : list nat) : nat := 0.",
    "Declare ML Module \"evil\". Definition sum (l : list nat) : nat := 0.",
    "Require Import Coq.Logic.Classical. Definition sum (l : list nat) : nat := 0.",
    "Extract Constant sum => \"0\".",
    "Definition sum (l : list nat) : nat := 0. (* unclosed",
    "Definition sum (l : list nat) : nat := 0",
    "Definition sum (l : list nat) : nat := 0. Obligation 1.",
    "Definition sum (l : list nat) : nat := 0. Abort.",
])
def test_forbidden_text_is_refused(text: str) -> None:
    with pytest.raises(Refused):
        vet(text)


def test_comments_and_strings_are_not_read_as_sentences() -> None:
    parsed = vet('(* Admitted. *) Definition s : nat := 0. (* nested (* . *) *)')
    assert [s.head for s in parsed] == ["Definition"]


@needs_coq
@pytest.mark.parametrize("text", [
    "Axiom sum : list nat -> nat.",
    "Unset Guard Checking. Fixpoint sum (l : list nat) : nat := sum l.",
    "Fixpoint sum (l : list nat) : nat := sum l.",
    "Definition sum (l : list nat) : bool := true.",
    "Definition total (l : list nat) : nat := 0.",
])
def test_invalid_candidates(text: str) -> None:
    assert verify(SUM, text)["verdict"] == "invalid"


# --------------------------------------------------------------------------- equivalence


@needs_coq
def test_every_oracle_is_equivalent_to_itself_in_one_warm_session() -> None:
    tasks = team_tasks()
    assert len(tasks) >= 20
    requests = [r for t in tasks if isinstance(r := request(t, str(t.metadata["oracle"])), Request)]
    assert len(requests) == len(tasks)
    outcomes = anyio.run(check_batch_warm, context(), requests, 10.0)
    assert [o.verdict if o else None for o in outcomes] == ["equivalent"] * len(tasks)


@needs_coq
@pytest.mark.parametrize("text", [
    "Definition sum (l : list nat) : nat := fold_right plus 0 l.",
    "Fixpoint sum (xs : list nat) : nat := match xs with nil => 0 | cons y ys => sum ys + y end.",
])
def test_rewrites_are_proved(text: str) -> None:
    data = verify(SUM, text)
    assert data["verdict"] == "equivalent", data["reason"]


@needs_coq
def test_off_by_one_is_refuted_with_a_counterexample_evaluation_confirms() -> None:
    t = task("Fixpoint range_sum (n : nat) : nat := match n with 0 => 0 | S m => n + range_sum m "
             "end.", "range_sum", "nat -> nat", preamble="")
    data = verify(t, "Fixpoint range_sum (n : nat) : nat := match n with 0 => 0 "
                     "| S m => m + range_sum m end.")
    assert data["verdict"] == "refuted"
    n = int(data["counterexample"]["inputs"][0])
    assert int(data["counterexample"]["oracle"]) == n * (n + 1) // 2
    assert int(data["counterexample"]["candidate"]) == (n - 1) * n // 2


@needs_coq
def test_quickchick_counterexamples_are_rechecked_in_coq() -> None:
    made = request(SUM, "Fixpoint sum (l : list nat) : nat := match l with [] => 0 "
                        "| x :: r => if Nat.ltb x 4 then x + sum r else sum r end.")
    assert isinstance(made, Request)
    found = anyio.run(quickchick_stage, context(), made, time.monotonic() + 60)
    assert found is not None and found.verdict == "refuted"
    values = [int(v) for v in found.counterexample["inputs"][0].strip("[]").split(";")]
    assert int(found.counterexample["oracle"]) == sum(values)
    assert int(found.counterexample["candidate"]) == sum(v for v in values if v < 4)


@needs_coq
def test_a_slow_computation_is_unknown_within_the_time_limit() -> None:
    slow = ("Fixpoint ack (m : nat) : nat -> nat := match m with 0 => S | S p => "
            "fix a (n : nat) := match n with 0 => ack p 1 | S q => ack p (a q) end end.\n"
            "Definition sum (l : list nat) : nat := "
            "if Nat.eqb (ack 4 4) 0 then 0 else fold_right plus 0 l.")
    start = time.monotonic()
    data = verify(SUM, slow, timeout_s=6.0)
    assert data["verdict"] == "unknown"
    assert time.monotonic() - start < 6.0 + 10.0  # the sandbox's wall clock, plus start-up


# --------------------------------------------------------------------------- soundness


Expr = tuple[Any, ...]

exprs: st.SearchStrategy[Expr] = st.recursive(
    st.one_of(st.just(("n",)), st.integers(0, 3).map(lambda c: ("c", c))),
    lambda sub: st.tuples(st.sampled_from(["+", "*"]), sub, sub), max_leaves=4)


def evaluate(e: Expr, n: int) -> int:
    if e[0] == "n":
        return n
    if e[0] == "c":
        return int(e[1])
    a, b = evaluate(e[1], n), evaluate(e[2], n)
    return a + b if e[0] == "+" else a * b


def gallina(e: Expr) -> str:
    if e[0] == "n":
        return "n"
    if e[0] == "c":
        return str(e[1])
    return f"({gallina(e[1])} {e[0]} {gallina(e[2])})"


def commuted(e: Expr) -> Expr:
    """A rewrite: every + and * with its operands swapped (equal by commutativity)."""
    if e[0] in ("n", "c"):
        return e
    return (e[0], commuted(e[2]), commuted(e[1]))


def mutated(e: Expr) -> Expr:
    """A mutation: every constant c becomes c + 1 (usually, not always, a different function)."""
    if e[0] == "c":
        return ("c", e[1] + 1)
    if e[0] == "n":
        return e
    return (e[0], mutated(e[1]), mutated(e[2]))


@needs_coq
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs, st.booleans())
def test_verdicts_on_arithmetic_rewrites_and_mutations_are_sound(e: Expr, mutate: bool) -> None:
    other = mutated(e) if mutate else commuted(e)
    t = task(f"Definition f (n : nat) : nat := {gallina(e)}.", "f", "nat -> nat", preamble="")
    data = verify(t, f"Definition f (n : nat) : nat := {gallina(other)}.")
    differs = any(evaluate(e, n) != evaluate(other, n) for n in range(30))
    if not mutate:
        assert data["verdict"] != "refuted"
    if differs:
        assert data["verdict"] != "equivalent"
    if data["verdict"] == "refuted":
        n = int(data["counterexample"]["inputs"][0])
        assert evaluate(e, n) != evaluate(other, n)
        assert int(data["counterexample"]["oracle"]) == evaluate(e, n)
