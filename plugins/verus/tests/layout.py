"""Layout variants of a Verus file that mean the same program, for layout-invariance tests.

Two sources:

- ``verusfmt`` (Verus's formatter, installed by the plugin's ``verusfmt`` toolchain), run behind
  the kernel's sandbox on a batch of files (``--verus-only``: the code outside ``verus!`` would
  need rustfmt, which the sandbox does not see);
- ``points``/``vary``: edits a formatter could make, found by a small lexer (strings, chars,
  comments and lifetimes kept whole): any whitespace run replaced by other whitespace or a
  comment; an optional trailing comma removed from a bracketed list of two or more elements, or
  added to a parenthesised or bracketed list with a top-level comma and no closure bars or angle
  brackets (where a comma could be read otherwise); the optional comma after a block-bodied
  match arm removed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import anyio
import attrs
from speckernel.sandbox.base import Limits
from speckernel.sandbox.local import LocalSandbox

from speckernel_verus.toolchain import verusfmt_binary

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<line>//[^\n]*)
  | (?P<raw>b?r(?P<hashes>\#*)"[\s\S]*?"(?P=hashes))
  | (?P<str>b?"(?:\\[\s\S]|[^"\\])*")
  | (?P<char>b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])')
  | (?P<life>'[A-Za-z_]\w*)
  | (?P<word>(?:r\#)?[A-Za-z_]\w*|\d[\w]*(?:\.\d[\w]*)?)
  | (?P<punct>.)
""", re.VERBOSE | re.DOTALL)


@attrs.frozen
class Token:
    kind: str
    text: str
    start: int


def lex(text: str) -> list[Token]:
    """Tokens with their offsets; block comments (nested) are one ``comment`` token."""
    out, at = [], 0
    while at < len(text):
        if text.startswith("/*", at):
            depth, end = 0, at
            while end < len(text):
                if text.startswith("/*", end):
                    depth, end = depth + 1, end + 2
                elif text.startswith("*/", end):
                    depth, end = depth - 1, end + 2
                    if depth == 0:
                        break
                else:
                    end += 1
            out.append(Token("comment", text[at:end], at))
            at = end
            continue
        match = _TOKEN.match(text, at)
        assert match is not None
        kind = match.lastgroup or "punct"
        if kind == "hashes":
            kind = "raw"
        out.append(Token("comment" if kind == "line" else kind, match[0], at))
        at = match.end()
    return out


@attrs.frozen
class Point:
    """One place a layout edit may go: ``start..end`` of the text and what may replace it."""

    start: int
    end: int
    kind: str
    """``space`` (replace a whitespace run), ``drop-comma``, ``add-comma``."""


_OPEN = {"(": ")", "[": "]", "{": "}"}


def points(text: str) -> list[Point]:
    tokens = lex(text)
    code = [(i, t) for i, t in enumerate(tokens) if t.kind not in ("ws", "comment")]
    # whitespace after a line comment holds the newline that ends it
    out = [Point(t.start, t.start + len(t.text), "space") for i, t in enumerate(tokens)
           if t.kind == "ws" and not (i and tokens[i - 1].text.startswith("//"))]
    stack: list[int] = []
    groups: list[tuple[int, int]] = []
    for k, (_, t) in enumerate(code):
        if t.kind == "punct" and t.text in _OPEN:
            stack.append(k)
        elif t.kind == "punct" and t.text in _OPEN.values() and stack:
            groups.append((stack.pop(), k))
    for open_k, close_k in groups:
        opener = code[open_k][1].text
        before = code[open_k - 1][1].text if open_k else ""
        if before in ("#", "!") or (open_k >= 2 and code[open_k - 2][1].text == "#"):
            continue  # attributes and macro invocations keep their own commas
        depth, commas, unsafe = 0, [], False
        for k in range(open_k + 1, close_k):
            t = code[k][1]
            if t.kind == "punct" and t.text in _OPEN:
                depth += 1
            elif t.kind == "punct" and t.text in _OPEN.values():
                depth -= 1
            elif depth == 0 and t.kind == "punct":
                if t.text == ",":
                    commas.append(k)
                unsafe |= t.text in "|<>"
        last = close_k - 1
        ends_with_comma = bool(commas) and commas[-1] == last
        elements = len(commas) + (0 if ends_with_comma else 1)
        if ends_with_comma and (opener != "(" or elements >= 2):
            t = code[last][1]
            out.append(Point(t.start, t.start + 1, "drop-comma"))
        rest = code[last][1].text == "."  # `(a, ..)` takes no comma after the rest pattern
        if (not ends_with_comma and commas and not unsafe and not rest and opener in "(["
                and last > open_k):
            t = code[last][1]
            at = t.start + len(t.text)
            out.append(Point(at, at, "add-comma"))
        arrow = code[open_k][1].start
        if opener == "{" and _arm_arrow_before(text, arrow):
            after = close_k + 1
            if after < len(code) and code[after][1].text == ",":
                t = code[after][1]
                out.append(Point(t.start, t.start + 1, "drop-comma"))
    return sorted(out, key=lambda p: (p.start, p.end))


def _arm_arrow_before(text: str, at: int) -> bool:
    """Whether the code before ``at`` ends with a match arm's ``=>`` (not ``==>``, ``<=>``...)."""
    before = text[:at].rstrip()
    return before.endswith("=>") and not before[:-2].endswith(("=", "<", "!", "~"))


SPACES = (" ", "\n", "  \n    ", "\t", " /* layout */ ", " // layout\n", "\n\n")


def vary(text: str, chosen: Sequence[tuple[Point, int]]) -> str:
    """``text`` with the chosen points edited (``int`` picks the whitespace for a ``space``)."""
    edits = {}
    for point, pick in chosen:
        if point.kind == "space":
            edits[point.start] = (point.end, SPACES[pick % len(SPACES)])
        elif point.kind == "drop-comma":
            edits[point.start] = (point.end, "")
        else:
            edits[point.start] = (point.end, ",")
    out, at = [], 0
    for start in sorted(edits):
        end, new = edits[start]
        if start < at:
            continue
        out.append(text[at:start])
        out.append(new)
        at = end
    out.append(text[at:])
    return "".join(out)


def verusfmt(texts: Sequence[str]) -> list[str | None]:
    """Each text formatted by verusfmt (``--verus-only``) behind the sandbox; None where verusfmt
    refuses the file."""
    names = {f"f{i}.rs": text for i, text in enumerate(texts)}
    exe = str(verusfmt_binary())

    async def run(batch: dict[str, str]) -> dict[str, str] | None:
        result = await LocalSandbox().run(
            [exe, "--verus-only", *batch], files=batch, collect=list(batch),
            limits=Limits(wall_s=600, output_bytes=64_000_000), read_only=[exe])
        return dict(result.files) if result.returncode == 0 else None

    def formatted(batch: dict[str, str]) -> dict[str, str]:
        # a file verusfmt refuses fails its whole batch: halve the batch until it is found
        done = anyio.run(run, batch)
        if done is not None or len(batch) == 1:
            return done or {}
        items = list(batch.items())
        half = len(items) // 2
        return {**formatted(dict(items[:half])), **formatted(dict(items[half:]))}

    done = formatted(names)
    return [done.get(name) for name in names]
