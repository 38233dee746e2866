# speckernel-boundary: inside
"""Where the cluster's processes run: on loopback, or on test hosts in network namespaces.

Imported by ``cluster_run.py`` inside the kernel's sandbox (standard library only), where the
launcher has no capability at all. Test hosts are real separate network stacks: one network
namespace per host with an ``eth0`` carrying its own address in 10.77.0.0/24, each joined by a
veth pair to a bridge in a further "switch" namespace, so every message between hosts crosses
two veth links and the bridge.

How they are made without privileges: the launcher first makes a user namespace of its own
(``unshare(CLONE_NEWUSER | CLONE_NEWNET)``, its own uid mapped to root there), which gives it
every capability over the namespaces it then creates, and nothing over the sandbox's or the
machine's. The host namespaces are anonymous, kept alive only by this process's descriptors
(and by the processes started inside them, which die with it through ``PR_SET_PDEATHSIG``):
nothing is named under ``/run/netns``, concurrent runs cannot collide, and a crashed run leaves
nothing behind. Where the machine refuses nested user namespaces or ``ip`` is missing,
``open_network`` with ``auto`` falls back to loopback and says why.

Every process started here (replicas, client workers) is hardened before it runs: it gets
SIGKILL when the launcher dies, loses every capability (bounding set emptied, ``SECBIT_NOROOT``
locked, so being root in the user namespace gives it none), and is started from an
execute-only file, which makes the kernel mark it non-dumpable: no process of the store can
trace another or read its memory, descriptors or environment through ``/proc``. The launcher
marks itself non-dumpable too.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
SECBITS_NO_CAPABILITIES = 0xEF
"""NOROOT, NO_SETUID_FIXUP, KEEP_CAPS and NO_CAP_AMBIENT_RAISE, each locked."""
SUBNET = "10.77.0"
CLIENT_HOST = "clients"
_LIBC = ctypes.CDLL(None, use_errno=True)


class HostError(Exception):
    """Test hosts that could not be set up, with the reason (one line)."""


def _call(name: str, *args: int) -> None:
    if getattr(_LIBC, name)(*args) != 0:
        errno = ctypes.get_errno()
        raise HostError(f"{name}: {os.strerror(errno)}")


def _last_capability() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 63


_LAST_CAP = _last_capability()


def harden_self() -> None:
    """The launcher's own protection: non-dumpable, so that no process of the store (same
    user) can trace it, read its memory or open its descriptors through ``/proc``."""
    _LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32))


_CAPABILITY_VERSION_3 = 0x20080522


def _harden_child() -> None:
    """Runs in each child between fork and exec (see the module docstring): no capability
    left for the exec to keep or to regain, and none while the kernel decides whether the
    new program may be dumped (it may not when the caller cannot read the file, and a
    capability to override file permissions would let it). The capability calls fail
    harmlessly where there is none to drop (loopback)."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    _LIBC.prctl(PR_SET_SECUREBITS, SECBITS_NO_CAPABILITIES, 0, 0, 0)
    for capability in range(_LAST_CAP + 1):
        _LIBC.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)
    none = (_CapData * 2)()
    _LIBC.capset(ctypes.byref(_CapHeader(_CAPABILITY_VERSION_3, 0)), none)


def execute_only(path: str) -> None:
    """Make ``path`` executable and nothing else: processes started from it are non-dumpable
    (the kernel's rule for an executable its caller cannot read)."""
    os.chmod(path, 0o111)


