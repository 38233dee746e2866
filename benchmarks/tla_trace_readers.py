"""How the Python side of TLA+ trace conformance scales with the trace: each stage timed on a
synthetic input at 1x, 4x and 16x its events, in-process (no TLC), with the ratio 16x/1x printed
(linear: about 16x; a quadratic reader: about 256x).

1. The PGo validation plan (:func:`speckernel_tla.pgo_validation.plan`) of a run of the lockhub
   test system whose hub logs sections of many accesses (what a section reads first and writes
   last is found per access).
2. The PGo conformance data (:func:`speckernel_tla.conformance_pgo.metrics`): per-action ratios
   over runs whose sections run many distinct labels.
3. The NDJSON whole-trace facts: how far each trace of a group was validated (``reached``), for
   many traces (:func:`speckernel_tla.conformance.trace_results`).
4. The NDJSON conformance data (:func:`speckernel_tla.conformance.conformance_data`): per-event
   window rates over traces of many distinct events.

Usage: python benchmarks/tla_trace_readers.py [--base N]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from speckernel_tla.conformance import GroupRun, TraceResult, conformance_data, trace_results
from speckernel_tla.conformance_pgo import RunResult, metrics
from speckernel_tla.pgo_validation import plan
from speckernel_tla.tlc_output import Outcome
from speckernel_tla.trace_validation import Facts, Group, Trace

LOCKHUB = (Path(__file__).resolve().parents[1] / "plugins" / "tla" / "tests" / "data" / "pgo"
           / "pgo" / "lockhub")
SCALES = (1, 4, 16)


def hub_log(sections: int, accesses: int) -> str:
    """A hub log of ``sections`` hubGrant sections, each writing ``accesses`` entries of
    ``served`` and reading as many others."""
    lines = []
    for k in range(1, sections + 1):
        elements: list[dict[str, Any]] = [
            {"indices": [], "name": {"name": ".pc", "prefix": "", "self": "0"},
             "tag": "read", "value": '"AHub.hubGrant"'}]
        for n in range(accesses):
            for tag, index in (("write", 2 * n), ("read", 2 * n + 1)):
                elements.append({"indices": [str(index)], "name": {
                    "name": "served", "prefix": "AHub", "self": "0"}, "tag": tag,
                    "value": str(n)})
        elements.append({"indices": [], "name": {"name": ".pc", "prefix": "", "self": "0"},
                         "tag": "write", "value": '"AHub.hubLoop"'})
        lines.append(json.dumps({"archetypeName": "AHub", "self": "0",
                                 "clock": [[["AHub", "0"], k]], "csElements": elements}))
    return "\n".join(lines) + "\n"


def plan_stage(scale: int, base: int) -> Callable[[], Any]:
    model = (LOCKHUB / "lockhub.tla").read_text()
    cfg = (LOCKHUB / "lockhub.cfg").read_text()
    files = {"traces/1/hub.log": hub_log(4, base * scale)}
    return lambda: plan("lockhub", model, cfg, "Init", "Next", None, files)


def pgo_metrics_stage(scale: int, base: int) -> Callable[[], Any]:
    sections = base * scale
    rows = tuple((f"p{k}.log", k, f"A.l{k // 2}", False, f"l{k // 2}")
                 for k in range(1, sections + 1))
    result = RunResult("r", (rows,), (sections // 2,), ((1, sections // 2 + 1),), False, True)
    return lambda: metrics([result])


def ndjson_group(traces: int, lines: int, events: int) -> tuple[Group, Facts]:
    made = tuple(Trace(f"t{t}", tuple({"event": f"E{(t * lines + i) % events}"}
                                      for i in range(lines)), tuple(range(1, lines + 1)))
                 for t in range(traces))
    ids = tuple(tuple(range(1, lines + 1)) for _ in made)
    records = tuple(f"r{n}" for n in range(lines))
    facts = Facts(frozenset((t, line) for t in range(1, traces + 1)
                            for line in range(1, lines // 2 + 1)),
                  {(p, p + 1): p for p in range(1, lines)})
    return Group(made, records, ids), facts


def reached_stage(scale: int, base: int) -> Callable[[], Any]:
    group, facts = ndjson_group(base * scale // 4, 8, 4)
    run = GroupRun(facts, Outcome.OK, False, "")
    return lambda: list(trace_results(group, run))


def conformance_data_stage(scale: int, base: int) -> Callable[[], Any]:
    lines = base * scale
    group, facts = ndjson_group(1, lines, lines // 2)
    results = list(trace_results(group, GroupRun(facts, Outcome.OK, False, "")))
    assert all(isinstance(r, TraceResult) for r in results)
    return lambda: conformance_data(results)


STAGES = {"1. PGo validation plan (section checks)": plan_stage,
          "2. PGo conformance data (per-action ratios)": pgo_metrics_stage,
          "3. NDJSON reached facts (per trace)": reached_stage,
          "4. NDJSON conformance data (per-event window rates)": conformance_data_stage}


def timed(work: Callable[[], Any]) -> float:
    began = time.process_time()
    work()
    return time.process_time() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=int, default=1000,
                        help="events of the 1x input (accesses, sections, traces, lines)")
    args = parser.parse_args()
    for title, stage in STAGES.items():
        times = {scale: timed(stage(scale, args.base)) for scale in SCALES}
        figures = "  ".join(f"{scale:2d}x {seconds:7.3f} s" for scale, seconds in times.items())
        ratio = times[16] / max(times[1], 1e-6)
        print(f"{title}\n   CPU {figures}   16x/1x: {ratio:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
