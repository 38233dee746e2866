# speckernel-boundary: inside
"""The cluster launcher: runs extracted IDS stores as clusters and prints one line of figures.

Started inside the kernel's sandbox next to the ``ids_store`` executables, ``testhosts.py`` and
``histories.py`` (standard library only), as the last command of the sandbox call. It reads a
nonce from stdin first and prefixes its result line with it.

For every sweep point and store (the stores take turns at each point, so that they share the
machine's load alike; ``repeats`` rounds of the whole sweep): N replica processes (each a TCP
server on an ephemeral port of its host's address), then W client workers driving a seeded
workload. What is measured, and by whom:

- throughput: all operations over the span from the launcher's "go" to the last worker's
  "done", on the launcher's own monotonic clock;
- latency: each operation timed by its worker (the team's runtime, which the store's code
  cannot reach) and sent over a pipe only the launcher reads; the launcher checks that every
  operation lies inside its own span and that a worker's operations do not overlap, then takes
  p50/p99 nearest-rank over all of them pooled;
- peak RSS and CPU of each replica: the kernel's accounting (``wait4``'s ``ru_maxrss``,
  ``ru_utime + ru_stime``) when the launcher reaps it;
- correctness: every get's value checked against the spec's observable behaviour
  (``histories.py``); a violation fails that store's sweep.

No file any process of the store can write is read. The harness runs this launcher with
``Limits.nested_namespaces`` unless the network is ``loopback``: test hosts are namespaces of its
own. The launcher is non-dumpable and every
process it starts is hardened (``testhosts.py``). A replica or client that dies, a run past its
budget or a history violation ends that store's sweep with an ``error`` naming it; a store
process killed by a signal (the OOM killer's SIGKILL) makes the launcher exit 3 after printing,
so that the sandbox can say which limit it was. The network used (and, under ``auto``, why not
test hosts) goes into the result; ``netns`` that cannot be had is the result's ``error``.

Usage: ``python3 cluster_run.py CONFIG.json`` with keys ``stores`` (name -> executable),
``replicas``, ``workers``, ``keys``, ``points`` ([put_rate, ops_per_worker] pairs), ``seed``,
``repeats``, ``run_timeout_s``, ``network`` (``loopback``, ``netns`` or ``auto``),
``link_delay_ms`` and ``profile`` (the spec's history profile).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # The sandbox runs this file as a script beside copies of its siblings (cluster.py's
    # LAUNCHER_MODULES), so they import by bare name; mypy sees the same files as the package.
    from speckernel_rocq_ids.runtime.histories import check
    from speckernel_rocq_ids.runtime.testhosts import (
        CLIENT_HOST,
        HostError,
        Network,
        execute_only,
        harden_self,
        open_network,
    )
else:
    from histories import check
    from testhosts import CLIENT_HOST, HostError, Network, execute_only, harden_self, open_network

_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_KILLED = 3
Config = dict[str, Any]
"""The run's ``CONFIG.json``."""


class RunError(Exception):
    """A sweep point that could not be measured, with the reason."""


class Killed(RunError):
    """A store process killed by a signal (the OOM killer's, or a limit's)."""


def loopback_up() -> None:
    """Bring ``lo`` up: in a fresh network namespace it starts down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14x", b"lo", 0)
        try:
            flags = struct.unpack("16sH14x", fcntl.ioctl(s, _SIOCGIFFLAGS, request))[1]
            if not flags & _IFF_UP:
                fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))
        except OSError:
            pass  # not allowed here: the sandbox's loopback is up anyway


def tail(path: Path) -> str:
    text = path.read_text(errors="replace").strip() if path.exists() else ""
    return " | ".join(text.splitlines()[-3:]) or "no output"


def percentile(sorted_values: list[int], q: float) -> float:
    """Nearest-rank percentile."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return float(sorted_values[rank - 1])


def peak_rss_mb(pid: int) -> float:
    """``VmHWM`` of a running process (MiB), as the kernel reports it in ``/proc``: the peak of
    the program it runs now (``wait4``'s ``ru_maxrss`` would also count the launcher's copy the
    process was forked from)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return math.nan


def reap(process: subprocess.Popen[bytes]) -> tuple[int, float, float]:
    """Stop ``process`` and reap it: its wait status code (negative: the signal), its peak
    RSS (MiB, read from ``/proc`` while it still runs) and CPU seconds (``wait4``), all from
    the kernel's accounting."""
    if process.returncode is not None:
        return process.returncode, math.nan, math.nan
    rss = peak_rss_mb(process.pid)
    try:
        process.send_signal(signal.SIGKILL)
        _, status, usage = os.wait4(process.pid, 0)
    except ChildProcessError:
        return process.returncode or 0, rss, math.nan
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, rss, usage.ru_utime + usage.ru_stime


