"""The RegEx domain: a candidate regex is equivalent to the oracle iff their languages over
printable ASCII are equal (RESpecBench's regex track, after DeepRegex's DFA-equivalence check,
Locascio et al. 2016).

The task's ``facts["syntax"]`` says whether both regexes are written in the DeepRegex (dk.brics)
syntax or in Python ``re`` syntax (:mod:`regex_syntax`). The decision is exact
(:mod:`automata`): ``equivalent`` when the product of the oracle's minimal DFA and the
candidate's derivative automaton has no state where exactly one accepts; otherwise ``refuted``
with a shortest distinguishing string, re-checked by matching both regexes against it
(``re.fullmatch`` for Python syntax, the span matcher of :mod:`regex_match` for DeepRegex).

The verdict is never ``unknown`` except when a documented resource cap is hit: 200,000 DFA or
product states, 400,000 derivative terms, repetition bounds above 100,000, nesting deeper than
200 groups, regexes longer than 10,000 characters (reason "state limit: ..."), or the check's
``timeout_s`` (reason "time limit: ..."). A candidate that does not parse, or that uses a
non-regular feature (backreference, lookaround), is ``invalid``.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Task, Verdict

from speckernel_respec.domains import outcome
from speckernel_respec.domains.automata import (
    MAX_STATES,
    Dfa,
    LimitExceeded,
    Terms,
    build_dfa,
    distinguishing_string,
    matches,
    minimise,
)
from speckernel_respec.domains.outcome import Outcome
from speckernel_respec.domains.regex_match import fullmatch
from speckernel_respec.domains.regex_syntax import (
    Node,
    RegexSyntaxError,
    TooLarge,
    Unsupported,
    parse_deepregex,
    parse_python,
)

SPEC_FILE = "spec.re"

PARSERS: dict[str, Callable[[str], Node]] = {"deepregex": parse_deepregex,
                                             "python": parse_python}
"""The syntaxes a task's ``facts["syntax"]`` may name."""

RECHECK_SPANS = 256
"""Longest distinguishing string re-checked with the span matcher (cubic in the length)."""

RECHECK_RE = 16
"""Longest distinguishing string also given to ``re.fullmatch`` (exponential backtracking)."""

_ORACLE_CACHE_SIZE = 512
_MAX_STORE = 2_000_000


@attrs.frozen
class _Oracle:
    node: Node
    dfa: Dfa


class RegexChecker:
    """Decides regex equivalence; keeps one term store and the minimal DFAs of recent oracles.

    Thread-safe: checks are serialised by a lock (they are CPU-bound, so nothing is lost).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._terms = Terms()
        self._oracles: OrderedDict[tuple[str, str], _Oracle] = OrderedDict()

    def check(self, oracle: str, candidate: str, syntax: str, seconds: float) -> Outcome:
        """The verdict on ``candidate`` against ``oracle``, both in ``syntax``."""
        parse = PARSERS.get(syntax)
        if parse is None:
            return outcome.unknown(f"task names unknown regex syntax {syntax!r}")
        if "\n" in candidate.strip("\r\n"):
            return outcome.invalid("the regex spans several lines")
        candidate = candidate.strip("\r\n")
        try:
            cand_node = parse(candidate)
        except (RegexSyntaxError, Unsupported) as exc:
            return outcome.invalid(f"{syntax} regex: {exc}")
        except TooLarge as exc:
            return outcome.unknown(f"state limit: {exc}")
        if candidate == oracle:
            return outcome.equivalent("the regexes are identical")
        with self._lock:
            try:
                return self._decide(oracle, candidate, cand_node, syntax, seconds)
            except LimitExceeded as exc:
                return outcome.unknown(str(exc))
            except RecursionError:
                return outcome.unknown("state limit: expression nested too deeply")

    def _decide(self, oracle_text: str, candidate: str, cand_node: Node, syntax: str,
                seconds: float) -> Outcome:
        if self._terms.size() > _MAX_STORE:
            self._terms = Terms()
        with self._terms.budget(seconds):
            oracle = self._oracle(oracle_text, syntax)
            witness = distinguishing_string(self._terms, oracle.dfa,
                                            self._terms.from_node(cand_node))
        if witness is None:
            return outcome.equivalent(
                f"equal languages (minimal oracle DFA: {len(oracle.dfa.delta)} states)")
        verdicts = _recheck(syntax, (oracle_text, oracle.node), (candidate, cand_node), witness)
        if verdicts is None:
            return outcome.unknown(f"internal error: distinguishing string {witness!r} did not "
                                   "re-check")
        in_oracle, in_candidate = verdicts
        side = "oracle" if in_oracle else "candidate"
        return outcome.refuted(
            f"the {side} matches {witness!r} and the other does not",
            {"string": witness, "oracle_matches": in_oracle, "candidate_matches": in_candidate})

    def _oracle(self, text: str, syntax: str) -> _Oracle:
        key = (syntax, text)
        cached = self._oracles.get(key)
        if cached is not None:
            self._oracles.move_to_end(key)
            return cached
        try:
            node = PARSERS[syntax](text)
        except (RegexSyntaxError, Unsupported, TooLarge) as exc:
            raise LimitExceeded(f"oracle is not a supported {syntax} regex: {exc}") from None
        entry = _Oracle(node, minimise(build_dfa(self._terms, self._terms.from_node(node))))
        self._oracles[key] = entry
        if len(self._oracles) > _ORACLE_CACHE_SIZE:
            self._oracles.popitem(last=False)
        return entry


def _recheck(syntax: str, oracle: tuple[str, Node], candidate: tuple[str, Node],
             witness: str) -> tuple[bool, bool] | None:
    """Whether the oracle and the candidate match ``witness``, by evaluation independent of the
    DFAs: the span matcher up to RECHECK_SPANS characters (beyond, direct derivative matching
    in a fresh term store), and also ``re.fullmatch`` for Python syntax up to RECHECK_RE
    characters (backtracking is exponential, so longer strings are not given to ``re``).
    None if the two regexes do not disagree on ``witness`` or the matchers disagree."""
    results: list[bool] = []
    for text, node in (oracle, candidate):
        if len(witness) <= RECHECK_SPANS:
            found = fullmatch(node, witness)
        else:
            terms = Terms()
            found = matches(terms, terms.from_node(node), witness)
        if syntax == "python" and len(witness) <= RECHECK_RE and (
                re.fullmatch(text, witness) is not None) != found:
            return None
        results.append(found)
    return (results[0], results[1]) if results[0] != results[1] else None


class RegexVerifier(Verifier):
    """``respec.regex``: DFA equivalence of the candidate's ``spec.re`` with the oracle."""

    name = "respec.regex"
    version = "1"
    description = (f"regex language equality by minimal DFA product search (state cap "
                   f"{MAX_STATES}); refutations carry a shortest distinguishing string")

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        return await outcome.verify(self.name, SPEC_FILE, check_task, candidate, task, ctx)


CHECKER = RegexChecker()
"""The checker of this process: in a kernel worker it keeps the oracles' DFAs between checks."""


def check_task(oracle: str, candidate: str, facts: Any, seconds: float) -> Outcome:
    """The check of a task whose ``facts["syntax"]`` names the regex syntax."""
    syntax = facts.get("syntax") if isinstance(facts, dict) else None
    return CHECKER.check(oracle, candidate, str(syntax), seconds)
