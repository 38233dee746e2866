"""Shared fixtures: the built cheat-checker helper and verusfmt, each installed by its
toolchain's own install step when missing (the helper also when older than its sources)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from speckernel.toolchains import install

from speckernel_verus.toolchain import (
    CHEATCHECK,
    CheatCheckToolchain,
    VerusfmtToolchain,
    cheatcheck_binary,
    cheatcheck_home,
    verusfmt_binary,
)


@pytest.fixture(scope="session")
def helper() -> Path:
    """The helper binary (built with `kernel tools install verus`'s step when needed)."""
    toolchain = CheatCheckToolchain()
    if not toolchain.detect().found:
        if shutil.which("cargo") is None:
            pytest.fail("verus-cheatcheck is not built and cargo is missing: "
                        "`kernel tools install verus`")
        assert install(toolchain), "the cheat checker's install step failed"
    return cheatcheck_binary()


@pytest.fixture
def tools_with_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helper: Path) -> Path:
    """A tools directory of its own (``KERNEL_TOOLS_DIR``) holding only the helper: a test that
    needs the kernel's environment cleaned (``kernel_env``) still finds it there."""
    tools = tmp_path / "tools"
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tools))
    installed = cheatcheck_home() / "release" / CHEATCHECK
    installed.parent.mkdir(parents=True)
    shutil.copy2(helper, installed)
    return tools


@pytest.fixture(scope="session")
def verusfmt() -> Path:
    """verusfmt (cargo install from crates.io with `kernel tools install verusfmt`'s step)."""
    toolchain = VerusfmtToolchain()
    if not toolchain.detect().found:
        if shutil.which("cargo") is None:
            pytest.skip("verusfmt is not installed and cargo is missing: "
                        "`kernel tools install verusfmt`")
        assert install(toolchain), "verusfmt's install step failed"
    return verusfmt_binary()
