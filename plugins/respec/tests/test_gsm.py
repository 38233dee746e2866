"""The GSM-Symbolic+ domain: the answer language, Z3 equivalence under constraints, soundness.

Soundness is tested by evaluation: a refutation's assignment must satisfy the constraints and
give the two answers different values (or leave the candidate undefined); an equivalence must
agree with evaluation on every assignment of a small grid; rewrites are never refuted.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from fractions import Fraction
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance, Status, Task

from speckernel_respec import tasks
from speckernel_respec.domains.gsm import GsmVerifier, check, problem_of
from speckernel_respec.domains.gsm_lang import (
    GsmSyntaxError,
    Undefined,
    Value,
    evaluate,
    parse,
)
from speckernel_respec.domains.outcome import Outcome

FACTS = {"variables": {"x": "int", "y": "int", "p": "real"},
         "constraints": ["x >= -6 and x <= 6", "y >= 1 and y <= 6", "p >= 0 and p <= 1"]}
PROBLEM = problem_of(FACTS)


def verdict(oracle: str, candidate: str, facts: Mapping[str, Any] = FACTS) -> Outcome:
    return check(oracle, candidate, problem_of(facts), 4.0)


# --------------------------------------------------------------------------- language


def value(text: str, **env: Value) -> Value:
    return evaluate(parse(text), env)


@given(st.integers(-50, 50), st.integers(-9, 9).filter(bool))
def test_floor_division_and_modulo_are_pythons(a: int, b: int) -> None:
    assert value("a // b", a=a, b=b) == a // b
    assert value("a % b", a=a, b=b) == a % b


def test_precedence_and_exact_division() -> None:
    assert value("1 + 2 * 3 ** 2") == 19
    assert value("7 / 2") == Fraction(7, 2)
    assert value("-2 ** 2") == -4
    assert value("if 1 < 2 and not false then 1 else 2") == 1


def test_lazy_operators_guard_division() -> None:
    assert value("y != 0 and x / y > 1", x=1, y=0) is False
    with pytest.raises(Undefined):
        value("x / y > 1 and y != 0", x=1, y=0)


@pytest.mark.parametrize("text", ["", "x +", "a < b < c", "f(x)", "x ** y", "(x", "x y"])
def test_malformed_answers_do_not_parse(text: str) -> None:
    with pytest.raises(GsmSyntaxError):
        parse(text)


@pytest.mark.parametrize(("candidate", "reason"), [
    ("z + 1", "unknown variable 'z'"), ("x > 1", "a bool, the oracle a int"),
    ("x + (y > 1)", "needs numbers"), ("x +", "unexpected end")])
def test_ill_formed_candidates_are_invalid(candidate: str, reason: str) -> None:
    result = verdict("x + y", candidate)
    assert result.verdict == "invalid"
    assert reason in result.reason


# --------------------------------------------------------------------------- decisions


@pytest.mark.parametrize(("oracle", "candidate"), [
    ("x // y", "(x - x % y) / y"),
    ("max(x, y)", "if x > y then x else y"),
    ("x + y > 3", "not (x + y <= 3)"),
    ("x ** 2", "x * x"),
    ("6 / 2 * x", "3 * x"),
    ("floor(p * 10)", "floor(10 * p)"),
    ("ceil(x / y)", "(x + y - 1) // y"),
    ("abs(x)", "max(x, -x)"),
])
def test_equivalent_pairs(oracle: str, candidate: str) -> None:
    assert verdict(oracle, candidate).verdict == "equivalent"


@pytest.mark.parametrize(("oracle", "candidate"), [
    ("x // 2", "x / 2"), ("(-x) // y", "-(x // y)"), ("x % y", "abs(x) % y"),
    ("x * 3 // 4", "x * (3 // 4)"), ("if x > 3 then 1 else 0", "if x >= 3 then 1 else 0")])
def test_refuted_pairs_carry_a_rechecked_assignment(oracle: str, candidate: str) -> None:
    result = verdict(oracle, candidate)
    assert result.verdict == "refuted"
    assert_counterexample(oracle, candidate, result)


def test_constraints_decide_equivalence() -> None:
    facts = {"variables": {"n": "int"}, "constraints": ["n >= 0"]}
    assert verdict("abs(n)", "n", facts).verdict == "equivalent"
    assert verdict("abs(n)", "n", {"variables": {"n": "int"}, "constraints": []}).verdict \
        == "refuted"


def test_candidate_dividing_by_zero_is_refuted() -> None:
    result = verdict("x", "x / (y - 1) * (y - 1)")
    assert result.verdict == "refuted"
    assert isinstance(result.counterexample, dict)
    assert result.counterexample["candidate"] == "undefined (division by zero)"
    assert result.counterexample["assignment"]["y"] == 1


def test_broken_tasks_are_unknown() -> None:
    assert "divides by zero" in verdict("x / (y - 1)", "x").reason
    unsat = {"variables": {"n": "int"}, "constraints": ["n > 0", "n < 0"]}
    assert verdict("n", "n + 1", unsat).reason == "the task's constraints have no solution"


def test_variable_free_upstream_answers() -> None:
    facts: dict[str, Any] = {"variables": {}, "constraints": []}
    assert verdict("1234", "1000 + 234", facts).verdict == "equivalent"
    assert verdict("1234", "1234 / 10", facts).verdict == "refuted"


# --------------------------------------------------------------------------- soundness

GRID: list[dict[str, Value]] = [
    {"x": x, "y": y, "p": p}
    for x, y, p in itertools.product(range(-6, 7), range(1, 7),
                                     (Fraction(0), Fraction(1, 3), Fraction(1)))]
"""Assignments satisfying FACTS' constraints, for checking equivalences by evaluation."""


