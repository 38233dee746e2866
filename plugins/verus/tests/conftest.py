"""Shared fixtures: the built cheat-checker helper, installed by the toolchain's own install step
when it is missing or older than its sources."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from speckernel.toolchains import install

from speckernel_verus.toolchain import (
    CHEATCHECK,
    CheatCheckToolchain,
    cheatcheck_binary,
    cheatcheck_home,
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
