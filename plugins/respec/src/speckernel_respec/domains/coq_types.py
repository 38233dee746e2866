"""The testable fragment of Gallina types, and values of them written as Coq terms.

A task's type ``A1 -> ... -> An -> R`` is split at its top-level arrows. An argument or result
type is *testable* when it is built from ``nat``, ``bool``, ``list``, ``option`` and pairs
(``*`` or ``prod``); for those the verifier can enumerate inputs, parse QuickChick's printed
counterexamples back into values, and compare results with a boolean equality written in plain
Gallina (no library needed). Other types are still proved about, never tested.

Values are Python data: ``int`` (nat), ``bool``, ``list`` (list), ``tuple`` of two (pair),
``None``/:class:`Some` (option). Terms are written without notations (``cons``, ``pair``,
``%nat``), so they mean the same whatever scopes a task opens.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Sequence
from typing import Union

import attrs


@attrs.frozen
class Some:
    """``Some value`` of an option type (``None`` is Python's ``None``)."""

    value: Value


Value = Union[int, bool, list["Value"], tuple["Value", "Value"], Some, None]  # noqa: UP007


class Unsupported(ValueError):
    """A type or text outside the testable fragment."""


@attrs.frozen
class Nat:
    def coq(self) -> str:
        return "nat"

    def eqb(self) -> str:
        return "Nat.eqb"

    def small(self) -> list[Value]:
        return [0, 1, 2, 3, 4, 5]

    def sample(self, rng: random.Random, size: int) -> Value:
        return rng.randint(0, 3 * size)

    def term(self, value: Value) -> str:
        return f"{value}%nat"

    def show(self, value: Value) -> str:
        return str(value)


@attrs.frozen
class Bool:
    def coq(self) -> str:
        return "bool"

    def eqb(self) -> str:
        return "Bool.eqb"

    def small(self) -> list[Value]:
        return [False, True]

    def sample(self, rng: random.Random, size: int) -> Value:
        return rng.random() < 0.5

    def term(self, value: Value) -> str:
        return "true" if value else "false"

    def show(self, value: Value) -> str:
        return self.term(value)


@attrs.frozen
class ListOf:
    elem: Type

    def coq(self) -> str:
        return f"(list {self.elem.coq()})"

    def eqb(self) -> str:
        t = self.coq()
        return (f"(fix eqb_list (a b : {t}) {{struct a}} : bool := match a, b with "
                f"| nil, nil => true | cons x a', cons y b' => andb ({self.elem.eqb()} x y) "
                "(eqb_list a' b') | _, _ => false end)")

    def small(self) -> list[Value]:
        items = self.elem.small()[:3]
        return [list(p) for n in range(4) for p in itertools.product(items, repeat=n)]

    def sample(self, rng: random.Random, size: int) -> Value:
        return [self.elem.sample(rng, size) for _ in range(rng.randint(0, size))]

    def term(self, value: Value) -> str:
        assert isinstance(value, list)
        inner = "nil"
        for item in reversed(value):
            inner = f"(cons {self.elem.term(item)} {inner})"
        return inner

    def show(self, value: Value) -> str:
        assert isinstance(value, list)
        return "[" + "; ".join(self.elem.show(v) for v in value) + "]"


@attrs.frozen
class OptionOf:
    elem: Type

    def coq(self) -> str:
        return f"(option {self.elem.coq()})"

    def eqb(self) -> str:
        return (f"(fun a b : {self.coq()} => match a, b with | Some x, Some y => "
                f"{self.elem.eqb()} x y | None, None => true | _, _ => false end)")

    def small(self) -> list[Value]:
        return [None, *(Some(v) for v in self.elem.small()[:3])]

    def sample(self, rng: random.Random, size: int) -> Value:
        return None if rng.random() < 0.2 else Some(self.elem.sample(rng, size))

    def term(self, value: Value) -> str:
        if value is None:
            return "None"
        assert isinstance(value, Some)
        return f"(Some {self.elem.term(value.value)})"

    def show(self, value: Value) -> str:
        if value is None:
            return "None"
        assert isinstance(value, Some)
        return f"Some {_paren(self.elem.show(value.value))}"


@attrs.frozen
class Pair:
    left: Type
    right: Type

    def coq(self) -> str:
        return f"(prod {self.left.coq()} {self.right.coq()})"

    def eqb(self) -> str:
        return (f"(fun a b : {self.coq()} => andb ({self.left.eqb()} (fst a) (fst b)) "
                f"({self.right.eqb()} (snd a) (snd b)))")

    def small(self) -> list[Value]:
        return [(a, b) for a in self.left.small()[:3] for b in self.right.small()[:3]]

    def sample(self, rng: random.Random, size: int) -> Value:
        return (self.left.sample(rng, size), self.right.sample(rng, size))

    def term(self, value: Value) -> str:
        assert isinstance(value, tuple)
        return f"(pair {self.left.term(value[0])} {self.right.term(value[1])})"

    def show(self, value: Value) -> str:
        assert isinstance(value, tuple)
        return f"({self.left.show(value[0])}, {self.right.show(value[1])})"


Type = Nat | Bool | ListOf | OptionOf | Pair


def _paren(text: str) -> str:
    return f"({text})" if " " in text and not text.startswith(("(", "[")) else text


# --------------------------------------------------------------------------- signatures


@attrs.frozen
class Signature:
    """A definition's type split at its top-level arrows; ``None`` marks an untestable part."""

    args: tuple[str, ...]
    result: str
    arg_types: tuple[Type | None, ...]
    result_type: Type | None

    @property
    def is_prop(self) -> bool:
        return self.result.strip() == "Prop"

    @property
    def testable(self) -> bool:
        return self.result_type is not None and all(t is not None for t in self.arg_types)


def signature(text: str) -> Signature:
    """Split ``text`` (e.g. ``list nat -> nat -> bool``) at its top-level arrows."""
    if re.match(r"\s*(forall|fun)\b", text):
        raise Unsupported("dependent types (forall) are outside the supported fragment")
    parts = [p.strip() for p in _split_top(text, "->")]
    if not all(parts):
        raise Unsupported(f"malformed type {text!r}")
    *args, result = parts
    return Signature(tuple(args), result, tuple(_maybe(a) for a in args), _maybe(result))


def _maybe(text: str) -> Type | None:
    try:
        return parse_type(text)
    except Unsupported:
        return None


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    parts.append(text[start:])
    return parts


def parse_type(text: str) -> Type:
    """A testable type from its Coq text; ``Unsupported`` otherwise."""
    tokens = re.findall(r"\(|\)|\*|[A-Za-z_][A-Za-z0-9_.]*|\S", text)
    parsed, rest = _product(tokens)
    if rest:
        raise Unsupported(f"unexpected {' '.join(rest)!r} in type {text!r}")
    return parsed


def _product(tokens: Sequence[str]) -> tuple[Type, Sequence[str]]:
    left, rest = _application(tokens)
    while rest and rest[0] == "*":
        right, rest = _application(rest[1:])
        left = Pair(left, right)
    return left, rest


def _application(tokens: Sequence[str]) -> tuple[Type, Sequence[str]]:
    if not tokens:
        raise Unsupported("type ends too early")
    head, rest = tokens[0], tokens[1:]
    if head in ("list", "option"):
        arg, rest = _atom(rest)
        return (ListOf(arg) if head == "list" else OptionOf(arg)), rest
    if head == "prod":
        left, rest = _atom(rest)
        right, rest = _atom(rest)
        return Pair(left, right), rest
    return _atom(tokens)


def _atom(tokens: Sequence[str]) -> tuple[Type, Sequence[str]]:
    if not tokens:
        raise Unsupported("type ends too early")
    head, rest = tokens[0], tokens[1:]
    if head == "(":
        inner, rest = _product(rest)
        if not rest or rest[0] != ")":
            raise Unsupported("unbalanced parentheses in type")
        return inner, rest[1:]
    if head in ("nat", "Nat.t"):
        return Nat(), rest
    if head == "bool":
        return Bool(), rest
    raise Unsupported(f"type {head!r} is outside the testable fragment")


# --------------------------------------------------------------------------- inputs


def inputs(types: Sequence[Type], seed: int, exhaustive: int = 400,
           sampled: int = 200) -> list[tuple[Value, ...]]:
    """Test inputs for arguments of ``types``: every combination of small values (a
    deterministic sample of ``exhaustive`` of them when there are more), then ``sampled``
    random larger ones."""
    rng = random.Random(seed)
    grid = list(itertools.product(*(t.small() for t in types)))
    if len(grid) > exhaustive:
        grid = rng.sample(grid, exhaustive)
    extra = [tuple(t.sample(rng, 2 + i % 7) for t in types) for i in range(sampled)]
    return grid + extra


# --------------------------------------------------------------------------- QuickChick output


def parse_shown(typ: Type, text: str) -> Value:
    """The value QuickChick's ``show`` printed as ``text``; ``Unsupported`` if it is not one."""
    tokens = re.findall(r"\d+|[A-Za-z_]+|[\[\];(),]", text)
    value, rest = _value(typ, tokens)
    if rest:
        raise Unsupported(f"trailing {' '.join(rest)!r} after a {typ.coq()} value")
    return value


def _value(typ: Type, tokens: Sequence[str]) -> tuple[Value, Sequence[str]]:
    if tokens and tokens[0] == "(" and not isinstance(typ, Pair):
        inner, rest = _value(typ, tokens[1:])
        return inner, _expect(rest, ")")
    if not tokens:
        raise Unsupported("value ends too early")
    head, rest = tokens[0], tokens[1:]
    match typ:
        case Nat() if head.isdigit():
            return int(head), rest
        case Bool() if head in ("true", "false"):
            return head == "true", rest
        case OptionOf() if head == "None":
            return None, rest
        case OptionOf() if head == "Some":
            inner, rest = _value(typ.elem, rest)
            return Some(inner), rest
        case Pair() if head == "(":
            left, rest = _value(typ.left, rest)
            right, rest = _value(typ.right, _expect(rest, ","))
            return (left, right), _expect(rest, ")")
        case ListOf() if head == "[":
            items: list[Value] = []
            while rest and rest[0] != "]":
                item, rest = _value(typ.elem, rest)
                items.append(item)
                if rest and rest[0] == ";":
                    rest = rest[1:]
            return items, _expect(rest, "]")
    raise Unsupported(f"{head!r} does not start a {typ.coq()} value")


def _expect(tokens: Sequence[str], token: str) -> Sequence[str]:
    if not tokens or tokens[0] != token:
        raise Unsupported(f"expected {token!r}")
    return tokens[1:]
