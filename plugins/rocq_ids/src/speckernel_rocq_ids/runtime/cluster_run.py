"""Runs an extracted IDS store as a cluster and prints one JSON line of figures.

Started inside the sandbox next to the ``ids_store`` executables and ``testhosts.py``, with the
standard library only. The network is loopback, or test hosts (``testhosts.py``): the client
workers on one host, each replica on a host of its own, each with its own network stack and
address, star-wired by veth links to a bridge. For every sweep point: N replica processes (each
a TCP server on an ephemeral port of its host's address), then W client workers driving a seeded
workload; throughput is the operations of all workers over the span from the first start to the
last finish (monotonic clocks shared by the processes), p50/p99 are nearest-rank over every
operation's latency pooled across workers, and peak RSS is each replica's ``VmHWM``, with the
CPU seconds all replicas used. The stores of one call take turns at each point, so that they
share the machine's load alike. A replica or client that dies, or a run that outlives its
budget, ends that store's sweep with an ``error`` naming the process and its last stderr lines.
The network used (and, under ``auto``, why not test hosts) goes into the result; ``netns`` that
cannot be had is the result's one-line ``error``. The test hosts go away with this process
however it ends; SIGTERM unwinds it like an error.

Usage: ``python3 cluster_run.py CONFIG.json`` with keys ``stores`` (name -> executable),
``replicas``, ``workers``, ``keys``, ``points`` ([put_rate, ops_per_worker] pairs), ``seed``,
``run_timeout_s``, ``network`` (``loopback``, ``netns`` or ``auto``) and ``link_delay_ms``.
"""

from __future__ import annotations

import fcntl
import json
import math
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from testhosts import CLIENT_HOST, HostError, Network, open_network

_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
Config = dict[str, Any]
"""The run's ``CONFIG.json``."""


class RunError(Exception):
    """A sweep point that could not be measured, with the reason."""


def loopback_up() -> None:
    """Bring ``lo`` up: in a fresh network namespace it starts down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14x", b"lo", 0)
        try:
            flags = struct.unpack("16sH14x", fcntl.ioctl(s, _SIOCGIFFLAGS, request))[1]
            if not flags & _IFF_UP:
                fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))
        except OSError:
            pass  # not allowed here: the host's loopback is up anyway


def tail(path: Path) -> str:
    text = path.read_text(errors="replace").strip() if path.exists() else ""
    return " | ".join(text.splitlines()[-3:]) or "no output"


def replica_usage(port_file: Path) -> tuple[float, float]:
    """What a replica wrote at SIGTERM: its own peak RSS (``VmHWM``, kB, returned in MiB) and
    the CPU seconds it used."""
    path = port_file.with_name(port_file.name + ".rss")
    deadline = time.monotonic() + 5
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not path.exists():
        return math.nan, math.nan
    kb, cpu_s = path.read_text().split()
    return int(kb) / 1024, float(cpu_s)


def percentile(sorted_values: list[int], q: float) -> float:
    """Nearest-rank percentile."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return float(sorted_values[rank - 1])


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for p in processes:
        if p.poll() is None:
            p.terminate()
    for p in processes:
        try:
            p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def check_alive(replicas: list[subprocess.Popen[bytes]], logs: list[Path]) -> None:
    for r, p in enumerate(replicas):
        if p.poll() is not None:
            raise RunError(f"replica {r} exited with code {p.returncode}: {tail(logs[r])}")


def start_together(clients: list[subprocess.Popen[bytes]], errs: list[Path]) -> None:
    """Wait for every worker's "ready" (connected to all replicas), then release them all."""
    for c, p in enumerate(clients, 1):
        assert p.stdout is not None
        if p.stdout.readline().strip() != b"ready":
            p.wait()
            raise RunError(f"client {c} exited with code {p.returncode} before starting: "
                           f"{tail(errs[c - 1])}")
    for p in clients:
        assert p.stdin is not None
        p.stdin.write(b"go\n")
        p.stdin.close()


def replica_host(r: int) -> str:
    return f"replica{r}"