def evaluated(text: str, env: Mapping[str, Value]) -> Value | None:
    try:
        return evaluate(parse(text), env)
    except Undefined:
        return None


def assert_counterexample(oracle: str, candidate: str, result: Outcome) -> None:
    assert isinstance(result.counterexample, dict)
    raw = result.counterexample["assignment"]
    env = {k: Fraction(v) if isinstance(v, str) else v for k, v in raw.items()}
    assert all(evaluate(c, env) for c in PROBLEM.constraints)
    assert evaluated(oracle, env) != evaluated(candidate, env)


def assert_sound(oracle: str, candidate: str, result: Outcome) -> None:
    if result.verdict == "refuted":
        assert_counterexample(oracle, candidate, result)
    elif result.verdict == "equivalent":
        for env in GRID:
            assert evaluated(oracle, env) == evaluated(candidate, env), env


def expressions() -> st.SearchStrategy[str]:
    """Small well-typed numeric answers over x, y (int) and p (real)."""
    leaves = st.sampled_from(["x", "y", "p", "1", "2", "3", "0.5"])

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        pair = st.tuples(inner, inner)
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.sampled_from(["/", "//", "%"]), st.sampled_from(["2", "y"])).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.sampled_from(["<", "<=", "=="]), inner, inner, inner).map(
                lambda t: f"(if {t[0]} {t[1]} {t[2]} then {t[3]} else {t[4]})"),
            pair.map(lambda t: f"max({t[0]}, {t[1]})"),
            inner.map(lambda t: f"abs({t})"),
        )

    return st.recursive(leaves, extend, max_leaves=5)


REWRITES: list[tuple[str, Callable[[str, str], tuple[str, str]]]] = [
    ("a + b = b + a", lambda a, b: (f"{a} + {b}", f"{b} + {a}")),
    ("a * b = b * a", lambda a, b: (f"({a}) * ({b})", f"({b}) * ({a})")),
    ("a - b = a + -b", lambda a, b: (f"{a} - ({b})", f"{a} + -({b})")),
    ("2a = a + a", lambda a, b: (f"2 * ({a})", f"({a}) + ({a})")),
    ("if swap", lambda a, b: (f"if {a} < {b} then {a} else {b}",
                              f"if not ({a} < {b}) then {b} else {a}")),
    ("De Morgan", lambda a, b: (f"if not ({a} < 1 and {b} > 0) then 1 else 0",
                                f"if {a} >= 1 or {b} <= 0 then 1 else 0")),
    ("max = if", lambda a, b: (f"max({a}, {b})", f"if {a} >= {b} then {a} else {b}")),
    ("a % y = a - y * (a // y)", lambda a, b: (f"({a}) % y", f"({a}) - y * (({a}) // y)")),
]

SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(st.sampled_from(REWRITES), expressions(), expressions())
def test_rewrites_are_never_refuted(rewrite: tuple[str, Any], a: str, b: str) -> None:
    oracle, candidate = rewrite[1](a, b)
    result = verdict(oracle, candidate)
    assert result.verdict in ("equivalent", "unknown"), rewrite[0]
    assert_sound(oracle, candidate, result)


@SLOW
@given(expressions(), st.sampled_from(["+ 1", "* 2", "- p", "// 2 * 2"]))
def test_mutations_are_refuted_when_they_change_the_value(oracle: str, mutation: str) -> None:
    candidate = f"({oracle}) {mutation}"
    result = verdict(oracle, candidate)
    if any(evaluated(oracle, env) != evaluated(candidate, env) for env in GRID):
        assert result.verdict in ("refuted", "unknown")
    assert_sound(oracle, candidate, result)


@SLOW
@given(expressions(), expressions())
def test_verdicts_on_random_pairs_are_sound(oracle: str, candidate: str) -> None:
    assert_sound(oracle, candidate, verdict(oracle, candidate))


# --------------------------------------------------------------------------- tasks and verifier


def gsm_tasks() -> list[tasks.Entry]:
    text = (resources.files("speckernel_respec") / "tasks" / "gsm.yaml").read_text()
    return tasks.parse_team_file("gsm", text, "gsm.yaml")


def test_there_are_twenty_tasks() -> None:
    assert len(gsm_tasks()) >= 20


@pytest.mark.parametrize("entry", gsm_tasks(), ids=lambda e: e.name)
def test_every_oracle_is_equivalent_to_itself(entry: tasks.Entry) -> None:
    assert verdict(entry.oracle, f"({entry.oracle})", entry.facts).verdict == "equivalent"


@pytest.mark.anyio
async def test_verifier_verdicts(make_ctx: Callable[..., Any]) -> None:
    facts = {"variables": {"n": "int", "k": "int"}, "constraints": ["n >= 1", "k >= 1"]}
    task = Task("gsm/boxes", "respec", metadata={"oracle": "(n + k - 1) // k", "facts": facts})
    verifier = GsmVerifier()
    wrong = await verifier.verify(Candidate({"spec.gsm": "n // k + 1"}, Provenance("t", "m")),
                                  task, make_ctx())
    assert wrong.status is Status.FAILURE and wrong.data["verdict"] == "refuted"
    right = await verifier.verify(Candidate({"spec.gsm": "ceil(n / k)"}, Provenance("t", "m")),
                                  task, make_ctx())
    assert right.status is Status.SUCCESS