def died(what: str, process: subprocess.Popen[bytes], log: Path) -> RunError:
    code = process.returncode or 0
    kind = Killed if code < 0 else RunError
    how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
    return kind(f"{what} {how}: {tail(log)}")


def check_alive(replicas: list[subprocess.Popen[bytes]], logs: list[Path]) -> None:
    for r, p in enumerate(replicas):
        if p.poll() is not None:
            raise died(f"replica {r}", p, logs[r])


def replica_host(r: int) -> str:
    return f"replica{r}"


def read_line(process: subprocess.Popen[bytes], deadline: float) -> bytes:
    """One line of ``process``'s stdout, or b"" at end of file or past ``deadline``."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    data = b""
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            return b""
        chunk = os.read(fd, 1)
        if not chunk:
            return data
        data += chunk
    return data


def collect(clients: list[subprocess.Popen[bytes]], replicas: list[subprocess.Popen[bytes]],
            logs: list[Path], errs: list[Path], deadline: float,
            timeout_s: float) -> tuple[list[bytes], int]:
    """Every worker's output (read as it comes, so no worker blocks on a full pipe) and the
    launcher's clock when the last one said ``done``."""
    buffers = {p.stdout.fileno(): bytearray() for p in clients if p.stdout is not None}
    owner = {p.stdout.fileno(): c for c, p in enumerate(clients) if p.stdout is not None}
    open_fds = set(buffers)
    finished = 0
    while open_fds:
        check_alive(replicas, logs)
        left = deadline - time.monotonic()
        if left <= 0:
            raise RunError(f"timeout: {len(open_fds)} of {len(clients)} client workers still "
                           f"waiting after {timeout_s:g} s (a request whose guard never holds, "
                           "or a hung replica)")
        ready, _, _ = select.select(list(open_fds), [], [], min(left, 0.05))
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if chunk:
                buffers[fd] += chunk
                if buffers[fd].endswith(b"done\n"):
                    finished = time.monotonic_ns()
                continue
            open_fds.discard(fd)
            c = owner[fd]
            if not buffers[fd].endswith(b"done\n"):
                clients[c].wait()
                settle = time.monotonic() + 1  # a replica that died first is the cause
                while time.monotonic() < settle:
                    check_alive(replicas, logs)
                    time.sleep(0.02)
                raise died(f"client {c + 1}", clients[c], errs[c])
    return [bytes(buffers[p.stdout.fileno()]) for p in clients if p.stdout is not None], finished


def records(outputs: list[bytes], go: int, done: int) -> tuple[list[tuple[Any, ...]], list[int]]:
    """The operations the workers reported, as history entries, and their latencies (ns);
    ``RunError`` for a report that cannot be true (outside the launcher's span, overlapping)."""
    ops: list[tuple[Any, ...]] = []
    latencies: list[int] = []
    for c, output in enumerate(outputs, 1):
        last_end = go
        lines = output.decode("ascii", "replace").splitlines()
        for i, line in enumerate(lines[:-1]):
            kind, key, value, start, end = line.split()
            begin, finish = int(start), int(end)
            if not last_end <= begin <= finish <= done:
                raise RunError(f"client {c} reported operation {i} at [{begin}, {finish}], "
                               f"outside its turn in the launcher's span [{go}, {done}]")
            last_end = finish
            ops.append((c, i, kind, int(key), int(value), begin, finish))
            latencies.append(finish - begin)
    return ops, latencies


