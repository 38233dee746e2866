"""IDS store performance and the audit's cost (issues 6 and 12).

Cluster figures: for RYW and MW, both verified stores (the balanced-map store of
``reference/<P>_Impl.v``, what the reference agent submits, and the function-from-key store of
``reference/<P>_Expert.v``, the baseline of IDS Figure 4) are built through their obligations,
extracted by the plugin, linked with the replica runtime and run as a cluster (3 replica
processes, 4 client workers) by the ``rocq_ids.cluster`` machinery, in one sandbox call per spec
and network that repeats the whole sweep ``--repeat`` times (the stores take turns at every
point). Throughput is timed by the launcher, latency by the team's client workers, RSS read from
``/proc``, CPU from ``wait4``; every get is checked against the spec. Printed per spec, put
rate and operations per worker: each store's median throughput with its range over the repeats,
the ratio better/expert (median of the per-repeat ratios, with their range, flagged ``noise``
when the range holds 1), the replicas' CPU per operation (median and range; steadier than
throughput on a shared machine) and its ratio expert/better per repeat, pooled p99 and the
largest replica's peak RSS.

Audit cost: per reference candidate, the seconds of ``rocq_ids.coqc``, ``rocq_ids.audit`` and
``rocq_ids.extract`` (each in its own sandbox call, as the pipeline runs them) and their sum,
median over ``--audit-repeat`` runs; and the allow-list's time on a refused candidate.

The machine's load average is printed before and after: figures taken on a shared machine are
noisy.

Usage: python benchmarks/ids_store.py [--repeat 3] [--rates 0.1,0.5,0.9] [--ops 2000]
                                     [--keys 1000] [--network auto] [--specs ryw,mw]
                                     [--audit-repeat 1] [--no-cluster] [--no-audit]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from speckernel_rocq_ids.audit import AuditVerifier
from speckernel_rocq_ids.cluster import NETWORKS, Sweep, network_line, run_cluster, sweep_points
from speckernel_rocq_ids.commands import check
from speckernel_rocq_ids.extraction import ExtractionVerifier, profile_of
from speckernel_rocq_ids.sources import coq_source
from speckernel_rocq_ids.storebuild import OcamlToolchain
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation, all_tasks
from speckernel_rocq_ids.toolchain import CoqIdsToolchain
from speckernel_rocq_ids.verifiers import CoqcVerifier

from speckernel.components import VerifyContext
from speckernel.model import Candidate, Provenance, Status
from speckernel.sandbox.base import Limits
from speckernel.testing import verify_context

BETTER, EXPERT = "better", "expert"
CHEATS = Path(__file__).parents[1] / "plugins" / "rocq_ids" / "tests" / "cheats"


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def spread(values: Sequence[float], fmt: str = ".0f") -> str:
    """``median (min-max)``."""
    return (f"{statistics.median(values):{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})"
            if len(values) > 1 else f"{values[0]:{fmt}}")


def per_point(result: Mapping[str, Any], store: str) -> dict[tuple[float, int], list[dict]]:
    found = result["stores"][store]
    if found["error"]:
        raise SystemExit(f"{store}: {found['error']}")
    runs: dict[tuple[float, int], list[dict]] = {}
    for point in found["points"]:
        runs.setdefault((point["put_rate"], point["ops_per_worker"]), []).append(point)
    return runs


def print_cluster(spec: str, network: str, result: Mapping[str, Any]) -> None:
    better, expert = per_point(result, BETTER), per_point(result, EXPERT)
    for key in sorted(better):
        mine, theirs = better[key], {p["repeat"]: p for p in expert[key]}
        ratios = [p["throughput_ops_s"] / theirs[p["repeat"]]["throughput_ops_s"] for p in mine]
        noise = "noise" if min(ratios) <= 1.0 <= max(ratios) else ""
        cpu = {name: [1e6 * p["replica_cpu_s"] / p["operations"] for p in runs]
               for name, runs in ((BETTER, mine), (EXPERT, expert[key]))}
        per_repeat = {p["repeat"]: 1e6 * p["replica_cpu_s"] / p["operations"] for p in mine}
        x_cpu = [1e6 * p["replica_cpu_s"] / p["operations"] / per_repeat[p["repeat"]]
                 for p in expert[key]]
        print(f"{spec:5} {network:8} {key[0]:>4} {key[1]:>6} "
              f"{spread([p['throughput_ops_s'] for p in mine]):>21} "
              f"{spread([p['throughput_ops_s'] for p in expert[key]]):>21} "
              f"{spread(ratios, '.2f'):>17} {noise:5} "
              f"{spread(cpu[BETTER], '.1f'):>17} {spread(cpu[EXPERT], '.1f'):>17} "
              f"{spread(x_cpu, '.2f'):>17} "
              f"{statistics.median(p['p99_ms'] for p in mine):7.2f}/"
              f"{statistics.median(p['p99_ms'] for p in expert[key]):<7.2f} "
              f"{max(max(p['peak_rss_mb']) for p in mine):5.1f}/"
              f"{max(max(p['peak_rss_mb']) for p in expert[key]):<5.1f}")


async def cluster(ctx: VerifyContext, args: argparse.Namespace) -> None:
    networks = args.network.split(",")
    unknown = [n for n in networks if n not in NETWORKS]
    if unknown:
        raise SystemExit(f"--network: {', '.join(unknown)} is not one of {', '.join(NETWORKS)}")
    points = sweep_points([float(r) for r in args.rates.split(",")],
                          [int(n) for n in args.ops.split(",")])
    print(f"cluster: 3 replicas, 4 workers, keys 0..{args.keys - 1}, {args.repeat} repeats "
          f"(median (min-max)); {load()}")
    print(f"{'spec':5} {'net':8} {'put':>4} {'ops/w':>6} {'better ops/s':>21} "
          f"{'expert ops/s':>21} {'x expert':>17} {'':5} {'CPU us/op better':>17} "
          f"{'CPU us/op expert':>17} {'x CPU':>17} {'p99 ms b/e':>15} {'RSS MiB b/e':>11}")
    tasks = {t.id: t for t in all_tasks()}
    for spec in args.specs.split(","):
        task = tasks[spec]
        obligation = Obligation.of(task)
        stores = {BETTER: task.reference[CANDIDATE_FILE],  # type: ignore[index]
                  EXPERT: coq_source("reference", f"{obligation.spec_file[:-2]}_Expert.v")}
        for network in networks:
            sweep = Sweep(keys=args.keys, points=points, run_timeout_s=600.0, network=network,
                          repeats=args.repeat)
            started = time.monotonic()
            result = await run_cluster(ctx, obligation, task.files, stores, sweep,
                                       profile_of(task))
            print_cluster(spec, network, result)
            print(f"      {network_line(result)}; {time.monotonic() - started:.0f} s")
    print(f"after the cluster runs: {load()}")


async def audit_cost(ctx: VerifyContext, args: argparse.Namespace) -> None:
    print(f"\naudit cost per candidate, seconds (median of {args.audit_repeat}); {load()}")
    print(f"{'candidate':28} {'coqc':>6} {'audit':>6} {'extract':>8} {'total':>7}  verdicts")
    tasks = {t.id: t for t in all_tasks()}
    for spec in args.specs.split(","):
        task = tasks[spec]
        candidate = Candidate({CANDIDATE_FILE: task.reference[CANDIDATE_FILE]},  # type: ignore[index]
                              Provenance("benchmark", "none"))
        times: dict[str, list[float]] = {"coqc": [], "audit": [], "extract": []}
        statuses: set[Status] = set()
        for _ in range(args.audit_repeat):
            for name, verifier in (("coqc", CoqcVerifier()), ("audit", AuditVerifier()),
                                   ("extract", ExtractionVerifier())):
                started = time.monotonic()
                verdict = await verifier.verify(candidate, task, ctx)
                times[name].append(time.monotonic() - started)
                statuses.add(verdict.status)
        medians = {name: statistics.median(values) for name, values in times.items()}
        print(f"{spec + ' reference':28} {medians['coqc']:6.1f} {medians['audit']:6.1f} "
              f"{medians['extract']:8.1f} {sum(medians.values()):7.1f}  "
              f"{', '.join(sorted(s.value for s in statuses))}")
    refused = [p.read_text() for p in sorted(CHEATS.glob("*.v")) if check(p.read_text(),
                                                                           CANDIDATE_FILE)]
    started = time.perf_counter()
    for text in refused:
        check(text, CANDIDATE_FILE)
    per = (time.perf_counter() - started) / max(len(refused), 1)
    print(f"{'a refused cheat (allow-list)':28} {per * 1e3:6.2f} ms each, no tool run "
          f"({len(refused)} of the corpus)")
    print(f"after the audits: {load()}")


async def main(args: argparse.Namespace) -> None:
    ctx = verify_context(toolchains=[CoqIdsToolchain(), OcamlToolchain()],
                         limits=Limits(wall_s=3600.0, memory_mb=8192))
    if not args.no_cluster:
        await cluster(ctx, args)
    if not args.no_audit:
        await audit_cost(ctx, args)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rates", default="0.1,0.5,0.9")
    parser.add_argument("--ops", default="2000")
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--network", default="auto")
    parser.add_argument("--specs", default="ryw,mw")
    parser.add_argument("--audit-repeat", type=int, default=1)
    parser.add_argument("--no-cluster", action="store_true")
    parser.add_argument("--no-audit", action="store_true")
    anyio.run(main, parser.parse_args())
