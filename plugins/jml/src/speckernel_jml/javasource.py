"""Java source as tokens: what counts as the program's code, and where its JML sits.

A candidate is the task's program with JML added in comments, so everything the cheating check
needs is a lexer that knows exactly what a comment is: string and character literals and text
blocks may contain ``//`` or ``/*``, and a regular expression over lines gets those wrong. The
lexer follows the Java Language Specification's lexical grammar (§3), with maximal munch for
operators; it never fails — text that is not Java becomes tokens all the same, and the
comparison then reports where it stops matching.
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


@attrs.frozen
class Token:
    """One lexical token: its kind (a group name of the lexer), its text and its 1-based line."""

    kind: str
    text: str
    line: int

    @property
    def is_comment(self) -> bool:
        return self.kind in ("line_comment", "block_comment")

    @property
    def is_jml(self) -> bool:
        """A JML annotation comment: ``//@ ...`` or ``/*@ ... @*/`` (JML reference manual §4.4;
        keyed forms such as ``//+KEY@`` are not used by FormalBench)."""
        return self.is_comment and self.text[2:3] == "@"


def tokenize(source: str) -> Iterator[Token]:
    """Every token of ``source`` except whitespace, comments included, in order."""
    line = 1
    for match in _TOKEN.finditer(source):
        kind = match.lastgroup or "op"
        text = match.group()
        if kind != "ws":
            yield Token(kind, text, line)
        line += text.count("\n")


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
    for match in _TOKEN.finditer(source):
        if match.lastgroup in ("line_comment", "block_comment") and match.group()[2:3] == "@":
            parts.append(source[last:match.start()])
            last = match.end()
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
    for match in _TOKEN.finditer(source):
        text = match.group()
        if match.lastgroup == "word":
            text = renames.get(text, text)
        elif match.lastgroup in ("line_comment", "block_comment") and text[2:3] == "@":
            text = words.sub(lambda m: renames[m.group()], text)
        parts.append(text)
    return "".join(parts)
