"""How long a report of a large run takes: ``build_report`` (aggregates, and every mean's
clustered standard error and 10,000-resample cluster bootstrap) and ``render_html``.

A run of 2,500 tasks x 2 arms x 4 samples (20,000 samples) with 5 mean metrics: 26 bootstraps
of 2,500 tasks. Goal: a few seconds, so that writing the report when a run ends costs little
next to the run.

    python benchmarks/report_build.py [--tasks 2500] [--samples 4]
"""

from __future__ import annotations

import argparse
import random
import time

from speckernel.components import Metric
from speckernel.model import Sample, SampleKey, Score, Status, Verdict
from speckernel.report import build_report, render_html
from speckernel.reportinputs import ReportInputs


def synthetic(tasks: int, per_task: int, metrics: tuple[Metric, ...]) -> list[Sample]:
    rng = random.Random(0)
    out = []
    for t in range(tasks):
        for arm in ("a", "b"):
            for i in range(per_task):
                ok = rng.random() < 0.5
                status = Status.SUCCESS if ok else Status.FAILURE
                out.append(Sample(SampleKey(f"t{t:05}", arm, "m", i), status,
                                  verdicts=(Verdict("v", status),),
                                  scores=(Score("s", {m.name: rng.random() for m in metrics}),),
                                  solved=ok))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2500)
    parser.add_argument("--samples", type=int, default=4)
    args = parser.parse_args()
    metrics = tuple(Metric(f"m{i}") for i in range(5))
    samples = synthetic(args.tasks, args.samples, metrics)
    started = time.perf_counter()
    report = build_report(samples, ReportInputs("bench", metrics), {}, (1, args.samples))
    built = time.perf_counter()
    page = render_html(report)
    rendered = time.perf_counter()
    print(f"{len(samples)} samples ({args.tasks} tasks x 2 arms x {args.samples}), "
          f"{len(metrics)} metrics: build_report {built - started:.2f} s, render_html "
          f"{rendered - built:.2f} s ({len(page) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
