"""The local sandbox: every tool runs behind the bubblewrap boundary (``boundary.py``), as a
user of its own, supervised by a launcher (``launcher.py``) that enforces its budgets and kills
it with the kernel, in cgroups (``cgroups.py``) that cap and count its tasks and memory.

One call, from the kernel's side:

1. a call directory ``speckernel-XXXX/`` (reachable by the call's user) holding ``work/`` (the
   tool's work directory, owned by that user, the only place it may write) and ``stage/``
   (mount points for read-only paths it could not reach otherwise);
2. the call's cgroups;
3. ``python -I -S launcher.py CONFIG`` with the lifeline and a status pipe; the launcher runs
   ``bwrap ... -- python -I -S launcher.py --report FD GUARD COMMAND``;
4. output drained (capped), the exit status and the limit that ended the tool read from the
   status pipe, the files to collect read back, and everything removed.

``memory_mb`` caps resident memory through the memory cgroup, which also reports the call's peak
and whether the OOM killer struck. Without a writable memory cgroup it falls back to
``RLIMIT_AS``, which counts reserved address space too: a JVM then cannot start under a few
gigabytes unless told to reserve less (``-Xmx`` and friends).
"""

from __future__ import annotations

import contextlib
import marshal
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any

import anyio
import attrs
from anyio.abc import ByteReceiveStream, ByteSendStream

from speckernel.errors import KernelError
from speckernel.model import Files
from speckernel.sandbox import boundary, cgroups
from speckernel.sandbox.base import (
    LimitHit,
    Limits,
    ProcessResult,
    Sandbox,
    SandboxProcess,
    StreamMode,
)

_DRAIN_GRACE_S = 1.0
"""How long output may keep flowing after the tree is killed (data still in the pipes)."""
_BACKSTOP_S = 10.0
"""How long past the launcher's own wall budget the kernel waits before killing it itself."""
_NPROC_MARGIN = 16
_REFUSED = 126
_NOT_FOUND = 127
_LAUNCHER = str(Path(__file__).with_name("launcher.py"))

_LIFELINE_LOCK = threading.Lock()
_LIFELINE: list[int] = []


def _lifeline() -> int:
    """The read end of a pipe whose write end this process holds until it dies: every launcher
    watches it and kills its tool on end-of-file."""
    with _LIFELINE_LOCK:
        if not _LIFELINE:
            read, _write = os.pipe()  # _write is never closed: the OS closes it when we die
            _LIFELINE.append(read)
        return _LIFELINE[0]


class LocalSandbox(Sandbox):
    """Runs commands behind the local boundary; see the module docstring.

    ``read_only`` names host paths every call may read (the run's tools, as detected), besides
    the system directories, the tools directory and the Python installation.
    """

    name = "local"

    def __init__(self, read_only: Sequence[str | Path] = ()) -> None:
        self.read_only = tuple(str(p) for p in read_only)
        self._opened: weakref.WeakSet[LocalProcess] = weakref.WeakSet()
        self._opened_lock = threading.Lock()

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
        argv = tuple(argv)
        limits = limits or Limits()
        refusal = check_request(argv, files or {}, collect)
        if refusal is not None:
            return refusal
        try:
            call = _Call.prepare(argv, files or {}, limits, env,
                                 [*self.read_only, *map(str, read_only)])
        except _Refused as exc:
            return refused(argv, str(exc), exc.code)
        try:
            result = await _run_call(call, argv, stdin)
            collected, cut = collect_files(call.workdir, collect, limits.output_bytes)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(call.cleanup)
        truncated = result.truncated or cut
        return attrs.evolve(result, files=collected, truncated=truncated,
                            limit=result.limit or ("output" if truncated else None))

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
    ) -> LocalProcess:
        argv = tuple(argv)
        refusal = check_request(argv, files or {}, ())
        if refusal is not None:
            raise KernelError(refusal.stderr.removeprefix("speckernel: "))
        try:
            call = _Call.prepare(argv, files or {}, limits or Limits(), env,
                                 [*self.read_only, *map(str, read_only)])
        except _Refused as exc:
            raise KernelError(f"cannot start {argv[0]}: {exc}") from None
        process = LocalProcess(call, stdin, stdout, stderr)
        with self._opened_lock:
            self._opened.add(process)
        return process

    def close(self) -> None:
        with self._opened_lock:
            opened = list(self._opened)
        for process in opened:
            process.close()

    def preflight(self) -> str | None:
        problem = boundary.probe().problem
        return None if problem is None else f"the local sandbox cannot run tools: {problem}"

    def describe(self) -> Mapping[str, str]:
        bases = cgroups.bases()
        pids, memory = bases.get("pids"), bases.get("memory")
        return {
            **boundary.probe().describe(),
            "rlimits": "cpu, file size, nproc, core=0"
            + ("" if memory else ", address space (for memory)"),
            "pids cgroup": f"active under {pids.path}" if pids
            else "unavailable: process count capped by RLIMIT_NPROC only",
            "memory": f"cgroup v{memory.version} (resident) under {memory.path}" if memory
            else "rlimit address space (no writable memory cgroup)",
            "disk": "work directory watched by the launcher; killed past Limits.disk_mb",
        }


