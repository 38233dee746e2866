"""Shared fixtures: the built cheat-checker helper, installed by the toolchain's own install step
when it is missing or older than its sources."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from speckernel.toolchains import install

from speckernel_verus.toolchain import CheatCheckToolchain, cheatcheck_binary


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
