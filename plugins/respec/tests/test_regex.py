"""The regex domain: DeepRegex/Python syntax, DFA equivalence, shortest refutations, soundness.

Soundness is tested against Python's own ``re``: whenever the verifier refutes, ``re.fullmatch``
must disagree on the counterexample; whenever it proves equivalence, ``re.fullmatch`` must agree
on every short string; algebraic rewrites are never refuted.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance, Status, Task

from speckernel_respec import tasks
from speckernel_respec.domains.automata import Terms, build_dfa, minimise
from speckernel_respec.domains.outcome import Outcome
from speckernel_respec.domains.regex import RegexChecker, RegexVerifier
from speckernel_respec.domains.regex_match import fullmatch
from speckernel_respec.domains.regex_syntax import (
    Complement,
    Repeat,
    parse_deepregex,
    parse_python,
)

CHECKER = RegexChecker()


def check(oracle: str, candidate: str, syntax: str = "python", seconds: float = 4.0) -> Outcome:
    return CHECKER.check(oracle, candidate, syntax, seconds)


def words(alphabet: str, longest: int) -> list[str]:
    return ["".join(w) for n in range(longest + 1) for w in itertools.product(alphabet, repeat=n)]


# --------------------------------------------------------------------------- syntax


def test_deepregex_complement_binds_tighter_than_repetition() -> None:
    """dk.brics: repeatexp ::= repeatexp * | complexp; complexp ::= ~ complexp | ..."""
    node = parse_deepregex("~a*")
    assert isinstance(node, Repeat) and isinstance(node.item, Complement)


def test_deepregex_macros_and_placeholders_expand() -> None:
    assert check("<M0>.*<NUM>", "dog.*[0-9]", "deepregex").verdict == "equivalent"
    assert check("<VOW>", "[AEIOUaeiou]", "deepregex").verdict == "equivalent"


def test_deepregex_b_is_a_word_boundary() -> None:
    result = check(".*\\bdance\\b.*", ".*dance.*", "deepregex")
    assert result.verdict == "refuted"
    assert result.counterexample == {"string": "adance", "oracle_matches": False,
                                     "candidate_matches": True}


def test_deepregex_intersection_below_union() -> None:
    assert check("a|b&c", "a|(b&c)", "deepregex").verdict == "equivalent"


@pytest.mark.parametrize(("pattern", "feature"), [
    ("(a)\\1", "backreference"), ("(?=a)a", "lookahead"), ("(?<!a)b", "lookbehind"),
    ("a*+", "possessive"), ("(?i)a", "inline flags"), ("(?>a)", "atomic")])
def test_python_non_regular_features_are_invalid(pattern: str, feature: str) -> None:
    result = check("a", pattern)
    assert result.verdict == "invalid"
    assert feature in result.reason


@pytest.mark.parametrize(("syntax", "text"), [
    ("python", "[a-"), ("python", "a{3,2}"), ("python", "(a"), ("deepregex", "(a"),
    ("deepregex", "a{x}"), ("deepregex", "<WORD>"), ("deepregex", "*a"), ("python", "a\nb")])
def test_unparseable_candidates_are_invalid(syntax: str, text: str) -> None:
    assert check("a", text, syntax).verdict == "invalid"


# --------------------------------------------------------------------------- decisions


@pytest.mark.parametrize(("syntax", "oracle", "candidate"), [
    ("python", "(a|b)*", "(a*b*)*"),
    ("python", "a{2,3}", "aa|aaa"),
    ("python", "^[a-z]+$", "[a-z]+"),
    ("python", "\\d+", "[0-9]+"),
    ("python", "\\bfoo\\b", "foo"),
    ("python", "a(b|c)", "ab|ac"),
    ("python", "(?P<x>ab)+?", "(ab)+"),
    ("deepregex", "~(.*e.*)", "[^e]*"),
    ("deepregex", "(.*a.*)&(.*b.*)", ".*(a.*b|b.*a).*"),
    ("deepregex", "(.*[0-9].*){5,}", "(.*[0-9]){5}.*"),
    ("deepregex", "@", "~#"),
])
def test_equivalent_pairs(syntax: str, oracle: str, candidate: str) -> None:
    assert check(oracle, candidate, syntax).verdict == "equivalent"


@pytest.mark.parametrize(("syntax", "oracle", "candidate", "shortest"), [
    ("python", "a{2,3}", "aa|aaaa", "aaa"),
    ("python", "a{3}", "a{3,}", "aaaa"),
    ("python", "[a-z]*", "[a-z]+", ""),
    ("python", "\\d{5}(-\\d{4})?", "\\d{5}-?(\\d{4})?", "00000-"),
    ("deepregex", "(.*[0-9].*){5,}", "(.*[0-9]){4}.*", "0000"),
    ("deepregex", ".*dog.*", "dog", "adog"),
])
def test_refutations_carry_a_shortest_string(syntax: str, oracle: str, candidate: str,
                                             shortest: str) -> None:
    result = check(oracle, candidate, syntax)
    assert result.verdict == "refuted"
    assert isinstance(result.counterexample, dict)
    assert result.counterexample["string"] == shortest


def test_minimal_dfa_of_the_dragon_book_example() -> None:
    """(a|b)*abb has 4 states on {a, b} (Aho et al. §3.9), plus a sink for other characters."""
    terms = Terms()
    dfa = minimise(build_dfa(terms, terms.from_node(parse_python("(a|b)*abb"))))
    assert len(dfa.delta) == 5
    assert dfa.accepts("babb") and not dfa.accepts("abba")


# --------------------------------------------------------------------------- soundness

ALPHABET = "ab _"
"""Test strings: two letters, a non-word character and a word character for boundaries."""


def regexes(syntax: str) -> st.SearchStrategy[str]:
    """Small regexes over ALPHABET, every construct of ``syntax`` (DeepRegex adds ~ and &)."""
    group = "(?:{})" if syntax == "python" else "({})"
    atoms = st.sampled_from(["a", "b", "[ab]", "[^a]", ".", " ", "\\b"])

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        g = inner.map(group.format)
        options = [
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda p: group.format(p[0] + "|" + p[1])),
            g.map(lambda r: r + "*"), g.map(lambda r: r + "+"), g.map(lambda r: r + "?"),
            st.tuples(g, st.integers(0, 2), st.integers(0, 2)).map(
                lambda t: f"{t[0]}{{{min(t[1], t[2])},{max(t[1], t[2])}}}"),
        ]
        if syntax == "deepregex":
            options += [g.map(lambda r: "~" + r),
                        st.tuples(g, g).map(lambda p: group.format(p[0] + "&" + p[1]))]
        return st.one_of(options)

    return st.recursive(atoms, extend, max_leaves=6)


def semantics(syntax: str, text: str) -> Callable[[str], bool]:
    """How a regex really matches: Python's re, or (DeepRegex) the span matcher."""
    if syntax == "python":
        return lambda s: re.fullmatch(text, s) is not None
    node = parse_deepregex(text)
    return lambda s: fullmatch(node, s)


