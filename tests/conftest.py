"""Shared fixtures of the kernel's tests: the fixture plugin ``pyfunc`` registered in-process."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES / "pyfunc" / "src"))


@pytest.fixture
def pyfunc(kernel_plugins: Callable[..., None]) -> None:
    """The fixture benchmark ``pyfunc`` (real Python checks in the local sandbox)."""
    from speckernel_pyfunc import plugin

    kernel_plugins(plugin)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
