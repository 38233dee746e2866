"""Harness ``rocq_ids.cluster``: the extracted store as a distributed key-value store (IDS §6).

For an audited candidate, one sandbox call builds the store (:mod:`storebuild`: through the
obligation, then the plugin's own extraction) and, when the task ships one, the expert-style
baseline of IDS Figure 4 (``reference/<P>_Expert.v``), then hands over to the launcher
``runtime/cluster_run.py``: N replica processes exchanging messages over TCP, W client workers
with a seeded uniform workload (Chapar's knobs: key range and put rate), swept over put rates x
operations per worker, ``repeats`` times. Option ``cluster_network`` places them: ``loopback``
(all in the sandbox's network namespace), ``netns`` (test hosts, ``runtime/testhosts.py``: the
workers on one host and each replica on its own, separate network stacks with addresses in
10.77.0.0/24 joined by veth links to a bridge, made by the launcher in a user namespace of its
own; an error if they cannot be created) or ``auto`` (the default: test hosts where the machine
allows nested user namespaces, else loopback with the reason). ``cluster_link_delay_ms`` adds a
``tc netem`` delay on every test host's link where the kernel has ``netem``.

Who measures what (see ``cluster_run.py``): throughput on the launcher's own clock, latency by
the team's client workers over pipes only the launcher reads, peak RSS and CPU from the
kernel's accounting of each replica, and every get checked against the spec's observable
behaviour (``runtime/histories.py``): a store that answers what its spec forbids, or a report
that cannot be true, fails with the reason. No file the store's processes can write is read.

Measurements, at the point with the put rate nearest 0.5 and the most operations (median over
repeats): ``throughput_ops_s``, ``p99_latency_ms``, ``peak_rss_mb`` (largest replica, largest
repeat) and ``replica_cpu_us_per_op``; the same per point as ``<metric>@put<rate>/ops<n>``; with
the baseline, ``expert_throughput_ops_s`` and ``x_expert`` (the median over repeats of the
per-repeat ratio, with ``x_expert_min`` and ``x_expert_max``, the spread: a range that holds 1
is within noise, and the sample's log says so), and ``x_expert_cpu`` (the expert's replica CPU
per operation over the candidate's, with its range: the figure a loaded machine disturbs least);
``cluster_netns`` and ``cluster_link_delay_ms``.
A store that cannot be built, a replica or client that dies, a history violation, a run past
its budget or a store process the OOM killer ended raises with the reason, which the runner
records as the sample's error.
"""

from __future__ import annotations

import json
import math
import secrets
import statistics
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from speckernel.components import Harness, Metric, VerifyContext
from speckernel.errors import KernelError
from speckernel.model import Candidate, Task

from speckernel_rocq_ids import commands
from speckernel_rocq_ids.coqbuild import Step, run_build
from speckernel_rocq_ids.extraction import profile_of
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

LAUNCHER_MODULES = ("testhosts.py", "histories.py")
NETWORKS = ("loopback", "netns", "auto")

OPTIONS: Mapping[str, Any] = {
    "cluster_replicas": 3, "cluster_workers": 4, "cluster_keys": 1000,
    "cluster_put_rates": [0.1, 0.5, 0.9], "cluster_ops_per_worker": [2000],
    "cluster_seed": 1, "cluster_repeats": 3, "cluster_run_timeout_s": 60,
    "cluster_expert": True, "cluster_network": "auto", "cluster_link_delay_ms": 0,
}
"""Benchmark options of the harness and their defaults: 3 replicas and 4 workers fit a 2-core
machine; 1,000 keys (Chapar's 50 makes the expert store's closure chains so short that the two
stores differ by less than this machine's noise); 3 repeats for the spread."""

OPTION_DESCRIPTIONS: Mapping[str, str] = {
    "cluster_replicas": "replica processes of the measured store",
    "cluster_workers": "client worker processes driving the workload",
    "cluster_keys": "size of the key range the workload draws keys from, uniformly",
    "cluster_put_rates": "list of put shares (0 to 1) to sweep; the headline figures come from "
                         "the one nearest 0.5",
    "cluster_ops_per_worker": "list of operation counts per worker to sweep; the headline "
                              "figures come from the largest",
    "cluster_seed": "seed of the workload's random keys and put/get choices (per worker)",
    "cluster_repeats": "measured runs per sweep point, 1 to 50; figures are their medians",
    "cluster_run_timeout_s": "seconds one measured run may take before the sample ends in error",
    "cluster_expert": "also measure the task's expert-style baseline, where one ships, for the "
                      "x_expert ratios",
    "cluster_network": "where replicas run: loopback, netns (a test host each, an error if none "
                       "can be made) or auto (netns where the machine allows, else loopback)",
    "cluster_link_delay_ms": "milliseconds of netem delay added on each test host's link (netns "
                             "only, where the kernel has netem)",
}
"""One line per option of :data:`OPTIONS` (``kernel list options rocq_ids``)."""


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
    repeats: int = 1

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
        repeats = o["cluster_repeats"]
        if not isinstance(repeats, int) or isinstance(repeats, bool) or not 1 <= repeats <= 50:
            raise KernelError(f"cluster_repeats must be a whole number from 1 to 50, not "
                              f"{repeats!r}")
        points = sweep_points(o["cluster_put_rates"], o["cluster_ops_per_worker"])
        return cls(int(o["cluster_replicas"]), int(o["cluster_workers"]), int(o["cluster_keys"]),
                   points, int(o["cluster_seed"]), float(o["cluster_run_timeout_s"]),
                   o["cluster_network"], delay, repeats)

    def config(self, stores: Mapping[str, str], profile: str) -> str:
        """The JSON ``cluster_run.py`` reads."""
        return json.dumps({"stores": dict(stores), "replicas": self.replicas,
                           "workers": self.workers, "keys": self.keys,
                           "points": [list(p) for p in self.points], "seed": self.seed,
                           "repeats": self.repeats, "run_timeout_s": self.run_timeout_s,
                           "network": self.network, "link_delay_ms": self.link_delay_ms,
                           "profile": profile})

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


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def _cpu_per_op(point: Mapping[str, Any]) -> float:
    return float(point["replica_cpu_s"]) / float(point["operations"])