def _own_namespace() -> int:
    return os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def start(argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """``argv`` as a hardened child of the launcher."""
    return subprocess.Popen(argv, preexec_fn=_harden_child, close_fds=True, **kwargs)


class Loopback:
    """Every process in the launcher's own network namespace (the sandbox's), on 127.0.0.1."""

    kind = "loopback"

    def __init__(self, reason: str | None = None, delay_ms: float = 0.0) -> None:
        self.description: dict[str, Any] = {
            "network": self.kind, "reason": reason, "addresses": {}, "link_delay_ms": 0.0,
            "link_delay": "skipped: loopback has no links to delay" if delay_ms else "none"}

    def address(self, host: str) -> str:
        return "127.0.0.1"

    def traffic(self) -> dict[str, list[int]]:
        return {}

    def popen(self, host: str, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        return start(argv, **kwargs)

    def close(self) -> None:
        pass


def _enter_user_namespace() -> None:
    """A user namespace of this process's own, its uid and gid mapped to root there, with a
    fresh network namespace owned by it: every capability over what it creates next."""
    uid, gid = os.getuid(), os.getgid()
    _call("unshare", CLONE_NEWUSER | CLONE_NEWNET)
    _LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # a non-dumpable process cannot write its maps
    try:
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1\n")
        Path("/proc/self/setgroups").write_text("deny\n")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1\n")
    except OSError as exc:
        raise HostError(f"cannot map the user namespace: {exc.strerror or exc}") from exc
    finally:
        harden_self()


class TestHosts:
    """One network namespace per host (``clients`` and each replica), star-wired to a bridge;
    ``close`` drops the last descriptors, and the kernel frees the rest."""

    kind = "netns"

    def __init__(self, hosts: Sequence[str], delay_ms: float = 0.0) -> None:
        if shutil.which("ip") is None:
            raise HostError("ip (iproute2) not found on PATH")
        _enter_user_namespace()
        self.tag = uuid.uuid4().hex[:6]
        self.home = _own_namespace()
        self.held = [self.home]  # every descriptor close() gives up
        self.namespaces: dict[str, int] = {}
        self.addresses = {host: f"{SUBNET}.{i}" for i, host in enumerate(hosts, 1)}
        try:
            self.switch = self._new_namespace()
            for host in hosts:
                self.namespaces[host] = self._new_namespace()
            self._wire()
            delay = self._delay(delay_ms) if delay_ms else "none"
        except BaseException:
            self.close()
            raise
        applied = delay_ms if delay.startswith("netem") else 0.0
        self.description = {"network": self.kind, "reason": None,
                            "addresses": dict(self.addresses), "bridge": self.bridge,
                            "link_delay_ms": applied, "link_delay": delay}

    @property
    def bridge(self) -> str:
        """The bridge's name in the switch namespace; the run's tag makes it findable."""
        return f"idsbr{self.tag}"

    def port(self, i: int) -> str:
        """The switch end of host ``i``'s veth pair."""
        return f"ids{self.tag}p{i}"

    def _new_namespace(self) -> int:
        """A fresh network namespace, held by the descriptor returned."""
        _call("unshare", CLONE_NEWNET)
        try:
            self.held.append(_own_namespace())
        finally:
            _call("setns", self.home, CLONE_NEWNET)
        return self.held[-1]

    @contextlib.contextmanager
    def inside(self, namespace: int) -> Iterator[None]:
        """This process (and what it starts) in ``namespace`` for the block."""
        _call("setns", namespace, CLONE_NEWNET)
        try:
            yield
        finally:
            _call("setns", self.home, CLONE_NEWNET)

    def _ip(self, namespace: int, commands: Sequence[str], fds: Sequence[int] = ()) -> None:
        with self.inside(namespace):
            done = subprocess.run(["ip", "-batch", "-"], input="\n".join(commands) + "\n",
                                  capture_output=True, text=True, pass_fds=tuple(fds),
                                  timeout=30)
        if done.returncode != 0:
            raise HostError(f"ip: {_last_line(done.stderr or done.stdout)}")

    def _wire(self) -> None:
        switch = [f"link add {self.bridge} type bridge", f"link set {self.bridge} up"]
        for i, fd in enumerate(self.namespaces.values()):
            switch += [f"link add {self.port(i)} type veth peer name eth0 netns /proc/self/fd/{fd}",
                       f"link set {self.port(i)} master {self.bridge}",
                       f"link set {self.port(i)} up"]
        self._ip(self.switch, switch, tuple(self.namespaces.values()))
        for host, fd in self.namespaces.items():
            self._ip(fd, ["link set lo up", f"addr add {self.addresses[host]}/24 dev eth0",
                          "link set eth0 up"])

    def _delay(self, delay_ms: float) -> str:
        """``netem`` delay on every host's outgoing link, or why it was skipped."""
        if shutil.which("tc") is None:
            return "skipped: tc (iproute2) not found on PATH"
        for fd in self.namespaces.values():
            with self.inside(fd):
                done = subprocess.run(["tc", "qdisc", "add", "dev", "eth0", "root", "netem",
                                       "delay", f"{delay_ms:g}ms"],
                                      capture_output=True, text=True, timeout=30)
            if done.returncode != 0:
                return f"skipped: tc netem: {_last_line(done.stderr)}"
        return f"netem {delay_ms:g} ms on every host's outgoing link"

    def address(self, host: str) -> str:
        return self.addresses[host]

    def traffic(self) -> dict[str, list[int]]:
        """Bytes each host's ``eth0`` received and sent: what crossed its link."""
        counts = {}
        for host, fd in self.namespaces.items():
            with self.inside(fd):  # /proc/thread-self/net: this thread's namespace
                lines = Path("/proc/thread-self/net/dev").read_text().splitlines()
            fields = next(line.split(":", 1)[1].split() for line in lines
                          if line.strip().startswith("eth0:"))
            counts[host] = [int(fields[0]), int(fields[8])]
        return counts

    def popen(self, host: str, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """Start ``argv`` on ``host``, hardened."""
        with self.inside(self.namespaces[host]):
            return start(argv, **kwargs)

    def close(self) -> None:
        """Drop this process's hold on every namespace (the caller stops their processes)."""
        for fd in self.held:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.held.clear()
        self.namespaces.clear()


Network = Loopback | TestHosts


def open_network(choice: str, hosts: Sequence[str], delay_ms: float = 0.0) -> Network:
    """The network ``choice`` names (``loopback``, ``netns`` or ``auto``: test hosts where they
    can be created, else loopback with the reason). ``netns`` that cannot be had raises."""
    if choice == "loopback":
        return Loopback(delay_ms=delay_ms)
    try:
        return TestHosts(hosts, delay_ms)
    except (HostError, OSError, subprocess.SubprocessError) as exc:
        if choice == "netns":
            raise HostError(f"cannot create test hosts: {exc}") from exc
        return Loopback(reason=f"test hosts unavailable: {exc}", delay_ms=delay_ms)
