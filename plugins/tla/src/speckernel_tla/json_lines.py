"""Reading files of one JSON value per line (NDJSON traces, PGo's TraceLink logs), as given by
someone else. Pure: text in, data out.

Lines end where :mod:`speckernel.lines` says (not at U+2028, which a JSON string may
hold raw). A byte-order mark opening the file is no part of its first line. A line's nesting is
bounded before it is decoded (the decoder recurses: deep nesting was a RecursionError, not an
error naming the line), and an object naming a key twice is an error (which value holds would be
the decoder's choice).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from speckernel.lines import LINE_END

MAX_NESTING = 200
"""How deeply a line's arrays and objects may nest."""

_SKIP = re.compile(r'"(?:[^"\\]|\\.)*"?|[^"\[\]{}]+|[\[\]{}]')


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based number, text) of each line that is not blank."""
    for number, line in enumerate(LINE_END.split(text.removeprefix("\ufeff")), 1):
        if line.strip():
            yield number, line


def decode(line: str) -> object:
    """One line's JSON value; ``ValueError`` (``json.JSONDecodeError`` for bad syntax) saying
    why it is not one."""
    depth = 0
    for match in _SKIP.finditer(line):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_NESTING:
                raise ValueError(f"nested more than {MAX_NESTING} levels")
        elif token in ("]", "}"):
            depth -= 1
    return json.loads(line, object_pairs_hook=_unique_keys)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found: dict[str, object] = {}
    for name, value in pairs:
        if name in found:
            raise ValueError(f"key {name!r} twice")
        found[name] = value
    return found