def measurements(result: Mapping[str, Any], headline: tuple[float, int]) -> dict[str, float]:
    """The harness's figures from ``cluster_run.py``'s result (see the module docstring):
    medians over repeats, the largest RSS, and the ratio to the expert per repeat."""
    mine = _points(result, CANDIDATE)
    out: dict[str, float] = {}
    for key, runs in mine.items():
        out[f"throughput_ops_s@{key}"] = _median([p["throughput_ops_s"] for p in runs])
        out[f"p99_latency_ms@{key}"] = _median([p["p99_ms"] for p in runs])
        out[f"peak_rss_mb@{key}"] = max(max(p["peak_rss_mb"]) for p in runs)
        out[f"replica_cpu_us_per_op@{key}"] = _median(
            [1e6 * p["replica_cpu_s"] / p["operations"] for p in runs])
    top = point_key({"put_rate": headline[0], "ops_per_worker": headline[1]})
    for metric in ("throughput_ops_s", "p99_latency_ms", "peak_rss_mb", "replica_cpu_us_per_op"):
        out[metric] = out[f"{metric}@{top}"]
    if EXPERT in result["stores"]:
        theirs = _points(result, EXPERT)
        for key, runs in mine.items():
            expert = {p.get("repeat", 0): p for p in theirs[key]}
            paired = [(p, expert[p.get("repeat", 0)]) for p in runs if p.get("repeat", 0) in expert]
            for name, ratios in (
                    ("x_expert", [a["throughput_ops_s"] / b["throughput_ops_s"]
                                  for a, b in paired]),
                    ("x_expert_cpu", [_cpu_per_op(b) / _cpu_per_op(a) for a, b in paired])):
                out[f"{name}@{key}"] = _median(ratios)
                out[f"{name}_min@{key}"], out[f"{name}_max@{key}"] = min(ratios), max(ratios)
        out["expert_throughput_ops_s"] = _median([p["throughput_ops_s"] for p in theirs[top]])
        for name in ("x_expert", "x_expert_min", "x_expert_max", "x_expert_cpu",
                     "x_expert_cpu_min", "x_expert_cpu_max"):
            out[name] = out[f"{name}@{top}"]
    network = result["network"]
    out["cluster_netns"] = float(network["network"] == "netns")
    out["cluster_link_delay_ms"] = float(network["link_delay_ms"])
    return out


def noise_line(found: Mapping[str, float], repeats: int) -> str | None:
    """Whether the headline ratio to the expert is within noise (its range over the repeats
    holds 1), for the sample's log."""
    if "x_expert" not in found:
        return None
    parts = []
    for name, what in (("x_expert", "faster"), ("x_expert_cpu", "cheaper in replica CPU")):
        low, high = found[f"{name}_min"], found[f"{name}_max"]
        verdict = ("within noise: the range holds 1" if low <= 1.0 <= high
                   else f"the candidate is {what} in every repeat" if low > 1.0
                   else f"the expert is {what} in every repeat")
        parts.append(f"{name} {found[name]:.2f} (min {low:.2f}, max {high:.2f} over {repeats} "
                     f"repeats): {verdict}")
    return "; ".join(parts)


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


def _points(result: Mapping[str, Any], store: str) -> dict[str, list[Mapping[str, Any]]]:
    found = result["stores"][store]
    if found["error"]:
        raise KernelError(f"the {store} store's cluster run failed: {found['error']}")
    runs: dict[str, list[Mapping[str, Any]]] = {}
    for point in found["points"]:
        runs.setdefault(point_key(point), []).append(point)
    return runs


def cluster_result(output: str, nonce: str) -> Mapping[str, Any]:
    """The result line ``cluster_run.py`` printed after ``nonce`` (any other line is not the
    launcher's); its ``error`` (test hosts that could not be created under ``netns``)
    raises."""
    prefix = f"{nonce} "
    for line in reversed(output.splitlines()):
        if line.startswith(prefix):
            result = dict(json.loads(line.removeprefix(prefix)))
            if "error" in result:
                raise KernelError(f"cluster_network netns: {result['error']}")
            return result
    raise KernelError("the cluster launcher printed no result")


