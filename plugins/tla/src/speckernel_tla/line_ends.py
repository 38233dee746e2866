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
