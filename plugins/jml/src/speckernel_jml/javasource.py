"""Java source as tokens: what counts as the program's code, and where its JML sits.

A candidate is the task's program with JML added in comments, so everything the cheating check
needs is a lexer that knows exactly what a comment is: string and character literals and text
blocks may contain ``//`` or ``/*``, and a regular expression over lines gets those wrong. The
lexer follows the Java Language Specification's lexical grammar (§3), with maximal munch for
operators; it never fails — text that is not Java becomes tokens all the same, and the
comparison then reports where it stops matching.

Like javac, it first translates Unicode escapes (JLS §3.3: ``\\uXXXX``, any number of ``u``,
introduced by a backslash preceded by an even number of backslashes) and only then finds comments
and tokens, so ``// \\u000a return 7;`` is a comment followed by code here as in the compiler
and in KeY. Tokens keep the offsets of their raw text, so edits (stripping JML, renaming) apply to
the file as written and lines are the file's lines.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence

import attrs

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?(?:\*/|\Z))
  | (?P<text_block>\"\"\"[ \t\f]*\n(?:[^\\]|\\.)*?(?:\"\"\"|\Z))
  | (?P<string>"(?:[^"\\\n]|\\.)*(?:"|$))
  | (?P<char>'(?:[^'\\\n]|\\.)*(?:'|$))
  | (?P<number>(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)
                 (?:[eE][+-]?\d+)?)[lLfFdD]?)
  | (?P<word>[^\W\d]\w*)
  | (?P<op>>>>=|<<=|>>=|>>>|\.\.\.|->|::|\+\+|--|&&|\|\||[=!<>+\-*/%&|^]=|<<|>>|\S)
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)

_IMPORT_OR_PACKAGE = frozenset({"import", "package"})
_ANNOTATION = re.compile(r"(?://|/\*)[+\-\w]*@")

_UNICODE_ESCAPE = re.compile(r"(?<!\\)(\\+)u+([0-9a-fA-F]{4})")
"""A run of backslashes, then ``u``s and four hex digits. The last backslash begins an escape
when the run's length is odd (it is preceded by an even number of backslashes, JLS §3.3)."""


@attrs.frozen
class Translated:
    """Source text after Unicode-escape translation, with the raw offset of each character
    (one more entry at the end: the raw length)."""

    text: str
    offsets: tuple[int, ...] | None
    """None when nothing was translated (every offset is the character's own)."""

    def raw(self, index: int) -> int:
        return index if self.offsets is None else self.offsets[index]


def translate_unicode(source: str) -> Translated:
    """``source`` with its Unicode escapes replaced by the characters they stand for (JLS §3.3).
    The characters an escape produces take part in no further escape."""
    if "\\u" not in source:
        return Translated(source, None)
    parts: list[str] = []
    offsets: list[int] = []
    last = 0
    for match in _UNICODE_ESCAPE.finditer(source):
        backslashes = match.group(1)
        if len(backslashes) % 2 == 0:
            continue
        parts.append(source[last:match.start()])
        offsets.extend(range(last, match.start()))
        kept = len(backslashes) - 1
        parts.append(backslashes[:kept] + chr(int(match.group(2), 16)))
        offsets.extend(range(match.start(), match.start() + kept))
        offsets.append(match.start() + kept)
        last = match.end()
    parts.append(source[last:])
    offsets.extend(range(last, len(source) + 1))
    return Translated("".join(parts), tuple(offsets))


def has_unicode_escape(text: str) -> bool:
    """Whether ``text`` holds an escape javac would translate."""
    return any(len(m.group(1)) % 2 == 1 for m in _UNICODE_ESCAPE.finditer(text))


@attrs.frozen
class Token:
    """One lexical token: its kind (a group name of the lexer), its text after Unicode-escape
    translation, its 1-based line in the file, and where its raw text starts and ends."""

    kind: str
    text: str
    line: int
    start: int = 0
    end: int = 0

    @property
    def is_comment(self) -> bool:
        return self.kind in ("line_comment", "block_comment")

    @property
    def is_jml(self) -> bool:
        """A JML annotation comment: ``//@ ...`` or ``/*@ ... @*/``, also with annotation keys
        (``//+KeY@``, ``/*-OpenJML@``; JML reference manual §4.4). Which keys a tool enables
        does not matter here: what any tool reads as JML counts as JML."""
        return self.is_comment and _ANNOTATION.match(self.text) is not None


