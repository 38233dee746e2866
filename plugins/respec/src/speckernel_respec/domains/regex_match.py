"""Matching a regex syntax tree against one string, straight from the definitions.

This is the independent re-check of the automata's counterexamples for the DeepRegex syntax
(Python-syntax counterexamples are re-checked with ``re.fullmatch``). It shares nothing with
:mod:`automata` but the syntax tree: each sub-expression denotes the set of spans ``(i, j)`` of
the text it matches, with the characters around the span as the anchors' context, computed
bottom-up (concatenation composes span relations, ``&`` intersects, ``~`` complements within
``i <= j``, repetition iterates). A relation is a list of bit sets, one per start ``i``, bit ``j``
set when ``text[i:j]`` matches. Cost is polynomial in the text length.
"""

from __future__ import annotations

from speckernel_respec.domains.regex_syntax import (
    SIGMA,
    WORD,
    Alt,
    Anchor,
    Assert,
    Chars,
    Complement,
    Inter,
    Node,
    Repeat,
    Seq,
)

Relation = list[int]


def fullmatch(node: Node, text: str) -> bool:
    """Whether ``node`` matches all of ``text``."""
    return bool(_spans(node, text)[0] >> len(text) & 1)


def _compose(first: Relation, second: Relation) -> Relation:
    out = []
    for row in first:
        acc = 0
        while row:
            low = row & -row
            acc |= second[low.bit_length() - 1]
            row ^= low
        out.append(acc)
    return out


def _is_word(text: str, i: int) -> bool:
    return 0 <= i < len(text) and bool(WORD >> ord(text[i]) & 1)


def _holds(anchor: Anchor, text: str, i: int) -> bool:
    n = len(text)
    if anchor is Anchor.START:
        return i == 0
    if anchor is Anchor.END:
        return i == n
    boundary = _is_word(text, i - 1) != _is_word(text, i)
    if anchor is Anchor.BOUNDARY:
        return boundary
    return not boundary and n > 0


def _spans(node: Node, text: str) -> Relation:
    n = len(text)
    identity = [1 << i for i in range(n + 1)]
    match node:
        case Chars(mask):
            return [1 << (i + 1) if i < n and (mask & SIGMA) >> ord(text[i]) & 1 else 0
                    for i in range(n + 1)]
        case Assert(anchor):
            return [1 << i if _holds(anchor, text, i) else 0 for i in range(n + 1)]
        case Seq(items):
            rel = identity
            for item in items:
                rel = _compose(rel, _spans(item, text))
            return rel
        case Alt(items):
            rels = [_spans(item, text) for item in items]
            return [_fold_or(row) for row in zip(*rels, strict=True)]
        case Inter(items):
            rels = [_spans(item, text) for item in items]
            return [_fold_and(row) for row in zip(*rels, strict=True)]
        case Complement(item):
            full = (1 << (n + 1)) - 1
            return [full & ~((1 << i) - 1) & ~row for i, row in enumerate(_spans(item, text))]
        case Repeat(item, lo, hi):
            return _repeat(_spans(item, text), lo, hi, n)
    raise TypeError(f"not a regex node: {node!r}")


def _fold_or(rows: tuple[int, ...]) -> int:
    acc = 0
    for row in rows:
        acc |= row
    return acc


def _fold_and(rows: tuple[int, ...]) -> int:
    acc = -1
    for row in rows:
        acc &= row
    return acc


def _repeat(rel: Relation, lo: int, hi: int | None, n: int) -> Relation:
    """Spans of ``lo``-``hi`` copies: ``R^lo ∘ (I | R)^(hi-lo)``. A span holds at most ``n``
    non-empty copies, so exactly-k copies match the same spans for every ``k > n`` and bounds
    are clamped to ``n + 1``; powers are taken by repeated squaring."""
    lo = min(lo, n + 1)
    extra = n + 1 if hi is None else min(hi, n + 1) - lo
    optional = [(1 << i) | row for i, row in enumerate(rel)]
    return _compose(_power(rel, lo, n), _power(optional, max(extra, 0), n))


def _power(rel: Relation, k: int, n: int) -> Relation:
    result = [1 << i for i in range(n + 1)]
    while k:
        if k & 1:
            result = _compose(result, rel)
        k >>= 1
        if k:
            rel = _compose(rel, rel)
    return result
