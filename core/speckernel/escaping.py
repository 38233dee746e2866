"""Making untrusted text safe to show: on a terminal, in an error line, in a report page.

Model output, candidates' files, verifiers' diagnostics and sample logs are written by an
adversary. ``kernel show`` used to print them as they were, and a candidate cleared the screen
and retitled the window with escape sequences (issue 20); on a terminal such sequences can also
move the cursor to overwrite what the kernel printed, or hide text. ``printable`` turns every
character that is not text into a visible escape: the C0 and C1 control characters (ESC, CSI,
BEL, carriage return and the rest; newline and tab are kept where lines are wanted), DEL, the
Unicode bidirectional controls that reorder what a reader sees (the "Trojan Source" characters,
CVE-2021-42574), and lone surrogates. Rich's console markup (``[bold red]``) is a separate
matter: the CLI prints untrusted text with markup off, or as a ``Text`` (``rich_text``).
"""

from __future__ import annotations

import re

from rich.text import Text

_OTHER = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff"
"""Bidirectional controls, line and paragraph separators, and lone surrogates (which a terminal
cannot even be sent: they have no UTF-8 form)."""
_UNSAFE = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_OTHER}]")
_UNSAFE_LINE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{_OTHER}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = True) -> str:
    """``text`` with every control character shown as ``\\xNN`` or ``\\uNNNN``; newlines and
    tabs are kept when ``lines`` (a file, a log), escaped too when not (an error line)."""
    return (_UNSAFE if lines else _UNSAFE_LINE).sub(_escape, text)


def rich_text(text: str, *, lines: bool = True) -> Text:
    """``printable(text)`` as a rich ``Text``, which rich never reads as markup (a table cell,
    a rule title)."""
    return Text(printable(text, lines=lines))
