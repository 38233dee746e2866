"""The local sandbox: runs a tool as a child process of the kernel, fenced in by what Linux offers
without a container engine.

Every call gets a fresh work directory, a scrubbed environment, rlimits, its own session, and,
where this machine allows them, a network namespace, a PID namespace and a pids and a memory
cgroup. This is not a wall against a determined attacker (the tool still sees the host's
filesystem); it keeps broken or runaway model output from hanging a run, eating memory or disk,
reaching the network or leaving processes behind.

``memory_mb`` caps resident memory through the memory cgroup, which also reports the call's peak
and whether the OOM killer struck. Without a writable memory cgroup it falls back to
``RLIMIT_AS``, which counts reserved address space too: a JVM then cannot start under a few
gigabytes unless told to reserve less (``-Xmx`` and friends).

In a PID namespace the tool is the namespace's init, and the kernel drops signals an init has no
handler for unless they come from outside: ``kill $$`` and ``SIGXCPU`` do nothing there, so the
CPU limit strikes one second later with the hard limit's SIGKILL. ``SIGXFSZ`` is dropped
likewise, so there a tool that outgrows ``file_size_mb`` sees its write fail (EFBIG) instead of
dying, and ``ProcessResult.limit`` cannot name that limit.
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
from speckernel.sandbox.base import LimitHit, Limits, ProcessResult, Sandbox

_DRAIN_GRACE_S = 1.0
"""How long output may keep flowing after the tree is killed (data still in the pipes)."""
_KILL_ROUNDS = 200
_REFUSED = 126
_NOT_FOUND = 127
_CGROUP_PREFIX = "speckernel-"
_CONTROLLERS = ("pids", "memory")
_SWAP_FILES = frozenset({"memory.memsw.limit_in_bytes", "memory.swap.max"})
"""Swap caps, written where present: the kernel offers them only where it accounts swap."""
_UNSHARE_SIGKILL_LINE = "unshare: sigprocmask unblock failed: Invalid argument\n"

# Runs between fork and the tool: joins the call's cgroups (before anything can fork, so no child
# escapes them), sets the rlimits, then execs. A separate interpreter keeps this out of the kernel's
# own process (``preexec_fn`` is unsafe with threads and unavailable through anyio).
_LAUNCHER = """\
import json, os, resource, signal, sys
procs, limits, argv = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3:]
for ignored_by_python in (signal.SIGPIPE, signal.SIGXFSZ):
    signal.signal(ignored_by_python, signal.SIG_DFL)
