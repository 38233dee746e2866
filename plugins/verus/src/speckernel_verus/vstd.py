"""Read-only access to the vstd sources for the hands-off agent's ``RUN vstd`` and ``RUN grep``
commands (agent option ``vstd_path``: the ``source/vstd`` directory of a Verus checkout)."""

from __future__ import annotations

import re
from pathlib import Path

MAX_CHARS = 20_000
MAX_HITS = 40


class VstdSources:
    """The ``.rs`` files under one directory; paths outside it are refused."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def listing(self) -> str:
        files = sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*.rs"))
        return "vstd files:\n" + "\n".join(files) if files else f"no .rs files in {self.root}"

    def show(self, relative: str) -> str:
        path = (self.root / relative).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            return f"no vstd file {relative!r} (RUN vstd lists them)"
        text = path.read_text(errors="replace")
        cut = f"\n... ({len(text) - MAX_CHARS} more characters)" if len(text) > MAX_CHARS else ""
        return f"{relative}:\n{text[:MAX_CHARS]}{cut}"

    def grep(self, word: str) -> str:
        pattern = re.compile(re.escape(word))
        hits: list[str] = []
        for path in sorted(self.root.rglob("*.rs")):
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if pattern.search(line):
                    hits.append(f"{path.relative_to(self.root).as_posix()}:{number}: "
                                f"{line.strip()[:200]}")
                    if len(hits) >= MAX_HITS:
                        return "\n".join([*hits, f"... (first {MAX_HITS} matches)"])
        return "\n".join(hits) or f"no match for {word!r}"
