"""Where the cluster's processes run: on loopback, or on test hosts in network namespaces.

Imported by ``cluster_run.py`` inside the sandbox (standard library only). Test hosts are real
separate network stacks: one namespace per host with an ``eth0`` carrying its own address in
10.77.0.0/24, each joined by a veth pair to a bridge in a further "switch" namespace, so every
message between hosts crosses two veth links and the bridge. The namespaces are anonymous:
this process creates each with ``unshare(CLONE_NEWNET)`` and keeps it alive only by an open
descriptor of it (and by the processes started inside it, which die with this process through
``PR_SET_PDEATHSIG``). Nothing is created in a namespace that existed before, nothing is named
under ``/run/netns``, so concurrent runs cannot collide and a crashed run leaves nothing behind:
the kernel frees a namespace, its veth ends and the bridge with the last holder.

Creating namespaces needs CAP_SYS_ADMIN over the current network namespace (root, in the
sandbox's own namespace too) and ``ip`` (iproute2); where either is missing, ``open_network``
with ``auto`` falls back to loopback and says why. A link delay uses ``tc`` with the ``netem``
qdisc, which not every kernel has: without it the delay is skipped, and the description says so.
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
PR_SET_PDEATHSIG = 1
SUBNET = "10.77.0"
CLIENT_HOST = "clients"
_LIBC = ctypes.CDLL(None, use_errno=True)


class HostError(Exception):
    """Test hosts that could not be set up, with the reason (one line)."""


def _call(name: str, *args: int) -> None:
    if getattr(_LIBC, name)(*args) != 0:
        errno = ctypes.get_errno()
        raise HostError(f"{name}(CLONE_NEWNET): {os.strerror(errno)}")


def _die_with_parent() -> None:
    """Runs in each child before exec: the child gets SIGKILL when the launcher dies, so no
    replica outlives it and keeps a namespace alive."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _own_namespace() -> int:
    return os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


class Loopback:
    """Every process in the launcher's own network namespace, on 127.0.0.1."""

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
        return subprocess.Popen(argv, preexec_fn=_die_with_parent, **kwargs)

    def close(self) -> None:
        pass


class TestHosts:
    """One network namespace per host (``clients`` and each replica), star-wired to a bridge;
    ``close`` drops the last descriptors, and the kernel frees the rest."""

    kind = "netns"

    def __init__(self, hosts: Sequence[str], delay_ms: float = 0.0) -> None:
        if shutil.which("ip") is None:
            raise HostError("ip (iproute2) not found on PATH")
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
        """Start ``argv`` on ``host``."""
        with self.inside(self.namespaces[host]):
            return subprocess.Popen(argv, preexec_fn=_die_with_parent, **kwargs)

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
