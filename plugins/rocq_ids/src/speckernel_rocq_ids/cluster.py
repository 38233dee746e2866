"""Harness ``rocq_ids.cluster``: the extracted store as a distributed key-value store (IDS §6).

For an audited candidate, one sandbox call builds the store (:mod:`storebuild`) and, when the
task ships one, the expert-style baseline of IDS Figure 4 (``reference/<P>_Expert.v``), then runs
``runtime/cluster_run.py``: N replica processes exchanging messages over TCP, W client workers
with a seeded uniform workload (Chapar's knobs: key range and put rate), swept over put rates x
operations per worker. Option ``cluster_network`` places them: ``loopback`` (all in the
sandbox's network namespace), ``netns`` (test hosts, ``runtime/testhosts.py``: the workers on
one host and each replica on its own, separate network stacks with addresses in 10.77.0.0/24
joined by veth links to a bridge; an error if they cannot be created) or ``auto`` (the default:
test hosts where this machine lets the harness create them, as root does, else loopback).
``cluster_link_delay_ms`` adds a ``tc netem`` delay on every test host's link where the kernel
has ``netem`` (skipped, and said so, where not). Per sweep point it reports
throughput (all operations over the span from the first worker's start to the last one's finish,
monotonic clocks), p50/p99 latency over every operation pooled across workers, and each replica's
peak RSS.

Measurements: the headline ``throughput_ops_s``, ``p99_latency_ms``, ``peak_rss_mb`` (largest
replica) and ``replica_cpu_us_per_op`` (CPU time of all replicas per operation, which the load of
a shared machine disturbs far less than wall-clock throughput) at the point with the put rate
nearest 0.5 and the most operations; the same per point as
``<metric>@put<rate>/ops<n>``; with the baseline, ``expert_throughput_ops_s`` and ``x_expert``
(throughput over the baseline's, headline and per point); ``cluster_netns`` (1 on test hosts, 0
on loopback) and ``cluster_link_delay_ms`` (the delay applied). The network line (which one,
why ``auto`` fell back, the hosts' addresses, the delay) goes to the sample's log. A store that
cannot be built, a replica or client that dies, or a run that outlives its budget raises with
the reason, which the runner records as the sample's error.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from speckernel.components import Harness, Metric, VerifyContext
from speckernel.errors import KernelError
from speckernel.model import Candidate, Task

from speckernel_rocq_ids.coqbuild import Step, run_build
from speckernel_rocq_ids.sources import coq_source
from speckernel_rocq_ids.storebuild import (
    CLUSTER_SCRIPT,
    OcamlToolchain,
    StoreBuild,
    runtime_source,
)
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation
from speckernel_rocq_ids.toolchain import CoqIdsToolchain

CLUSTER = "rocq_ids.cluster"
RUN = "cluster"
CANDIDATE, EXPERT = "candidate", "expert"

HOSTS_SCRIPT = "testhosts.py"
NETWORKS = ("loopback", "netns", "auto")

OPTIONS: Mapping[str, Any] = {
    "cluster_replicas": 3, "cluster_workers": 4, "cluster_keys": 50,
    "cluster_put_rates": [0.1, 0.5, 0.9], "cluster_ops_per_worker": [500, 2000],
    "cluster_seed": 1, "cluster_run_timeout_s": 60, "cluster_expert": True,
    "cluster_network": "auto", "cluster_link_delay_ms": 0,
}
"""Benchmark options of the harness and their defaults (Chapar's key range 50; 3 replicas and 4
workers fit a 2-core machine)."""


def sweep_points(rates: Sequence[float], ops: Sequence[int]) -> tuple[tuple[float, int], ...]:
    """Every (put rate, operations per worker) pair, rates outermost."""
    return tuple((float(r), int(n)) for r in rates for n in ops)


@attrs.frozen
class Sweep:
    """One cluster configuration and the sweep points (put rate, operations per worker)."""

    replicas: int = 3
    workers: int = 4
    keys: int = 50
    points: tuple[tuple[float, int], ...] = ((0.1, 500), (0.5, 500), (0.9, 500))
    seed: int = 1
    run_timeout_s: float = 60.0
    network: str = "auto"
    link_delay_ms: float = 0.0

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> Sweep:
        """The sweep ``options`` ask for; a bad ``cluster_network`` or delay is a one-line
        ``KernelError``."""
        o = {**OPTIONS, **options}
        if o["cluster_network"] not in NETWORKS:
            raise KernelError(f"cluster_network must be one of {', '.join(NETWORKS)}, not "
                              f"{o['cluster_network']!r}")
        try:
            delay = float(o["cluster_link_delay_ms"])
        except (TypeError, ValueError):
            delay = math.nan
        if not delay >= 0:
            raise KernelError(f"cluster_link_delay_ms must be a number >= 0, not "
                              f"{o['cluster_link_delay_ms']!r}")
        points = sweep_points(o["cluster_put_rates"], o["cluster_ops_per_worker"])
        return cls(int(o["cluster_replicas"]), int(o["cluster_workers"]), int(o["cluster_keys"]),
                   points, int(o["cluster_seed"]), float(o["cluster_run_timeout_s"]),
                   o["cluster_network"], delay)

    def config(self, stores: Mapping[str, str]) -> str:
        """The JSON ``cluster_run.py`` reads."""
        return json.dumps({"stores": dict(stores), "replicas": self.replicas,
                           "workers": self.workers, "keys": self.keys,
                           "points": [list(p) for p in self.points], "seed": self.seed,
                           "run_timeout_s": self.run_timeout_s, "network": self.network,
                           "link_delay_ms": self.link_delay_ms})

    @property
    def headline(self) -> tuple[float, int]:
        """The point the headline figures come from: put rate nearest 0.5, most operations."""
        return min(self.points, key=lambda p: (abs(p[0] - 0.5), -p[1]))


def expert_source(obligation: Obligation) -> str | None:
    """The task's expert-style baseline (``reference/<P>_Expert.v``), if one ships."""
    try:
        return coq_source("reference", f"{obligation.spec_file.removesuffix('.v')}_Expert.v")
    except FileNotFoundError:
        return None


