"""The local sandbox: runs a tool as a child process of the kernel, fenced in by what Linux offers
without a container engine.

Every call gets a fresh work directory, a scrubbed environment, rlimits, its own session, and,
where this machine allows them, a network namespace, a PID namespace and a pids cgroup. This is
not a wall against a determined attacker (the tool still sees the host's filesystem); it keeps
broken or runaway model output from hanging a run, eating memory or disk, reaching the network or
leaving processes behind.

The JVM reserves far more virtual memory than it uses, and ``memory_mb`` becomes ``RLIMIT_AS``:
callers running ``java`` should pass ``-Xmx`` and a generous ``memory_mb`` (or ``None``).

In a PID namespace the tool is the namespace's init, and the kernel drops signals an init has no
handler for unless they come from outside: ``kill $$`` and ``SIGXCPU`` do nothing there, so the
CPU limit strikes one second later with the hard limit's SIGKILL.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

import anyio
import attrs
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from speckernel.model import Files
from speckernel.sandbox.base import Limits, ProcessResult, Sandbox

_DRAIN_GRACE_S = 1.0
"""How long output may keep flowing after the tree is killed (data still in the pipes)."""
_KILL_ROUNDS = 200
_REFUSED = 126
_NOT_FOUND = 127
_CGROUP_PREFIX = "speckernel-"
_UNSHARE_SIGKILL_LINE = "unshare: sigprocmask unblock failed: Invalid argument\n"

# Runs between fork and the tool: joins the call's cgroup (before anything can fork, so no child
# escapes it), sets the rlimits, then execs. A separate interpreter keeps this out of the kernel's
# own process (``preexec_fn`` is unsafe with threads and unavailable through anyio).
_LAUNCHER = """\
import json, os, resource, signal, sys
procs, limits, argv = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
for ignored_by_python in (signal.SIGPIPE, signal.SIGXFSZ):
    signal.signal(ignored_by_python, signal.SIG_DFL)
if procs:
    with open(procs, "w") as f:
        f.write(str(os.getpid()))
for name, (soft, hard) in limits.items():
    resource.setrlimit(getattr(resource, name), (soft, hard))
try:
    os.execv(argv[0], argv)
except OSError as e:
    sys.stderr.write(f"speckernel: cannot execute {argv[0]}: {e.strerror}\\n")
    sys.exit(126)
