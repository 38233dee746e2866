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


@pytest.fixture(scope="session")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with speckernel installed from this checkout (not editable),
    as a stranger's machine has it; the slow tests install their plugins into it."""
    import subprocess
    import venv

    env_dir = tmp_path_factory.mktemp("fresh") / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q",
                    "--disable-pip-version-check", str(Path(__file__).parent.parent)],
                   check=True, timeout=900)
    return env_dir


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
