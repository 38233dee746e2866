# ruff: noqa: RUF001, RUF002 -- FOLIO notation is made of Unicode logical symbols
"""The FOLIO first-order formula language: tokens, abstract syntax, parser and signature.

FOLIO (Han et al., 2022; RESpecBench §3.4) writes its ``premises-FOL`` and ``conclusion-FOL``
fields in Unicode notation. The grammar below is the one those fields use, with the ASCII
spellings an author (or a model) is likely to type::

    formula  := iff
    iff      := implies (IFF implies)*          ↔ ⟷ ⇔ <-> <=>     (associative)
    implies  := xor (IMPLIES implies)?          → ⇒ -> =>          (right-associative)
    xor      := or (XOR or)*                    ⊕ ^                (associative)
    or       := and (OR and)*                   ∨ | ||  \\/
    and      := unary (AND unary)*              ∧ & && /\\
    unary    := NOT unary | QUANT NAME ['.'] unary | primary
                                                ¬ ~ !   ∀ forall   ∃ exists
    primary  := '(' formula ')' | NAME '(' term (',' term)* ')' | term ('=' | '≠' | '!=') term
              | NAME                            (a 0-ary predicate)
    term     := NAME

So ``¬`` and the quantifiers bind tightest: a quantifier scopes over the atom, negation,
quantifier or parenthesised formula right after it (FOLIO always writes ``∀x (...)``). A
variable used outside its quantifier's scope is therefore free, and a name used both as a bound
variable and free is rejected, which catches ``∀x P(x) → Q(x)`` instead of guessing a scope.
Names are Unicode words that may contain an apostrophe between letters (``Companies’Stocks``),
a hyphen between word characters (``Science-fiction``, ``gpt-3``; never the ``-`` of ``->``)
and a decimal point between digits (``y42.3billion``). Function symbols do not occur in FOLIO
and are not part of the language; free names are constants.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping

import attrs

MAX_LENGTH = 20_000
"""Longer formula texts are rejected before parsing (no FOLIO formula exceeds 300 characters)."""


class ParseError(ValueError):
    """A formula that is not in the language; ``column`` is 1-based."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message if column is None else f"column {column}: {message}")
        self.column = column


# --------------------------------------------------------------------------- abstract syntax


class Connective(enum.Enum):
    AND = "∧"
    OR = "∨"
    XOR = "⊕"
    IMPLIES = "→"
    IFF = "↔"


class Quantifier(enum.Enum):
    FORALL = "∀"
    EXISTS = "∃"


@attrs.frozen
class Var:
    name: str


@attrs.frozen
class Const:
    name: str


Term = Var | Const


@attrs.frozen
class Atom:
    """``predicate(args...)``; a 0-ary predicate has no arguments."""

    predicate: str
    args: tuple[Term, ...]


@attrs.frozen
class Equals:
    left: Term
    right: Term


@attrs.frozen
class Not:
    body: Formula


@attrs.frozen
class Binary:
    op: Connective
    left: Formula
    right: Formula


@attrs.frozen
class Quantified:
    quantifier: Quantifier
    variable: str
    body: Formula


Formula = Atom | Equals | Not | Binary | Quantified


@attrs.frozen
class Signature:
    """The non-logical symbols of a formula: predicate arities and constant names."""

    predicates: Mapping[str, int]
    constants: frozenset[str]

    def union(self, other: Signature) -> Signature:
        """Both signatures together; ``ParseError`` if a predicate has two arities."""
        merged = dict(self.predicates)
        for name, arity in other.predicates.items():
            if merged.setdefault(name, arity) != arity:
                raise ParseError(f"predicate {name} has arity {merged[name]} and {arity}")
        return Signature(merged, self.constants | other.constants)


def show(formula: Formula) -> str:
    """The formula in fully parenthesised FOLIO notation (re-parses to the same tree)."""
    match formula:
        case Atom(predicate, ()):
            return predicate
        case Atom(predicate, args):
            return f"{predicate}({', '.join(t.name for t in args)})"
        case Equals(left, right):
            return f"{left.name} = {right.name}"
        case Not(body):
            return f"¬{show(body)}"
        case Binary(op, left, right):
            return f"({show(left)} {op.value} {show(right)})"
        case Quantified(quantifier, variable, body):
            return f"{quantifier.value}{variable} {show(body)}"


