"""Per-call cgroups: a pids cgroup caps how many tasks a tool's tree may have, a memory cgroup
caps (and measures) its resident memory and tells whether the OOM killer struck; either also
names every process of the tree however it detached itself, so the tree can be killed whole.

Both cgroup versions are handled (a v1 hierarchy per controller, or the unified v2 one); a
controller this process cannot delegate is simply not used, and the sandbox says so.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import attrs

from speckernel.sandbox.base import Limits

PREFIX = "speckernel-"
CONTROLLERS = ("pids", "memory")
_KILL_ROUNDS = 200
_SWAP_FILES = frozenset({"memory.memsw.limit_in_bytes", "memory.swap.max"})
"""Swap caps, written where present: the kernel offers them only where it accounts swap."""


@attrs.frozen
class CgroupBase:
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


class Cgroup:
    """One cgroup directory, whichever controllers it serves. Its member list names every process
    of the tree that joined it, however that process detached itself."""

    def __init__(self, path: Path, version: int) -> None:
        self.path = path
        self.version = version

    @classmethod
    def create(cls, base: CgroupBase, settings: Mapping[str, str]) -> Cgroup | None:
        """A fresh cgroup under ``base`` with ``settings`` written, or None if that fails. Its
        name carries our pid, for ``_remove_stale_cgroups``."""
        path = base.path / f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex}"
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

    def kill_all(self) -> None:
        """Kill until no task is left: a fork bomb may fork while we kill, but ``pids.max``
        bounds how many it can have, so a few rounds suffice."""
        for _ in range(_KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)

    def remove(self) -> None:
        self.kill_all()
        for _ in range(_KILL_ROUNDS):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.005)


class CallCgroups:
    """The cgroups of one call, by controller: under v1 each controller has a hierarchy, and so a
    directory, of its own; under v2 one directory serves both. A controller missing here was not
    available for this call, which then runs without it (memory falling back to ``RLIMIT_AS``)."""

    def __init__(self, by_controller: Mapping[str, Cgroup]) -> None:
        self.by_controller = dict(by_controller)
        self.distinct = list(dict.fromkeys(self.by_controller.values()))

    @classmethod
    def create(cls, bases: Mapping[str, CgroupBase], limits: Limits) -> CallCgroups:
        """One cgroup per hierarchy in ``bases``, each capped at ``limits``. The cgroups are made
        without a cap too: they still name the tree's processes and count its memory."""
        caps = {
            "pids": limits.processes,
            "memory": None if limits.memory_mb is None else limits.memory_mb << 20,
        }
        sharing: dict[CgroupBase, list[str]] = {}
        for controller, base in bases.items():
            sharing.setdefault(base, []).append(controller)
        made: dict[str, Cgroup] = {}
        for base, controllers in sharing.items():
            settings: dict[str, str] = {}
            for controller in controllers:
                settings |= _settings(controller, base.version, caps[controller])
            group = Cgroup.create(base, settings)
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

    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a process writes its pid to, to join every cgroup."""
        return [str(group.path / "cgroup.procs") for group in self.distinct]

    def kill_all(self) -> None:
        for group in self.distinct:
            group.kill_all()

    def remove(self) -> None:
        for group in self.distinct:
            group.remove()




def _cgroup_bases(controller: str) -> list[CgroupBase]:
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
            v1.append(CgroupBase(Path(mountpoint) / where[controller], 1))
        elif fstype == "cgroup2" and "" in where:
            v2.append(CgroupBase(Path(mountpoint) / where[""], 2))
    return v1 + v2


def _remove_stale_cgroups(base: Path) -> None:
    """Remove the cgroups left by kernels that were killed before cleaning up (their names carry
    the owner's pid; a live owner's cgroup may be empty for a moment, so it is left alone)."""
    for path in base.glob(f"{PREFIX}*"):
        owner = path.name.removeprefix(PREFIX).split("-")[0]
        if owner.isdigit() and not Path("/proc", owner).exists():
            with contextlib.suppress(OSError):
                path.rmdir()


def _can_create_child(base: CgroupBase, controller: str) -> bool:
    """Whether a child cgroup of ``base`` gets writable ``controller`` limits (under v2 only if
    the controller is enabled for children, which we try to do)."""
    if base.version == 2:
        with contextlib.suppress(OSError):
            control = base.path / "cgroup.subtree_control"
            if controller not in control.read_text().split():
                control.write_text(f"+{controller}")
    probe = Cgroup.create(base, _settings(controller, base.version, None))
    if probe is None:
        return False
    with contextlib.suppress(OSError):
        probe.path.rmdir()
    return True


_PROBE_LOCK = threading.Lock()


def bases() -> Mapping[str, CgroupBase]:
    """Each controller that works here, mapped to where its per-call cgroups go (probed once
    per process; stale cgroups of dead kernels are removed then)."""
    with _PROBE_LOCK:
        return _probe()


@functools.cache
def _probe() -> Mapping[str, CgroupBase]:
    found = {}
    for controller in CONTROLLERS:
        usable = (b for b in _cgroup_bases(controller) if _can_create_child(b, controller))
        base = next(usable, None)
        if base is not None:
            found[controller] = base
    for path in {base.path for base in found.values()}:
        _remove_stale_cgroups(path)
    return found
