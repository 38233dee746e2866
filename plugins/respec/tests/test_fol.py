# ruff: noqa: RUF001, RUF002 -- FOLIO notation is made of Unicode logical symbols
"""The FOL domain: the FOLIO grammar, and soundness of ``respec.fol`` (RESpecBench §3.4).

Equivalence is validity of the biconditional; a refutation's finite model must make the two
formulas differ when evaluated in Python; ground truth for generated pairs comes from brute
force over every structure with at most two elements.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator

import pytest
from conftest import SHARED_DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance, Status

from speckernel_respec import tasks
from speckernel_respec.domains.fol import FolVerifier, check
from speckernel_respec.domains.fol_semantics import FiniteModel, evaluate
from speckernel_respec.domains.fol_syntax import (
    Atom,
    Binary,
    Connective,
    Const,
    Formula,
    Not,
    ParseError,
    Quantified,
    Quantifier,
    Var,
    parse,
    show,
    signature,
)

FOLIO = SHARED_DATA / "folio" / "folio-validation.jsonl"

UPSTREAM_MALFORMED = {
    "(Foodie(peter) ∧ HighIncome(peter)) ∨ ¬Foodie(peter) ∧ ¬HighIncome(peter))": "unbalanced ')'",
    "(Spill(peter) ∧ OnlyChild(peter)) ∨ ¬Spill(peter) ∧ ¬OnlyChild(peter))": "unbalanced ')'",
    "Chaperone(bonnie) ⊕ TalentShows(bonnie) → AcademicCareer(bonnie) ∧ Inactive(bonnie))":
        "unbalanced ')'",
    "∀x ∀y (SuperheroMovie(x), NamedAfter(x, y) → GoodGuy(y))": "expected ), found ','",
}
"""The FOLIO validation formulas that are not well formed, with the reason the parser gives."""

FACTS = {"predicates": {"P": 1, "Q": 1, "R": 2}, "constants": ["a", "b"]}


def folio_formulas() -> list[str]:
    if not FOLIO.is_file():
        pytest.skip(f"no FOLIO data at {FOLIO}")
    found: dict[str, None] = {}
    for line in FOLIO.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for formula in [*record["premises-FOL"], record["conclusion-FOL"]]:
            found[formula.strip()] = None
    return list(found)


# --------------------------------------------------------------------------- grammar


def test_every_folio_validation_formula_parses_except_the_malformed_ones() -> None:
    failures = {}
    for formula in folio_formulas():
        try:
            tree = parse(formula)
        except ParseError as exc:
            failures[formula] = str(exc)
            continue
        assert parse(show(tree)) == tree, formula
        signature(tree)
    assert set(failures) == set(UPSTREAM_MALFORMED), failures
    for formula, reason in failures.items():
        assert UPSTREAM_MALFORMED[formula] in reason


@pytest.mark.parametrize(("text", "expected"), [
    ("∀x (P(x) → Q(x))", "∀x (P(x) → Q(x))"),
    ("forall x. (P(x) -> Q(x))", "∀x (P(x) → Q(x))"),
    ("exists x (P(x) & ~Q(x))", "∃x (P(x) ∧ ¬Q(x))"),
    ("P(a) | Q(a) ^ R(a, b)", "((P(a) ∨ Q(a)) ⊕ R(a, b))"),
    ("P(a) ⊕ Q(a) → P(b) ∧ Q(b)", "((P(a) ⊕ Q(a)) → (P(b) ∧ Q(b)))"),
    ("P(a) → Q(a) → P(b)", "(P(a) → (Q(a) → P(b)))"),
    ("∀x ∀y (R(x, y) ⟷ R(y, x))", "∀x ∀y (R(x, y) ↔ R(y, x))"),
    ("Growth’Stocks(kO) ∧ ValuedAt(yale, y42.3billion)",
     "(Growth’Stocks(kO) ∧ ValuedAt(yale, y42.3billion))"),
    ("a ≠ b", "¬a = b"),
    ("Raining", "Raining"),
])
def test_grammar_covers_unicode_ascii_precedence_and_names(text: str, expected: str) -> None:
    assert show(parse(text)) == expected


@pytest.mark.parametrize(("text", "reason"), [
    ("∀x P(x) → Q(x)", "outside the scope of its quantifier"),
    ("P(a", "expected ), found end of formula"),
    ("P(a) ∧", "expected name"),
    ("P(a) $ Q(a)", "unexpected character '$'"),
    ("(" * 5000 + "P(a)" + ")" * 5000, "nested too deeply"),
])
def test_malformed_formulas_are_rejected_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=re.escape(reason)):
        parse(text)


def test_signature_rejects_one_predicate_with_two_arities() -> None:
    with pytest.raises(ParseError, match="arity 1 and 2"):
        signature(parse("P(a) ∧ P(a, b)"))


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(("candidate", "reason"), [
    ("P(c)", "unknown constant 'c'"),
    ("Z(a)", "unknown predicate Z/1"),
    ("R(a)", "predicate R is applied to 1 argument(s) but has arity 2"),
    ("P(a) ∧", "not a FOLIO formula"),
])
def test_candidates_outside_the_facts_are_invalid(candidate: str, reason: str) -> None:
    result = check("P(a)", candidate, FACTS, 4.0)
    assert result.verdict == "invalid"
    assert reason in result.reason


def test_quantifier_order_is_refuted_with_a_rechecked_finite_model() -> None:
    result = check("∀x ∃y R(x, y)", "∃y ∀x R(x, y)", FACTS, 4.0)
    assert result.verdict == "refuted"
    assert_differs("∀x ∃y R(x, y)", "∃y ∀x R(x, y)", result.counterexample)


def test_vacuous_truth_is_equivalent_to_any_valid_formula() -> None:
    result = check("¬∃x P(x) → ∀x (P(x) → Q(x))", "∀x (Q(x) ∨ ¬Q(x))", FACTS, 4.0)
    assert result.verdict == "equivalent"


def model_of(counterexample: object) -> FiniteModel:
    assert isinstance(counterexample, dict)
    return FiniteModel(tuple(counterexample["domain"]), counterexample["constants"],
                       {p: frozenset(map(tuple, ext))
                        for p, ext in counterexample["predicates"].items()})


def assert_differs(oracle: str, candidate: str, counterexample: object) -> None:
    model = model_of(counterexample)
    assert evaluate(parse(oracle), model) != evaluate(parse(candidate), model)


@pytest.mark.anyio
async def test_verifier_verdicts_follow_the_contract(make_ctx: Callable[..., object]) -> None:
    task = tasks.Entry("fol", "t", "All P are Q.", "∀x (P(x) → Q(x))", FACTS).task()
    verifier = FolVerifier()
    ctx = make_ctx()
    cases = {"∀y (¬Q(y) → ¬P(y))": (Status.SUCCESS, "equivalent"),
             "∀x (Q(x) → P(x))": (Status.FAILURE, "refuted"),
             "∀x (P(x) → ": (Status.FAILURE, "invalid")}
    for text, (status, verdict) in cases.items():
        result = await verifier.verify(Candidate({"spec.fol": text}, Provenance("t", "m")),
                                       task, ctx)  # type: ignore[arg-type]
        assert (result.status, result.data["verdict"]) == (status, verdict)
        assert set(result.data) == {"verdict", "counterexample", "reason", "bounded", "bound",
                                    "seconds"}
    missing = await verifier.verify(Candidate({}, Provenance("t", "m")), task, ctx)  # type: ignore[arg-type]
    assert missing.data["verdict"] == "invalid"


@pytest.mark.parametrize("entry", tasks.team_entries("fol"), ids=lambda e: e.name)
def test_task_oracles_are_equivalent_to_themselves(entry: tasks.Entry) -> None:
    assert check(entry.oracle, f"({entry.oracle})", entry.facts, 4.0).verdict == "equivalent"


# --------------------------------------------------------------------------- soundness


def structures(size: int) -> Iterator[FiniteModel]:
    """Every structure over FACTS' signature with ``size`` elements."""
    domain = tuple(f"e{i}" for i in range(size))
    singles = [(e,) for e in domain]
    pairs = list(itertools.product(domain, repeat=2))
    for a, b in itertools.product(domain, repeat=2):
        for p, q in itertools.product(subsets(singles), repeat=2):
            for r in subsets(pairs):
                yield FiniteModel(domain, {"a": a, "b": b}, {"P": p, "Q": q, "R": r})


