"""Shared fixtures: the real jar, the real local sandbox, a verifier context around them (the
kernel's own, with a worker pool for ``ctx.run_sync``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from speckernel.execution import KernelVerifyContext
from speckernel.sandbox.base import Sandbox
from speckernel.sandbox.local import LocalSandbox
from speckernel.toolchains import DetectedTools
from speckernel.workers import WorkerPool
from tla_testdata import LIMITS

from speckernel_tla.toolchain import Tla2ToolsToolchain

# Generating examples slowly is not a failure of what the tests check: on a loaded 2-core CI
# machine hypothesis's too_slow health check failed property tests that pass when run alone.
settings.register_profile("ci", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


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


@pytest.fixture(scope="session")
def workers() -> Iterator[WorkerPool]:
    """One pool of kernel workers for the session (workers are warm Python processes)."""
    pool = WorkerPool(LocalSandbox(), 2)
    yield pool
    pool.close()


@pytest.fixture
def make_ctx(jar: Path, sandbox: Sandbox, workers: WorkerPool) -> Any:
    """``make_ctx(**options)``: a verifier context on the local sandbox and detected tools."""
    tools = DetectedTools({Tla2ToolsToolchain.name: Tla2ToolsToolchain()})

    def make(**options: Any) -> KernelVerifyContext:
        return KernelVerifyContext(sandbox, tools, LIMITS, options, workers)

    return make
