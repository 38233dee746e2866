"""Specifications that verify because they assume what they should prove (issue 15, 2).

A deductive proof of ``requires P; ensures Q`` says nothing when ``P`` cannot hold: ``requires
false`` verifies any postcondition, and so does a class invariant ``false`` (it is assumed on
entry) or an ``assume false`` in the body (KeY, like OpenJML, takes an ``assume`` for granted).
FormalBench counts such specs as successes; this plugin refuses them with the
``VacuousSpecification`` category, in two layers:

- here, before any prover runs, on the JML text: every ``assume`` statement and every ``axiom``
  (they add unproved facts whatever their content), and ``requires``/``invariant`` clauses that
  are literally false;
- in the KeY driver, after a contract is proved: its whole precondition (requires clauses, class
  invariants, implicit assumptions) refuted by KeY alone, or together with each of the task's test
  inputs (:mod:`speckernel_jml.testinputs`, ``java/KeyCheck.java``).

Annotation comments are recognised as KeY and the JML reference manual (§4.4) do, keys included
(``//+KeY@``, ``/*-OpenJML@ ... @*/``), on the text after Unicode-escape translation: a comment
that is JML to any tool is read here, even one a key switches off for KeY.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from speckernel.lines import split_lines

from speckernel_jml.javasource import Token, tokenize

_MARKER = re.compile(r"^(?://|/\*)[+\-\w]*@+")
_ALWAYS_ASSUMED = {
    "assume": "an assume statement is taken for granted by the prover, not checked",
    "assume_redundantly": "an assume statement is taken for granted by the prover, not checked",
    "axiom": "an axiom is taken for granted by the prover, not checked",
}
_ASSUMED_CLAUSES = frozenset({"requires", "requires_redundantly", "pre", "pre_redundantly",
                              "invariant", "invariant_redundantly"})
_STATEMENT_START = frozenset({";", "{", "}"})
_MODIFIERS = frozenset({"public", "private", "protected", "static", "instance", "final",
                        "model", "ghost", "spec_public", "spec_protected"})


def annotation_text(comment: str) -> str:
    """The JML inside an annotation comment: without ``//@`` / ``/*@ ... @*/`` (and keys), and
    without the ``@`` signs that start continuation lines. A line ends where Java ends it, at
    ``\\r`` too: split at ``\\n`` alone, ``ghost int y = 0;<CR> @ assume false;`` kept its ``@``
    and the ``assume`` was not seen to start a statement."""
    body = _MARKER.sub("", comment, count=1)
    if comment.startswith("/*"):
        body = re.sub(r"@*\*/$", "", body)
    return "\n".join(re.sub(r"^\s*@+", " ", line) for line in split_lines(body))


def _is_false(tokens: Sequence[Token]) -> bool:
    """Whether an expression is the literal ``false`` (parenthesised or negated ``true``)."""
    items = [t.text for t in tokens]
    while len(items) >= 2 and items[0] == "(" and items[-1] == ")":
        items = items[1:-1]
    if items == ["false"]:
        return True
    if items[:1] == ["!"]:
        rest = items[1:]
        while len(rest) >= 2 and rest[0] == "(" and rest[-1] == ")":
            rest = rest[1:-1]
        return rest == ["true"]
    return False


def vacuous_annotation(comment: str) -> str | None:
    """Why one annotation comment makes a specification vacuous, or None. An ``@`` is skipped
    wherever it stands: KeY ignores one inside a line too, and ``ghost int y = 0; @ assume
    false;`` proved ``ensures \\result == 12345`` with the ``@`` hiding the statement's start."""
    tokens = [t for t in tokenize(annotation_text(comment))
              if not t.is_comment and t.text != "@"]
    previous: Token | None = None
    for index, token in enumerate(tokens):
        starts_statement = previous is None or previous.text in _STATEMENT_START \
            or previous.text in _MODIFIERS
        if token.kind == "word" and starts_statement and token.text in _ALWAYS_ASSUMED:
            return f"`{token.text}`: {_ALWAYS_ASSUMED[token.text]}"
        if token.kind == "word" and token.text in _ASSUMED_CLAUSES and (
                previous is None or previous.text != "."):
            end = next((i for i in range(index + 1, len(tokens)) if tokens[i].text == ";"),
                       len(tokens))
            if _is_false(tokens[index + 1:end]):
                return (f"`{token.text} false`: a clause assumed false makes every "
                        "postcondition provable")
        previous = token
    return None


def vacuity_reason(source: str) -> str | None:
    """Why ``source``'s JML is vacuous on its face (see the module docstring), or None."""
    for token in tokenize(source):
        if token.is_jml:
            reason = vacuous_annotation(token.text)
            if reason is not None:
                return f"line {token.line}: {reason}"
    return None
