"""The sandbox interface: how a verifier runs an external tool on untrusted model output."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Literal

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


LimitHit = Literal["wall", "memory", "cpu", "file_size", "processes", "output"]
"""The ``Limits`` budget a process ran into; see ``ProcessResult.limit``."""


@attrs.frozen
class ProcessResult:
    """What came back from one sandboxed command.

    ``limit`` names the limit that ended the process, so that callers can tell a timeout from an
    exhausted budget without parsing the tool's output: "wall" (timed out), "memory" (killed by
    the OOM killer), "cpu" (killed by the CPU limit's SIGXCPU or SIGKILL), "file_size" (killed
    by SIGXFSZ), "processes" (failed after a fork was refused), or "output" (nothing else, but
    stdout, stderr or a collected file was cut at ``output_bytes``). It is None when the process
    ended on its own, or when the sandbox cannot tell (a memory cap that is only an address-space
    limit makes allocations fail, which looks like any other error).

    ``peak_memory_mb`` is the most memory the tree held at once, in MiB, where the sandbox can
    measure it (None otherwise), for harnesses that compare tools' footprints.
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

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """stdout then stderr, the way a terminal would have shown them."""
        return self.stdout + (("\n" + self.stderr) if self.stderr else "")


class Sandbox(abc.ABC):
    """Runs a command in a fresh directory holding ``files``, within ``limits``.

    The working directory is created for the call and removed after it; ``collect`` names files
    (relative paths or glob patterns) to read back before removal.
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
    ) -> ProcessResult:
        """Run ``argv`` and return its result; never raises for the command's own failures."""

    def describe(self) -> Mapping[str, str]:
        """The isolation this sandbox provides here (shown by ``kernel doctor``)."""
        return {}