# --------------------------------------------------------------------------- tokens


class Kind(enum.Enum):
    NAME = "name"
    LPAREN = "("
    RPAREN = ")"
    COMMA = ","
    DOT = "."
    EQ = "="
    NEQ = "≠"
    NOT = "¬"
    QUANT = "quantifier"
    BINARY = "connective"
    END = "end of formula"


@attrs.frozen
class Token:
    kind: Kind
    text: str
    column: int


_SYMBOLS: tuple[tuple[str, Kind, Connective | Quantifier | None], ...] = (
    ("<->", Kind.BINARY, Connective.IFF), ("<=>", Kind.BINARY, Connective.IFF),
    ("->", Kind.BINARY, Connective.IMPLIES), ("=>", Kind.BINARY, Connective.IMPLIES),
    ("&&", Kind.BINARY, Connective.AND), ("/\\", Kind.BINARY, Connective.AND),
    ("||", Kind.BINARY, Connective.OR), ("\\/", Kind.BINARY, Connective.OR),
    ("!=", Kind.NEQ, None), ("≠", Kind.NEQ, None), ("=", Kind.EQ, None),
    ("↔", Kind.BINARY, Connective.IFF), ("⟷", Kind.BINARY, Connective.IFF),
    ("⇔", Kind.BINARY, Connective.IFF),
    ("→", Kind.BINARY, Connective.IMPLIES), ("⇒", Kind.BINARY, Connective.IMPLIES),
    ("⊕", Kind.BINARY, Connective.XOR), ("^", Kind.BINARY, Connective.XOR),
    ("∨", Kind.BINARY, Connective.OR), ("|", Kind.BINARY, Connective.OR),
    ("∧", Kind.BINARY, Connective.AND), ("&", Kind.BINARY, Connective.AND),
    ("¬", Kind.NOT, None), ("~", Kind.NOT, None), ("!", Kind.NOT, None),
    ("∀", Kind.QUANT, Quantifier.FORALL), ("∃", Kind.QUANT, Quantifier.EXISTS),
    ("(", Kind.LPAREN, None), (")", Kind.RPAREN, None), (",", Kind.COMMA, None),
    (".", Kind.DOT, None),
)
_KEYWORDS = {"forall": Quantifier.FORALL, "exists": Quantifier.EXISTS}
_NAME = re.compile(r"[^\W]+(?:['’][^\W]+|-(?!>)[^\W]+|(?<=\d)\.\d[^\W]*)*")
_MEANING: dict[str, Connective | Quantifier] = {
    **{text: meaning for text, _, meaning in _SYMBOLS if meaning is not None}, **_KEYWORDS}


def tokenize(text: str) -> Iterator[Token]:
    """The tokens of ``text``, ending with an END token."""
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        name = _NAME.match(text, i)
        if name:
            word = name.group()
            kind = Kind.QUANT if word in _KEYWORDS else Kind.NAME
            yield Token(kind, word, i + 1)
            i = name.end()
            continue
        for symbol, kind, _ in _SYMBOLS:
            if text.startswith(symbol, i):
                yield Token(kind, symbol, i + 1)
                i += len(symbol)
                break
        else:
            raise ParseError(f"unexpected character {text[i]!r}", i + 1)
    yield Token(Kind.END, "", len(text) + 1)


# --------------------------------------------------------------------------- parser


