"""The sandbox interface: how a verifier runs an external tool on untrusted model output."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence

import attrs

from speckernel.model import Files


@attrs.frozen
class Limits:
    """Resource budget for one process tree. ``None`` leaves a limit unset.

    ``wall_s`` is enforced by killing the whole process group (or PID namespace); ``cpu_s``,
    ``memory_mb``, ``file_size_mb`` and ``processes`` by the OS. ``output_bytes`` caps what is
    kept of stdout and stderr each (the rest is read and dropped so a chatty tool cannot block).
    """

    wall_s: float = 120.0
    cpu_s: float | None = None
    memory_mb: int | None = 4096
    file_size_mb: int | None = 256
    processes: int | None = 512
    output_bytes: int = 1_000_000
    network: bool = False


@attrs.frozen
class ProcessResult:
    """What came back from one sandboxed command."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    truncated: bool = False
    signal: int | None = None
    files: Mapping[str, str] = attrs.field(factory=dict)

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