def point_key(point: Mapping[str, Any]) -> str:
    return f"put{point['put_rate']:g}/ops{point['ops_per_worker']}"


def measurements(result: Mapping[str, Any], headline: tuple[float, int]) -> dict[str, float]:
    """The harness's figures from ``cluster_run.py``'s JSON (see the module docstring)."""
    mine = _points(result, CANDIDATE)
    out: dict[str, float] = {}
    for key, point in mine.items():
        out[f"throughput_ops_s@{key}"] = point["throughput_ops_s"]
        out[f"p99_latency_ms@{key}"] = point["p99_ms"]
        out[f"peak_rss_mb@{key}"] = max(point["peak_rss_mb"])
        out[f"replica_cpu_us_per_op@{key}"] = 1e6 * point["replica_cpu_s"] / point["operations"]
    top = point_key({"put_rate": headline[0], "ops_per_worker": headline[1]})
    for metric in ("throughput_ops_s", "p99_latency_ms", "peak_rss_mb", "replica_cpu_us_per_op"):
        out[metric] = out[f"{metric}@{top}"]
    if EXPERT in result["stores"]:
        theirs = _points(result, EXPERT)
        for key, point in theirs.items():
            out[f"x_expert@{key}"] = mine[key]["throughput_ops_s"] / point["throughput_ops_s"]
        out["expert_throughput_ops_s"] = theirs[top]["throughput_ops_s"]
        out["x_expert"] = out[f"x_expert@{top}"]
    network = result["network"]
    out["cluster_netns"] = float(network["network"] == "netns")
    out["cluster_link_delay_ms"] = float(network["link_delay_ms"])
    return out


def network_line(result: Mapping[str, Any]) -> str:
    """Which network the run used, for the sample's log: test hosts with their addresses, or
    loopback and, under ``auto``, why."""
    network = result["network"]
    if network["network"] == "netns":
        hosts = ", ".join(f"{h} {a}" for h, a in network["addresses"].items())
        where = f"test hosts in network namespaces (bridge {network['bridge']}): {hosts}"
    else:
        where = "loopback 127.0.0.1" + (f" ({network['reason']})" if network["reason"] else "")
    return f"cluster network: {where}; link delay: {network['link_delay']}"