def subsets(items: list[tuple[str, ...]]) -> list[frozenset[tuple[str, ...]]]:
    return [frozenset(c) for n in range(len(items) + 1)
            for c in itertools.combinations(items, n)]


def small_countermodel(f: Formula, g: Formula) -> bool:
    """Whether some structure with at most two elements tells ``f`` and ``g`` apart."""
    return any(evaluate(f, m) != evaluate(g, m) for size in (1, 2) for m in structures(size))


def formulas(bound: tuple[str, ...] = ()) -> st.SearchStrategy[Formula]:
    """Closed formulas over FACTS (given the enclosing bound variables), with at most two
    nested quantifiers."""
    terms = st.sampled_from([*(Var(v) for v in bound), Const("a"), Const("b")])
    leaves = st.one_of(st.builds(lambda t: Atom("P", (t,)), terms),
                       st.builds(lambda t: Atom("Q", (t,)), terms),
                       st.builds(lambda s, t: Atom("R", (s, t)), terms, terms))
    if len(bound) < 2:
        variable = ("x", "y")[len(bound)]
        leaves |= st.builds(lambda q, body: Quantified(q, variable, body),
                            st.sampled_from(Quantifier), formulas((*bound, variable)))
    return st.recursive(leaves, lambda inner: st.one_of(
        st.builds(Not, inner),
        st.builds(Binary, st.sampled_from(Connective), inner, inner)), max_leaves=5)


