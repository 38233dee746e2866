"""The sandbox interface: how a verifier, a harness or an agent runs an external tool on
untrusted model output.

Every external process a plugin starts goes through a ``Sandbox``: ``run`` for one command that
ends (a compiler, a model checker), ``open`` for one that stays (a warm JVM serving checks, a
database server, a replica of a store under load). Nothing else in a plugin may start a process;
``tests/test_boundary.py`` scans the plugins for it.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Literal

import attrs

from speckernel.model import Files


@attrs.frozen
class Limits:
    """Resource budget for one process tree. ``None`` leaves a limit unset.

    ``wall_s`` is enforced by killing the whole process group (or PID namespace); ``cpu_s``,
    ``memory_mb``, ``file_size_mb`` and ``processes`` by the OS. ``output_bytes`` caps what is
    kept of stdout and stderr each (the rest is read and dropped so a chatty tool cannot block).

    ``memory_mb`` is meant as resident memory, what the tree actually holds (page cache it brings
    in included), since that is what a budget is about. A sandbox that can only cap address space,
    which also counts what is merely reserved (a JVM reserves gigabytes), says so in ``describe``.
    """

    wall_s: float = 120.0
    cpu_s: float | None = None
    memory_mb: int | None = 4096
    file_size_mb: int | None = 256
    processes: int | None = 512
    output_bytes: int = 1_000_000
    network: bool = False
    disk_mb: int | None = 2048
    """What the work directory may hold in all (files the tool writes, the inputs included);
    the tool is killed when it holds more (``limit`` "disk")."""
    nested_namespaces: bool = False
    """Let the tool make namespaces of its own inside the sandbox (test hosts of a cluster
    harness, say). They nest in the call's user namespace and give no power outside it, but
    each is kernel attack surface, so they are off unless a verifier asks."""


LimitHit = Literal["wall", "memory", "cpu", "file_size", "processes", "output", "disk"]
"""The ``Limits`` budget a process ran into; see ``ProcessResult.limit``."""


@attrs.frozen
class ProcessResult:
    """What came back from one sandboxed command.

    ``limit`` names the limit that ended the process, so that callers can tell a timeout from an
    exhausted budget without parsing the tool's output: "wall" (timed out), "memory" (killed by
    the OOM killer), "cpu" (killed by the CPU limit's SIGXCPU or SIGKILL), "file_size" (killed
    by SIGXFSZ), "processes" (failed after a fork was refused), "disk" (killed for filling its
    work directory past ``disk_mb``), or "output" (nothing else, but
    stdout, stderr or a collected file was cut at ``output_bytes``). It is None when the process
    ended on its own, or when the sandbox cannot tell (a memory cap that is only an address-space
    limit makes allocations fail, which looks like any other error).

    ``peak_memory_mb`` is the most memory the tree held at once, in MiB, and ``cpu_s`` the CPU
    seconds (user and system) of the tool and of every process it waited for, where the sandbox
    can measure them (None otherwise), for harnesses and benchmarks that compare footprints.
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    truncated: bool = False
    signal: int | None = None
    files: Mapping[str, str] = attrs.field(factory=dict)
    limit: LimitHit | None = None
    peak_memory_mb: float | None = None
    cpu_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """stdout then stderr, the way a terminal would have shown them."""
        return self.stdout + (("\n" + self.stderr) if self.stderr else "")


StreamMode = Literal["pipe", "devnull", "stdout"]
"""Where a ``SandboxProcess``'s output goes: a pipe the caller reads, nowhere, or (stderr only)
the same pipe as stdout."""


class SandboxProcess(abc.ABC):
    """A process started by ``Sandbox.open``: a ``subprocess.Popen`` look-alike whose whole tree
    lives inside the sandbox and dies with it.

    ``workdir`` is the process's work directory as a path of this machine; the process sees it
    under the same path and may write only there. Put files in with ``write_files`` (they are
    made readable and writable for the process), read what it wrote from the path. ``close``
    kills whatever is left of the tree and removes the directory; it is also the context
    manager's exit. The process also dies when ``limits.wall_s`` is up and when the kernel
    process ends, however it ends.
    """

    workdir: Path
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    @abc.abstractmethod
    def poll(self) -> int | None:
        """The exit status (negative: killed by that signal) or None while it runs."""

    @abc.abstractmethod
    def wait(self, timeout: float | None = None) -> int:
        """Wait for the exit status; ``TimeoutError`` if ``timeout`` seconds pass first."""

    @abc.abstractmethod
    def kill(self) -> None:
        """Kill the whole tree now (idempotent)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Kill the tree, close the pipes and remove the work directory (idempotent)."""

    @abc.abstractmethod
    def write_files(self, files: Files, under: str = "") -> Path:
        """Write ``files`` under ``workdir/under`` (paths checked like ``run``'s ``files``)
        and return that directory."""

    @property
    @abc.abstractmethod
    def limit(self) -> LimitHit | None:
        """After exit: the limit that ended the process, as ``ProcessResult.limit``."""

    @property
    def peak_memory_mb(self) -> float | None:
        """The most memory the tree held at once, where the sandbox can tell."""
        return None

    @property
    def cpu_s(self) -> float | None:
        """After exit: the CPU seconds of the whole tree, where the sandbox can tell."""
        return None

    def __enter__(self) -> SandboxProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Sandbox(abc.ABC):
    """Runs a command in a fresh directory holding ``files``, within ``limits``.

    The working directory is created for the call and removed after it; ``collect`` names files
    (relative paths or glob patterns) to read back before removal. ``read_only`` names host
    paths the tool may read besides the system's own directories, the tools directory and the
    Python installation the kernel runs on (which every call sees): a dataset the user pointed
    at, a tool installed elsewhere. Nothing else of the host is visible.
    """

    name: str

    @abc.abstractmethod
    async def run(
        self,
        argv: Sequence[str],
        *,
        files: Files | None = None,
        limits: Limits | None = None,
        env: Mapping[str, str] | None = None,
        stdin: str | None = None,
        collect: Sequence[str] = (),
        read_only: Sequence[str | Path] = (),
    ) -> ProcessResult:
        """Run ``argv`` and return its result; never raises for the command's own failures."""

    @abc.abstractmethod
    def open(
        self,
        argv: Sequence[str],
        *,
        files: Files | None = None,
        limits: Limits | None = None,
        env: Mapping[str, str] | None = None,
        read_only: Sequence[str | Path] = (),
        stdin: bool = True,
        stdout: StreamMode = "pipe",
        stderr: StreamMode = "pipe",
    ) -> SandboxProcess:
        """Start ``argv`` and return at once (synchronous, so thread-based clients can use it).
        A program that cannot be started is a ``KernelError`` with one line."""

    def close(self) -> None:  # noqa: B027 - a sandbox that keeps nothing open
        """End every process ``open`` started that is still running (the run is over): warm
        servers a plugin keeps between calls end with the run that started them."""

    def preflight(self) -> str | None:
        """Why this sandbox cannot run anything on this machine (one line), or None. The
        runner asks before the first model call."""
        return None

    def describe(self) -> Mapping[str, str]:
        """The isolation this sandbox provides here, layer by layer (``kernel doctor``)."""
        return {}
