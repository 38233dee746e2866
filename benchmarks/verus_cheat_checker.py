"""Cheat-checker throughput (issue 5): every task against its ground truth, in one helper process.

Loads every task with a ground truth under ``--data`` (VeruSAGE-Bench and Verus-Bench), checks
all (task, reference) pairs with ``verus-cheatcheck --jobs N`` ``--repeat`` times, and prints
the median wall time, pairs and megabytes per second, the number of pairs flagged (references:
the ground truth's proof transplanted into the task; and the raw ground truths), the time of the
transplant itself, and what the measured byte rate means for the whole VeruSAGE-Bench (849
tasks: 27.58 MB of tasks plus 28.9 MB of ground truth, notes/verusage.md). The goal is the whole
VeruSAGE set in under a minute on 2 cores. Also printed: the latency of one pair in its own
process (what one verifier call costs).

Usage: python benchmarks/verus_cheat_checker.py [--data DIR] [--jobs 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

import attrs
from speckernel_verus.cheats import CheatPair, check, check_pairs, transplant_pairs
from speckernel_verus.tasks import load_tasks

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "verus"
VERUSAGE_BYTES = 27.58e6 + 28.9e6
VERUSAGE_TASKS = 849


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    tasks = [t for t in load_tasks(args.data) if t.reference]
    pairs = [CheatPair(t.files[t.metadata["file"]], t.reference[t.metadata["file"]],
                       t.metadata["target"]) for t in tasks]
    raw = [attrs.evolve(p, candidate=t.metadata["ground_truth_text"])
           for p, t in zip(pairs, tasks, strict=True)]
    start = time.perf_counter()
    transplant_pairs(raw, jobs=args.jobs)
    moving = time.perf_counter() - start
    raw_flagged = sum(not r.safe for r in check_pairs(raw, jobs=args.jobs))
    size = sum(len(p.original.encode()) + len(p.candidate.encode()) for p in pairs)
    times, cpu, flagged = [], [], 0
    for _ in range(args.repeat):
        start, used = time.perf_counter(), _children_cpu()
        reports = check_pairs(pairs, jobs=args.jobs)
        times.append(time.perf_counter() - start)
        cpu.append(_children_cpu() - used)
        flagged = sum(not r.safe for r in reports)
    wall, cpu_s = statistics.median(times), statistics.median(cpu)
    single = []
    for pair in pairs[:20]:
        start = time.perf_counter()
        check(pair.original, pair.candidate, pair.target)
        single.append(time.perf_counter() - start)

    print(f"pairs: {len(pairs)} ({size / 1e6:.2f} MB of task + ground truth), "
          f"jobs {args.jobs}, median of {args.repeat}")
    print(f"wall: {wall:.2f} s  ->  {len(pairs) / wall:.0f} pairs/s, {size / 1e6 / wall:.1f} MB/s")
    print(f"helper CPU: {cpu_s:.2f} s  ->  {size / 1e6 / cpu_s:.1f} MB per CPU second "
          f"(the wall time above depends on the machine's other load)")
    print(f"flagged: {flagged} of {len(pairs)} references (see KNOWN_DEVIATIONS in "
          f"plugins/verus/tests/test_cheats.py); {raw_flagged} of the raw ground truths")
    print(f"transplant of every ground truth into its task: {moving:.2f} s")
    print(f"whole VeruSAGE-Bench ({VERUSAGE_TASKS} pairs, {VERUSAGE_BYTES / 1e6:.1f} MB): "
          f"{VERUSAGE_BYTES / (size / wall):.1f} s at the measured wall rate, "
          f"{VERUSAGE_BYTES / (size / cpu_s) / args.jobs:.1f} s on {args.jobs} idle cores "
          "(goal: < 60 s)")
    print(f"one pair per process: median {1e3 * statistics.median(single):.1f} ms")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
