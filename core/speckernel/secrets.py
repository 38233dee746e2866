"""The kernel's secrets (provider API keys, tokens, passwords from its environment) and the two
things that keep them in: a kernel process no other process can read, and a redaction pass over
every string the kernel stores or sends to a model.

The sandbox already gives tools a scrubbed environment and no view of the kernel's process, so
a secret should never reach a diagnostic. Redaction is the second line: if one does (a tool
that echoes its environment in a setup where the boundary is thinner, a plugin that passed a
key on purpose), it is replaced by ``[redacted:NAME]`` before it is written to ``samples.jsonl``
or ``responses.jsonl``, before it goes into a prompt, and before it is shown.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import re
from collections.abc import Mapping

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.IGNORECASE)
_NOT_SECRET = re.compile(r"^(KERNEL_|PATH$|HOME$|PWD$|LANG|LC_|TERM|SHELL$|USER$)")
_MIN_LENGTH = 8
"""Shorter values would redact ordinary words (and are no credential worth the name)."""
_PR_GET_DUMPABLE = 3
_PR_SET_DUMPABLE = 4


class Redactor:
    """Replaces every secret of ``environ`` (variables named like a key, token, secret or
    password, of at least 8 characters) in a text, in its plain and its JSON-escaped form."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        found: dict[str, str] = {}
        for name, value in environ.items():
            if (_SECRET_NAME.search(name) and not _NOT_SECRET.match(name)
                    and len(value.strip()) >= _MIN_LENGTH):
                found[value.strip()] = name
        forms: dict[str, str] = {}
        for value, name in found.items():
            forms[value] = f"[redacted:{name}]"
            forms[json.dumps(value)[1:-1]] = f"[redacted:{name}]"
        self._forms = sorted(forms.items(), key=lambda item: -len(item[0]))

    def __bool__(self) -> bool:
        return bool(self._forms)

    def redact(self, text: str) -> str:
        for value, replacement in self._forms:
            if value in text:
                text = text.replace(value, replacement)
        return text


def redactor() -> Redactor:
    """The redactor for this process's environment as it is now."""
    secrets = frozenset((name, value) for name, value in os.environ.items()
                        if _SECRET_NAME.search(name) and not _NOT_SECRET.match(name))
    return _redactor_for(secrets)


@functools.lru_cache(maxsize=8)
def _redactor_for(secrets: frozenset[tuple[str, str]]) -> Redactor:
    return Redactor(dict(secrets))


def redact(text: str) -> str:
    """``text`` without any of the kernel's secrets."""
    found = redactor()
    return found.redact(text) if found else text


def seal_process() -> bool:
    """Make this process non-dumpable, so that ``/proc/<pid>/environ``, ``mem`` and the like
    are readable only with ``CAP_SYS_PTRACE``, and no process of the same user (a tool in a
    setup without a user of its own) can read the keys in the kernel's environment or memory.
    Returns whether it took effect (Linux only)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def process_seal() -> str:
    """Whether this process is sealed, in words (``kernel doctor``)."""
    try:
        dumpable = int(ctypes.CDLL(None).prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0))
    except (OSError, AttributeError):
        return "unknown (no prctl here)"
    if dumpable == 0:
        return "sealed: not dumpable, its environment and memory unreadable to other processes"
    return "NOT sealed: dumpable (the kernel seals itself when started as `kernel`)"
