"""Errors the kernel reports to a user as one line (the CLI prints ``error: <message>``)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class KernelError(Exception):
    """A problem the user can fix: bad input, an unknown name, a missing tool."""


class ProviderError(KernelError):
    """A model provider gave up on a request (after its retries)."""


def unknown_name(kind: str, name: str, known: Iterable[str]) -> KernelError:
    """``unknown agent 'refrence' (did you mean 'reference'?)``."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else (
        f" (known: {', '.join(known)})" if known else f" (no {kind} is installed)")
    return KernelError(f"unknown {kind} '{name}'{hint}")
