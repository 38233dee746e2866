"""Coq source cut into tokens and sentences the way coqc's lexer cuts it.

The audit judges a candidate command by command, so it must see the same commands Coq runs: a
word scan over lines is fooled by a comment inside a command (``Unset (* . *) Guard Checking``),
a command spread over lines, or a string inside a comment that hides a comment terminator. This
lexer follows Coq 8.16's ``parsing/cLexer.ml``:

- ``(*`` opens a comment (also in ``(*)``), comments nest, ``*)`` closes one; inside a comment a
  ``"`` starts a string that runs to its closing quote, ``*)`` included, exactly as outside;
- a string is ``"..."`` with ``""`` standing for one quote; an unterminated string or comment is
  an error (coqc refuses the file too);
- a sentence ends at a period followed by a blank (space, tab, newline, carriage return) or the
  end of the file. ``x.y`` is one qualified name, ``x.(f)`` a projection, neither an end.

Where Coq's own grammar could lex a run of periods differently (a ``..`` token before a blank),
this lexer ends the sentence there too: cutting more often than Coq only ever shows the audit
more sentence starts, never fewer. Text after the last period is a sentence of its own.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

import attrs

BLANKS = frozenset(" \t\n\r")


class LexError(ValueError):
    """Text coqc cannot lex either (an unterminated comment or string), with its line."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@attrs.frozen
class Token:
    """One token: ``ident`` (a possibly qualified name, ``parts`` its components), ``string``,
    ``number``, ``punct`` (one character) or ``end`` (the period closing a sentence)."""

    kind: str
    text: str
    offset: int
    line: int

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.text.split(".")) if self.kind == "ident" else ()


@attrs.frozen
class Sentence:
    """The tokens of one sentence (its closing period excluded) and the line it starts on."""

    tokens: tuple[Token, ...]
    line: int
    terminated: bool = True

    def words(self) -> tuple[str, ...]:
        """The text of every token, in order."""
        return tuple(t.text for t in self.tokens)


def _ident_start(ch: str) -> bool:
    return ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z") or (
        ord(ch) > 127 and unicodedata.category(ch).startswith("L"))


def _ident_char(ch: str) -> bool:
    return _ident_start(ch) or ch.isdigit() or ch == "'" or (
        ord(ch) > 127 and unicodedata.category(ch)[0] in "LNM")


def _skip_string(text: str, i: int, line: int) -> tuple[int, int]:
    """From just after an opening quote: the offset after the closing quote, and the line."""
    start_line = line
    while i < len(text):
        ch = text[i]
        if ch == '"':
            if text.startswith('"', i + 1):
                i += 2
                continue
            return i + 1, line
        line += ch == "\n"
        i += 1
    raise LexError("unterminated string", start_line)


def _skip_comment(text: str, i: int, line: int) -> tuple[int, int]:
    """From just after ``(*``: the offset after the matching ``*)``, and the line."""
    start_line, depth = line, 1
    while i < len(text):
        if text.startswith("(*", i):
            depth, i = depth + 1, i + 2
        elif text.startswith("*)", i):
            depth, i = depth - 1, i + 2
            if depth == 0:
                return i, line
        elif text[i] == '"':
            i, line = _skip_string(text, i + 1, line)
        else:
            line += text[i] == "\n"
            i += 1
    raise LexError("unterminated comment", start_line)


def tokens(text: str) -> Iterator[Token]:
    """Every token of ``text``; comments are dropped. Raises ``LexError``."""
    i, line = 0, 1
    while i < len(text):
        ch = text[i]
        if ch in BLANKS:
            line += ch == "\n"
            i += 1
        elif text.startswith("(*", i):
            i, line = _skip_comment(text, i + 2, line)
        elif ch == '"':
            end, last = _skip_string(text, i + 1, line)
            yield Token("string", text[i:end], i, line)
            i, line = end, last
        elif ch == ".":
            run = i
            while run < len(text) and text[run] == ".":
                run += 1
            if run == len(text) or text[run] in BLANKS:
                yield Token("end", text[i:run], i, line)
                i = run
            elif run == i + 1 and _ident_start(text[run]):
                j = run + 1
                while j < len(text) and _ident_char(text[j]):
                    j += 1
                yield Token("ident", text[run:j], run, line)  # a field: .x
                i = j
            else:
                yield Token("punct", text[i:run], i, line)
                i = run
        elif _ident_start(ch):
            j = i + 1
            while j < len(text):
                if _ident_char(text[j]):
                    j += 1
                elif (text[j] == "." and j + 1 < len(text) and _ident_start(text[j + 1])):
                    j += 2  # a qualified name: Coq.Lists.List
                else:
                    break
            yield Token("ident", text[i:j], i, line)
            i = j
        elif ch.isdigit():
            j = i + 1
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            yield Token("number", text[i:j], i, line)
            i = j
        else:
            yield Token("punct", ch, i, line)
            i += 1


def sentences(text: str) -> list[Sentence]:
    """The sentences of ``text`` in order; raises ``LexError`` where coqc's lexer fails."""
    found: list[Sentence] = []
    current: list[Token] = []
    for token in tokens(text):
        if token.kind == "end":
            found.append(Sentence(tuple(current), current[0].line if current else token.line))
            current = []
        else:
            current.append(token)
    if current:
        found.append(Sentence(tuple(current), current[0].line, terminated=False))
    return found


def blank_comments(text: str) -> str:
    """``text`` with comments and string literals replaced by spaces (newlines kept), so that
    offsets and line numbers are unchanged: what the textual checks read. Text coqc cannot lex
    is returned with everything from the unlexable point blanked."""
    out = list(text)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    i, line = 0, 1
    try:
        while i < len(text):
            if text.startswith("(*", i):
                end, line = _skip_comment(text, i + 2, line)
                blank(i, end)
                i = end
            elif text[i] == '"':
                end, line = _skip_string(text, i + 1, line)
                blank(i, end)
                i = end
            else:
                line += text[i] == "\n"
                i += 1
    except LexError:
        blank(i, len(text))
    return "".join(out)
