"""The GSM-Symbolic+ answer language: syntax, types and exact evaluation.

A GSM-Symbolic template (Mirzadeh et al. 2024, arXiv 2410.05229) names the quantities of a grade
school word problem as variables with sampling ranges and conditions; the "+" task asks for the
final answer as a *symbolic expression* in those variables. An answer is one expression::

    expr    := "if" expr "then" expr "else" expr | or
    or      := and ("or" and)*            and := not ("and" not)*
    not     := "not" not | compare        compare := sum [("=="|"!="|"<"|"<="|">"|">=") sum]
    sum     := product (("+"|"-") product)*
    product := unary (("*"|"/"|"//"|"%") unary)*
    unary   := ("-"|"+") unary | power    power := atom ["**" NATURAL]
    atom    := NUMBER | "true" | "false" | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"

with the functions ``min max`` (two or more arguments), ``abs``, ``floor``, ``ceil``. Comments
start with ``#``. Types are ``int``, ``real`` and ``bool``; an int operand is promoted to real
where the other is real. Semantics (exact, no floating point):

* ``/`` is exact real division; ``//`` is floor division and ``%`` the matching remainder, as in
  Python: ``a // b = floor(a / b)`` and ``a % b = a - b * (a // b)`` (the remainder has the sign
  of ``b``); both are int on ints and real otherwise. ``floor``/``ceil`` return ints.
* Division by zero (by ``/``, ``//`` or ``%``) is *undefined*. ``and``, ``or`` and ``if`` are
  evaluated lazily, as in Python, so ``y != 0 and x / y > 1`` is defined everywhere. Two answers
  are equal at an assignment when both are defined with equal values (numbers compare by value:
  ``6 / 2`` equals ``3``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Literal

import attrs

Type = Literal["int", "real", "bool"]
Value = int | Fraction | bool

MAX_EXPONENT = 16
"""Largest literal exponent of ``**`` (it is expanded into multiplications)."""

MAX_LENGTH = 5_000
"""Longest answer text accepted."""

MAX_DEPTH = 100
"""Deepest nesting accepted."""

TYPES: tuple[Type, ...] = ("int", "real", "bool")
"""The types a task may give its variables."""

FUNCTIONS = {"min": (2, None), "max": (2, None), "abs": (1, 1), "floor": (1, 1),
             "ceil": (1, 1)}
"""Built-in functions and their (least, most) argument counts."""

ADDITIVE = ("+", "-")
MULTIPLICATIVE = ("*", "/", "//", "%")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
"""The binary operators of the grammar, by level (``**`` is the power level's)."""

KEYWORDS = frozenset({"if", "then", "else", "and", "or", "not", "true", "false"})


def synopsis() -> str:
    """The language in a few lines for a reader who writes answers (a model's prompt), built
    from the tables the parser uses."""
    calls = ", ".join(f"{name}(x)" if most == 1 else f"{name}(x, y, ...)"
                      for name, (_, most) in FUNCTIONS.items())
    return (f"One expression: numbers (12, 2.5), true, false, the variables; arithmetic "
            f"{' '.join((*ADDITIVE, *MULTIPLICATIVE))} and ** with a whole-number exponent up "
            f"to {MAX_EXPONENT} (/ is exact division, // and % are floor division and its "
            f"remainder as in Python; dividing by zero is undefined); comparisons "
            f"{' '.join(COMPARISONS)} (not chained); and, or, not; if C then A else B; the "
            f"functions {calls}. Types: {', '.join(TYPES)}; an int next to a real is promoted "
            "to real; floor and ceil give ints; # starts a comment.")


@attrs.frozen
class Num:
    value: Fraction
    type: Type


@attrs.frozen
class BoolLit:
    value: bool


@attrs.frozen
class Var:
    name: str


@attrs.frozen
class Neg:
    arg: Expr


@attrs.frozen
class Arith:
    """``+ - * / // %``."""

    op: str
    left: Expr
    right: Expr


@attrs.frozen
class Compare:
    op: str
    left: Expr
    right: Expr


@attrs.frozen
class Logic:
    """``and`` / ``or``."""

    op: str
    left: Expr
    right: Expr


@attrs.frozen
class Not:
    arg: Expr


@attrs.frozen
class Ite:
    cond: Expr
    then: Expr
    other: Expr


@attrs.frozen
class Call:
    fn: str
    args: tuple[Expr, ...]


Expr = Num | BoolLit | Var | Neg | Arith | Compare | Logic | Not | Ite | Call


class GsmSyntaxError(ValueError):
    """The text is not an expression of the language."""


class GsmTypeError(ValueError):
    """The expression is ill-typed or names an undeclared variable."""


class Undefined(ArithmeticError):
    """Evaluation divided by zero."""


# --------------------------------------------------------------------------- parsing

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<name>[A-Za-z_]\w*)"
                    r"|(?P<op>//|\*\*|==|!=|<=|>=|[-+*/%<>(),]))")


