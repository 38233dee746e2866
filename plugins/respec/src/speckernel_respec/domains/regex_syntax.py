"""Regular-expression syntax trees and the two surface syntaxes of the regex domain.

Both syntaxes denote languages over the finite alphabet :data:`SIGMA`, printable ASCII
(U+0020-U+007E), and a regex always matches the *whole* string (``re.fullmatch``; DeepRegex's
checker compares whole-string DFA languages).

*DeepRegex* (``deepregex``) is the dk.brics ``RegExp`` syntax the DeepRegex/NL-RX/KB13 targets
use (Locascio et al., EMNLP 2016, checked with ``regex_dfa_equals.jar``), with its precedence:
``|`` < ``&`` (intersection) < concatenation < postfix repetition ``? * + {n} {n,} {n,m}`` <
prefix ``~`` (complement, so ``~a*`` is ``(~a)*``). Also ``.`` (any character), ``#`` (empty
language), ``@`` (any string), ``"..."`` (literal string), ``()`` (empty string), ``[...]`` and
``[^...]`` classes, ``\\x`` (the character ``x``), and the DeepRegex macros ``<VOW> <NUM> <LET>
<CAP> <LOW>`` and placeholders ``<M0>``-``<M3>`` (``dog truck ring lake``). Two deliberate
departures from dk.brics, both following how the data is written: ``\\b`` is a *word boundary*
(the data writes ``.*\\bdance\\b.*`` for "lines containing the word dance"; dk.brics would read a
literal ``b``), and ``^``/``$`` outside a class are the start/end anchors. Spaces are literal
characters (KB13 writes ``.*World War II.*``).

*Python* (``python``) is the syntax of the ``re`` module without flags, of which the regular
fragment is supported: classes, ranges, the escapes ``\\d \\D \\w \\W \\s \\S`` and character
escapes, ``.``, quantifiers with their lazy forms, alternation, (non-)capturing and named groups,
comments, and the anchors ``^ $ \\A \\Z \\b \\B``. Backreferences, lookaround, atomic groups,
possessive quantifiers, conditionals and inline flags are rejected as :class:`Unsupported`.
Restricted to :data:`SIGMA`, ``.`` is every character and ``$`` is the end of the string (no
string contains a newline), so ``re.fullmatch`` agrees with the semantics defined here.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable

import attrs

SIGMA_FIRST, SIGMA_LAST = 0x20, 0x7E
"""The alphabet: the printable ASCII characters, space to tilde."""

SIGMA = sum(1 << c for c in range(SIGMA_FIRST, SIGMA_LAST + 1))
"""The alphabet as a bit set over code points."""

MAX_LENGTH = 10_000
"""Longest regex text accepted (longer ones are a resource limit, not a syntax error)."""

MAX_DEPTH = 200
"""Deepest group nesting accepted."""

MAX_BOUND = 100_000
"""Largest repetition bound accepted; a DFA for ``a{n}`` needs ``n + 2`` states."""


def charset(chars: str) -> int:
    """The bit set of the characters of ``chars``."""
    mask = 0
    for ch in chars:
        mask |= 1 << ord(ch)
    return mask


def char_range(first: str, last: str) -> int:
    """The bit set of ``first``-``last`` inclusive."""
    return sum(1 << c for c in range(ord(first), ord(last) + 1))


DIGIT = char_range("0", "9")
WORD = char_range("a", "z") | char_range("A", "Z") | DIGIT | charset("_")
"""Word characters, as ``\\w`` and ``\\b`` define them on ASCII."""
SPACE = charset(" \t\n\r\f\v")


# --------------------------------------------------------------------------- syntax trees


class Anchor(enum.Enum):
    """Zero-width assertions: start, end, word boundary, not a word boundary."""

    START = "^"
    END = "$"
    BOUNDARY = "\\b"
    NOT_BOUNDARY = "\\B"


@attrs.frozen
class Chars:
    """One character from a set (a bit set over code points; bits outside SIGMA match nothing)."""

    mask: int


@attrs.frozen
class Seq:
    """Concatenation; the empty sequence is the empty string."""

    items: tuple[Node, ...]


@attrs.frozen
class Alt:
    """Union."""

    items: tuple[Node, ...]


@attrs.frozen
class Inter:
    """Intersection (DeepRegex ``&``)."""

    items: tuple[Node, ...]


@attrs.frozen
class Complement:
    """Complement with respect to SIGMA* (DeepRegex ``~``)."""

    item: Node


@attrs.frozen
class Repeat:
    """``item{lo,hi}``; ``hi`` None is unbounded."""

    item: Node
    lo: int
    hi: int | None


@attrs.frozen
class Assert:
    """A zero-width anchor."""

    anchor: Anchor


Node = Chars | Seq | Alt | Inter | Complement | Repeat | Assert

EPSILON = Seq(())
ANY_STRING = Repeat(Chars(SIGMA), 0, None)


class RegexSyntaxError(ValueError):
    """The text is not a regex of the syntax."""


class Unsupported(ValueError):
    """The text uses a feature outside the regular fragment (backreference, lookaround, ...)."""


class TooLarge(ValueError):
    """The text exceeds MAX_LENGTH, MAX_DEPTH or MAX_BOUND."""


def literal(text: str) -> Node:
    return Seq(tuple(Chars(1 << ord(ch)) for ch in text))


# --------------------------------------------------------------------------- shared reader


class _Reader:
    """A cursor over the regex text with the error helpers both parsers use."""

    def __init__(self, text: str) -> None:
        if len(text) > MAX_LENGTH:
            raise TooLarge(f"regex longer than {MAX_LENGTH} characters")
        self.text = text
        self.pos = 0
        self.depth = 0

    def peek(self, ahead: int = 0) -> str:
        i = self.pos + ahead
        return self.text[i] if i < len(self.text) else ""

    def take(self) -> str:
        ch = self.peek()
        if not ch:
            raise self.error("unexpected end of regex")
        self.pos += 1
        return ch

    def eat(self, prefix: str) -> bool:
        if self.text.startswith(prefix, self.pos):
            self.pos += len(prefix)
            return True
        return False

    def expect(self, ch: str) -> None:
        if not self.eat(ch):
            raise self.error(f"expected {ch!r}")

    def error(self, message: str) -> RegexSyntaxError:
        return RegexSyntaxError(f"{message} at position {self.pos}")

    def digits(self) -> str:
        start = self.pos
        while self.peek().isdigit() and self.peek().isascii():
            self.pos += 1
        return self.text[start:self.pos]

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise TooLarge(f"groups nested deeper than {MAX_DEPTH}")

    def bound(self, digits: str) -> int:
        value = int(digits)
        if value > MAX_BOUND:
            raise TooLarge(f"repetition bound {value} exceeds {MAX_BOUND}")
        return value

    def postfix(self) -> tuple[int, int | None] | None:
        """The bounds of a ``*``, ``+`` or ``?`` at the cursor (consumed), or None."""
        for symbol, bounds in _POSTFIX.items():
            if self.eat(symbol):
                return bounds
        return None

    def whole(self, top: Callable[[_Reader], Node]) -> Node:
        """The regex ``top`` reads, which must be all of the text."""
        node = top(self)
        if self.peek():
            raise self.error(f"unexpected {self.peek()!r}")
        return node


_POSTFIX: dict[str, tuple[int, int | None]] = {"*": (0, None), "+": (1, None), "?": (0, 1)}
"""The repetition operators both syntaxes share."""


def _repeat(item: Node, lo: int, hi: int | None, reader: _Reader) -> Repeat:
    if hi is not None and hi < lo:
        raise reader.error(f"repetition {{{lo},{hi}}} has max below min")
    return Repeat(item, lo, hi)


def _class_body(reader: _Reader, escape: Callable[[], int]) -> int:
    """The set of a ``[...]`` class after its ``[``; ``escape`` reads one ``\\`` escape as a set
    (a single character yields a one-bit set)."""
    negate = reader.eat("^")
    mask = 0
    first = True
    while first or reader.peek() != "]":
        if not reader.peek():
            raise reader.error("unterminated character class")
        lo = escape() if reader.eat("\\") else 1 << ord(reader.take())
        first = False
        if reader.peek() == "-" and reader.peek(1) not in ("]", ""):
            reader.pos += 1
            hi = escape() if reader.eat("\\") else 1 << ord(reader.take())
            if lo.bit_count() != 1 or hi.bit_count() != 1:
                raise reader.error("character class range with a set endpoint")
            if hi < lo:
                raise reader.error("character class range out of order")
            lo = sum(1 << c for c in range(lo.bit_length() - 1, hi.bit_length()))
        mask |= lo
    reader.expect("]")
    return SIGMA & ~mask if negate else mask


# --------------------------------------------------------------------------- DeepRegex


MACROS: dict[str, Node] = {
    "VOW": Chars(charset("AEIOUaeiou")),
    "NUM": Chars(DIGIT),
    "LET": Chars(char_range("A", "Z") | char_range("a", "z")),
    "CAP": Chars(char_range("A", "Z")),
    "LOW": Chars(char_range("a", "z")),
    "M0": literal("dog"),
    "M1": literal("truck"),
    "M2": literal("ring"),
    "M3": literal("lake"),
}
"""DeepRegex's ``unprocess_regex`` expansions of macros and quoted-word placeholders."""

DEEPREGEX_SPECIAL = frozenset('|&?*+{}()[]~.#@"<>\\^$')
"""The characters that are operators in DeepRegex syntax; ``\\`` makes one literal."""


def parse_deepregex(text: str) -> Node:
    """Parse the dk.brics/DeepRegex syntax (module docstring); raises RegexSyntaxError."""
    return _Reader(text).whole(_dr_union)


def _dr_union(reader: _Reader) -> Node:
    items = [_dr_inter(reader)]
    while reader.eat("|"):
        items.append(_dr_inter(reader))
    return items[0] if len(items) == 1 else Alt(tuple(items))


def _dr_inter(reader: _Reader) -> Node:
    items = [_dr_concat(reader)]
    while reader.eat("&"):
        items.append(_dr_concat(reader))
    return items[0] if len(items) == 1 else Inter(tuple(items))


def _dr_concat(reader: _Reader) -> Node:
    items: list[Node] = []
    while reader.peek() and reader.peek() not in "|&)":
        items.append(_dr_repeat(reader))
    return items[0] if len(items) == 1 else Seq(tuple(items))


def _dr_repeat(reader: _Reader) -> Node:
    node = _dr_complement(reader)
    while True:
        bounds = reader.postfix()
        if bounds is not None:
            node = Repeat(node, *bounds)
        elif reader.eat("{"):
            digits = reader.digits()
            if not digits:
                raise reader.error("expected a number in {...}")
            lo = reader.bound(digits)
            hi: int | None = lo
            if reader.eat(","):
                upper = reader.digits()
                hi = reader.bound(upper) if upper else None
            reader.expect("}")
            node = _repeat(node, lo, hi, reader)
        else:
            return node


def _dr_complement(reader: _Reader) -> Node:
    if reader.eat("~"):
        return Complement(_dr_complement(reader))
    return _dr_atom(reader)


def _dr_escape(reader: _Reader) -> int:
    return 1 << ord(reader.take())


def _dr_atom(reader: _Reader) -> Node:
    ch = reader.take()
    if ch == "(":
        reader.enter()
        node = EPSILON if reader.peek() == ")" else _dr_union(reader)
        reader.expect(")")
        reader.depth -= 1
        return node
    if ch == "[":
        return Chars(_class_body(reader, lambda: _dr_escape(reader)))
    if ch == "\\":
        return Assert(Anchor.BOUNDARY) if reader.eat("b") else Chars(_dr_escape(reader))
    if ch == '"':
        end = reader.text.find('"', reader.pos)
        if end < 0:
            raise reader.error('unterminated "string"')
        node = literal(reader.text[reader.pos:end])
        reader.pos = end + 1
        return node
    if ch == "<":
        end = reader.text.find(">", reader.pos)
        name = reader.text[reader.pos:end] if end >= 0 else ""
        if name not in MACROS:
            raise reader.error(f"unknown macro <{name}> (known: {', '.join(MACROS)})")
        reader.pos = end + 1
        return MACROS[name]
    simple: dict[str, Node] = {".": Chars(SIGMA), "#": Chars(0), "@": ANY_STRING,
                               "^": Assert(Anchor.START), "$": Assert(Anchor.END)}
    if ch in simple:
        return simple[ch]
    if ch in DEEPREGEX_SPECIAL:
        reader.pos -= 1
        raise reader.error(f"unexpected {ch!r}")
    return Chars(1 << ord(ch))


# --------------------------------------------------------------------------- Python re


_PY_CLASS_ESCAPES = {"d": DIGIT, "D": SIGMA & ~DIGIT, "w": WORD, "W": SIGMA & ~WORD,
                     "s": SPACE, "S": SIGMA & ~SPACE}
_PY_CHAR_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_PY_ANCHORS = {"A": Anchor.START, "Z": Anchor.END, "b": Anchor.BOUNDARY,
               "B": Anchor.NOT_BOUNDARY}


def parse_python(text: str) -> Node:
    """Parse a Python ``re`` pattern (module docstring). The pattern must first compile with
    ``re``, so Python itself decides what is well-formed; then features outside the regular
    fragment raise Unsupported."""
    try:
        re.compile(text)
    except re.error as exc:
        raise RegexSyntaxError(f"not a Python regex: {exc}") from None
    except (OverflowError, RecursionError) as exc:
        raise TooLarge(f"Python cannot compile the regex: {exc}") from None
    return _Reader(text).whole(_py_alt)


def _py_alt(reader: _Reader) -> Node:
    items = [_py_concat(reader)]
    while reader.eat("|"):
        items.append(_py_concat(reader))
    return items[0] if len(items) == 1 else Alt(tuple(items))


def _py_concat(reader: _Reader) -> Node:
    items: list[Node] = []
    while reader.peek() and reader.peek() not in "|)":
        atom = _py_atom(reader)
        if atom is not None:
            items.append(_py_quantifiers(reader, atom))
    return items[0] if len(items) == 1 else Seq(tuple(items))


def _py_braces(reader: _Reader) -> tuple[int, int | None] | None:
    """A ``{m,n}`` quantifier after its ``{`` (``re`` semantics: anything else is a literal
    ``{``, reported as None with the cursor restored)."""
    start = reader.pos
    lo = reader.digits()
    hi: str | None = lo
    if reader.eat(","):
        hi = reader.digits() or None
    if not reader.eat("}"):
        reader.pos = start
        return None
    return (reader.bound(lo) if lo else 0), (reader.bound(hi) if hi else None)


def _py_quantifiers(reader: _Reader, node: Node) -> Node:
    while True:
        bounds = reader.postfix()
        if bounds is not None:
            node = Repeat(node, *bounds)
        elif reader.peek() == "{":
            reader.pos += 1
            braces = _py_braces(reader)
            if braces is None:
                reader.pos -= 1
                return node
            node = _repeat(node, *braces, reader)
        else:
            return node
        if reader.peek() == "+":
            raise Unsupported(f"possessive quantifier at position {reader.pos}")
        reader.eat("?")


def _py_escape(reader: _Reader, in_class: bool) -> Node:
    """One ``\\`` escape (the backslash already read) outside a class."""
    ch = reader.take()
    if ch in _PY_ANCHORS:
        return Assert(_PY_ANCHORS[ch])
    octal = ch in "1234567" and all(c in tuple("01234567") for c in (reader.peek(), reader.peek(1)))
    if ch in "123456789" and not octal:
        raise Unsupported(f"backreference \\{ch} (not a regular language)")
    reader.pos -= 1
    return Chars(_py_char_escape(reader, in_class))


def _py_char_escape(reader: _Reader, in_class: bool) -> int:
    """A character or class escape as a set (the backslash already read)."""
    ch = reader.take()
    if ch in _PY_CLASS_ESCAPES:
        return _PY_CLASS_ESCAPES[ch]
    if ch in _PY_CHAR_ESCAPES:
        return 1 << ord(_PY_CHAR_ESCAPES[ch])
    if in_class and ch == "b":
        return 1 << 8
    if ch in "xuU":
        width = {"x": 2, "u": 4, "U": 8}[ch]
        code = reader.text[reader.pos:reader.pos + width]
        reader.pos += width
        return 1 << int(code, 16)
    if ch == "N":
        raise Unsupported("named Unicode escape \\N{...}")
    if ch in "01234567":
        start = reader.pos - 1
        while reader.pos - start < 3 and reader.peek() in tuple("01234567"):
            reader.pos += 1
        return 1 << int(reader.text[start:reader.pos], 8)
    return 1 << ord(ch)


PYTHON_UNSUPPORTED = ("backreferences", "lookahead", "lookbehind", "atomic groups",
                      "possessive quantifiers", "conditional groups", "inline flags",
                      "named Unicode escapes")
"""The ``re`` features :func:`parse_python` rejects as :class:`Unsupported` (they are not regular,
or change the semantics defined here), in the words a prompt uses."""

_GROUP_UNSUPPORTED = {"=": "lookahead", "!": "negative lookahead", "<=": "lookbehind",
                      "<!": "negative lookbehind", ">": "atomic group", "P=": "backreference",
                      "(": "conditional group"}


def _py_atom(reader: _Reader) -> Node | None:
    """One atom, or None for a ``(?#...)`` comment."""
    ch = reader.take()
    if ch == "(":
        return _py_group(reader)
    if ch == "[":
        return Chars(_class_body(reader, lambda: _py_char_escape(reader, in_class=True)))
    if ch == "\\":
        return _py_escape(reader, in_class=False)
    if ch == ".":
        return Chars(SIGMA)
    if ch == "^":
        return Assert(Anchor.START)
    if ch == "$":
        return Assert(Anchor.END)
    return Chars(1 << ord(ch))


def _py_group(reader: _Reader) -> Node | None:
    if reader.eat("?"):
        if reader.eat("#"):
            end = reader.text.index(")", reader.pos)
            reader.pos = end + 1
            return None
        for prefix, feature in _GROUP_UNSUPPORTED.items():
            if reader.peek() + reader.peek(1) == prefix or reader.peek() == prefix:
                raise Unsupported(f"{feature} at position {reader.pos - 2}")
        if reader.eat("P<"):
            reader.pos = reader.text.index(">", reader.pos) + 1
        elif not reader.eat(":"):
            raise Unsupported(f"inline flags at position {reader.pos - 2}")
    reader.enter()
    node = _py_alt(reader)
    reader.expect(")")
    reader.depth -= 1
    return node
