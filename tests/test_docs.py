"""The install lines of the README, the plugin guide and every plugin's README work as written:
each local path they install is a distribution, and a plugin is never installed without the
kernel, which is not on a package index (so no plugin install can pull it in)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", ROOT / "docs" / "writing-a-plugin.md",
        *sorted(ROOT.glob("plugins/*/README.md"))]
PIP = re.compile(r"pip install ([^`#\n]+)")


def installs(doc: Path) -> list[list[str]]:
    """The arguments of each ``pip install`` the document shows (code spans and blocks)."""
    return [shlex.split(m.group(1)) for m in PIP.finditer(doc.read_text(encoding="utf-8"))]


def local_paths(args: list[str]) -> list[str]:
    return [a.split("[")[0] for a in args
            if not a.startswith("-") and (a.startswith(".") or "/" in a) and "://" not in a]


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_install_lines_name_real_distributions_and_the_kernel(doc: Path) -> None:
    for args in installs(doc):
        for path in local_paths(args):
            if path.startswith("path/to/"):
                continue  # the guide's placeholder for the reader's checkout
            assert (ROOT / path / "pyproject.toml").is_file(), f"{doc}: pip install {path}"
        plugins = [p for p in local_paths(args) if p.strip("./").startswith("plugins/")]
        if plugins and doc.parent.name != "respec":
            assert {".", "./"} & set(local_paths(args)), (
                f"{doc}: pip install {' '.join(args)} installs a plugin without the kernel")


def test_the_respec_readme_installs_the_kernel_first() -> None:
    commands = installs(ROOT / "plugins" / "respec" / "README.md")
    assert local_paths(commands[0]) == ["."]