# --------------------------------------------------------------------------- requests and files


def check_request(
    argv: tuple[str, ...], files: Files, collect: Sequence[str]
) -> ProcessResult | None:
    """The result refusing a request that cannot be run safely, or None if it can."""
    if not argv:
        return refused(argv, "empty command")
    for path in [*files, *collect]:
        problem = path_problem(path)
        if problem is not None:
            return refused(argv, problem)
    return None


def refused(argv: tuple[str, ...], message: str, code: int = _REFUSED) -> ProcessResult:
    """A result for a command that was not run (126, as a shell says "cannot execute")."""
    return ProcessResult(argv, code, "", f"speckernel: {message}", 0.0)


def path_problem(path: str) -> str | None:
    """Why ``path`` may not name a file of the work directory, or None if it may.

    Model output chooses these names: an absolute path or a ``..`` would write (or read back)
    anywhere on the host.
    """
    pure = PurePosixPath(path)
    if not pure.parts or "\0" in path or pure.is_absolute() or ".." in pure.parts:
        return f"refusing path {path!r}: it must be relative and stay inside the work directory"
    return None


def write_files(workdir: Path, files: Files, owner: tuple[int, int] | None = None) -> None:
    """Materialize ``files`` (already checked by ``path_problem``) under ``workdir``, owned by
    ``owner`` (uid, gid) when the tool runs as another user, so it may rewrite them."""
    for name, text in files.items():
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        # A lone surrogate has no UTF-8 form: the tool reads U+FFFD, as it would in an editor.
        target.write_text(text, encoding="utf-8", errors="replace")
    if owner is not None:
        _chown_tree(workdir, owner)


def _chown_tree(root: Path, owner: tuple[int, int]) -> None:
    os.chown(root, *owner)
    for folder, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            os.chown(os.path.join(folder, name), *owner, follow_symlinks=False)


def collect_files(workdir: Path, patterns: Sequence[str], cap: int) -> tuple[dict[str, str], bool]:
    """Read back the files matching ``patterns`` as text, each cut at ``cap`` bytes; the flag says
    whether any was cut.

    Paths that resolve outside ``workdir`` are skipped: the tool could plant a symlink to make
    the kernel read, and store, a host file.
    """
    root = workdir.resolve()
    found: dict[str, str] = {}
    truncated = False
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if not path.is_file() or not path.resolve().is_relative_to(root):
                continue
            with path.open("rb") as stream:
                data = stream.read(cap + 1)
            truncated |= len(data) > cap
            found[path.relative_to(root).as_posix()] = data[:cap].decode("utf-8", "replace")
    return found, truncated


def _remove_tree(root: Path) -> None:
    """Remove a call directory whatever modes the tool left on its files."""

    def allow_and_retry(function: Any, path: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700, follow_symlinks=False)
            function(path)

    shutil.rmtree(root, onerror=allow_and_retry)


# --------------------------------------------------------------------------- one call


class _Refused(Exception):
    def __init__(self, message: str, code: int = _REFUSED) -> None:
        super().__init__(message)
        self.code = code


