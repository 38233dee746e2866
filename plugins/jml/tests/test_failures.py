"""FormalBench's failure categories: the OpenJML table, KeY's branch labels, and guidance for
every category (upstream raises KeyError for six)."""

from __future__ import annotations

import pytest

from speckernel_jml.failures import (
    GUIDANCE,
    Category,
    classify_key_error,
    classify_key_goal,
    classify_openjml,
    guidance_for,
)

UPSTREAM_WITHOUT_GUIDANCE = ("AssignableFailure", "NegativeSize",
                             "ExceptionalPostconditionFailure", "CalledMethodPrecondition",
                             "NullUnbox", "ArithmeticCastRange")


@pytest.mark.parametrize("category", list(Category))
def test_every_category_has_guidance(category: Category) -> None:
    advice = guidance_for(category)
    assert advice.description.strip() and advice.guidance.strip()


def test_the_six_upstream_gaps_are_filled() -> None:
    assert set(UPSTREAM_WITHOUT_GUIDANCE) <= {c.value for c in GUIDANCE}


def _verify(kind: str) -> Category:
    return classify_openjml(
        "verify", f"The prover cannot establish an assertion ({kind}) in method m")


@pytest.mark.parametrize(("kind", "category"), [
    ("LoopInvariantBeforeLoop", "LoopInvariantFailure"),
    ("LoopInvariant", "LoopInvariantFailure"),
    ("ArithmeticOperationRange", "ArithmeticOperationRange"),
    ("Assignable", "AssignableFailure"),
    ("Postcondition: A.java:3:", "PostconditionFailure"),
    ("Postcondition", "PostconditionFailure"),
    ("Assert", "AssertFailure"),
    ("PossiblyNullDeReference", "NullDeReference"),
    ("UndefinedNullDeReference", "NullDeReference"),
    ("PossiblyNegativeIndex", "ArrayIndex"),
    ("PossiblyTooLargeIndex", "ArrayIndex"),
    ("UndefinedTooLargeIndex", "ArrayIndex"),
    ("UndefinedNegativeIndex", "ArrayIndex"),
    ("PossiblyNegativeSize", "NegativeSize"),
    ("LoopDecreases", "RankingFunctionFailure"),
    ("LoopDecreasesNonNegative", "RankingFunctionFailure"),
    ("PossiblyBadArrayAssignment", "BadArrayAssignment"),
    ("Precondition: A.java:3:", "PreconditionFailure"),
    ("PossiblyDivideByZero", "DivideByZero"),
    ("UndefinedDivideByZero", "DivideByZero"),
    ("PossiblyBadCast", "BadCast"),
    ("ExceptionalPostcondition: A.java:5:", "ExceptionalPostconditionFailure"),
    ("UndefinedCalledMethodPrecondition: A.java:4:", "CalledMethodPrecondition"),
    ("PossiblyNullUnbox", "NullUnbox"),
    ("UndefinedNullUnbox", "NullUnbox"),
    ("ArithmeticCastRange", "ArithmeticCastRange"),
    ("PossiblyLargeShift", "LargeShift"),
])
def test_openjml_assertion_kinds(kind: str, category: str) -> None:
    assert _verify(kind).value == category


def test_openjml_errors_are_syntax_errors_unless_unsupported_quantifiers() -> None:
    assert classify_openjml("error", "';' expected") is Category.SYNTAX_ERROR
    assert classify_openjml("error", "NOT IMPLEMENTED: quantified expression using \\num_of") \
        is Category.UNSUPPORTED_SUM
    assert classify_openjml("error", "x", "NOT IMPLEMENTED: ... \\max ...") \
        is Category.UNSUPPORTED_MINMAX


def test_plain_precondition_conjunct_and_unknown_messages() -> None:
    assert classify_openjml("verify", "Precondition conjunct is false: n >= 0") \
        is Category.PRECONDITION
    assert classify_openjml("verify", "something new") is Category.OTHER


@pytest.mark.parametrize(("labels", "category"), [
    (["Overflow check"], Category.ARITHMETIC_RANGE),
    (["Body Preserves Invariant", "if b_2 true", "Overflow check"], Category.ARITHMETIC_RANGE),
    (["Invariant Initially Valid"], Category.LOOP_INVARIANT),
    (["Body Preserves Invariant"], Category.LOOP_INVARIANT),
    (["Use Case", "Null Reference (a = null)"], Category.NULL_DEREFERENCE),
    (["Index Out of Bounds (a != null, but i Out of Bounds!)"], Category.ARRAY_INDEX),
    (["Pre (count)"], Category.CALLED_METHOD_PRECONDITION),
    (["Use Case", "Normal Execution (_a != null)"], Category.POSTCONDITION),
    ([], Category.POSTCONDITION),
])
def test_key_goals_map_to_the_deepest_obligation(labels: list[str], category: Category) -> None:
    assert classify_key_goal(labels) is category


def test_key_errors() -> None:
    assert classify_key_error("ParserException: mismatched input 'ensure'") \
        is Category.SYNTAX_ERROR
    assert classify_key_error("\\max is not supported") is Category.UNSUPPORTED_MINMAX
