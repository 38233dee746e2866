"""Where a line ends in the texts this plugin reads and writes: at ``\\n``, ``\\r\\n`` or a bare
``\\r``. SANY's reader ends lines there and nowhere else, and none of the three can stand raw in
a JSON string. ``str.splitlines`` also splits at form feed, U+0085, U+2028 and others, which
SANY reads as part of a line and JSON allows inside a string: splitting there moved a ``\\*``
comment's end and cut trace records in two.
"""

from __future__ import annotations

import re

LINE_END = re.compile(r"\r\n|\r|\n")
"""One line end (the longest, so ``\\r\\n`` is one)."""


def split_lines(text: str) -> list[str]:
    """``text``'s lines as SANY and TLC end them, without their line ends (a final line end
    opens no empty line, as with ``str.splitlines``). Tool output read this way cannot be cut
    by a model: a ``PrintT`` of a string holding ``\\x1c`` or U+0085, which TLC prints raw,
    made ``splitlines`` read a line of the model's choosing as TLC's own framed message."""
    parts = LINE_END.split(text)
    return parts[:-1] if parts and not parts[-1] else parts
