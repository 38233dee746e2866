"""Shared fixtures: the real jar, the real local sandbox, a verifier context around them."""

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
from tla_testdata import LIMITS

from speckernel_tla.toolchain import Tla2ToolsToolchain


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def jar() -> Path:
    status = Tla2ToolsToolchain().detect()
    if not status.found:
        pytest.skip(f"tla2tools not available ({status.detail}); "
                    "run `kernel tools install tla2tools`")
    return Path(status.path)


@pytest.fixture
def sandbox() -> Sandbox:
    return LocalSandbox()


@attrs.define
class Context(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


@pytest.fixture
def make_ctx(jar: Path, sandbox: Sandbox) -> Any:
    """``make_ctx(**options)``: a verifier context on the local sandbox and detected tools."""
    tools = DetectedTools({Tla2ToolsToolchain.name: Tla2ToolsToolchain()})

    def make(**options: Any) -> Context:
        return Context(sandbox, tools, LIMITS, options)

    return make
