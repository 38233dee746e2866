"""Verification on a Dask cluster, measured in one run on this machine (``local:N`` clusters of
worker processes on loopback) and printed:

1. per-call overhead: ms per sample with a no-op verifier through a one-worker cluster against
   the same run verified locally (the cluster is started once, before the timed runs);
2. scaling: throughput of a CPU-bound verifier (a sandboxed process burning ``--cpu`` seconds)
   with 2 worker processes against 1 (goal >= 1.7x on 2 cores).

The figures mean something only on an otherwise idle machine: the script prints the load.

Usage: python benchmarks/cluster_scaling.py [--calls N] [--cpu SECONDS]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import anyio
import scaling_plugin
from distributed import LocalCluster

from speckernel.cache import Cache
from speckernel.config import RunConfig
from speckernel.plugins import load_registry
from speckernel.runner import Progress
from speckernel.runs import start


def timed(config: RunConfig, out: Path) -> float:
    registry = load_registry({"scaling_plugin": scaling_plugin})
    t0 = time.perf_counter()
    _, summary = anyio.run(start, registry, config, out, Progress(), Cache(enabled=False))
    wall = time.perf_counter() - t0
    assert summary.counts == {"success": summary.total}, summary.counts
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--cpu", type=float, default=1.0)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)

        def config(verifier: str, tasks: int, cluster: str | None) -> RunConfig:
            return RunConfig(benchmark="scaling", cache=False, cluster=cluster,
                             options={"tasks": tasks, "verifier": verifier, "cpu_s": args.cpu})

        def on_cluster(workers: int, verifier: str, tasks: int, name: str) -> float:
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              host="127.0.0.1", dashboard_address=None) as cluster:
                address = cluster.scheduler_address
                timed(config(verifier, 2, address), root / f"{name}-warm")
                return timed(config(verifier, tasks, address), root / name)

        local = timed(config("scaling.noop", args.calls, None), root / "local")
        remote = on_cluster(1, "scaling.noop", args.calls, "remote")
        print(f"per-call overhead (no-op verifier, {args.calls} calls): local "
              f"{local / args.calls * 1000:.2f} ms/call, cluster "
              f"{remote / args.calls * 1000:.2f} ms/call "
              f"(+{(remote - local) / args.calls * 1000:.2f} ms per call)")
        busy = max(4, 2 * round(4 / args.cpu))
        one = on_cluster(1, "scaling.busy", busy, "one")
        two = on_cluster(2, "scaling.busy", busy, "two")
        ratio = one / two
        print(f"scaling ({busy} calls of {args.cpu:g} s CPU): 1 worker {one:.2f} s, 2 workers "
              f"{two:.2f} s: {ratio:.2f}x goal >= 1.7x: {'met' if ratio >= 1.7 else 'NOT met'}")
        print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
