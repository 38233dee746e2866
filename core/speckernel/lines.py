"""Reading a tool's output line by line where the tool ends its lines: at ``\\n``, ``\\r\\n`` or
a bare ``\\r``, nowhere else.

Verifiers read what a tool printed about a candidate, and the tool quotes the candidate: a
compiler's diagnostic shows the source line, a JSON message carries it in a string, a prover
names the term it failed on. ``str.splitlines`` also ends a line at ``\\x0b``, ``\\x0c``,
``\\x1c``-``\\x1e``, U+0085, U+2028 and U+2029, which tools print raw inside one line (JSON
escapes none of U+0085, U+2028 and U+2029): split there, a candidate's text starts a line of its
choosing, read as the tool's own message, and the real line it was quoted in is cut in two (a
JSON diagnostic that no longer parses is dropped; a TLA+ model printing ``\x1c`` and a frame
forged TLC's messages). The texts tools read end their lines there too (SANY's reader, a JSON
line's string): split elsewhere, a ``\\*`` comment's end moved and trace records were cut.
Plugins split tool output, and the candidate texts they place by line, with :func:`split_lines`.
"""

from __future__ import annotations

import re

LINE_END = re.compile(r"\r\n|\r|\n")
"""One line end (``\\r\\n`` as one)."""


def split_lines(text: str) -> list[str]:
    """``text``'s lines without their line ends, split only at ``\\r\\n``, ``\\r`` and ``\\n``
    (a final line end opens no empty line, as with ``str.splitlines``)."""
    parts = LINE_END.split(text)
    return parts[:-1] if parts and not parts[-1] else parts