SLOW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(regexes("python"), st.lists(st.sampled_from(ALPHABET), max_size=6).map("".join))
def test_automaton_and_span_matcher_agree_with_re(pattern: str, text: str) -> None:
    terms = Terms()
    node = parse_python(pattern)
    expected = re.fullmatch(pattern, text) is not None
    assert minimise(build_dfa(terms, terms.from_node(node))).accepts(text) == expected
    assert fullmatch(node, text) == expected


def assert_sound(syntax: str, oracle: str, candidate: str, result: Outcome) -> None:
    matches_oracle, matches_candidate = semantics(syntax, oracle), semantics(syntax, candidate)
    if result.verdict == "refuted":
        assert isinstance(result.counterexample, dict)
        witness = str(result.counterexample["string"])
        assert matches_oracle(witness) != matches_candidate(witness)
    elif result.verdict == "equivalent":
        for s in words(ALPHABET, 4):
            assert matches_oracle(s) == matches_candidate(s), s
    else:
        pytest.fail(f"unexpected {result.verdict}: {result.reason}")


@SLOW
@given(st.sampled_from(["python", "deepregex"]).flatmap(
    lambda syntax: st.tuples(st.just(syntax), regexes(syntax), regexes(syntax))))
def test_verdicts_on_random_pairs_are_sound(case: tuple[str, str, str]) -> None:
    syntax, oracle, candidate = case
    assert_sound(syntax, oracle, candidate, check(oracle, candidate, syntax))


REWRITES: list[tuple[str, Callable[[str, str], tuple[str, str]]]] = [
    ("(r|s)* = (r*s*)*", lambda r, s: (f"(?:{r}|{s})*", f"(?:(?:{r})*(?:{s})*)*")),
    ("r{2,3} = rr|rrr", lambda r, s: (f"(?:{r}){{2,3}}", f"(?:{r})(?:{r})|(?:{r})(?:{r})(?:{r})")),
    ("r(s|t) = rs|rt", lambda r, s: (f"(?:{r})(?:{s}|a)", f"(?:{r})(?:{s})|(?:{r})a")),
    ("r|s = s|r", lambda r, s: (f"{r}|{s}", f"{s}|{r}")),
    ("(r*)* = r*", lambda r, s: (f"(?:(?:{r})*)*", f"(?:{r})*")),
    ("r+ = rr*", lambda r, s: (f"(?:{r})+", f"(?:{r})(?:{r})*")),
    ("r? = (|r)", lambda r, s: (f"(?:{r})?", f"(?:|{r})")),
    ("^r$ = r", lambda r, s: (f"^(?:{r})$", f"(?:{r})")),
]


@SLOW
@given(st.sampled_from(REWRITES), regexes("python"), regexes("python"))
def test_rewrites_are_equivalent(rewrite: tuple[str, Any], r: str, s: str) -> None:
    oracle, candidate = rewrite[1](r, s)
    assert check(oracle, candidate).verdict == "equivalent", rewrite[0]