def run_point(exe: str, cfg: Config, put_rate: float, ops: int, work: Path,
              net: Network) -> dict[str, Any]:
    work.mkdir(parents=True)
    n, w = cfg["replicas"], cfg["workers"]
    logs = [work / f"replica{r}.err" for r in range(n)]
    ports = [work / f"replica{r}.port" for r in range(n)]
    hosts = [replica_host(r) for r in range(n)]
    replicas = [net.popen(hosts[r], [exe, "replica", str(r), "0", net.address(hosts[r]),
                                     str(ports[r])],
                          stderr=logs[r].open("wb"), stdout=subprocess.DEVNULL)
                for r in range(n)]
    clients: list[subprocess.Popen[bytes]] = []
    try:
        deadline = time.monotonic() + 10
        while not all(p.exists() for p in ports):
            check_alive(replicas, logs)
            if time.monotonic() > deadline:
                raise RunError("replicas did not open their ports within 10 s")
            time.sleep(0.01)
        endpoints = ",".join(f"{net.address(h)}:{p.read_text()}"
                             for h, p in zip(hosts, ports, strict=True))
        outs = [work / f"client{c}.lat" for c in range(1, w + 1)]
        errs = [work / f"client{c}.err" for c in range(1, w + 1)]
        clients = [net.popen(
            CLIENT_HOST,
            [exe, "client", str(c), str((c - 1) % n), endpoints, str(ops), str(put_rate),
             str(cfg["keys"]), str(cfg["seed"]), str(outs[c - 1])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errs[c - 1].open("wb"))
            for c in range(1, w + 1)]
        start_together(clients, errs)
        deadline = time.monotonic() + cfg["run_timeout_s"]
        while any(c.poll() is None for c in clients):
            check_alive(replicas, logs)
            if time.monotonic() > deadline:
                waiting = sum(c.poll() is None for c in clients)
                raise RunError(f"timeout: {waiting} of {w} client workers still waiting after "
                               f"{cfg['run_timeout_s']} s (a request whose guard never holds, "
                               f"or a hung replica)")
            time.sleep(0.005)
        for c, p in enumerate(clients, 1):
            if p.returncode != 0:
                raise RunError(f"client {c} exited with code {p.returncode}: {tail(errs[c - 1])}")
        check_alive(replicas, logs)
    finally:
        stop(clients + replicas)
    usage = [replica_usage(port) for port in ports]
    spans: list[tuple[int, ...]] = []
    latencies: list[int] = []
    for out in outs:
        first, *rest = out.read_text().split("\n")
        spans.append(tuple(int(x) for x in first.split()))
        latencies.extend(int(x) for x in rest if x)
    latencies.sort()
    elapsed_s = (max(e for _, e in spans) - min(s for s, _ in spans)) / 1e9
    return {"put_rate": put_rate, "ops_per_worker": ops, "operations": len(latencies),
            "elapsed_s": elapsed_s, "throughput_ops_s": len(latencies) / elapsed_s,
            "p50_ms": percentile(latencies, 0.50) / 1e6,
            "p99_ms": percentile(latencies, 0.99) / 1e6,
            "peak_rss_mb": [rss for rss, _ in usage],
            "replica_cpu_s": sum(cpu for _, cpu in usage)}


def sweep(cfg: Config, net: Network) -> dict[str, dict[str, Any]]:
    """Every store at every point; a store's first failure ends its sweep."""
    stores: dict[str, dict[str, Any]] = {name: {"points": [], "error": None}
                                         for name in cfg["stores"]}
    for i, (put_rate, ops) in enumerate(cfg["points"]):
        for name, exe in cfg["stores"].items():  # stores side by side at each point
            if stores[name]["error"] is not None:
                continue
            try:
                stores[name]["points"].append(run_point(
                    str(Path(exe).resolve()), cfg, put_rate, ops, Path(f"run-{name}-{i}"), net))
            except RunError as exc:
                stores[name]["error"] = f"put rate {put_rate}, {ops} ops: {exc}"
    return stores


def main(config_path: str) -> int:
    cfg = json.loads(Path(config_path).read_text())
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    hosts = [CLIENT_HOST, *(replica_host(r) for r in range(cfg["replicas"]))]
    try:
        net = open_network(cfg["network"], hosts, cfg["link_delay_ms"])
    except HostError as exc:
        print(json.dumps({"error": str(exc)}))
        return 0
    try:
        if net.kind == "loopback":
            loopback_up()
        stores = sweep(cfg, net)
        network = {**net.description, "traffic": net.traffic()}
    finally:
        net.close()
    print(json.dumps({"network": network, "stores": stores}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
