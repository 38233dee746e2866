"""The Rocq sources shipped as package data: the framework, the specs and the references."""

from __future__ import annotations

import hashlib
from importlib import resources

FRAMEWORK = "KVStore.v"
"""The framework file every spec and candidate builds on (IDS §2)."""

LOGICAL_ROOT = "IDS"
"""The logical path all framework, spec and candidate files are compiled under."""


def coq_source(folder: str, name: str) -> str:
    """The text of ``coq/<folder>/<name>`` (folder: framework, specs or reference)."""
    return (resources.files("speckernel_rocq_ids") / "coq" / folder / name).read_text("utf-8")


def sha256(text: str) -> str:
    """The pinned form of a file: the hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
