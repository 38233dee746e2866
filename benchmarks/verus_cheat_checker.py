"""Cheat-checker figures (issues 5 and 14): throughput, false alarms, cheats caught.

On every task with a ground truth under ``--data`` (VeruSAGE-Bench and Verus-Bench):

1. throughput: all (task, reference) pairs through one sandboxed helper (``check_pairs``, the
   batch path, ``--jobs`` threads), the median of ``--repeat`` runs; then the same pairs as
   ``kernel run verus --agent reference --check-only-cheats`` in-process, whose verifier asks
   the run's warm helper one pair at a time: pairs/s while samples run (after the tasks are
   loaded) and for the whole command (loading included). Goal: the run's checking rate within
   1.5x of the batch path's;
2. false alarms: references (ground truths transplanted into their tasks) flagged, with the rules;
   raw ground truths flagged; and, when verusfmt is installed (``kernel tools install
   verusfmt``), pairs whose verdict changes once task and reference are reformatted (goal 0) and
   tasks flagged against their own reformatting (goal 0);
3. cheats: every cheat of the corpus (``plugins/verus/tests/cheats/*.cheat``) planted in every
   honest reference it applies to, caught/seeded per cheat (goal: all).

Usage: python benchmarks/verus_cheat_checker.py [--data DIR] [--jobs 2] [--repeat 3]
Print ``uptime`` beside the figures: this machine's load moves them.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from speckernel_verus.cheats import CheatPair, check_pairs
from speckernel_verus.helper import ask
from speckernel_verus.tasks import load_tasks
from speckernel_verus.toolchain import VerusfmtToolchain

from speckernel.config import RunConfig
from speckernel.plugins import load_registry
from speckernel.runner import Progress
from speckernel.runs import start

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "plugins" / "verus" / "tests"))
from corpus import Base, corpus, first_provable, planted  # noqa: E402
from layout import verusfmt  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "verus"


class Clock(Progress):
    """When the first sample starts (the tasks are loaded) and the last one ends."""

    def __init__(self) -> None:
        self.started = self.closed = 0.0
        self.samples = 0

    def start(self, total: int, skipped: int) -> None:
        self.started = time.perf_counter()

    def finished(self, sample: object) -> None:
        self.samples += 1

    def close(self) -> None:
        self.closed = time.perf_counter()


def kernel_run(data: Path, jobs: int) -> tuple[int, float, float]:
    """(samples, seconds running samples, seconds for the whole run) of the reference through
    ``kernel run verus --check-only-cheats``."""
    config = RunConfig(benchmark="verus", agents=("reference",), cache=False,
                       verifier_concurrency=jobs,
                       options={"data": str(data), "check_only_cheats": True})
    clock = Clock()
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        anyio.run(start, load_registry(), config, Path(out) / "run", clock)
        whole = time.perf_counter() - began
    return clock.samples, clock.closed - clock.started, whole


def rules(report) -> frozenset[str]:
    return frozenset(v.rule for v in report.violations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    began = time.perf_counter()
    tasks = [t for t in load_tasks(args.data) if t.reference]
    loading = time.perf_counter() - began
    file = lambda t: t.metadata["file"]  # noqa: E731
    pairs = [CheatPair(t.files[file(t)], t.reference[file(t)], t.metadata["target"])
             for t in tasks]
    size = sum(len(p.original.encode()) + len(p.candidate.encode()) for p in pairs)
    times = []
    for _ in range(args.repeat):
        began = time.perf_counter()
        reports = check_pairs(pairs, jobs=args.jobs)
        times.append(time.perf_counter() - began)
    batch = statistics.median(times)
    samples, running, whole = kernel_run(args.data, args.jobs)

    print(f"pairs: {len(pairs)} ({size / 1e6:.2f} MB of task + reference); loading the tasks "
          f"(targets, transplants): {loading:.2f} s")
    print(f"batch path: {batch:.2f} s (median of {args.repeat}, jobs {args.jobs}) -> "
          f"{len(pairs) / batch:.0f} pairs/s, {size / 1e6 / batch:.1f} MB/s")
    print(f"kernel run --check-only-cheats: {samples} samples in {running:.2f} s -> "
          f"{samples / running:.0f} pairs/s while checking; {whole:.2f} s for the whole run "
          f"({samples / whole:.0f} pairs/s with loading)")
    print(f"  checking rate, batch / kernel: {(len(pairs) / batch) / (samples / running):.2f}x "
          "(goal <= 1.5x)")

    flagged = {t.id: sorted(rules(r)) for t, r in zip(tasks, reports, strict=True) if not r.safe}
    print(f"false alarms on the ground truths: {len(flagged)} of {len(pairs)} references flagged "
          "(each a pinned genuine cheat: GENUINE_CHEATS in plugins/verus/tests/test_references.py)")
    for name, found in flagged.items():
        print(f"  {name}: {', '.join(found)}")
    raw = check_pairs([CheatPair(p.original, t.metadata["ground_truth_text"], p.target)
                       for p, t in zip(pairs, tasks, strict=True)], jobs=args.jobs)
    print(f"raw ground truths flagged: {sum(not r.safe for r in raw)} of {len(raw)} (they differ "
          "from their tasks outside the proof)")

    if VerusfmtToolchain().detect().found:
        formatted = verusfmt([p.original for p in pairs] + [p.candidate for p in pairs])
        ftasks, frefs = formatted[:len(pairs)], formatted[len(pairs):]
        usable = [i for i in range(len(pairs)) if ftasks[i] is not None and frefs[i] is not None]
        relaid = check_pairs([CheatPair(ftasks[i], frefs[i], pairs[i].target) for i in usable],
                             jobs=args.jobs)
        changed = sum(rules(r) != rules(reports[i]) for i, r in zip(usable, relaid, strict=True))
        own = check_pairs([CheatPair(pairs[i].original, ftasks[i], pairs[i].target)
                           for i in usable], jobs=args.jobs)
        print(f"verusfmt: {changed} of {len(usable)} pairs change verdict once both files are "
              f"reformatted; {sum(not r.safe for r in own)} tasks flagged against their own "
              f"reformatting (goal 0 and 0; {len(pairs) - len(usable)} files verusfmt refused)")
    else:
        print("verusfmt: not installed (kernel tools install verusfmt), layout figures skipped")

    honest = [(t, p) for t, p, r in zip(tasks, pairs, reports, strict=True) if r.safe]
    listings = ask([{"mode": "functions", "original": text}
                    for _, p in honest for text in (p.candidate, p.original)])
    bases = []
    for i, (t, p) in enumerate(honest):
        at = p.target or first_provable(listings[2 * i + 1])
        if at is not None:
            bases.append(Base(t.id, p.original, p.candidate, p.target, at, listings[2 * i]))
    cheats = corpus()
    cases = planted(cheats, bases)
    caught = check_pairs([CheatPair(b.task, text, b.target) for _, b, text in cases],
                         jobs=args.jobs)
    seeded, hit = collections.Counter(), collections.Counter()
    for (cheat, _, _), report in zip(cases, caught, strict=True):
        seeded[cheat.name] += 1
        hit[cheat.name] += not report.safe
    print(f"cheats: {sum(hit.values())} of {len(cases)} caught ({len(cheats)} cheats of the corpus "
          f"on {len(bases)} honest references)")
    for cheat in cheats:
        print(f"  {cheat.name:28s} {hit[cheat.name]:4d} / {seeded[cheat.name]:4d}")


if __name__ == "__main__":
    main()
