"""Search-and-replace edits, the answer format of the hands-on agent's actions (VeruSAGE asks
its action agents for diffs rather than whole files, so a model cannot silently drop code).

An answer holds blocks of the form::

    <<<<<<< SEARCH
    lines copied exactly from the current file
    =======
    the lines to put in their place
    >>>>>>> REPLACE

Each search text must occur exactly once in the file (after the edits before it); otherwise
the answer is rejected with a reason the next prompt repeats.
"""

from __future__ import annotations

import difflib
import re

import attrs

BLOCK = re.compile(
    r"^<{5,}[ \t]*SEARCH[ \t]*\n(.*?)^={5,}[ \t]*\n(.*?)^>{5,}[ \t]*REPLACE[ \t]*$",
    re.MULTILINE | re.DOTALL)


class EditError(ValueError):
    """An answer whose edits cannot be applied; the message says why, in one line."""


@attrs.frozen
class Edit:
    search: str
    replace: str


def parse_edits(answer: str) -> tuple[Edit, ...]:
    """The edits in a model's answer, in order (none if it holds no well-formed block)."""
    return tuple(Edit(search, replace) for search, replace in BLOCK.findall(answer))


def apply_edits(text: str, edits: tuple[Edit, ...]) -> str:
    """``text`` with every edit applied in order; ``EditError`` for an empty answer or a
    search text that is missing or ambiguous."""
    if not edits:
        raise EditError("the answer holds no SEARCH/REPLACE block")
    for number, edit in enumerate(edits, 1):
        if not edit.search.strip():
            raise EditError(f"edit {number}: the SEARCH part is empty")
        count = text.count(edit.search)
        if count != 1:
            first = edit.search.strip().splitlines()[0][:80]
            where = "not found" if count == 0 else f"found {count} times"
            raise EditError(f"edit {number}: SEARCH text {where} (starting {first!r})")
        text = text.replace(edit.search, edit.replace, 1)
    return text


def unified_diff(before: str, after: str, name: str = "file.rs") -> str:
    """A unified diff, the form failed attempts are shown to the model in."""
    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        f"a/{name}", f"b/{name}", n=2))