def _points(result: Mapping[str, Any], store: str) -> dict[str, Mapping[str, Any]]:
    found = result["stores"][store]
    if found["error"]:
        raise KernelError(f"the {store} store's cluster run failed: {found['error']}")
    return {point_key(p): p for p in found["points"]}


def cluster_result(output: str) -> Mapping[str, Any]:
    """The JSON line ``cluster_run.py`` printed last; its ``error`` (test hosts that could not
    be created under ``netns``) raises."""
    for line in reversed(output.splitlines()):
        if line.startswith("{"):
            result = dict(json.loads(line))
            if "error" in result:
                raise KernelError(f"cluster_network netns: {result['error']}")
            return result
    raise KernelError(f"the cluster run printed no result: {output.strip()[-500:]}")


async def run_cluster(ctx: VerifyContext, obligation: Obligation, task_files: Mapping[str, str],
                      stores: Mapping[str, str], sweep: Sweep) -> Mapping[str, Any]:
    """Build each store of ``stores`` (name -> ``Impl.v`` text) and run the sweep over all."""
    builds = {name: StoreBuild(name, obligation) for name in stores}
    files = {CLUSTER_SCRIPT: runtime_source(CLUSTER_SCRIPT),
             HOSTS_SCRIPT: runtime_source(HOSTS_SCRIPT),
             "config.json": sweep.config({n: b.executable for n, b in builds.items()})}
    steps: list[Step] = []
    for name, build in builds.items():
        files |= build.files(dict(task_files), stores[name])
        steps += build.steps()
    steps.append(Step(RUN, ("python3", CLUSTER_SCRIPT, "config.json")))
    done = await run_build(ctx, files, steps)
    process = done.process
    if process.timed_out or process.limit == "wall":
        raise KernelError(f"timeout: the cluster benchmark ran out of its "
                          f"{process.duration_s:.0f} s wall budget")
    if process.limit is not None:
        raise KernelError(f"the cluster benchmark hit the sandbox's {process.limit} limit")
    for name, store in builds.items():
        broken = store.failure(dict(done.steps))
        if broken is not None:
            raise KernelError(f"{name} store: {broken}")
    ran = done.steps.get(RUN)
    if ran is None or not ran.ok:
        raise KernelError(f"the cluster launcher failed: {(ran.output if ran else '')[-500:]}")
    return cluster_result(ran.output)


class ClusterHarness(Harness):
    """Throughput, p99 latency and peak RSS of the extracted store on a cluster of processes
    (test hosts in network namespaces, or loopback)."""

    name = CLUSTER
    metrics = (Metric("throughput_ops_s", "operations per second, all workers", unit="count"),
               Metric("p99_latency_ms", "99th percentile operation latency (ms), pooled",
                      unit="count", higher_is_better=False),
               Metric("peak_rss_mb", "peak resident memory (MiB) of the largest replica",
                      unit="count", higher_is_better=False),
               Metric("replica_cpu_us_per_op", "CPU time (us) of all replicas per operation",
                      unit="count", higher_is_better=False),
               Metric("x_expert", "throughput over the expert-style baseline's"),
               Metric("cluster_netns", "1 if the replicas ran on test hosts (network "
                      "namespaces), 0 on loopback", unit="bool"),
               Metric("cluster_link_delay_ms", "netem delay (ms) applied on each host's link",
                      unit="count", higher_is_better=False))
    tools = (CoqIdsToolchain.name, OcamlToolchain.name)

    async def measure(self, candidate: Candidate, task: Task,
                      ctx: VerifyContext) -> Mapping[str, float]:
        obligation = Obligation.of(task)
        options = {**OPTIONS, **ctx.options}
        sweep = Sweep.of(options)
        stores = {CANDIDATE: candidate.files.get(CANDIDATE_FILE, "")}
        expert = expert_source(obligation)
        if expert is not None and options["cluster_expert"]:
            stores[EXPERT] = expert
        result = await run_cluster(ctx, obligation, task.files, stores, sweep)
        ctx.log(network_line(result))
        return measurements(result, sweep.headline)