def rewrite(f: Formula) -> Formula:
    """An equivalent formula: De Morgan, ⊕ and ↔ expanded, → as ¬a ∨ b, operands of ∧/∨
    swapped, ∀ as ¬∃¬, bound variables renamed."""
    match f:
        case Not(Binary(Connective.AND, a, b)):
            return Binary(Connective.OR, Not(rewrite(a)), Not(rewrite(b)))
        case Not(body):
            return Not(rewrite(body))
        case Binary(Connective.XOR, a, b):
            a, b = rewrite(a), rewrite(b)
            return Binary(Connective.AND, Binary(Connective.OR, a, b),
                          Not(Binary(Connective.AND, a, b)))
        case Binary(Connective.IMPLIES, a, b):
            return Binary(Connective.OR, Not(rewrite(a)), rewrite(b))
        case Binary(Connective.IFF, a, b):
            return Binary(Connective.IFF, rewrite(b), rewrite(a))
        case Binary(op, a, b):
            return Binary(op, rewrite(b), rewrite(a))
        case Quantified(Quantifier.FORALL, v, body):
            return Not(Quantified(Quantifier.EXISTS, v + "1", Not(rename(rewrite(body), v))))
        case Quantified(q, v, body):
            return Quantified(q, v + "1", rename(rewrite(body), v))
    return f


def rename(f: Formula, v: str) -> Formula:
    """``f`` with free occurrences of variable ``v`` renamed to ``v1``."""
    match f:
        case Atom(p, args):
            return Atom(p, tuple(Var(v + "1") if t == Var(v) else t for t in args))
        case Not(body):
            return Not(rename(body, v))
        case Binary(op, a, b):
            return Binary(op, rename(a, v), rename(b, v))
        case Quantified(q, w, body):
            return f if w == v else Quantified(q, w, rename(body, v))
    return f


def mutate(f: Formula, choice: int) -> Formula:
    """A (usually) different formula: flip a quantifier, reverse an implication, turn ⊕ into ∨,
    or negate, at the first place that applies."""
    match f:
        case Quantified(q, v, body) if choice % 2 == 0:
            other = Quantifier.EXISTS if q is Quantifier.FORALL else Quantifier.FORALL
            return Quantified(other, v, body)
        case Quantified(q, v, body):
            return Quantified(q, v, mutate(body, choice))
        case Binary(Connective.IMPLIES, a, b):
            return Binary(Connective.IMPLIES, b, a)
        case Binary(Connective.XOR, a, b):
            return Binary(Connective.OR, a, b)
        case Binary(op, a, b):
            return Binary(op, mutate(a, choice), b)
    return Not(f)


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(formulas())
def test_rewrites_are_never_refuted(f: Formula) -> None:
    g = rewrite(f)
    assert not small_countermodel(f, g)
    result = check(show(f), show(g), FACTS, 4.0)
    assert result.verdict in ("equivalent", "unknown"), result


@SETTINGS
@given(formulas(), st.integers(0, 1))
def test_mutants_are_never_called_equivalent_and_refutations_recheck(f: Formula,
                                                                       choice: int) -> None:
    g = mutate(f, choice)
    result = check(show(f), show(g), FACTS, 4.0)
    if result.verdict == "refuted":
        assert_differs(show(f), show(g), result.counterexample)
    if small_countermodel(f, g):
        assert result.verdict != "equivalent", (show(f), show(g))