for path in procs:
    with open(path, "w") as f:
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
            truncated = result.truncated or cut
            return attrs.evolve(
                result,
                argv=argv,
                files=collected,
                truncated=truncated,
                limit=result.limit or ("output" if truncated else None),
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


def _cpu_rlimit(cpu_s: float) -> tuple[int, int]:
    """``RLIMIT_CPU`` as (soft, hard): the hard limit is a second above the soft one so the tool
    dies of ``SIGXCPU``, which says why, rather than SIGKILL."""
    return math.ceil(cpu_s), math.ceil(cpu_s) + 1


def _rlimits(limits: Limits, address_space: bool) -> dict[str, tuple[int, int]]:
    """The launcher's ``setrlimit`` calls, as (soft, hard). ``RLIMIT_AS`` stands in for the
    memory cgroup only where the call has none (``address_space``), as it counts reservations,
    not use. ``RLIMIT_NPROC`` is per user and ignored for root, hence the pids cgroup as well."""
    values = {"RLIMIT_CORE": (0, 0)}
    if limits.cpu_s is not None:
        values["RLIMIT_CPU"] = _cpu_rlimit(limits.cpu_s)
    if limits.memory_mb is not None and address_space:
        values["RLIMIT_AS"] = (limits.memory_mb << 20,) * 2
    if limits.file_size_mb is not None:
        values["RLIMIT_FSIZE"] = (limits.file_size_mb << 20,) * 2
    if limits.processes is not None:
        values["RLIMIT_NPROC"] = (limits.processes,) * 2
    return values


def _command(
    argv: tuple[str, ...], limits: Limits, features: _Features, cgroups: _CallCgroups
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
    procs = [str(group.path / "cgroup.procs") for group in cgroups.distinct]
    rlimits = _rlimits(limits, address_space="memory" not in cgroups.by_controller)
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER]
    return [*launcher, json.dumps(procs), json.dumps(rlimits), *wrapped]


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
    cgroups = _CallCgroups.create(features.cgroups, limits)
    try:
        started = anyio.current_time()
        process = await anyio.open_process(
            _command(argv, limits, features, cgroups),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            cwd=workdir,
            env=env,
            start_new_session=True,
        )
        try:
            return await _supervise(process, argv, stdin, limits, cgroups, started)
        finally:
            with anyio.CancelScope(shield=True):
                await _kill_tree(process.pid, cgroups)
                await process.aclose()
    finally:
        with anyio.CancelScope(shield=True):
            await cgroups.remove()


async def _supervise(
    process: Process,
    argv: tuple[str, ...],
    stdin: str | None,
    limits: Limits,
    cgroups: _CallCgroups,
    started: float,
) -> ProcessResult:
    """Feed stdin, drain both pipes, enforce the wall clock and read what the cgroups counted;
    the caller kills on the way out."""
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
        await _kill_tree(process.pid, cgroups)
        returncode = await process.wait()
        duration = anyio.current_time() - started
        tasks.cancel_scope.deadline = anyio.current_time() + _DRAIN_GRACE_S
    returncode, stderr = _undo_unshare_quirk(returncode, err.text())
    killed_by = -returncode if returncode < 0 else None
    result = ProcessResult(
        argv,
        returncode=None if killed_by else returncode,
        stdout=out.text(),
        stderr=stderr,
        duration_s=duration,
        timed_out=wall.cancelled_caught,
        truncated=out.truncated or err.truncated,
        signal=killed_by,
        peak_memory_mb=cgroups.peak_memory_mb(),
    )
    return attrs.evolve(result, limit=_limit_hit(result, limits, cgroups))


def _limit_hit(result: ProcessResult, limits: Limits, cgroups: _CallCgroups) -> LimitHit | None:
    """Which limit ended the process, as ``ProcessResult.limit`` (but "output", which ``run``
    decides once the collected files are cut too).

    A tool that succeeded was ended by none, whatever its children ran into. The OOM counter is
    read rather than ``memory.failcnt``, which also counts reclaim at the cap that killed nothing.
    A SIGKILL is the CPU limit's hard one unless the OOM killer sent it, and only if the tool
    could have used that much CPU time by then on the cores it may run on.
    """
    if result.timed_out:
        return "wall"
    if result.ok:
        return None
    if cgroups.oom_kills():
        return "memory"
    if result.signal == signal.SIGXCPU or (
        result.signal == signal.SIGKILL
        and limits.cpu_s is not None
        and result.duration_s * len(os.sched_getaffinity(0)) >= _cpu_rlimit(limits.cpu_s)[1]
    ):
        return "cpu"
    if result.signal == signal.SIGXFSZ:
        return "file_size"
    if cgroups.forks_refused():
        return "processes"
    return None


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


async def _kill_tree(pid: int, cgroups: _CallCgroups) -> None:
    """SIGKILL the process group and every task of the call's cgroups (which also catches
    children that called ``setsid``); in a PID namespace the init's death takes the rest."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    await cgroups.kill_all()


# --------------------------------------------------------------------------- isolation features


@attrs.frozen
class _CgroupBase:
    """Where a controller's per-call cgroups are made: this process's own cgroup in a hierarchy
    holding that controller, of cgroup ``version`` 1 or 2 (their control files differ)."""

    path: Path
    version: int


def _settings(controller: str, version: int, cap: int | None) -> dict[str, str]:
    """The control files, in writing order, that cap ``controller`` at ``cap`` (tasks, or bytes
    of memory; None for no cap, the default of a new cgroup, written to prove it writable). Swap
    does not stretch the memory budget: v1 caps memory plus swap, v2 swap alone."""
    if controller == "pids":
        return {"pids.max": "max" if cap is None else str(cap)}
    if cap is None:
        return {"memory.limit_in_bytes": "-1"} if version == 1 else {"memory.max": "max"}
    if version == 1:
        return {"memory.limit_in_bytes": str(cap), "memory.memsw.limit_in_bytes": str(cap)}
    return {"memory.max": str(cap), "memory.swap.max": "0"}


class _Cgroup:
    """One cgroup directory, whichever controllers it serves. Its member list names every process
    of the tree that joined it, however that process detached itself."""

    def __init__(self, path: Path, version: int) -> None:
        self.path = path
        self.version = version

    @classmethod
    def create(cls, base: _CgroupBase, settings: Mapping[str, str]) -> _Cgroup | None:
        """A fresh cgroup under ``base`` with ``settings`` written, or None if that fails. Its
        name carries our pid, for ``_remove_stale_cgroups``."""
        path = base.path / f"{_CGROUP_PREFIX}{os.getpid()}-{uuid.uuid4().hex}"
        try:
            path.mkdir()
        except OSError:
            return None
        try:
            for name, value in settings.items():
                if name not in _SWAP_FILES or (path / name).exists():
                    (path / name).write_text(value)
        except OSError:
            path.rmdir()
            return None
        return cls(path, base.version)

    def number(self, name: str) -> int | None:
        """The integer in control file ``name``, or None if there is no such file."""
        with contextlib.suppress(OSError, ValueError):
            return int((self.path / name).read_text())
        return None

    def count(self, name: str, key: str) -> int:
        """The ``key`` line of flat-keyed control file ``name`` (0 if either is missing)."""
        with contextlib.suppress(OSError, ValueError):
            for line in (self.path / name).read_text().splitlines():
                field, _, value = line.partition(" ")
                if field == key:
                    return int(value)
        return 0

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


class _CallCgroups:
    """The cgroups of one call, by controller: under v1 each controller has a hierarchy, and so a
    directory, of its own; under v2 one directory serves both. A controller missing here was not
    available for this call, which then runs without it (memory falling back to ``RLIMIT_AS``)."""

    def __init__(self, by_controller: Mapping[str, _Cgroup]) -> None:
        self.by_controller = dict(by_controller)
        self.distinct = list(dict.fromkeys(self.by_controller.values()))

    @classmethod
    def create(cls, bases: Mapping[str, _CgroupBase], limits: Limits) -> _CallCgroups:
        """One cgroup per hierarchy in ``bases``, each capped at ``limits``. The cgroups are made
        without a cap too: they still name the tree's processes and count its memory."""
        caps = {
            "pids": limits.processes,
            "memory": None if limits.memory_mb is None else limits.memory_mb << 20,
        }
        sharing: dict[_CgroupBase, list[str]] = {}
        for controller, base in bases.items():
            sharing.setdefault(base, []).append(controller)
        made: dict[str, _Cgroup] = {}
        for base, controllers in sharing.items():
            settings: dict[str, str] = {}
            for controller in controllers:
                settings |= _settings(controller, base.version, caps[controller])
            group = _Cgroup.create(base, settings)
            if group is not None:
                made |= dict.fromkeys(controllers, group)
        return cls(made)

    def oom_kills(self) -> int:
        """How many of the tree's processes the OOM killer ended for overrunning ``memory_mb``."""
        group = self.by_controller.get("memory")
        if group is None:
            return 0
        if group.version == 1:
            return group.count("memory.oom_control", "oom_kill")
        return group.count("memory.events", "oom_kill")

    def forks_refused(self) -> int:
        """How many forks (or new threads) ``pids.max`` refused."""
        group = self.by_controller.get("pids")
        return 0 if group is None else group.count("pids.events", "max")

    def peak_memory_mb(self) -> float | None:
        """The most memory the tree was charged at once (v2 tells only from Linux 5.19 on)."""
        group = self.by_controller.get("memory")
        if group is None:
            return None
        peak = group.number("memory.max_usage_in_bytes" if group.version == 1 else "memory.peak")
        return None if peak is None else peak / (1 << 20)

    async def kill_all(self) -> None:
        for group in self.distinct:
            await group.kill_all()

    async def remove(self) -> None:
        for group in self.distinct:
            await group.remove()


@attrs.frozen
class _Features:
    """The isolation this machine allows, probed once per process (it will not change);
    ``cgroups`` maps each controller that works here to where its cgroups go."""

    unshare: str | None
    netns: bool
    pidns: bool
    cgroups: Mapping[str, _CgroupBase]

    def describe(self) -> dict[str, str]:
        missing = "unavailable: no unshare(1)" if self.unshare is None else "unavailable here"
        pids, memory = self.cgroups.get("pids"), self.cgroups.get("memory")
        return {
            "work directory": "fresh per call, removed after it; environment scrubbed",
            "rlimits": "cpu, file size, nproc, core=0"
            + ("" if memory else ", address space (for memory)"),
            "process group": "own session; killed as a whole on timeout or cancellation",
            "network namespace": "active (unshare --net)" if self.netns else missing,
            "pid namespace": "active (unshare --pid --kill-child)" if self.pidns else missing,
            "pids cgroup": f"active under {pids.path}"
            if pids
            else "unavailable: process count capped by RLIMIT_NPROC only (ignored for root)",
            "memory": f"cgroup v{memory.version} (resident) under {memory.path}"
            if memory
            else "rlimit address space (no writable memory cgroup)",
        }


_FEATURES_LOCK = threading.Lock()


def _features() -> _Features:
    with _FEATURES_LOCK:
        return _probe_features()


@functools.cache
def _probe_features() -> _Features:
    unshare = shutil.which("unshare")
    cgroups = {}
    for controller in _CONTROLLERS:
        usable = (base for base in _cgroup_bases(controller) if _can_create_child(base, controller))
        base = next(usable, None)
        if base is not None:
            cgroups[controller] = base
    for path in {base.path for base in cgroups.values()}:
        _remove_stale_cgroups(path)
    return _Features(
        unshare=unshare,
        netns=_unshare_works(unshare, "--net"),
        pidns=_unshare_works(unshare, "--pid", "--fork", "--kill-child"),
        cgroups=cgroups,
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


def _cgroup_bases(controller: str) -> list[_CgroupBase]:
    """This process's own cgroup in each hierarchy that may hold ``controller``: the v1
    hierarchy it is mounted in first, then the unified (v2) one."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    where = {}
    for line in own:
        _id, controllers, path = line.split(":", 2)
        for name in controllers.split(","):
            where[name] = path.lstrip("/")
    v1, v2 = [], []
    for line in mounts:
        _device, mountpoint, fstype, options, *_rest = line.split()
        if fstype == "cgroup" and controller in options.split(",") and controller in where:
            v1.append(_CgroupBase(Path(mountpoint) / where[controller], 1))
        elif fstype == "cgroup2" and "" in where:
            v2.append(_CgroupBase(Path(mountpoint) / where[""], 2))
    return v1 + v2


def _remove_stale_cgroups(base: Path) -> None:
    """Remove the cgroups left by kernels that were killed before cleaning up (their names carry
    the owner's pid; a live owner's cgroup may be empty for a moment, so it is left alone)."""
    for path in base.glob(f"{_CGROUP_PREFIX}*"):
        owner = path.name.removeprefix(_CGROUP_PREFIX).split("-")[0]
        if owner.isdigit() and not Path("/proc", owner).exists():
            with contextlib.suppress(OSError):
                path.rmdir()


def _can_create_child(base: _CgroupBase, controller: str) -> bool:
    """Whether a child cgroup of ``base`` gets writable ``controller`` limits (under v2 only if
    the controller is enabled for children, which we try to do)."""
    if base.version == 2:
        with contextlib.suppress(OSError):
            control = base.path / "cgroup.subtree_control"
            if controller not in control.read_text().split():
                control.write_text(f"+{controller}")
    probe = _Cgroup.create(base, _settings(controller, base.version, None))
    if probe is None:
        return False
    with contextlib.suppress(OSError):
        probe.path.rmdir()
    return True
