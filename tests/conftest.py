"""Shared fixtures of the kernel's tests: the fixture plugin ``pyfunc`` registered in-process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
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


KERNEL_BOOT = """
import sys
sys.path.insert(0, {fixtures!r})
from speckernel import cli
from speckernel_pyfunc import plugin
cli.EXTRA_PLUGINS["pyfunc"] = plugin
{prelude}
cli.main()
"""


@pytest.fixture
def kernel_process(kernel_env: Path) -> Callable[..., subprocess.Popen[str]]:
    """Start ``kernel ARGS`` in a separate process, with the fixture plugin ``pyfunc`` and
    ``prelude`` (Python run before the CLI: a fault to inject, a plugin to register), in the
    test's private working directory and cache; stdout and stderr are pipes."""
    import os

    def start(*args: str | Path, prelude: str = "") -> subprocess.Popen[str]:
        code = KERNEL_BOOT.format(fixtures=str(FIXTURES / "pyfunc" / "src"),
                                  prelude=textwrap.dedent(prelude))
        return subprocess.Popen([sys.executable, "-c", code, *map(str, args)],
                                cwd=kernel_env, env=dict(os.environ), text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    return start


@pytest.fixture
def read_only() -> Iterator[Callable[[Path], None]]:
    """Make an existing directory read-only for this process, for real: a read-only bind mount
    of it onto itself when the tests run as root (root writes through file modes), its modes
    otherwise; skipped where neither is possible."""
    import os

    mounted: list[Path] = []

    def make(path: Path) -> None:
        if os.geteuid() != 0:
            for p in [path, *path.rglob("*")]:
                p.chmod(p.stat().st_mode & ~0o222)
            return
        bind = subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True)
        if bind.returncode != 0:
            pytest.skip(f"cannot bind-mount as root here: {bind.stderr.decode().strip()}")
        mounted.append(path)
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True)

    yield make
    for path in reversed(mounted):
        subprocess.run(["umount", "-l", str(path)], check=False)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[int], Path]]:
    """``small_disk(kib)``: a fresh tmpfs of that size (a disk that fills up), resizable with
    ``remount``; needs root, skipped otherwise."""
    import os

    mounted: list[Path] = []

    def make(kib: int) -> Path:
        if os.geteuid() != 0:
            pytest.skip("mounting a tmpfs needs root")
        path = tmp_path / f"disk{len(mounted)}"
        path.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", str(path)],
                              capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
        mounted.append(path)
        return path

    yield make
    for path in reversed(mounted):
        subprocess.run(["umount", "-l", str(path)], check=False)
