"""What the sample page shows, built from untrusted text: highlighted files, Markdown, rounds of
drafts as diffs, diagnostics located in the files.

Everything here returns *data* (lines of ``(css class, text)`` pieces, diff rows) that the
templates escape, except ``markdown``, whose HTML comes from markdown-it with raw HTML, links and
images turned off and Pygments' escaping of code blocks. A model writes every byte of a
transcript, a candidate, a diagnostic and a file name: none of it may become markup.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from markdown_it import MarkdownIt
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.token import STANDARD_TYPES

from speckernel.agents import extract_files
from speckernel.model import Diagnostic, Message, Verdict
from speckernel.viewer.lexers import lexer_for

HIGHLIGHT_LIMIT = 400_000
"""Files longer than this many characters are shown without highlighting (it stays fast)."""

CSS_PREFIX = ".hl"


@attrs.frozen
class Piece:
    css: str
    text: str


Line = tuple[Piece, ...]


def _css(ttype: Any) -> str:
    """Pygments' short class name of a token type (its nearest standard ancestor's)."""
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    name: str = STANDARD_TYPES[ttype]
    return name


def highlight_lines(text: str, name: str) -> list[Line]:
    """``text`` as highlighted lines (the lexer chosen from ``name``); line ``i`` of the result is
    line ``i + 1`` of the file."""
    lines: list[list[Piece]] = [[]]
    if len(text) > HIGHLIGHT_LIMIT:
        lines = [[Piece("", line)] for line in _newlines(text).split("\n")]
    else:
        for ttype, value in lexer_for(name).get_tokens(text):
            css = _css(ttype)
            for i, part in enumerate(value.split("\n")):
                if i:
                    lines.append([])
                if part:
                    lines[-1].append(Piece(css, part))
    count = line_count(text)
    lines = lines[:count] + [[] for _ in range(count - len(lines))]
    return [tuple(line) for line in lines]


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def line_count(text: str) -> int:
    """Lines in ``text`` as editors and tools number them (a final newline ends the last line;
    ``\r\n`` and ``\r`` are newlines, as Pygments reads them); an empty text has none."""
    if not text:
        return 0
    count = len(_newlines(text).split("\n"))
    return count - 1 if text.endswith(("\n", "\r")) else count


def stylesheet() -> str:
    """Pygments' default style, scoped to ``.hl``."""
    css: str = HtmlFormatter(style="default").get_style_defs(CSS_PREFIX)
    return css


# --------------------------------------------------------------------------- markdown


def _fence(code: str, lang: str, attributes: str) -> str:
    body = highlight(code, lexer_for(f"{lang} {attributes}"), HtmlFormatter(nowrap=True))
    return f'<pre class="hl code"><code>{body}</code></pre>'


_MARKDOWN = MarkdownIt("commonmark", {"html": False, "breaks": True, "highlight": _fence}).disable(
    ["link", "image", "autolink", "html_inline", "html_block"])


def markdown(text: str) -> Markup:
    """A model's (or a prompt's) Markdown as HTML: code blocks highlighted, line breaks kept
    (prompts quote verifier output line by line), every raw HTML tag, link and image shown as
    text."""
    return Markup(_MARKDOWN.render(text))


# --------------------------------------------------------------------------- files


@attrs.frozen
class Located:
    """A diagnostic with the file index and line it points at (``None`` when it points at no
    line of the shown files)."""

    diagnostic: Diagnostic
    file_index: int | None
    line: int | None


@attrs.frozen
class ShownFile:
    """A file as shown: its highlighted lines and the diagnostics on each line (1-based)."""

    index: int
    name: str
    lines: tuple[Line, ...]
    flagged: Mapping[int, tuple[Diagnostic, ...]]


def locate(diagnostic: Diagnostic, names: Sequence[str]) -> Located:
    """Which file and line a diagnostic points at: its ``file`` matched by name (or by the
    longest path suffix: tools often print absolute paths of their work directory); without a
    file, the only file when there is one."""
    if diagnostic.line is None:
        return Located(diagnostic, None, None)
    index = None
    if diagnostic.file is not None:
        target = diagnostic.file.replace("\\", "/")
        index = next((i for i, n in enumerate(names) if target == n), None)
        if index is None:  # the longest name the path ends with: sub/A.tla before A.tla
            suffixes = [(len(n), i) for i, n in enumerate(names) if target.endswith("/" + n)]
            index = max(suffixes)[1] if suffixes else None
    elif len(names) == 1:
        index = 0
    return Located(diagnostic, index, diagnostic.line if index is not None else None)


def show_files(files: Mapping[str, str], diagnostics: Sequence[Diagnostic]) -> list[ShownFile]:
    """``files`` in name order, highlighted, with ``diagnostics`` attached to their lines."""
    names = sorted(files)
    counts = [line_count(files[n]) for n in names]
    flagged: dict[int, dict[int, list[Diagnostic]]] = {}
    for d in diagnostics:
        where = _within(locate(d, names), counts)
        if where.file_index is not None and where.line is not None:
            flagged.setdefault(where.file_index, {}).setdefault(where.line, []).append(d)
    return [ShownFile(i, name, tuple(highlight_lines(files[name], name)),
                      {line: tuple(ds) for line, ds in flagged.get(i, {}).items()})
            for i, name in enumerate(names)]


# --------------------------------------------------------------------------- rounds


