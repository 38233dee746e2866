"""A content-addressed cache of model responses and verdicts.

An entry's address is the SHA-256 of the canonical JSON of everything that decides its value: for
a model response the provider, model, messages, parameters and the sample's attempt number; for a
verdict the verifier and its version, the versions of the tools it uses, the task and the
candidate. A tool upgrade therefore misses the cache instead of serving a stale verdict.

Entries are small JSON files under ``<root>/<namespace>/<ab>/<digest>.json`` written atomically
(temp file + rename), so concurrent runs may share one cache directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import attrs

from speckernel.model import JSON, canonical_json, digest_json


def default_cache_dir() -> Path:
    """``$KERNEL_CACHE_DIR``, else ``$XDG_CACHE_HOME/speckernel``, else ``~/.cache/speckernel``."""
    explicit = os.environ.get("KERNEL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "speckernel"


@attrs.frozen
class NamespaceStats:
    namespace: str
    entries: int
    bytes: int


@attrs.define
class Cache:
    """The cache at ``root``; a disabled cache (``--no-cache``) misses every lookup and stores
    nothing."""

    root: Path = attrs.field(factory=default_cache_dir)
    enabled: bool = True
    hits: int = 0
    misses: int = 0

    def _path(self, namespace: str, key: JSON) -> Path:
        digest = digest_json(key)
        return self.root / namespace / digest[:2] / f"{digest}.json"

    def get(self, namespace: str, key: JSON) -> JSON | None:
        if not self.enabled:
            return None
        try:
            with self._path(namespace, key).open("rb") as fh:
                value = json.loads(fh.read())
        except (OSError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, namespace: str, key: JSON, value: JSON) -> None:
        """Store ``value``; a cache that cannot be written (a full disk, a read-only directory)
        only costs a later miss, so the error is dropped rather than failing the sample whose
        model call or verdict was already paid for."""
        if not self.enabled:
            return
        path = self._path(namespace, key)
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(canonical_json(value))
            os.replace(tmp, path)
        except OSError:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    def stats(self) -> list[NamespaceStats]:
        out = []
        if self.root.is_dir():
            for ns in sorted(p for p in self.root.iterdir() if p.is_dir()):
                files = [f for f in ns.glob("*/*.json")]
                size = sum(f.stat().st_size for f in files)
                out.append(NamespaceStats(ns.name, len(files), size))
        return out

    def clear(self, namespace: str | None = None) -> int:
        """Remove every entry (of ``namespace``); returns how many were removed."""
        removed = 0
        for ns in self.stats():
            if namespace is None or ns.namespace == namespace:
                removed += ns.entries
                shutil.rmtree(self.root / ns.namespace)
        return removed
