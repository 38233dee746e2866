"""IDS store performance (issue 6): the better representation against the expert-style reference.

For RYW and MW, both verified stores are extracted to OCaml, linked with the replica runtime and
run as a cluster (3 replica processes, 4 client workers, keys 0..49 unless ``--keys``; Chapar's
knobs) by the ``rocq_ids.cluster`` machinery, in one sandbox call per repeat and network: the
balanced-map store (``reference/<P>_Impl.v``, AVL trees, what the reference agent submits) and
the function-from-key store (``reference/<P>_Expert.v``, the baseline of IDS Figure 4). Printed
per spec, put rate and operations per worker: median throughput of each and their ratio (better /
expert); the CPU time all replicas spent per operation and its ratio (expert / better), which the
load of a shared machine disturbs far less than throughput; pooled p99 latency; the largest
replica's peak RSS. ``--network`` lists the networks to compare (``loopback``, ``netns``: test
hosts in network namespaces joined by veth links, ``auto``), each printed with the network the
run really used.

Usage: python benchmarks/ids_store.py [--repeat N] [--rates 0.1,0.5,0.9] [--ops 1000,8000]
                                     [--keys 50] [--network loopback,netns]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import attrs
from speckernel_rocq_ids.cluster import NETWORKS, Sweep, network_line, run_cluster, sweep_points
from speckernel_rocq_ids.sources import coq_source
from speckernel_rocq_ids.tasks import Obligation, all_tasks
from speckernel_rocq_ids.toolchain import CoqIdsToolchain

from speckernel.components import ToolResolver, VerifyContext
from speckernel.sandbox.base import Limits, Sandbox
from speckernel.sandbox.local import LocalSandbox
from speckernel.toolchains import DetectedTools

BETTER, EXPERT = "better", "expert"


@attrs.define
class Context(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


def figures(results: Sequence[Mapping[str, Any]], store: str) -> dict[tuple[float, int], dict]:
    """Per sweep point: median throughput, p99 and peak RSS over the repeats."""
    out: dict[tuple[float, int], dict] = {}
    for result in results:
        found = result["stores"][store]
        if found["error"]:
            raise SystemExit(f"{store}: {found['error']}")
        for p in found["points"]:
            row = out.setdefault((p["put_rate"], p["ops_per_worker"]),
                                 {"tput": [], "cpu": [], "p99": [], "rss": []})
            row["tput"].append(p["throughput_ops_s"])
            row["cpu"].append(1e6 * p["replica_cpu_s"] / p["operations"])
            row["p99"].append(p["p99_ms"])
            row["rss"].append(max(p["peak_rss_mb"]))
    return {k: {m: statistics.median(v) for m, v in row.items()} for k, row in out.items()}


async def main(args: argparse.Namespace) -> None:
    ctx = Context(LocalSandbox(), DetectedTools({CoqIdsToolchain.name: CoqIdsToolchain()}),
                  Limits(wall_s=1800.0, memory_mb=8192), {})
    networks = args.network.split(",")
    unknown = [n for n in networks if n not in NETWORKS]
    if unknown:
        raise SystemExit(f"--network: {', '.join(unknown)} is not one of {', '.join(NETWORKS)}")
    points = sweep_points([float(r) for r in args.rates.split(",")],
                          [int(n) for n in args.ops.split(",")])
    sweeps = {n: Sweep(keys=args.keys, points=points, run_timeout_s=600.0, network=n)
              for n in networks}
    first = sweeps[networks[0]]
    print(f"{first.replicas} replicas, {first.workers} workers, keys 0..{first.keys - 1}, "
          f"median of {args.repeat} repeat(s)")
    print(f"{'spec':5} {'net':8} {'put':>4} {'ops/w':>6} {'better ops/s':>13} "
          f"{'expert ops/s':>13} {'ratio':>6} {'CPU us/op b/e':>14} {'x CPU':>6} "
          f"{'p99 ms b/e':>13} {'RSS MiB b/e':>12}")
    for task in all_tasks():
        obligation = Obligation.of(task)
        prefix = obligation.spec_file.removesuffix(".v")
        stores = {BETTER: coq_source("reference", f"{prefix}_Impl.v"),
                  EXPERT: coq_source("reference", f"{prefix}_Expert.v")}
        for network, sweep in sweeps.items():
            results = [await run_cluster(ctx, obligation, task.files, stores, sweep)
                       for _ in range(args.repeat)]
            print(f"# {task.id} --network {network}: {network_line(results[0])}")
            used = results[0]["network"]["network"]
            better, expert = figures(results, BETTER), figures(results, EXPERT)
            for (rate, ops), b in sorted(better.items()):
                e = expert[(rate, ops)]
                print(f"{task.id:5} {used:8} {rate:4.1f} {ops:6d} {b['tput']:13.0f} "
                      f"{e['tput']:13.0f} {b['tput'] / e['tput']:6.2f} "
                      f"{b['cpu']:6.1f}/{e['cpu']:<7.1f} {e['cpu'] / b['cpu']:6.2f} "
                      f"{b['p99']:6.2f}/{e['p99']:<6.2f} {b['rss']:5.1f}/{e['rss']:<6.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rates", default="0.1,0.5,0.9")
    parser.add_argument("--ops", default="1000,8000")
    parser.add_argument("--keys", type=int, default=50)
    parser.add_argument("--network", default="loopback",
                        help="comma-separated networks to compare: loopback, netns, auto")
    anyio.run(main, parser.parse_args())