def run_point(exe: str, cfg: Config, put_rate: float, ops: int, work: Path,
              net: Network) -> dict[str, Any]:
    work.mkdir(parents=True)
    n, w = cfg["replicas"], cfg["workers"]
    logs = [work / f"replica{r}.err" for r in range(n)]
    hosts = [replica_host(r) for r in range(n)]
    replicas = [net.popen(hosts[r], [exe, "replica", str(r), "0", net.address(hosts[r])],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=logs[r].open("wb"))
                for r in range(n)]
    clients: list[subprocess.Popen[bytes]] = []
    usage: list[tuple[int, float, float]] = []
    try:
        deadline = time.monotonic() + 10
        ports = []
        for r, p in enumerate(replicas):
            line = read_line(p, deadline).split()
            if len(line) != 2 or line[0] != b"port":
                p.poll()
                raise died(f"replica {r}", p, logs[r]) if p.returncode is not None else \
                    RunError(f"replica {r} did not open its port within 10 s")
            ports.append(int(line[1]))
        endpoints = ",".join(f"{net.address(h)}:{port}" for h, port in zip(hosts, ports,
                                                                             strict=True))
        errs = [work / f"client{c}.err" for c in range(1, w + 1)]
        clients = [net.popen(
            CLIENT_HOST,
            [exe, "client", str(c), str((c - 1) % n), endpoints, str(ops), str(put_rate),
             str(cfg["keys"]), str(cfg["seed"])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errs[c - 1].open("wb"))
            for c in range(1, w + 1)]
        ready_by = time.monotonic() + 10
        for c, p in enumerate(clients):
            if read_line(p, ready_by).strip() != b"ready":
                p.poll()
                raise died(f"client {c + 1}", p, errs[c]) if p.returncode is not None else \
                    RunError(f"client {c + 1} did not connect within 10 s")
        go = time.monotonic_ns()
        for p in clients:
            assert p.stdin is not None
            p.stdin.write(b"go\n")
            p.stdin.close()
        outputs, done = collect(clients, replicas, logs, errs,
                                time.monotonic() + cfg["run_timeout_s"], cfg["run_timeout_s"])
        check_alive(replicas, logs)
    finally:
        for p in clients:
            reap(p)
        usage = [reap(p) for p in replicas]
    history, latencies = records(outputs, go, done)
    count, found = check(history, cfg["profile"])
    if count:
        raise RunError(f"{count} of {len(history)} operations break {cfg['profile']}: "
                       + "; ".join(found))
    latencies.sort()
    elapsed_s = (done - go) / 1e9
    return {"put_rate": put_rate, "ops_per_worker": ops, "operations": len(latencies),
            "elapsed_s": elapsed_s, "throughput_ops_s": len(latencies) / elapsed_s,
            "p50_ms": percentile(latencies, 0.50) / 1e6,
            "p99_ms": percentile(latencies, 0.99) / 1e6,
            "peak_rss_mb": [rss for _, rss, _ in usage],
            "replica_cpu_s": sum(cpu for _, _, cpu in usage)}


def sweep(cfg: Config, net: Network) -> tuple[dict[str, dict[str, Any]], bool]:
    """Every store at every point, ``repeats`` times; a store's first failure ends its sweep.
    The flag says whether a store process was killed by a signal."""
    stores: dict[str, dict[str, Any]] = {name: {"points": [], "error": None}
                                         for name in cfg["stores"]}
    killed = False
    for repeat in range(cfg.get("repeats", 1)):
        for i, (put_rate, ops) in enumerate(cfg["points"]):
            for name, exe in cfg["stores"].items():  # stores side by side at each point
                if stores[name]["error"] is not None:
                    continue
                try:
                    point = run_point(exe, cfg, put_rate, ops,
                                      Path(f"run-{name}-{repeat}-{i}"), net)
                    stores[name]["points"].append({**point, "repeat": repeat})
                except RunError as exc:
                    killed |= isinstance(exc, Killed)
                    stores[name]["error"] = f"put rate {put_rate}, {ops} ops: {exc}"
    return stores, killed


def main(config_path: str) -> int:
    harden_self()
    nonce = sys.stdin.readline().strip()
    cfg = json.loads(Path(config_path).read_text())
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    executables = {name: str(Path(exe).resolve()) for name, exe in cfg["stores"].items()}
    for exe in executables.values():
        execute_only(exe)
    cfg["stores"] = executables
    hosts = [CLIENT_HOST, *(replica_host(r) for r in range(cfg["replicas"]))]
    try:
        net = open_network(cfg["network"], hosts, cfg["link_delay_ms"])
    except HostError as exc:
        print(f"{nonce} {json.dumps({'error': str(exc)})}", flush=True)
        return 0
    try:
        if net.kind == "loopback":
            loopback_up()
        stores, killed = sweep(cfg, net)
        network = {**net.description, "traffic": net.traffic()}
    finally:
        net.close()
    print(f"{nonce} {json.dumps({'network': network, 'stores': stores})}", flush=True)
    return _KILLED if killed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