def _tokens(text: str) -> list[str]:
    text = re.sub(r"#[^\n]*", "", text)
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            raise GsmSyntaxError(f"unexpected {text[pos:].lstrip()[:10]!r}")
        tokens.append(m.group(m.lastgroup or "op"))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        if len(text) > MAX_LENGTH:
            raise GsmSyntaxError(f"answer longer than {MAX_LENGTH} characters")
        self.tokens = _tokens(text)
        self.pos = 0
        self.depth = 0

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self) -> str:
        token = self.peek()
        if not token:
            raise GsmSyntaxError("unexpected end of expression")
        self.pos += 1
        return token

    def expect(self, token: str) -> None:
        found = self.take()
        if found != token:
            raise GsmSyntaxError(f"expected {token!r}, found {found!r}")

    def expr(self) -> Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise GsmSyntaxError(f"expression nested deeper than {MAX_DEPTH}")
        if self.peek() == "if":
            self.take()
            cond = self.expr()
            self.expect("then")
            then = self.expr()
            self.expect("else")
            node: Expr = Ite(cond, then, self.expr())
        else:
            node = self.logic("or")
        self.depth -= 1
        return node

    def logic(self, op: str) -> Expr:
        """``or`` over ``and`` over ``not``, both left-associative."""
        node = self.logic("and") if op == "or" else self.negation()
        while self.peek() == op:
            self.take()
            node = Logic(op, node, self.logic("and") if op == "or" else self.negation())
        return node

    def negation(self) -> Expr:
        if self.peek() == "not":
            self.take()
            return Not(self.negation())
        return self.compare()

    def compare(self) -> Expr:
        node = self.sum()
        if self.peek() in COMPARISONS:
            node = Compare(self.take(), node, self.sum())
            if self.peek() in COMPARISONS:
                raise GsmSyntaxError("chained comparison: write 'a < b and b < c'")
        return node

    def sum(self) -> Expr:
        node = self.product()
        while self.peek() in ADDITIVE:
            node = Arith(self.take(), node, self.product())
        return node

    def product(self) -> Expr:
        node = self.unary()
        while self.peek() in MULTIPLICATIVE:
            node = Arith(self.take(), node, self.unary())
        return node

    def unary(self) -> Expr:
        if self.peek() in ("-", "+"):
            sign = self.take()
            arg = self.unary()
            return Neg(arg) if sign == "-" else arg
        return self.power()

    def power(self) -> Expr:
        base = self.atom()
        if self.peek() != "**":
            return base
        self.take()
        exponent = self.take()
        if not exponent.isdigit() or int(exponent) > MAX_EXPONENT:
            raise GsmSyntaxError(f"exponent must be a whole number literal up to {MAX_EXPONENT}")
        if int(exponent) == 0:
            return Num(Fraction(1), "int")
        node = base
        for _ in range(int(exponent) - 1):
            node = Arith("*", node, base)
        return node

    def atom(self) -> Expr:
        token = self.take()
        if token == "(":
            node = self.expr()
            self.expect(")")
            return node
        if token[0].isdigit() or token[0] == ".":
            return Num(Fraction(token), "real" if "." in token else "int")
        if token in ("true", "false", "True", "False"):
            return BoolLit(token.lower() == "true")
        if token in KEYWORDS or not (token[0].isalpha() or token[0] == "_"):
            raise GsmSyntaxError(f"unexpected {token!r}")
        if self.peek() != "(":
            return Var(token)
        if token not in FUNCTIONS:
            raise GsmSyntaxError(f"unknown function {token!r} (known: {', '.join(FUNCTIONS)})")
        self.take()
        args = [self.expr()]
        while self.peek() == ",":
            self.take()
            args.append(self.expr())
        self.expect(")")
        least, most = FUNCTIONS[token]
        if len(args) < least or (most is not None and len(args) > most):
            raise GsmSyntaxError(f"{token} takes {least}{'' if most == least else '+'} arguments")
        return Call(token, tuple(args))


def parse(text: str) -> Expr:
    """Parse one answer expression; raises GsmSyntaxError."""
    parser = _Parser(text)
    if not parser.tokens:
        raise GsmSyntaxError("empty answer")
    node = parser.expr()
    if parser.peek():
        raise GsmSyntaxError(f"unexpected {parser.peek()!r} after the expression")
    return node