def _child_env(workdir: Path, extra: Mapping[str, str] | None) -> dict[str, str]:
    """A minimal environment: nothing of the kernel's (API keys!) reaches the tool."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    if "JAVA_HOME" in os.environ:
        env["JAVA_HOME"] = os.environ["JAVA_HOME"]
    env.update(extra or {})
    return env


def _resolve(program: str, workdir: Path, path: str) -> str | None:
    """The file ``program`` names, found as a shell would (a name with a slash is relative to
    the work directory), or None."""
    if "/" in program:
        candidate = workdir / program
        return str(candidate) if candidate.exists() else None
    return shutil.which(program, path=path)


def _cpu_rlimit(cpu_s: float) -> tuple[int, int]:
    """``RLIMIT_CPU`` as (soft, hard): the hard limit is a second above the soft one so the tool
    dies of ``SIGXCPU``, which says why, rather than SIGKILL."""
    return math.ceil(cpu_s), math.ceil(cpu_s) + 1


def _rlimits(limits: Limits, address_space: bool, pids_cgroup: bool) -> dict[str, tuple[int, int]]:
    """The launcher's ``setrlimit`` calls, as (soft, hard). ``RLIMIT_AS`` stands in for the
    memory cgroup only where the call has none (``address_space``), as it counts reservations,
    not use. ``RLIMIT_NPROC`` counts the tasks of the call's user (its own when it runs as a
    user of its own); where a pids cgroup caps the tree exactly (and counts the forks it
    refuses, so the limit can be named), NPROC is a backstop a little above it."""
    values = {"RLIMIT_CORE": (0, 0)}
    if limits.cpu_s is not None:
        values["RLIMIT_CPU"] = _cpu_rlimit(limits.cpu_s)
    if limits.memory_mb is not None and address_space:
        values["RLIMIT_AS"] = (limits.memory_mb << 20,) * 2
    if limits.file_size_mb is not None:
        values["RLIMIT_FSIZE"] = (limits.file_size_mb << 20,) * 2
    if limits.processes is not None:
        values["RLIMIT_NPROC"] = (limits.processes + (_NPROC_MARGIN if pids_cgroup else 0),) * 2
    return values


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()


class _Call:
    """What one sandboxed command holds on the host: its directories, its user, its cgroups,
    the launcher command and its status pipe. ``cleanup`` releases all of it."""

    def __init__(self, root: Path, limits: Limits, owner: tuple[int, int] | None,
                 groups: cgroups.CallCgroups) -> None:
        self.root = root
        self.workdir = root / "work"
        self.limits = limits
        self.owner = owner
        self.cgroups = groups
        self.command: list[str] = []
        self.status_read = -1
        self.status_write = -1
        self.started = time.monotonic()
        self.cpu_s: float | None = None

    @classmethod
    def prepare(cls, argv: tuple[str, ...], files: Files, limits: Limits,
                env: Mapping[str, str] | None, read_only: Sequence[str]) -> _Call:
        fence = boundary.probe()
        if fence.bwrap is None:
            raise _Refused(f"no sandbox: {fence.problem}")
        owner = None
        if fence.switch_user:
            uid = boundary.fresh_uid(fence)
            owner = (uid, uid)
        root = Path(tempfile.mkdtemp(prefix="speckernel-"))
        groups = cgroups.CallCgroups.create(cgroups.bases(), limits)
        call = cls(root, limits, owner, groups)
        try:
            call._build(argv, files, env, read_only, fence)
        except BaseException:
            call.cleanup()
            raise
        return call

    def _build(self, argv: tuple[str, ...], files: Files, env: Mapping[str, str] | None,
               read_only: Sequence[str], fence: boundary.Boundary) -> None:
        os.chmod(self.root, 0o755)
        self.workdir.mkdir(mode=0o700)
        stage = self.root / "stage"
        stage.mkdir(mode=0o755)
        try:
            write_files(self.workdir, files, self.owner)
        except OSError as exc:
            raise _Refused(f"cannot write the input files: {exc}") from None
        child_env = _child_env(self.workdir, env)
        program = _resolve(argv[0], self.workdir, child_env["PATH"])
        if program is None:
            raise _Refused(f"{argv[0]}: command not found", _NOT_FOUND)
        from speckernel.toolchains import tools_dir

        visible = [*boundary.runtime_paths(), str(tools_dir()), *read_only,
                   os.path.dirname(os.path.realpath(program)), _LAUNCHER]
        self.status_read, self.status_write = os.pipe()
        inner = [sys.executable, "-I", "-S", _LAUNCHER, "--report", str(self.status_write),
                 str(_lifeline()), program, *argv[1:]]
        mounts = boundary.plan(fence, inner, workdir=self.workdir,
                               stage_dir=stage if self.owner else None, read_only=visible,
                               env=child_env, network=self.limits.network,
                               nested_namespaces=self.limits.nested_namespaces)
        config = {
            "argv": list(mounts.argv),
            "stage": [list(pair) for pair in mounts.stage],
            "uid": self.owner[0] if self.owner else None,
            "gid": self.owner[1] if self.owner else None,
            "procs": self.cgroups.procs_files,
            "rlimits": _rlimits(self.limits, "memory" not in self.cgroups.by_controller,
                                "pids" in self.cgroups.by_controller),
            "wall_s": self.limits.wall_s,
            "disk_bytes": None if self.limits.disk_mb is None else self.limits.disk_mb << 20,
            "workdir": str(self.workdir),
            "lifeline": _lifeline(),
            "status": self.status_write,
        }
        self.command = [sys.executable, "-I", "-S", _LAUNCHER, marshal.dumps(config).hex()]

    @property
    def pass_fds(self) -> tuple[int, int]:
        return (_lifeline(), self.status_write)

    def started_process(self) -> None:
        """The launcher holds the status pipe's write end now: drop ours so its end reads as
        end-of-file once the launcher is gone."""
        self.started = time.monotonic()
        os.close(self.status_write)
        self.status_write = -1

    def status(self) -> tuple[int | None, str | None]:
        """(the tool's exit status, the limit the launcher killed it for), from the status
        pipe, once the launcher has ended; (None, None) for what it did not say. The tool's
        own status (``tool N CPU``, from inside) wins over bubblewrap's (``code N LIMIT``).
        The tool's CPU seconds go to ``cpu_s``."""
        data = b""
        os.set_blocking(self.status_read, False)
        with contextlib.suppress(BlockingIOError, OSError):
            while chunk := os.read(self.status_read, 65536):
                data += chunk
        tool: int | None = None
        outer: int | None = None
        limit: str | None = None
        for line in data.decode(errors="replace").splitlines():
            match line.split():
                case ["tool", number, cpu] if _is_int(number):
                    tool = int(number)
                    with contextlib.suppress(ValueError):
                        self.cpu_s = float(cpu)
                case ["code", number, said] if _is_int(number):
                    outer = int(number)
                    limit = None if said == "-" else said
        return (tool if tool is not None else outer), limit

    def kill(self, launcher_pid: int | None) -> None:
        """Kill the launcher's process group (it leads one: ``start_new_session``), which also
        holds a bubblewrap sandbox process its supervisor could not reach (one killed while
        still being set up), and whatever the call's cgroups hold."""
        if launcher_pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(launcher_pid, signal.SIGKILL)
        self.cgroups.kill_all()

    def limit_hit(self, code: int | None, said: str | None, duration: float) -> LimitHit | None:
        """Which limit ended the tool. The launcher knows wall and disk; the OOM counter is read
        rather than ``memory.failcnt``, which also counts reclaim that killed nothing; a SIGKILL
        is the CPU limit's hard one only if the tool could have used that much CPU by then."""
        if said in ("wall", "disk"):
            return "wall" if said == "wall" else "disk"
        if code == 0:
            return None
        if self.cgroups.oom_kills():
            return "memory"
        cpu_s = self.limits.cpu_s
        if code == -signal.SIGXCPU or (
            code == -signal.SIGKILL and cpu_s is not None
            and duration * len(os.sched_getaffinity(0)) >= _cpu_rlimit(cpu_s)[1]
        ):
            return "cpu"
        if code == -signal.SIGXFSZ:
            return "file_size"
        if self.cgroups.forks_refused():
            return "processes"
        return None

    def cleanup(self) -> None:
        self.cgroups.remove()
        for fd in (self.status_read, self.status_write):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.status_read = self.status_write = -1
        _remove_tree(self.root)


async def _run_call(call: _Call, argv: tuple[str, ...], stdin: str | None) -> ProcessResult:
    """Start the launcher, feed and drain the tool, and kill whatever is left when it ends,
    times out or the caller is cancelled."""
    process = await anyio.open_process(
        call.command,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        cwd=call.root, env={}, start_new_session=True, pass_fds=call.pass_fds,
    )
    call.started_process()
    out = _CappedOutput(call.limits.output_bytes)
    err = _CappedOutput(call.limits.output_bytes)
    try:
        async with anyio.create_task_group() as tasks:
            if process.stdout is not None:
                tasks.start_soon(out.drain, process.stdout)
            if process.stderr is not None:
                tasks.start_soon(err.drain, process.stderr)
            if process.stdin is not None:
                tasks.start_soon(_feed, process.stdin, (stdin or "").encode())
            with anyio.move_on_after(call.limits.wall_s + _BACKSTOP_S):
                await process.wait()
            # Background children still hold the pipes: kill them so the drains see end of
            # file, and stop draining shortly after in any case.
            call.kill(process.pid)
            await process.wait()
            duration = time.monotonic() - call.started
            tasks.cancel_scope.deadline = anyio.current_time() + _DRAIN_GRACE_S
    finally:
        with anyio.CancelScope(shield=True):
            call.kill(process.pid)
            await process.aclose()
    code, said = call.status()
    if code is None and said is None:  # the launcher itself was killed: the backstop
        said = "wall"
    limit = call.limit_hit(code, said, duration)
    killed_by = -code if code is not None and code < 0 else None
    return ProcessResult(
        argv,
        returncode=None if killed_by or code is None else code,
        stdout=out.text(),
        stderr=err.text(),
        duration_s=duration,
        timed_out=limit == "wall",
        truncated=out.truncated or err.truncated,
        signal=killed_by,
        limit=limit,
        peak_memory_mb=call.cgroups.peak_memory_mb(),
        cpu_s=call.cpu_s,
    )


class _CappedOutput:
    """Keeps the first ``limit`` bytes of a stream and reads and drops the rest, so a chatty
    tool neither blocks on a full pipe nor fills the kernel's memory."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._kept = bytearray()
        self.truncated = False

    async def drain(self, stream: ByteReceiveStream) -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async for chunk in stream:
                room = self._limit - len(self._kept)
                self._kept += chunk[: max(room, 0)]
                self.truncated |= len(chunk) > room

    def text(self) -> str:
        return self._kept.decode("utf-8", errors="replace")


async def _feed(stream: ByteSendStream, data: bytes) -> None:
    """Write stdin and close it; a tool that exits without reading it is not an error."""
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        async with stream:
            await stream.send(data)


# --------------------------------------------------------------------------- long-lived


_MODES = {"pipe": subprocess.PIPE, "devnull": subprocess.DEVNULL, "stdout": subprocess.STDOUT}


class LocalProcess(SandboxProcess):
    """A ``Sandbox.open`` process of the local sandbox."""

    def __init__(self, call: _Call, stdin: bool, stdout: StreamMode, stderr: StreamMode) -> None:
        if stdout == "stdout":
            raise KernelError("stdout cannot go to stdout")
        self._call = call
        self.workdir = call.workdir
        self._lock = threading.Lock()
        self._closed = False
        self._code: int | None = None
        self._said: str | None = None
        try:
            self._process = subprocess.Popen(
                call.command, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                stdout=_MODES[stdout], stderr=_MODES[stderr], cwd=call.root, env={},
                start_new_session=True, pass_fds=call.pass_fds,
            )
        except OSError as exc:
            call.cleanup()
            raise KernelError(f"cannot start the sandbox launcher: {exc}") from None
        call.started_process()
        self.stdin: IO[bytes] | None = self._process.stdin
        self.stdout: IO[bytes] | None = self._process.stdout
        self.stderr: IO[bytes] | None = self._process.stderr
        self.pid = self._process.pid

    def poll(self) -> int | None:
        if self._process.poll() is None:
            return None
        return self._finish()

    def wait(self, timeout: float | None = None) -> int:
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"still running after {timeout} s") from None
        return self._finish()

    def _finish(self) -> int:
        with self._lock:
            if self._code is None and not self._closed:
                code, self._said = self._call.status()
                self._code = code if code is not None else -signal.SIGKILL
        return self._code if self._code is not None else -signal.SIGKILL

    def kill(self) -> None:
        self._call.kill(self._process.pid)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
        self.kill()
        self._process.wait()
        self._finish()
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with self._lock:
            self._closed = True
            self._call.cleanup()

    def write_files(self, files: Files, under: str = "") -> Path:
        if under and path_problem(under) is not None:
            raise KernelError(str(path_problem(under)))
        for name in files:
            problem = path_problem(name)
            if problem is not None:
                raise KernelError(problem)
        folder = self.workdir / under if under else self.workdir
        folder.mkdir(parents=True, exist_ok=True)
        write_files(folder, files, self._call.owner)
        return folder

    @property
    def limit(self) -> LimitHit | None:
        if self._process.poll() is None:
            return None
        code = self._finish()
        return self._call.limit_hit(code, self._said,
                                    time.monotonic() - self._call.started)

    @property
    def peak_memory_mb(self) -> float | None:
        return self._call.cgroups.peak_memory_mb()

    @property
    def cpu_s(self) -> float | None:
        if self._process.poll() is None:
            return None
        self._finish()
        return self._call.cpu_s
