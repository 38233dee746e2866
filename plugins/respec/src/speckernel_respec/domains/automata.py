"""Deterministic automata for regex equivalence over the alphabet SIGMA.

Construction: Brzozowski derivatives (Brzozowski 1964, "Derivatives of regular expressions")
extended with zero-width anchors. Terms are hash-consed and kept in a normal form (``|`` and
``&`` flattened, sorted and deduplicated, character sets merged, ``ε``/``∅`` absorbed), which
makes the set of derivatives of a term finite, so exploring them *is* the subset construction:
every term is one DFA state. Complement and intersection are native (``∂(~r) = ~∂r``,
``∂(r&s) = ∂r & ∂s``), so no separate product construction is needed for DeepRegex ``~``/``&``.

Anchors (``^ $ \\b \\B``) depend on the neighbouring characters, which only matter through their
class: start/end of string, word character, other character. A term's emptiness is therefore a
set of (previous, next) context pairs (:func:`Terms.nullable_at`), and a DFA state is a term plus
the class of the character read last (dropped for terms without anchors).

Decision: the oracle's DFA is built once and minimised (Hopcroft 1971, partition refinement),
then explored in lock-step with the candidate's derivatives (the product automaton); a
breadth-first search finds a state where exactly one side accepts, and its path is a *shortest*
distinguishing string. The alphabet is split into minterms — the coarsest partition of SIGMA
that every character set of either regex respects — and one representative character per
minterm stands for all of them.

Limits: :data:`MAX_STATES` DFA/product states and :data:`MAX_TERMS` new terms per check, and a
wall-clock deadline; exceeding one raises :class:`LimitExceeded` (the verifier's ``unknown``
"state limit" / "time limit").
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import attrs

from speckernel_respec.domains.regex_syntax import (
    SIGMA,
    SIGMA_FIRST,
    SIGMA_LAST,
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

MAX_STATES = 200_000
"""Most states of one DFA or of one product exploration."""

MAX_TERMS = 400_000
"""Most new derivative terms one check may create."""

# Term kinds.
_EMPTY, _EPS, _CHARS, _ANCHOR, _CAT, _OR, _AND, _NOT, _STAR, _REP = range(10)

EMPTY, EPS = 0, 1
"""The ids of the terms ∅ and ε in every store."""

# Context classes: the previous character (0 = start of string) and the next one (0 = end).
_START_OR_END, _WORD, _OTHER = 0, 1, 2
_ALL_CONTEXTS = 0x1FF


def _contexts(pred: Callable[[int, int], bool]) -> int:
    """The 9-bit set of (previous, next) classes satisfying ``pred(previous, next)``."""
    return sum(1 << (p * 3 + n) for p in range(3) for n in range(3) if pred(p, n))


_ANCHOR_CONTEXTS = {
    Anchor.START: _contexts(lambda p, n: p == _START_OR_END),
    Anchor.END: _contexts(lambda p, n: n == _START_OR_END),
    Anchor.BOUNDARY: _contexts(lambda p, n: (p == _WORD) != (n == _WORD)),
    # Python's \B never matches the empty string (both sides are the string's edges).
    Anchor.NOT_BOUNDARY: _contexts(
        lambda p, n: (p == _WORD) == (n == _WORD) and (p, n) != (_START_OR_END, _START_OR_END)),
}

_CLASS = tuple(_WORD if WORD >> c & 1 else _OTHER for c in range(128))
"""The context class a character leaves behind it."""

_SIGMA_CODES = tuple(range(SIGMA_FIRST, SIGMA_LAST + 1))


def _rank(c: int) -> tuple[int, int]:
    """Which character represents a minterm in counterexamples: letters, digits, space, rest."""
    ch = chr(c)
    group = 0 if ch.islower() else 1 if ch.isupper() else 2 if ch.isdigit() else 3
    return group, c


_BY_RANK = tuple(sorted(_SIGMA_CODES, key=_rank))


class LimitExceeded(Exception):
    """A check ran past MAX_STATES, MAX_TERMS or its deadline; ``str()`` says which."""


class _Budget:
    """The resources left to one check."""

    def __init__(self, deadline: float, max_terms: int) -> None:
        self.deadline = deadline
        self.terms_left = max_terms

    def spend_term(self) -> None:
        self.terms_left -= 1
        if self.terms_left < 0:
            raise LimitExceeded(f"state limit: more than {MAX_TERMS} derivative terms")
        if self.terms_left % 1024 == 0:
            self.check_time()

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise LimitExceeded("time limit: the automaton construction ran out of time")


class Terms:
    """A hash-consing store of normalised regex terms and their memoised derivatives.

    Terms are ints; ``EMPTY`` and ``EPS`` are fixed. A store only grows, so a long-lived caller
    should replace it once :meth:`size` gets large. Not thread-safe.
    """

    def __init__(self) -> None:
        self._ids: dict[tuple[object, ...], int] = {}
        self._kind: list[int] = []
        self._sub: list[tuple[int, ...]] = []
        self._num: list[tuple[int, int]] = []
        self._null: list[int] = []
        self._anchored: list[bool] = []
        self._deriv: dict[tuple[int, int, int], int] = {}
        self._budget = _Budget(float("inf"), 1 << 62)
        self._intern(_EMPTY, (), (0, 0), 0, False)
        self._intern(_EPS, (), (0, 0), _ALL_CONTEXTS, False)
        self.any_string = self.star(self.chars(SIGMA))

    def size(self) -> int:
        return len(self._kind) + len(self._deriv)

    @contextmanager
    def budget(self, seconds: float) -> Iterator[None]:
        """Bound the work done inside the block to ``seconds`` and MAX_TERMS new terms."""
        self._budget = _Budget(time.monotonic() + seconds, MAX_TERMS)
        try:
            yield
        finally:
            self._budget = _Budget(float("inf"), 1 << 62)

    def check_time(self) -> None:
        self._budget.check_time()

    # ----------------------------------------------------------------- construction

    def _intern(self, kind: int, sub: tuple[int, ...], num: tuple[int, int], null: int,
                anchored: bool) -> int:
        key = (kind, sub, num)
        found = self._ids.get(key)
        if found is not None:
            return found
        self._budget.spend_term()
        term = len(self._kind)
        self._ids[key] = term
        self._kind.append(kind)
        self._sub.append(sub)
        self._num.append(num)
        self._null.append(null)
        self._anchored.append(anchored)
        return term

    def chars(self, mask: int) -> int:
        mask &= SIGMA
        return self._intern(_CHARS, (), (mask, 0), 0, False) if mask else EMPTY

    def anchor(self, anchor: Anchor) -> int:
        return self._intern(_ANCHOR, (), (_ANCHOR_CONTEXTS[anchor], 0),
                            _ANCHOR_CONTEXTS[anchor], True)

    def cat(self, a: int, b: int) -> int:
        if a == EMPTY or b == EMPTY:
            return EMPTY
        if a == EPS:
            return b
        if b == EPS:
            return a
        if self._kind[a] == _CAT:
            head, tail = self._sub[a]
            return self.cat(head, self.cat(tail, b))
        if a == self.any_string and (b == a or (self._kind[b] == _CAT and self._sub[b][0] == a)):
            return b
        return self._intern(_CAT, (a, b), (0, 0), self._null[a] & self._null[b],
                            self._anchored[a] or self._anchored[b])

    def alt(self, items: Iterable[int]) -> int:
        members: set[int] = set()
        mask = 0
        for t in items:
            for m in self._sub[t] if self._kind[t] == _OR else (t,):
                if m == self.any_string:
                    return m
                if self._kind[m] == _CHARS:
                    mask |= self._num[m][0]
                elif m != EMPTY:
                    members.add(m)
        if mask:
            members.add(self.chars(mask))
        if len(members) > 1:
            self._absorb(members)
        return self._combine(_OR, members, EMPTY)

    def _absorb(self, members: set[int]) -> None:
        """Drop from a union every member ``x·s`` (``x`` any prefix, possibly empty) when the
        union also holds ``Σ*·s``, which contains it. Keeps derivatives of ``.*r.*`` patterns
        from piling up variants of one state."""
        tails = {self._sub[m][1] for m in members
                 if self._kind[m] == _CAT and self._sub[m][0] == self.any_string}
        if not tails:
            return
        for m in list(members):
            suffix = m
            if self._kind[m] == _CAT and self._sub[m][0] == self.any_string:
                suffix = self._sub[m][1]  # Σ*·s absorbs only Σ*·x·s with x non-empty
                if self._kind[suffix] != _CAT:
                    continue
                suffix = self._sub[suffix][1]
            while True:
                if suffix in tails:
                    members.discard(m)
                    break
                if self._kind[suffix] != _CAT:
                    break
                suffix = self._sub[suffix][1]

    def inter(self, items: Iterable[int]) -> int:
        members: set[int] = set()
        mask = -1
        for t in items:
            for m in self._sub[t] if self._kind[t] == _AND else (t,):
                if m == EMPTY:
                    return EMPTY
                if self._kind[m] == _CHARS:
                    mask &= self._num[m][0]
                elif m != self.any_string:
                    members.add(m)
        if mask == 0:
            return EMPTY
        if mask != -1:
            members.add(self.chars(mask))
        return self._combine(_AND, members, self.any_string)

    def _combine(self, kind: int, members: set[int], unit: int) -> int:
        if not members:
            return unit
        if len(members) == 1:
            return members.pop()
        sub = tuple(sorted(members))
        null = 0 if kind == _OR else _ALL_CONTEXTS
        for m in sub:
            null = null | self._null[m] if kind == _OR else null & self._null[m]
        return self._intern(kind, sub, (0, 0), null, any(self._anchored[m] for m in sub))

    def neg(self, a: int) -> int:
        if self._kind[a] == _NOT:
            return self._sub[a][0]
        if a == EMPTY:
            return self.any_string
        if a == self.any_string:
            return EMPTY
        return self._intern(_NOT, (a,), (0, 0), ~self._null[a] & _ALL_CONTEXTS,
                            self._anchored[a])

    def star(self, a: int) -> int:
        if a in (EMPTY, EPS):
            return EPS
        if self._kind[a] == _STAR:
            return a
        return self._intern(_STAR, (a,), (0, 0), _ALL_CONTEXTS, self._anchored[a])

    def repeat(self, a: int, lo: int, hi: int | None) -> int:
        if hi == 0 or a == EPS:
            return EPS
        if a == EMPTY:
            return EPS if lo == 0 else EMPTY
        if lo == 0 and hi is None:
            return self.star(a)
        if lo == hi == 1:
            return a
        null = _ALL_CONTEXTS if lo == 0 else self._null[a]
        return self._intern(_REP, (a,), (lo, -1 if hi is None else hi), null,
                            self._anchored[a])

    def from_node(self, node: Node) -> int:
        """The term of a syntax tree."""
        match node:
            case Chars(mask):
                return self.chars(mask)
            case Assert(anchor):
                return self.anchor(anchor)
            case Seq(items):
                term = EPS
                for item in reversed(items):
                    term = self.cat(self.from_node(item), term)
                return term
            case Alt(items):
                return self.alt([self.from_node(i) for i in items])
            case Inter(items):
                return self.inter([self.from_node(i) for i in items])
            case Complement(item):
                return self.neg(self.from_node(item))
            case Repeat(item, lo, hi):
                return self.repeat(self.from_node(item), lo, hi)
        raise TypeError(f"not a regex node: {node!r}")

    # ----------------------------------------------------------------- semantics

    def is_anchored(self, t: int) -> bool:
        """Whether the term contains an anchor (only then does the previous character matter)."""
        return self._anchored[t]

    def nullable_at(self, t: int, prev: int, nxt: int) -> bool:
        """Whether ``t`` matches the empty string between context classes ``prev`` and ``nxt``."""
        return bool(self._null[t] >> (prev * 3 + nxt) & 1)

    def accepts_here(self, t: int, prev: int) -> bool:
        """Whether ``t`` matches the empty string at the end of the input."""
        return bool(self._null[t] >> (prev * 3) & 1)

    def derive(self, t: int, prev: int, c: int) -> int:
        """The derivative of ``t`` by character code ``c`` read after context class ``prev``."""
        kind = self._kind[t]
        if kind == _CHARS:
            return EPS if self._num[t][0] >> c & 1 else EMPTY
        if kind <= _EPS or kind == _ANCHOR:
            return EMPTY
        key = (t, prev if self._anchored[t] else 0, c)
        found = self._deriv.get(key)
        if found is not None:
            return found
        result = self._derive(kind, t, prev, c)
        self._deriv[key] = result
        return result

    def _derive(self, kind: int, t: int, prev: int, c: int) -> int:
        sub = self._sub[t]
        here = 1 << (prev * 3 + _CLASS[c])
        if kind == _CAT:
            head, tail = sub
            first = self.cat(self.derive(head, prev, c), tail)
            if self._null[head] & here:
                return self.alt((first, self.derive(tail, prev, c)))
            return first
        if kind == _OR:
            return self.alt([self.derive(m, prev, c) for m in sub])
        if kind == _AND:
            return self.inter([self.derive(m, prev, c) for m in sub])
        if kind == _NOT:
            return self.neg(self.derive(sub[0], prev, c))
        if kind == _STAR:
            return self.cat(self.derive(sub[0], prev, c), t)
        # r{lo,hi}: r·r{lo-1,hi-1}; when r may be empty here, earlier copies may be empty too,
        # so the remaining lower bound drops to 0.
        lo, hi = self._num[t]
        rest_lo = 0 if self._null[sub[0]] & here else max(lo - 1, 0)
        rest = self.repeat(sub[0], rest_lo, None if hi < 0 else hi - 1)
        return self.cat(self.derive(sub[0], prev, c), rest)

    def next_context(self, t: int, c: int) -> int:
        """The context a state keeps after reading ``c`` into term ``t``."""
        return _CLASS[c] if self._anchored[t] else _START_OR_END

    def char_sets(self, t: int) -> list[int]:
        """Every character set in ``t`` (plus the word set if ``t`` has anchors)."""
        seen = {t}
        stack = [t]
        masks = {WORD} if self._anchored[t] else set()
        while stack:
            u = stack.pop()
            if self._kind[u] == _CHARS:
                masks.add(self._num[u][0])
            for s in self._sub[u]:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        return sorted(masks)


# --------------------------------------------------------------------------- minterms


def minterms(masks: Iterable[int]) -> tuple[int, ...]:
    """The coarsest partition of SIGMA refining every set of ``masks``, as a tuple mapping each
    code point (0-127) to its block number (-1 outside SIGMA); blocks are numbered by their
    preferred representative (see ``_rank``)."""
    blocks = [SIGMA]
    for mask in masks:
        blocks = [part for b in blocks for part in (b & mask, b & ~mask) if part]
    block_of = [-1] * 128
    number: dict[int, int] = {}
    for c in _BY_RANK:
        b = next(i for i, block in enumerate(blocks) if block >> c & 1)
        block_of[c] = number.setdefault(b, len(number))
    return tuple(block_of)


def representatives(classes: tuple[int, ...]) -> tuple[int, ...]:
    """The preferred character of each block of a :func:`minterms` partition."""
    reps: dict[int, int] = {}
    for c in _BY_RANK:
        reps.setdefault(classes[c], c)
    return tuple(reps[b] for b in range(len(reps)))


# --------------------------------------------------------------------------- DFAs


@attrs.frozen
class Dfa:
    """A complete DFA over SIGMA: ``classes`` maps code points to symbols (minterms), state 0
    is initial, ``delta[q][symbol]`` the successor."""

    classes: tuple[int, ...]
    delta: tuple[tuple[int, ...], ...]
    accepting: tuple[bool, ...]

    def accepts(self, text: str) -> bool:
        q = 0
        for ch in text:
            c = ord(ch)
            if c >= 128 or self.classes[c] < 0:
                return False
            q = self.delta[q][self.classes[c]]
        return self.accepting[q]


def build_dfa(terms: Terms, start: int) -> Dfa:
    """The derivative DFA of term ``start`` (states: distinct (term, context) pairs)."""
    classes = minterms(terms.char_sets(start))
    reps = representatives(classes)
    index = {(start, 0): 0}
    order = [(start, 0)]
    delta: list[tuple[int, ...]] = []
    for t, prev in order:
        if len(order) > MAX_STATES:
            raise LimitExceeded(f"state limit: DFA has more than {MAX_STATES} states")
        terms.check_time()
        row = []
        for c in reps:
            nxt = terms.derive(t, prev, c)
            key = (nxt, terms.next_context(nxt, c))
            q = index.get(key)
            if q is None:
                q = index[key] = len(order)
                order.append(key)
            row.append(q)
        delta.append(tuple(row))
    accepting = tuple(terms.accepts_here(t, prev) for t, prev in order)
    return Dfa(classes, tuple(delta), accepting)


def minimise(dfa: Dfa) -> Dfa:
    """Hopcroft's partition refinement: the minimal DFA of the same language (states numbered
    in breadth-first order from the initial state)."""
    n, k = len(dfa.delta), len(dfa.delta[0])
    preds: list[list[list[int]]] = [[[] for _ in range(n)] for _ in range(k)]
    for q, row in enumerate(dfa.delta):
        for a, r in enumerate(row):
            preds[a][r].append(q)
    blocks = [b for b in ({q for q in range(n) if dfa.accepting[q]},
                          {q for q in range(n) if not dfa.accepting[q]}) if b]
    block_of = [0] * n
    for i, members in enumerate(blocks):
        for q in members:
            block_of[q] = i
    pending = set(range(len(blocks)))
    while pending:
        splitter = list(blocks[pending.pop()])
        for a in range(k):
            hit: dict[int, set[int]] = {}
            for r in splitter:
                for q in preds[a][r]:
                    hit.setdefault(block_of[q], set()).add(q)
            for b, inside in hit.items():
                if len(inside) == len(blocks[b]):
                    continue
                blocks[b] -= inside
                new = len(blocks)
                blocks.append(inside)
                for q in inside:
                    block_of[q] = new
                if b in pending or len(inside) <= len(blocks[b]):
                    pending.add(new)
                else:
                    pending.add(b)
    number = {block_of[0]: 0}
    order = [0]
    for q in order:
        for r in dfa.delta[q]:
            if block_of[r] not in number:
                number[block_of[r]] = len(order)
                order.append(r)
    delta = tuple(tuple(number[block_of[r]] for r in dfa.delta[q]) for q in order)
    return Dfa(dfa.classes, delta, tuple(dfa.accepting[q] for q in order))


def distinguishing_string(terms: Terms, oracle: Dfa, candidate: int) -> str | None:
    """A shortest string accepted by exactly one of ``oracle`` and the term ``candidate``, or
    None if their languages are equal (breadth-first search of the product automaton)."""
    own = minterms(terms.char_sets(candidate))
    joint: dict[tuple[int, int], int] = {}
    for c in _BY_RANK:
        joint.setdefault((oracle.classes[c], own[c]), c)
    symbols = [(oracle_symbol, c) for (oracle_symbol, _), c in joint.items()]
    start = (0, candidate, 0)
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], int] | None] = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        q, t, prev = state
        if oracle.accepting[q] != terms.accepts_here(t, prev):
            return _path(parent, state)
        if len(parent) > MAX_STATES:
            raise LimitExceeded(f"state limit: product automaton has more than {MAX_STATES} "
                                "states")
        terms.check_time()
        row = oracle.delta[q]
        for symbol, c in symbols:
            nxt = terms.derive(t, prev, c)
            succ = (row[symbol], nxt, terms.next_context(nxt, c))
            if succ not in parent:
                parent[succ] = (state, c)
                queue.append(succ)
    return None


def _path(parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], int] | None],
          state: tuple[int, int, int]) -> str:
    chars: list[str] = []
    link = parent[state]
    while link is not None:
        state, c = link
        chars.append(chr(c))
        link = parent[state]
    return "".join(reversed(chars))


def matches(terms: Terms, term: int, text: str) -> bool:
    """Whether ``term`` matches all of ``text`` (derivative by derivative, no DFA)."""
    prev = 0
    for ch in text:
        c = ord(ch)
        if c >= 128 or not SIGMA >> c & 1:
            return False
        term = terms.derive(term, prev, c)
        prev = terms.next_context(term, c)
    return terms.accepts_here(term, prev)
