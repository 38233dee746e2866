"""Shared fixtures: KeY when installed, a verifier context on the real local sandbox."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest
from speckernel.components import ToolResolver, VerifyContext
from speckernel.sandbox.base import Limits, Sandbox
from speckernel.sandbox.local import LocalSandbox
from speckernel.toolchains import DetectedTools

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


@attrs.define
class Context(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


@pytest.fixture
def make_ctx() -> Any:
    """``make_ctx(**options)``: a verifier context on the local sandbox and detected tools."""
    tools = DetectedTools({KeyToolchain.name: KeyToolchain()})

    def make(**options: Any) -> Context:
        return Context(LocalSandbox(), tools, Limits(wall_s=120.0), options)

    return make