DEEPREGEX_REWRITES: list[tuple[str, Callable[[str, str], tuple[str, str]]]] = [
    ("~(~r|~s) = r&s", lambda r, s: (f"~(~({r})|~({s}))", f"({r})&({s})")),
    ("~~r = r", lambda r, s: (f"~(~({r}))", r)),
    ("r&r = r", lambda r, s: (f"({r})&({r})", r)),
    ("r&~r = #", lambda r, s: (f"({r})&~({r})", "#")),
]


@SLOW
@given(st.sampled_from(DEEPREGEX_REWRITES), regexes("deepregex"), regexes("deepregex"))
def test_deepregex_boolean_laws_are_equivalent(rewrite: tuple[str, Any], r: str, s: str) -> None:
    oracle, candidate = rewrite[1](r, s)
    assert check(oracle, candidate, "deepregex").verdict == "equivalent", rewrite[0]


MUTATIONS: list[tuple[str, str, str]] = [
    ("a bound", "(?:{r}){{2,3}}", "(?:{r}){{2,4}}"),
    ("an anchor", "x(?:{r})", "x\\b(?:{r})"),
    ("an optional group", "x(?:{r})?", "x(?:{r})"),
    ("a class", "[ab](?:{r})", "[a](?:{r})"),
]


@SLOW
@given(st.sampled_from(MUTATIONS), regexes("python"))
def test_mutations_are_refuted_when_they_change_the_language(mutation: tuple[str, str, str],
                                                             r: str) -> None:
    _, before, after = mutation
    oracle, candidate = before.format(r=r), after.format(r=r)
    result = check(oracle, candidate)
    differs = any((re.fullmatch(oracle, s) is None) != (re.fullmatch(candidate, s) is None)
                  for s in words(ALPHABET + "x", 4))
    if differs:
        assert result.verdict == "refuted"
    assert_sound("python", oracle, candidate, result)


# --------------------------------------------------------------------------- limits


@pytest.mark.parametrize(("syntax", "oracle", "candidate"), [
    ("python", "(a|b)*a(a|b){20}", "(a|b)*a(a|b){20}b*"),
    ("python", "(.{0,40}x){10}", ".*"),
    ("deepregex", "(.*a.*){60}&(.*b.*){60}", "(.*a.*){60}&(.*b.*){59}&(.*c.*){30}"),
])
def test_state_explosion_ends_unknown_within_the_timeout(syntax: str, oracle: str,
                                                         candidate: str) -> None:
    start = time.monotonic()
    result = check(oracle, candidate, syntax, seconds=1.0)
    assert time.monotonic() - start < 3.0
    assert result.verdict == "unknown"
    assert result.reason.startswith(("state limit", "time limit"))


@pytest.mark.parametrize("candidate", ["a{100001}", "(" * 300 + "a" + ")" * 300,
                                       "a" * 10_001])
def test_oversized_candidates_hit_the_state_limit(candidate: str) -> None:
    result = check("a", candidate)
    assert (result.verdict, result.reason.split(":")[0]) == ("unknown", "state limit")


# --------------------------------------------------------------------------- tasks and verifier


def regex_tasks() -> list[tasks.Entry]:
    text = (resources.files("speckernel_respec") / "tasks" / "regex.yaml").read_text()
    return tasks.parse_team_file("regex", text, "regex.yaml")


def test_there_are_twenty_tasks_in_both_syntaxes() -> None:
    entries = regex_tasks()
    assert len(entries) >= 20
    assert {e.facts["syntax"] for e in entries} == {"python", "deepregex"}


@pytest.mark.parametrize("entry", regex_tasks(), ids=lambda e: e.name)
def test_every_oracle_is_equivalent_to_itself_regrouped(entry: tasks.Entry) -> None:
    syntax = str(entry.facts["syntax"])
    regrouped = f"(?:{entry.oracle})" if syntax == "python" else f"({entry.oracle})"
    assert check(entry.oracle, regrouped, syntax).verdict == "equivalent"


@pytest.mark.anyio
async def test_verifier_verdicts(make_ctx: Callable[..., Any]) -> None:
    task = Task("regex/dog", "respec", metadata={"oracle": ".*dog.*",
                                                "facts": {"syntax": "deepregex"}})
    verifier = RegexVerifier()
    good = await verifier.verify(Candidate({"spec.re": "(.*)dog(.*)\n"}, Provenance("t", "m")),
                                 task, make_ctx())
    assert good.status is Status.SUCCESS and good.data["verdict"] == "equivalent"
    missing = await verifier.verify(Candidate({}, Provenance("t", "m")), task, make_ctx())
    assert missing.status is Status.FAILURE and missing.data["verdict"] == "invalid"
    assert set(good.data) == {"verdict", "counterexample", "reason", "bounded", "bound",
                              "seconds"}