# --------------------------------------------------------------------------- types


def _numeric(t: Type, what: str) -> Type:
    if t == "bool":
        raise GsmTypeError(f"{what} needs numbers, not a condition")
    return t


def _join(a: Type, b: Type) -> Type:
    return "int" if a == b == "int" else "real"


def type_of(node: Expr, variables: Mapping[str, Type]) -> Type:
    """The type of ``node``; raises GsmTypeError."""
    match node:
        case Num(_, t):
            return t
        case BoolLit():
            return "bool"
        case Var(name):
            if name not in variables:
                raise GsmTypeError(f"unknown variable {name!r} (declared: "
                                   f"{', '.join(sorted(variables)) or 'none'})")
            return variables[name]
        case Neg(arg):
            return _numeric(type_of(arg, variables), "'-'")
        case Arith(op, left, right):
            lt = _numeric(type_of(left, variables), repr(op))
            rt = _numeric(type_of(right, variables), repr(op))
            return "real" if op == "/" else _join(lt, rt)
        case Compare(op, left, right):
            lt, rt = type_of(left, variables), type_of(right, variables)
            if (lt == "bool") != (rt == "bool") or (lt == "bool" and op not in ("==", "!=")):
                raise GsmTypeError(f"cannot compare {lt} {op} {rt}")
            return "bool"
        case Logic(op, left, right):
            for side in (left, right):
                if type_of(side, variables) != "bool":
                    raise GsmTypeError(f"'{op}' needs conditions")
            return "bool"
        case Not(arg):
            if type_of(arg, variables) != "bool":
                raise GsmTypeError("'not' needs a condition")
            return "bool"
        case Ite(cond, then, other):
            if type_of(cond, variables) != "bool":
                raise GsmTypeError("'if' needs a condition")
            tt, ot = type_of(then, variables), type_of(other, variables)
            if (tt == "bool") != (ot == "bool"):
                raise GsmTypeError("'then' and 'else' branches have different types")
            return "bool" if tt == "bool" else _join(tt, ot)
        case Call(fn, args):
            types = [_numeric(type_of(a, variables), fn) for a in args]
            if fn in ("floor", "ceil"):
                return "int"
            result = types[0]
            for t in types[1:]:
                result = _join(result, t)
            return result
    raise TypeError(f"not an expression: {node!r}")


# --------------------------------------------------------------------------- evaluation


def _floor_div(a: int | Fraction, b: int | Fraction, op: str) -> int | Fraction:
    if b == 0:
        raise Undefined(f"{op} by zero")
    q = math.floor(Fraction(a) / Fraction(b))
    return q if isinstance(a, int) and isinstance(b, int) else Fraction(q)


def evaluate(node: Expr, env: Mapping[str, Value]) -> Value:
    """The exact value of a well-typed ``node`` under ``env``; raises Undefined on division by
    zero (lazily: only in the branches ``and``/``or``/``if`` evaluate)."""
    match node:
        case Num(value, t):
            return int(value) if t == "int" else value
        case BoolLit(value):
            return value
        case Var(name):
            return env[name]
        case Neg(arg):
            return -_number(evaluate(arg, env))
        case Arith(op, left, right):
            a, b = _number(evaluate(left, env)), _number(evaluate(right, env))
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if op == "/":
                if b == 0:
                    raise Undefined("/ by zero")
                return Fraction(a) / Fraction(b)
            q = _floor_div(a, b, op)
            return q if op == "//" else a - b * q
        case Compare(op, left, right):
            a_, b_ = evaluate(left, env), evaluate(right, env)
            return _compare(op, a_, b_)
        case Logic(op, left, right):
            first = evaluate(left, env)
            if (op == "and") != bool(first):
                return bool(first)
            return bool(evaluate(right, env))
        case Not(arg):
            return not evaluate(arg, env)
        case Ite(cond, then, other):
            return evaluate(then if evaluate(cond, env) else other, env)
        case Call(fn, args):
            values = [_number(evaluate(a, env)) for a in args]
            if fn == "min":
                return min(values)
            if fn == "max":
                return max(values)
            if fn == "abs":
                return -values[0] if values[0] < 0 else values[0]
            return math.floor(values[0]) if fn == "floor" else math.ceil(values[0])
    raise TypeError(f"not an expression: {node!r}")


def _number(value: Value) -> int | Fraction:
    if isinstance(value, bool):
        raise TypeError("a condition where a number is needed")
    return value


def _compare(op: str, a: Value, b: Value) -> bool:
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    x, y = _number(a), _number(b)
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
