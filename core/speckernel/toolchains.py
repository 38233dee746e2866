"""The toolchain manager: detects the external tools plugins declared, installs missing ones from
the registries the project can reach, and answers verifiers' ``ctx.tools.status(name)``.

Detection runs plugin code, so every ``detect()`` is guarded: a crashing detector makes its tool
"not found" with the error as the detail instead of taking ``kernel doctor`` down with it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

from speckernel.components import InstallStep, Toolchain, ToolResolver, ToolStatus
from speckernel.containment import plugin_fault
from speckernel.errors import KernelError, unknown_name

_DEFAULT_TOOLS_DIR = "~/.local/share/speckernel/tools"
_APT_UPDATE = ("apt-get", "update")
INSTALL_LOCK_NAME = ".install.lock"
INSTALL_LOCK_WAIT_S = 1800.0


class Completed(Protocol):
    """What an install runner returns (``subprocess.CompletedProcess`` fits)."""

    @property
    def returncode(self) -> int: ...


Runner = Callable[[list[str]], Completed]


def tools_dir() -> Path:
    """Where downloaded tools (jars, mostly) live: ``$KERNEL_TOOLS_DIR``, or a per-user data
    directory so installing needs no write access to the project."""
    return Path(os.environ.get("KERNEL_TOOLS_DIR") or _DEFAULT_TOOLS_DIR).expanduser()


def build_directory(target: Path, fill: Callable[[Path], None],
                    built: Callable[[Path], bool]) -> Path:
    """Make the directory ``target`` (a tool's build: compiled classes, unpacked sources) unless
    ``built(target)`` says it is there: ``fill`` writes into a fresh temporary sibling, which is
    made readable by every user (sandboxed tools run as other users) and renamed into place, so
    a concurrent build or a tool reading it never sees half a build. When another process
    renames its build first, that build is kept (it is as good as ours)."""
    if built(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    try:
        fill(build)
        for folder, _, _ in os.walk(build):
            os.chmod(folder, 0o755)
        try:
            build.rename(target)
        except OSError:
            if not built(target):
                raise
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return target


def detect(toolchain: Toolchain) -> ToolStatus:
    """``toolchain.detect()``, with an exception turned into a not-found status."""
    try:
        return toolchain.detect()
    except BaseException as exc:  # plugin code: any failure means "not usable", not a crash
        if not plugin_fault(exc):
            raise
        return ToolStatus(toolchain.name, found=False, detail=f"detect() failed: {exc!r}")


def detect_all(toolchains: Iterable[Toolchain]) -> list[ToolStatus]:
    """The status of each toolchain, in order."""
    return [detect(toolchain) for toolchain in toolchains]


@contextlib.contextmanager
def install_lock(echo: Callable[[str], object] = print,
                 wait_s: float = INSTALL_LOCK_WAIT_S) -> Iterator[None]:
    """Hold the machine's install lock (``.install.lock`` in the tool directory) for one install.

    Installs from several processes at once (tox environments run in parallel, two terminals)
    would otherwise race for apt's dpkg lock, fail, and leave a tool missing: here the second
    waits for the first, then finds the tool installed. The kernel's lock is released when its
    holder exits, however it exits; a holder stuck for ``wait_s`` seconds is an error, not a
    hang."""
    folder = tools_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / INSTALL_LOCK_NAME
    with open(path, "a") as handle:
        deadline = time.monotonic() + wait_s
        waiting = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise KernelError(
                        f"another install has held {path} for {wait_s:.0f} s; "
                        "stop it or try again") from None
                if not waiting:
                    echo(f"waiting for another install to finish (lock {path})")
                    waiting = True
                time.sleep(0.5)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install_commands(step: InstallStep) -> list[list[str]]:
    """The exact command lines that perform ``step`` (printed before running, so a user can
    also copy them)."""
    match step.kind:
        case "debian":
            packages = step.spec.split()
            return [
                list(_APT_UPDATE),
                ["apt-get", "install", "-y", "--no-install-recommends", *packages],
            ]
        case "pypi":
            return [[sys.executable, "-m", "pip", "install", step.spec]]
        case "maven":
            dest = _expand(step.dest) if step.dest else tools_dir()
            return [
                [
                    "mvn",
                    "-q",
                    "dependency:copy",
                    f"-Dartifact={step.spec}",
                    f"-DoutputDirectory={dest}",
                ]
            ]
        case "command":
            return [["bash", "-c", step.spec]]


def _expand(dest: str) -> Path:
    """``{tools}`` is the kernel's tool directory; ``~`` is the user's home."""
    return Path(dest.replace("{tools}", str(tools_dir()))).expanduser()


class InstallSession:
    """Installs toolchains one after another, running ``apt-get update`` at most once however
    many Debian steps there are."""

    def __init__(
        self, runner: Runner = subprocess.run, echo: Callable[[str], object] = print
    ) -> None:
        self._runner = runner
        self._echo = echo
        self._apt_updated = False

    def install(self, toolchain: Toolchain) -> bool:
        """Run ``toolchain``'s steps in order until it is detected; whether it is found after.

        A failing step does not stop the others: steps may be alternatives (a Debian package
        or a jar from Maven), and the detection after each decides. Steps run under the
        machine's install lock (``install_lock``); a tool another process installed while this
        one waited is found, not installed twice.
        """
        if detect(toolchain).found:
            return True
        with install_lock(self._echo):
            if detect(toolchain).found:
                return True
            for step in toolchain.install:
                self._run_step(step)
                if detect(toolchain).found:
                    return True
        return False

    def _run_step(self, step: InstallStep) -> None:
        """Run the step's commands, stopping at the first that fails."""
        for command in install_commands(step):
            if tuple(command) == _APT_UPDATE and self._apt_updated:
                continue
            self._echo(shlex.join(command))
            if self._runner(command).returncode != 0:
                self._echo(f"failed: {shlex.join(command)}")
                return
            self._apt_updated |= tuple(command) == _APT_UPDATE


def install(
    toolchain: Toolchain, runner: Runner = subprocess.run, echo: Callable[[str], object] = print
) -> bool:
    """Install one toolchain (see ``InstallSession.install``)."""
    return InstallSession(runner, echo).install(toolchain)


class DetectedTools(ToolResolver):
    """Resolves toolchain names to their status, detecting each on first request and keeping
    the answer for the life of the process (verifiers ask per candidate; the tools do not change
    under a run)."""

    def __init__(self, registry_toolchains: Mapping[str, Toolchain]) -> None:
        self._toolchains = dict(registry_toolchains)
        self._statuses: dict[str, ToolStatus] = {}
        self._lock = threading.Lock()

    def status(self, name: str) -> ToolStatus:
        toolchain = self._toolchains.get(name)
        if toolchain is None:
            raise unknown_name("toolchain", name, self._toolchains)
        with self._lock:
            if name not in self._statuses:
                self._statuses[name] = detect(toolchain)
            return self._statuses[name]
