"""Errors the kernel reports to a user as one line (the CLI prints ``error: <message>``)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class KernelError(Exception):
    """A problem the user can fix: bad input, an unknown name, a missing tool."""


class ProviderError(KernelError):
    """A model provider gave up on a request (after its retries)."""


class CandidateError(Exception):
    """The candidate itself broke the check: it exhausted the checker's stack or memory, or a
    checker's engine refused it. A verifier raising it records a ``failure`` verdict whose
    diagnostic is the message, not an ``error`` to be re-run: running it again breaks again.

    ``ctx.run_sync`` raises it for a worker that ran out of stack (``RecursionError``) or memory
    (``MemoryError``, or killed at its memory limit); plugin code may raise it too.
    """


class WorkerError(Exception):
    """Plugin code running in a worker process raised an exception that is not the candidate's
    fault (a bug, a missing file): its type name and message, for an ``error`` verdict."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (``SystemExit: 3``, ``KeyboardInterrupt``): how a
    plugin's or a tool's exception is shown in a verdict, a sample's error or a load failure."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def unknown_name(kind: str, name: str, known: Iterable[str]) -> KernelError:
    """``unknown agent 'refrence' (did you mean 'reference'?)``."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else (
        f" (known: {', '.join(known)})" if known else f" (no {kind} is installed)")
    return KernelError(f"unknown {kind} '{name}'{hint}")