"""


class LocalSandbox(Sandbox):
    """Runs commands as local child processes; see the module docstring for what is fenced."""

    name = "local"

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
        argv = tuple(argv)
        limits = limits or Limits()
        files = files or {}
        refusal = check_request(argv, files, collect)
        if refusal is not None:
            return refusal
        with tempfile.TemporaryDirectory(prefix="speckernel-", ignore_cleanup_errors=True) as tmp:
            workdir = Path(tmp)
            try:
                write_files(workdir, files)
            except OSError as exc:
                return refused(argv, f"cannot write the input files: {exc}")
            child_env = _child_env(workdir, env)
            program = _resolve(argv[0], workdir, child_env["PATH"])
            if program is None:
                return ProcessResult(
                    argv, _NOT_FOUND, "", f"speckernel: {argv[0]}: command not found", 0.0
                )
            result = await _run_fenced(
                (program, *argv[1:]), workdir, child_env, stdin, limits, _features()
            )
            collected, cut = collect_files(workdir, collect, limits.output_bytes)
            return attrs.evolve(
                result, argv=argv, files=collected, truncated=result.truncated or cut
            )

    def describe(self) -> Mapping[str, str]:
        return _features().describe()


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


def refused(argv: tuple[str, ...], message: str) -> ProcessResult:
    """A result for a command that was not run (126, as a shell says "cannot execute")."""
    return ProcessResult(argv, _REFUSED, "", f"speckernel: {message}", 0.0)


def path_problem(path: str) -> str | None:
    """Why ``path`` may not name a file of the work directory, or None if it may.

    Model output chooses these names: an absolute path or a ``..`` would write (or read back)
    anywhere on the host.
    """
    pure = PurePosixPath(path)
    if not pure.parts or "\0" in path or pure.is_absolute() or ".." in pure.parts:
        return f"refusing path {path!r}: it must be relative and stay inside the work directory"
    return None


def write_files(workdir: Path, files: Files) -> None:
    """Materialize ``files`` (already checked by ``path_problem``) under ``workdir``."""
    for name, text in files.items():
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


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


# --------------------------------------------------------------------------- the child


def _child_env(workdir: Path, extra: Mapping[str, str] | None) -> dict[str, str]:
    """A minimal environment: nothing of the kernel's (API keys!) leaks into the tool."""
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
    the work directory), or None, so that a missing tool is a 127 result, not an exception."""
    if "/" in program:
        candidate = workdir / program
        return str(candidate) if candidate.exists() else None
    return shutil.which(program, path=path)


def _rlimits(limits: Limits) -> dict[str, tuple[int, int]]:
    """The launcher's ``setrlimit`` calls, as (soft, hard). The CPU hard limit is a second
    above the soft one so the tool dies of ``SIGXCPU``, which says why, rather than SIGKILL.
    ``RLIMIT_NPROC`` is per user and ignored for root, hence the pids cgroup as well."""
    values = {"RLIMIT_CORE": (0, 0)}
    if limits.cpu_s is not None:
        values["RLIMIT_CPU"] = (math.ceil(limits.cpu_s), math.ceil(limits.cpu_s) + 1)
    if limits.memory_mb is not None:
        values["RLIMIT_AS"] = (limits.memory_mb << 20,) * 2
    if limits.file_size_mb is not None:
        values["RLIMIT_FSIZE"] = (limits.file_size_mb << 20,) * 2
    if limits.processes is not None:
        values["RLIMIT_NPROC"] = (limits.processes,) * 2
    return values


def _command(
    argv: tuple[str, ...], limits: Limits, features: _Features, cgroup: _PidsCgroup | None
) -> list[str]:
    """launcher -> [unshare ...] -> argv."""
    namespaces = []
    if features.netns and not limits.network:
        namespaces.append("--net")
    if features.pidns:
        namespaces += ["--pid", "--fork", "--kill-child"]
    wrapped = [*argv]
    if namespaces and features.unshare:
        wrapped = [features.unshare, *namespaces, "--", *argv]
    procs = str(cgroup.path / "cgroup.procs") if cgroup else ""
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER]
    return [*launcher, procs, json.dumps(_rlimits(limits)), *wrapped]


async def _run_fenced(
    argv: tuple[str, ...],
    workdir: Path,
    env: Mapping[str, str],
    stdin: str | None,
    limits: Limits,
    features: _Features,
) -> ProcessResult:
    """Run ``argv`` in ``workdir`` and kill whatever is left of its tree when it ends, times out
    or the caller is cancelled."""
    cgroup = _PidsCgroup.create(features.cgroup_base, limits.processes)
    try:
        started = anyio.current_time()
        process = await anyio.open_process(
            _command(argv, limits, features, cgroup),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            cwd=workdir,
            env=env,
            start_new_session=True,
        )
        try:
            return await _supervise(process, argv, stdin, limits, cgroup, started)
        finally:
            with anyio.CancelScope(shield=True):
                await _kill_tree(process.pid, cgroup)
                await process.aclose()
    finally:
        if cgroup is not None:
            with anyio.CancelScope(shield=True):
                await cgroup.remove()


async def _supervise(
    process: Process,
    argv: tuple[str, ...],
    stdin: str | None,
    limits: Limits,
    cgroup: _PidsCgroup | None,
    started: float,
) -> ProcessResult:
    """Feed stdin, drain both pipes and enforce the wall clock; the caller kills on the way out."""
    assert process.stdout is not None and process.stderr is not None
    out, err = _CappedOutput(limits.output_bytes), _CappedOutput(limits.output_bytes)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(out.drain, process.stdout)
        tasks.start_soon(err.drain, process.stderr)
        if process.stdin is not None:
            tasks.start_soon(_feed, process.stdin, (stdin or "").encode())
        with anyio.move_on_after(limits.wall_s) as wall:
            await process.wait()
        # Background children (or a timed-out tool) still hold the pipes: kill them so the
        # drains see end of file, and stop draining shortly after in any case.
        await _kill_tree(process.pid, cgroup)
        returncode = await process.wait()
        duration = anyio.current_time() - started
        tasks.cancel_scope.deadline = anyio.current_time() + _DRAIN_GRACE_S
    returncode, stderr = _undo_unshare_quirk(returncode, err.text())
    killed_by = -returncode if returncode < 0 else None
    return ProcessResult(
        argv,
        returncode=None if killed_by else returncode,
        stdout=out.text(),
        stderr=stderr,
        duration_s=duration,
        timed_out=wall.cancelled_caught,
        truncated=out.truncated or err.truncated,
        signal=killed_by,
    )


def _undo_unshare_quirk(returncode: int, stderr: str) -> tuple[int, str]:
    """Report a SIGKILLed tool as such under ``unshare --fork`` of util-linux before 2.40, which
    fails to re-raise SIGKILL on itself and exits 1 with this line instead (util-linux#2614)."""
    if returncode == 1 and stderr.endswith(_UNSHARE_SIGKILL_LINE):
        return -signal.SIGKILL, stderr.removesuffix(_UNSHARE_SIGKILL_LINE)
    return returncode, stderr


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


async def _kill_tree(pid: int, cgroup: _PidsCgroup | None) -> None:
    """SIGKILL the process group and, when there is one, every task of the cgroup (which also
    catches children that called ``setsid``); in a PID namespace the init's death takes the rest."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if cgroup is not None:
        await cgroup.kill_all()


# --------------------------------------------------------------------------- isolation features


class _PidsCgroup:
    """The cgroup of one call: ``pids.max`` caps its tasks (threads count too), and its member
    list names every process of the tree, however it detached itself."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, base: Path | None, max_pids: int | None) -> _PidsCgroup | None:
        """A fresh cgroup under ``base``, or None (no cgroup) if there is no base or it fails."""
        if base is None:
            return None
        path = base / f"{_CGROUP_PREFIX}{os.getpid()}-{uuid.uuid4().hex}"
        try:
            path.mkdir()
        except OSError:
            return None
        try:
            (path / "pids.max").write_text("max" if max_pids is None else str(max_pids))
        except OSError:
            path.rmdir()
            return None
        return cls(path)

    def pids(self) -> list[int]:
        with contextlib.suppress(OSError):
            return [int(pid) for pid in (self.path / "cgroup.procs").read_text().split()]
        return []

    async def kill_all(self) -> None:
        """Kill until no task is left: a fork bomb may fork while we kill, but ``pids.max``
        bounds how many it can have, so a few rounds suffice."""
        for _ in range(_KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            await anyio.sleep(0.005)

    async def remove(self) -> None:
        await self.kill_all()
        for _ in range(_KILL_ROUNDS):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                await anyio.sleep(0.005)


@attrs.frozen
class _Features:
    """The isolation this machine allows, probed once per process (it will not change)."""

    unshare: str | None
    netns: bool
    pidns: bool
    cgroup_base: Path | None

    def describe(self) -> dict[str, str]:
        missing = "unavailable: no unshare(1)" if self.unshare is None else "unavailable here"
        return {
            "work directory": "fresh per call, removed after it; environment scrubbed",
            "rlimits": "cpu, address space, file size, nproc, core=0",
            "process group": "own session; killed as a whole on timeout or cancellation",
            "network namespace": "active (unshare --net)" if self.netns else missing,
            "pid namespace": "active (unshare --pid --kill-child)" if self.pidns else missing,
            "pids cgroup": f"active under {self.cgroup_base}"
            if self.cgroup_base
            else "unavailable: process count capped by RLIMIT_NPROC only (ignored for root)",
        }


_FEATURES_LOCK = threading.Lock()


def _features() -> _Features:
    with _FEATURES_LOCK:
        return _probe_features()


@functools.cache
def _probe_features() -> _Features:
    unshare = shutil.which("unshare")
    cgroup_base = next(filter(_can_create_child, _cgroup_bases()), None)
    if cgroup_base is not None:
        _remove_stale_cgroups(cgroup_base)
    return _Features(
        unshare=unshare,
        netns=_unshare_works(unshare, "--net"),
        pidns=_unshare_works(unshare, "--pid", "--fork", "--kill-child"),
        cgroup_base=cgroup_base,
    )


def _unshare_works(unshare: str | None, *flags: str) -> bool:
    """Namespaces need privileges a container may lack: try one rather than guess."""
    if unshare is None:
        return False
    try:
        probe = subprocess.run([unshare, *flags, "--", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def _cgroup_bases() -> list[Path]:
    """This process's own cgroup in each hierarchy that may hold a pids controller: the v1
    ``pids`` hierarchy first, then the unified (v2) one."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    where = {}
    for line in own:
        _id, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            where[controller] = path.lstrip("/")
    v1, v2 = [], []
    for line in mounts:
        _device, mountpoint, fstype, options, *_rest = line.split()
        if fstype == "cgroup" and "pids" in options.split(",") and "pids" in where:
            v1.append(Path(mountpoint) / where["pids"])
        elif fstype == "cgroup2" and "" in where:
            v2.append(Path(mountpoint) / where[""])
    return v1 + v2


def _remove_stale_cgroups(base: Path) -> None:
    """Remove the cgroups left by kernels that were killed before cleaning up (their names carry
    the owner's pid; a live owner's cgroup may be empty for a moment, so it is left alone)."""
    for path in base.glob(f"{_CGROUP_PREFIX}*"):
        owner = path.name.removeprefix(_CGROUP_PREFIX).split("-")[0]
        if owner.isdigit() and not Path("/proc", owner).exists():
            with contextlib.suppress(OSError):
                path.rmdir()


def _can_create_child(base: Path) -> bool:
    """Whether a child cgroup of ``base`` gets a writable ``pids.max`` (v2 only if the pids
    controller is enabled for children, which we try to do)."""
    with contextlib.suppress(OSError):
        if "pids" not in (base / "cgroup.subtree_control").read_text().split():
            (base / "cgroup.subtree_control").write_text("+pids")
    probe = base / f"{_CGROUP_PREFIX}{os.getpid()}-probe"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        (probe / "pids.max").write_text("max")
    except OSError:
        return False
    else:
        return True
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()