_LEVELS = (Connective.IFF, Connective.IMPLIES, Connective.XOR, Connective.OR, Connective.AND)


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = list(tokenize(text))
        self.pos = 0
        self.bound: list[str] = []
        self.bound_names: set[str] = set()
        self.free_names: dict[str, int] = {}

    @property
    def peek(self) -> Token:
        return self.tokens[self.pos]

    def take(self, kind: Kind) -> Token:
        token = self.peek
        if token.kind is not kind:
            found = repr(token.text) if token.text else token.kind.value
            raise ParseError(f"expected {kind.value}, found {found}", token.column)
        self.pos += 1
        return token

    def accept(self, kind: Kind) -> bool:
        """Consume the next token if it is of ``kind``."""
        if self.peek.kind is kind:
            self.pos += 1
            return True
        return False

    def at(self, op: Connective) -> bool:
        return self.peek.kind is Kind.BINARY and _MEANING[self.peek.text] is op

    def binary(self, level: int) -> Formula:
        if level == len(_LEVELS):
            return self.unary()
        op = _LEVELS[level]
        left = self.binary(level + 1)
        if op is Connective.IMPLIES:
            if self.at(op):
                self.pos += 1
                return Binary(op, left, self.binary(level))
            return left
        while self.at(op):
            self.pos += 1
            left = Binary(op, left, self.binary(level + 1))
        return left

    def unary(self) -> Formula:
        token = self.peek
        if token.kind is Kind.NOT:
            self.pos += 1
            return Not(self.unary())
        if token.kind is Kind.QUANT:
            self.pos += 1
            variable = self.take(Kind.NAME).text
            self.accept(Kind.DOT)
            self.bound.append(variable)
            self.bound_names.add(variable)
            body = self.unary()
            self.bound.pop()
            quantifier = _MEANING[token.text]
            assert isinstance(quantifier, Quantifier)
            return Quantified(quantifier, variable, body)
        if self.accept(Kind.LPAREN):
            inner = self.binary(0)
            self.take(Kind.RPAREN)
            return inner
        name = self.take(Kind.NAME)
        if self.accept(Kind.LPAREN):
            args = [self.term()]
            while self.accept(Kind.COMMA):
                args.append(self.term())
            self.take(Kind.RPAREN)
            return Atom(name.text, tuple(args))
        if self.peek.kind in (Kind.EQ, Kind.NEQ):
            negated = self.peek.kind is Kind.NEQ
            self.pos += 1
            equation = Equals(self.resolve(name), self.term())
            return Not(equation) if negated else equation
        return Atom(name.text, ())

    def term(self) -> Term:
        return self.resolve(self.take(Kind.NAME))

    def resolve(self, token: Token) -> Term:
        if token.text in self.bound:
            return Var(token.text)
        self.free_names.setdefault(token.text, token.column)
        return Const(token.text)

    def formula(self) -> Formula:
        result = self.binary(0)
        if self.peek.kind is not Kind.END:
            extra = "unbalanced ')'" if self.peek.kind is Kind.RPAREN else repr(self.peek.text)
            raise ParseError(f"{extra} after a complete formula", self.peek.column)
        clash = sorted(self.bound_names & set(self.free_names))
        if clash:
            name = clash[0]
            raise ParseError(
                f"{name!r} is used outside the scope of its quantifier (a quantifier scopes "
                "over the next atom or parenthesised formula only)", self.free_names[name])
        return result


def parse(text: str) -> Formula:
    """The formula ``text`` denotes; ``ParseError`` (with a column) if it is not one."""
    if len(text) > MAX_LENGTH:
        raise ParseError(f"formula longer than {MAX_LENGTH} characters")
    try:
        return _Parser(text).formula()
    except RecursionError:
        raise ParseError("formula nested too deeply") from None


def signature(formula: Formula) -> Signature:
    """The predicates (with arities) and constants ``formula`` uses; ``ParseError`` if one
    predicate occurs with two arities."""
    predicates: dict[str, int] = {}
    constants: set[str] = set()

    def visit(f: Formula) -> None:
        match f:
            case Atom(predicate, args):
                arity = predicates.setdefault(predicate, len(args))
                if arity != len(args):
                    raise ParseError(f"predicate {predicate} used with arity {arity} "
                                     f"and {len(args)}")
                constants.update(t.name for t in args if isinstance(t, Const))
            case Equals(left, right):
                constants.update(t.name for t in (left, right) if isinstance(t, Const))
            case Not(body) | Quantified(_, _, body):
                visit(body)
            case Binary(_, left, right):
                visit(left)
                visit(right)

    visit(formula)
    return Signature(predicates, frozenset(constants))