@attrs.frozen
class DiffRow:
    """One row of a unified diff: ``kind`` is ``hunk``, ``same``, ``add`` or ``del``; line
    numbers are 1-based, ``None`` on the side a line is not on."""

    kind: str
    old: int | None
    new: int | None
    pieces: Line


@attrs.frozen
class FileDiff:
    name: str
    index: int
    status: str  # "added" | "changed" | "unchanged" | "removed"
    rows: tuple[DiffRow, ...]
    added: int
    removed: int


@attrs.frozen
class Round:
    """One model response that held files: the draft, its diff against the previous draft, and
    the feedback the next prompt gave on it (``Verdict.summary`` lines, located)."""

    number: int
    message_index: int
    files: tuple[ShownFile, ...]
    diffs: tuple[FileDiff, ...]
    feedback: tuple[Located, ...]


def diff_files(old: Mapping[str, str], new: Mapping[str, str],
               context: int = 3) -> list[FileDiff]:
    """Per file (in name order, indexed as in ``new`` then the removed ones), the unified diff
    of ``old`` to ``new``, highlighted."""
    names = sorted(new)
    removed = sorted(set(old) - set(new))
    out = []
    for index, name in enumerate([*names, *removed]):
        a, b = old.get(name, ""), new.get(name, "")
        a_lines, b_lines = highlight_lines(a, name), highlight_lines(b, name)
        a_text = [_plain(line) for line in a_lines]
        b_text = [_plain(line) for line in b_lines]
        rows: list[DiffRow] = []
        matcher = difflib.SequenceMatcher(None, a_text, b_text, autojunk=False)
        for group in matcher.get_grouped_opcodes(context):
            first, last = group[0], group[-1]
            rows.append(DiffRow("hunk", first[1] + 1, first[3] + 1, (Piece("", (
                f"@@ -{first[1] + 1},{last[2] - first[1]} "
                f"+{first[3] + 1},{last[4] - first[3]} @@")),)))
            for tag, i1, i2, j1, j2 in group:
                if tag == "equal":
                    rows += [DiffRow("same", i + 1, j + 1, b_lines[j])
                             for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
                    continue
                rows += [DiffRow("del", i + 1, None, a_lines[i]) for i in range(i1, i2)]
                rows += [DiffRow("add", None, j + 1, b_lines[j]) for j in range(j1, j2)]
        status = ("removed" if name not in new else "added" if name not in old
                  else "changed" if rows else "unchanged")
        out.append(FileDiff(name, index, status, tuple(rows),
                            sum(r.kind == "add" for r in rows), sum(r.kind == "del" for r in rows)))
    return out


def _plain(line: Line) -> str:
    return "".join(p.text for p in line)


_SUMMARY_HEAD = re.compile(r"^(\S+): (success|failure|unknown|timeout|error)$")


def feedback_diagnostics(text: str, names: Sequence[str]) -> list[Located]:
    """The diagnostics of ``Verdict.summary`` blocks quoted in a repair prompt, located in the
    draft's files: lines ``  <severity>: <file>:<line>[:<col>]: <message>`` under a
    ``<verifier>: <status>`` head. Only files of the draft are recognised, so a message that
    merely looks like a location is not taken for one."""
    if not names:
        return []
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    located = re.compile(rf"^  (\w+): ({alternatives}):(\d+)(?::(\d+))?: (.*)$")
    out = []
    in_summary = False
    for line in text.splitlines():
        if _SUMMARY_HEAD.match(line):
            in_summary = True
            continue
        if not line.startswith("  "):
            in_summary = False
        elif in_summary and (m := located.match(line)):
            d = Diagnostic(m[5], m[1], m[2], int(m[3]), int(m[4]) if m[4] else None)
            out.append(locate(d, names))
    return out


def rounds(messages: Sequence[Message], final: Mapping[str, str]) -> list[Round]:
    """The drafts in a transcript: each assistant message from which files can be read (as the
    prompt agent reads them, ``agents.extract_files``, expecting the final candidate's file
    names), diffed against the draft before it."""
    expected = tuple(sorted(final))
    out: list[Round] = []
    previous: Mapping[str, str] = {}
    for i, message in enumerate(messages):
        if message.role != "assistant":
            continue
        files = extract_files(message.content, expected)
        if not files:
            continue
        names = sorted(files)
        reply = next((m for m in messages[i + 1:] if m.role == "user"), None)
        counts = [line_count(files[n]) for n in names]
        feedback = [_within(f, counts)
                    for f in (feedback_diagnostics(reply.content, names) if reply else [])]
        shown = show_files(files, [f.diagnostic for f in feedback])
        out.append(Round(len(out) + 1, i, tuple(shown), tuple(diff_files(previous, files)),
                         tuple(feedback)))
        previous = files
    return out


def verdict_locations(verdicts: Sequence[Verdict],
                      files: Mapping[str, str]) -> list[list[Located]]:
    """Each verdict's diagnostics located in the final candidate's ``files``."""
    names = sorted(files)
    counts = [line_count(files[n]) for n in names]
    return [[_within(locate(d, names), counts) for d in v.diagnostics] for v in verdicts]


def _within(where: Located, counts: Sequence[int]) -> Located:
    """``where``, without its line when the file has no such line (a tool may point past the
    end): a link must lead somewhere."""
    if where.file_index is None or where.line is None:
        return where
    if 1 <= where.line <= counts[where.file_index]:
        return where
    return Located(where.diagnostic, where.file_index, None)