async def run_cluster(ctx: VerifyContext, obligation: Obligation, task_files: Mapping[str, str],
                      stores: Mapping[str, str], sweep: Sweep, profile: str = "relaxed",
                      proved: bool = True) -> Mapping[str, Any]:
    """Build each store of ``stores`` (name -> ``Impl.v`` text; through its obligation unless
    ``proved`` is false) and run the sweep over all."""
    builds = {name: StoreBuild(name, obligation, proved) for name in stores}
    files = {CLUSTER_SCRIPT: runtime_source(CLUSTER_SCRIPT),
             **{name: runtime_source(name) for name in LAUNCHER_MODULES},
             "config.json": sweep.config({n: b.executable for n, b in builds.items()}, profile)}
    steps: list[Step] = []
    for name, build in builds.items():
        refused = commands.check(stores[name], CANDIDATE_FILE)
        if refused:
            raise KernelError(f"{name} store: {refused[0].message}")
        files |= build.files(dict(task_files), stores[name])
        steps += build.steps()
    nonce = secrets.token_hex(16)
    launcher = Step(RUN, (sys.executable, "-E", "-s", CLUSTER_SCRIPT, "config.json"))
    limits = attrs.evolve(ctx.limits, nested_namespaces=sweep.network != "loopback")
    done = await run_build(ctx, files, steps, last=launcher, stdin=nonce + "\n", limits=limits)
    process = done.process
    if process.limit == "wall":
        raise KernelError(f"timeout: the cluster benchmark ran out of its "
                          f"{process.duration_s:.0f} s wall budget")
    if process.limit == "memory":
        raise KernelError("a store process of the cluster ran out of memory (the OOM killer "
                          "ended it)")
    if process.limit is not None:
        raise KernelError(f"the cluster benchmark hit the sandbox's {process.limit} limit")
    if not done.last_started:
        for name, store in builds.items():
            broken = store.failure(dict(done.steps))
            if broken is not None:
                raise KernelError(f"{name} store: {broken}")
        raise KernelError(f"the cluster build stopped early: {process.stderr[-500:]}")
    try:
        return cluster_result(process.stdout, nonce)
    except KernelError as exc:
        raise KernelError(f"{exc} (exit {process.returncode}): {process.stderr[-500:]}") from None


class ClusterHarness(Harness):
    """Throughput, p99 latency and peak RSS of the extracted store on a cluster of processes
    (test hosts in network namespaces, or loopback)."""

    name = CLUSTER
    description = ("IDS §6: the extracted store run as a replicated key-value store: "
                   "throughput, p99 latency, memory, CPU, ratio to the expert baseline")
    metrics = (Metric("throughput_ops_s", "operations per second, all workers", unit="count"),
               Metric("p99_latency_ms", "99th percentile operation latency (ms), pooled",
                      unit="count", higher_is_better=False),
               Metric("peak_rss_mb", "peak resident memory (MiB) of the largest replica",
                      unit="count", higher_is_better=False),
               Metric("replica_cpu_us_per_op", "CPU time (us) of all replicas per operation",
                      unit="count", higher_is_better=False),
               Metric("x_expert", "throughput over the expert-style baseline's (median of the "
                      "per-repeat ratios)"),
               Metric("x_expert_min", "smallest per-repeat ratio to the expert"),
               Metric("x_expert_max", "largest per-repeat ratio to the expert"),
               Metric("x_expert_cpu", "the expert's replica CPU per operation over the "
                      "candidate's (median of the per-repeat ratios; steadier than throughput on "
                      "a loaded machine)"),
               Metric("cluster_netns", "1 if the replicas ran on test hosts (network "
                      "namespaces), 0 on loopback", unit="bool"),
               Metric("cluster_link_delay_ms", "netem delay (ms) applied on each host's link",
                      unit="count", higher_is_better=False))
    tools = (CoqIdsToolchain.name, OcamlToolchain.name)
    resources = {"machine": 1}
    """On a Dask cluster, a worker of its own: the figures are the machine's."""
    proved = True
    """Build the stores through their obligations (False: tests of the launcher's own checks on
    stores that need no proof to be wrong)."""

    async def measure(self, candidate: Candidate, task: Task,
                      ctx: VerifyContext) -> Mapping[str, float]:
        obligation = Obligation.of(task)
        options = {**OPTIONS, **ctx.options}
        sweep = Sweep.of(options)
        stores = {CANDIDATE: candidate.files.get(CANDIDATE_FILE, "")}
        expert = expert_source(obligation)
        if expert is not None and options["cluster_expert"]:
            stores[EXPERT] = expert
        result = await run_cluster(ctx, obligation, task.files, stores, sweep, profile_of(task),
                                   self.proved)
        ctx.log(network_line(result))
        found = measurements(result, sweep.headline)
        noise = noise_line(found, sweep.repeats)
        if noise is not None:
            ctx.log(noise)
        return found
