"""Shared fixtures: KeY when installed, a verifier context on the real local sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from speckernel.components import VerifyContext
from speckernel.sandbox.base import Limits
from speckernel.testing import verify_context

from speckernel_jml.javatools import JavaParserToolchain
from speckernel_jml.toolchain import KeyToolchain

REPO = Path(__file__).resolve().parents[3]
FORMALBENCH = REPO.parent / "shared" / "data" / "formalbench"
DATA = Path(__file__).parent / "data"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def key_installed() -> None:
    status = KeyToolchain().detect()
    if not status.found:
        pytest.skip(f"KeY not available ({status.detail}); run `kernel tools install jml`")


@pytest.fixture
def make_ctx() -> Any:
    """``make_ctx(**options)``: the kernel's verifier context (local sandbox, worker pool) with
    the plugin's detected tools."""

    def make(**options: Any) -> VerifyContext:
        return verify_context(toolchains=[KeyToolchain(), JavaParserToolchain()],
                              limits=Limits(wall_s=600.0, memory_mb=4096), options=options)

    return make
