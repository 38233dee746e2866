"""The isolation boundary of the local sandbox, built with bubblewrap.

Why bubblewrap: it is the small, audited setuid-free sandbox Flatpak runs every application in,
packaged by Debian, and it does exactly the namespace work this boundary needs (user, mount,
PID, network, IPC, UTS and cgroup namespaces, a fresh ``/proc``, a minimal ``/dev``, read-only
binds, ``no_new_privs``, every capability dropped, death with its parent). Writing that by hand
is where sandboxes get their bugs; a full container engine (Docker) is a daemon most test
machines do not run.

What a tool sees: the system's directories read-only (``/usr``, ``/etc``, ``/opt`` and the
``/bin``-style links), the tools directory, the Python installation the kernel runs on and any
``read_only`` path the caller names, all read-only; its work directory, the only place it may
write, under the same path as on the host; a private ``/tmp`` in memory; its own ``/proc`` that
shows only its own processes; no ``/sys``, no ``/run``, no home, no host sockets, and no network
(only a loopback of its own) unless ``Limits.network``. The environment is what the caller
passes and nothing of the kernel's.

Who it runs as: when the kernel is root, a user of its own for each call, drawn at random from a
range no account uses (``KERNEL_SANDBOX_UIDS``, default ``1900000000:16777216``), so two calls
cannot signal, trace or starve (``RLIMIT_NPROC``) each other, and files of the host that are
not world-readable stay closed to it. An unprivileged kernel cannot change user; the tool then
runs as the kernel's user, still in its own namespaces, unable to see the kernel's processes.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import attrs

_SYSTEM_DIRS = ("/usr", "/etc", "/opt")
_ROOT_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_DEFAULT_UIDS = (1_900_000_000, 1 << 24)
_TMP_BYTES = 256 << 20


@attrs.frozen
class Boundary:
    """What this machine allows, probed once: the bubblewrap binary (None if it is missing or
    cannot make namespaces here, with ``problem`` saying why) and whether calls change user."""

    bwrap: str | None
    problem: str | None
    switch_user: bool
    uids: tuple[int, int]

    def describe(self) -> dict[str, str]:
        if self.bwrap is None:
            return {"boundary": f"UNAVAILABLE: {self.problem}"}
        start, count = self.uids
        return {
            "boundary": f"bubblewrap ({self.bwrap})",
            "user": f"a fresh unprivileged uid per call in {start}..{start + count - 1}"
            if self.switch_user
            else f"the kernel's own uid {os.getuid()} (not root: cannot change user)",
            "capabilities": "none; no_new_privs set",
            "namespaces": "user, mount, pid (fresh /proc), network, ipc, uts, cgroup; no "
            "nested user namespaces unless a verifier asks",
            "filesystem": "system dirs, tools and Python read-only; only the work dir writable; "
            "private /tmp; no /sys, /run or home",
            "network": "none (own loopback) unless a verifier declares it",
            "environment": "scrubbed: only what the caller passes",
            "lifetime": "killed with the kernel (lifeline pipe) and at its wall budget by a "
            "supervisor next to it",
        }


@functools.cache
def probe() -> Boundary:
    """Find bubblewrap and try it once (namespaces need privileges a container may lack)."""
    uids = _uid_range()
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Boundary(None, "bubblewrap is not installed (kernel tools install sandbox)",
                        False, uids)
    argv = [bwrap, *_namespace_flags(network=False), "--ro-bind", "/", "/", "--", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Boundary(None, f"bubblewrap does not start: {exc}", False, uids)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return Boundary(None, f"bubblewrap cannot make namespaces here: {why}", False, uids)
    return Boundary(bwrap, None, os.geteuid() == 0, uids)


def _uid_range() -> tuple[int, int]:
    text = os.environ.get("KERNEL_SANDBOX_UIDS", "")
    start, _, count = text.partition(":")
    if start.isdigit() and count.isdigit() and int(count) > 0 and int(start) > 0:
        return int(start), int(count)
    return _DEFAULT_UIDS


def fresh_uid(boundary: Boundary) -> int:
    start, count = boundary.uids
    return start + secrets.randbelow(count)


def _namespace_flags(network: bool, nested: bool = False) -> list[str]:
    flags = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
             "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if not nested:
        flags.append("--disable-userns")
    return flags if network else [*flags, "--unshare-net"]


def runtime_paths() -> list[str]:
    """The Python installation the kernel runs on, so a kernel worker (``python -m ...``) can
    run in the sandbox: prefixes, the standard library, site-packages, and the directory of
    every top-level package loaded (the source trees of editable installs). Not ``sys.path``
    as such: it may hold the current directory, and with it other runs' samples."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix,
             str(Path(sys.executable).resolve().parent.parent)}
    paths |= {v for v in sysconfig.get_paths().values() if v}
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__path__", None)
        if "." not in name and where is not None:
            paths |= {p for p in where if isinstance(p, str)}
    return sorted(p for p in paths if os.path.isdir(p))


def _outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` made absolute and real, without those inside another one."""
    real = sorted({os.path.realpath(p) for p in paths if os.path.exists(p)})
    kept: list[str] = []
    for path in real:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def _reachable_by_others(path: str) -> bool:
    """Whether a user with no relation to the owners can reach ``path``: every ancestor
    directory searchable by others."""
    parts = Path(path).parents
    for parent in [*reversed(parts), Path(path)] if Path(path).is_dir() else reversed(parts):
        try:
            if not os.stat(parent).st_mode & 0o001:
                return False
        except OSError:
            return False
    return True


@attrs.frozen
class MountPlan:
    """The bubblewrap command for one call, and the host paths the launcher must stage first
    (``(source, staging mount point)``, for paths the call's user could not reach)."""

    argv: tuple[str, ...]
    stage: tuple[tuple[str, str], ...]


def plan(
    boundary: Boundary,
    command: Sequence[str],
    *,
    workdir: Path,
    stage_dir: Path | None,
    read_only: Sequence[str],
    env: Mapping[str, str],
    network: bool,
    nested_namespaces: bool = False,
) -> MountPlan:
    """The bubblewrap command running ``command`` in ``workdir`` with the given view of the
    host. ``stage_dir`` (a directory the call's user can reach, or None when it does not change
    user) receives one mount point per unreachable read-only path."""
    assert boundary.bwrap is not None
    argv: list[str] = [boundary.bwrap, *_namespace_flags(network, nested_namespaces)]
    for link in _ROOT_LINKS:
        if os.path.islink(link):
            argv += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            argv += ["--ro-bind", link, link]
    for system in _SYSTEM_DIRS:
        argv += ["--ro-bind-try", system, system]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(_TMP_BYTES), "--tmpfs", "/tmp"]
    system_real = {os.path.realpath(d) for d in _SYSTEM_DIRS}
    stage: list[tuple[str, str]] = []
    for path in _outermost(read_only):
        if any(path == s or path.startswith(s + "/") for s in system_real):
            continue
        source = path
        if stage_dir is not None and not _reachable_by_others(path):
            source = str(stage_dir / str(len(stage)))
            if os.path.isdir(path):
                os.mkdir(source, 0o755)
            else:
                Path(source).touch(0o644)
            stage.append((path, source))
        argv += ["--ro-bind", source, path]
    argv += ["--bind", str(workdir), str(workdir), "--remount-ro", "/", "--chdir",
             str(workdir), "--clearenv"]
    for name, value in env.items():
        argv += ["--setenv", name, value]
    argv += ["--", *command]
    return MountPlan(tuple(argv), tuple(stage))