def _lexemes(source: str) -> Iterator[Token]:
    """Every lexeme of ``source``, whitespace included, on the translated text."""
    translated = translate_unicode(source)
    line = 1
    previous = 0
    for match in _TOKEN.finditer(translated.text):
        start, end = translated.raw(match.start()), translated.raw(match.end())
        line += source.count("\n", previous, start)
        previous = start
        yield Token(match.lastgroup or "op", match.group(), line, start, end)


def tokenize(source: str) -> Iterator[Token]:
    """Every token of ``source`` except whitespace, comments included, in order."""
    return (token for token in _lexemes(source) if token.kind != "ws")


def code_tokens(source: str) -> list[Token]:
    """The tokens that make the program: no comments, no ``package``/``import`` declarations
    (adding an import changes nothing a verifier or a test looks at)."""
    tokens = [t for t in tokenize(source) if not t.is_comment]
    kept: list[Token] = []
    skipping = False
    for token in tokens:
        if not kept and not skipping and token.text in _IMPORT_OR_PACKAGE:
            skipping = True
        if skipping:
            skipping = token.text != ";"
            continue
        kept.append(token)
    return kept


def jml_comments(source: str) -> list[Token]:
    """The JML annotation comments of ``source``."""
    return [t for t in tokenize(source) if t.is_jml]


def strip_jml(source: str) -> str:
    """``source`` without its JML annotation comments (other comments and layout kept), the
    program a mutant or a transformation starts from."""
    parts: list[str] = []
    last = 0
    for token in tokenize(source):
        if token.is_jml:
            parts.append(source[last:token.start])
            last = token.end
    parts.append(source[last:])
    return "".join(parts)


@attrs.frozen
class CodeDifference:
    """Where a candidate's code first departs from the task's."""

    line: int
    expected: str
    found: str

    def describe(self) -> str:
        return (f"line {self.line}: expected `{self.expected}`, found `{self.found}`"
                if self.found else f"the code ends early: expected `{self.expected}`")


def first_difference(original: str, candidate: str, context: int = 4) -> CodeDifference | None:
    """None when ``candidate``'s code tokens equal ``original``'s (comments and whitespace
    ignored); otherwise the first point where they differ, with a few tokens of context."""
    want = code_tokens(original)
    got = code_tokens(candidate)
    for index in range(max(len(want), len(got))):
        expected = want[index].text if index < len(want) else None
        found = got[index].text if index < len(got) else None
        if expected != found:
            line = got[index].line if index < len(got) else (got[-1].line if got else 1)
            return CodeDifference(line, _snippet(want, index, context), _snippet(got, index,
                                                                                 context))
    return None


def _snippet(tokens: Sequence[Token], index: int, context: int) -> str:
    return " ".join(t.text for t in tokens[index:index + context])


def top_level_class(source: str) -> str | None:
    """The name after the first ``class`` keyword outside comments (the class KeY loads)."""
    tokens = code_tokens(source)
    for current, following in itertools.pairwise(tokens):
        if current.text == "class" and following.kind == "word":
            return following.text
    return None


_TYPE_KEYWORDS = frozenset({"class", "interface", "enum", "record"})


def declared_types(source: str) -> list[str]:
    """The names of the classes, interfaces, enums and records ``source`` declares (``X.class``
    literals are not declarations)."""
    tokens = code_tokens(source)
    return [following.text for before, current, following in zip(
        [None, *tokens], tokens, tokens[1:], strict=False)
        if current.text in _TYPE_KEYWORDS and following.kind == "word"
        and (before is None or before.text != ".")]


def rename_words(source: str, renames: dict[str, str]) -> str:
    """``source`` with every identifier in ``renames`` replaced, in code and inside JML
    annotations alike (their expressions name the same types); ordinary comments, string and
    character literals are left alone."""
    words = re.compile(r"\b(" + "|".join(map(re.escape, renames)) + r")\b")
    parts: list[str] = []
    last = 0
    for token in _lexemes(source):
        raw = source[token.start:token.end]
        if token.kind == "word" and token.text in renames:
            raw = renames[token.text]
        elif token.is_jml:
            raw = words.sub(lambda m: renames[m.group()], raw)
        parts.append(source[last:token.start] + raw)
        last = token.end
    parts.append(source[last:])
    return "".join(parts)
