"""RESpecBench timeout sweep on the team's hard candidates: how ``unknown`` shrinks from 4 s to
256 s per check.

1. ``plugins/respec/sweep/hard_candidates.yaml`` (team-written answers, each with its true
   verdict) becomes a replay file (``plugins/respec/tools/answers_replay.py``);
2. ``kernel run respec --agent respec-prompt --model replay:FILE`` checks them as a model's
   answers (the source run, at the first timeout);
3. ``plugins/respec/tools/timeout_sweep.py`` checks the same candidates again under every
   timeout (``respec-replay``, the kernel's parallel runner, one verifier slot per core).

Prints the sweep table (per timeout and domain: equivalent, refuted, unknown), each candidate's
verdict per timeout, the wall time and the load average. A verdict that contradicts a
candidate's true verdict is a soundness bug: the script names it and exits with status 1;
except an SQL "equivalent (bounded)", which claims equal results only up to a bound (a few rows
per table) and is named separately when the candidate is in fact inequivalent.

The verdict cache is private to the output directory, so a fresh output measures every check;
rerunning on the same output resumes.

Usage: python benchmarks/respec_timeout_sweep.py [--timeouts 4,16,64,256] [--output DIR]
    [--answers FILE]
"""

from __future__ import annotations

import argparse
import os
import runpy
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from speckernel_respec.scoring import BOUNDED, EQUIVALENT, rejected, verdict_of

from speckernel.model import Sample
from speckernel.store import RunStore

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "plugins" / "respec" / "tools"
ANSWERS = ROOT / "plugins" / "respec" / "sweep" / "hard_candidates.yaml"


def tool(name: str) -> Mapping[str, Any]:
    """The functions of one of the plugin's tool scripts (they are scripts, not a package)."""
    return runpy.run_path(str(TOOLS / f"{name}.py"))


def source_run(answers_file: Path, out: Path, timeout: float) -> Path:
    """The run that checks the answers as ``respec-prompt``'s model answers."""
    replay = tool("answers_replay")
    answers = replay["load_answers"](answers_file)
    responses = out / "responses.jsonl"
    replay["write_replay"](answers, responses)
    source = out / "source"
    if RunStore(source).exists():
        where = ["--resume", str(source)]
    else:
        tasks = [arg for a in answers for arg in ("-t", a.task)]
        where = ["respec", "--agent", "respec-prompt", "--model", f"replay:{responses}",
                 *tasks, "-o", f"timeout_s={timeout:g}", "--output", str(source)]
    subprocess.run([sys.executable, "-m", "speckernel", "run", *where, "--display", "none"],
                   check=True)
    return source


def verdict_word(sample: Sample) -> str:
    verdict = verdict_of(sample.verdicts)
    return "not checked" if verdict is None else verdict


def contradicts(truth: str, verdict: str | None) -> bool:
    """A decided verdict against the candidate's true verdict (``invalid`` rejects an
    equivalent candidate too: the answer file would then hold a broken answer); ``bounded``
    on an inequivalent candidate is a bound a larger database breaks."""
    if verdict is None:
        return False
    return rejected(verdict) if truth == "equivalent" else verdict in (EQUIVALENT, BOUNDED)


def per_candidate(runs: Sequence[tuple[float, Sequence[Sample]]], truths: Mapping[str, str]
                  ) -> tuple[str, list[str], list[str]]:
    """A Markdown table of each candidate's verdict per timeout; the verdicts that contradict
    the truth: unsound ones, and SQL bounded-check claims (equal on every database up to a
    bound, which the verifier reports as such) that a larger database refutes."""
    by_task: dict[str, dict[float, Sample]] = {}
    for timeout, samples in runs:
        for sample in samples:
            by_task.setdefault(sample.key.task_id, {})[timeout] = sample
    timeouts = [t for t, _ in runs]
    lines = ["| task | truth | " + " | ".join(f"{t:g} s" for t in timeouts) + " |",
             "|---|---|" + "---|" * len(timeouts)]
    unsound: list[str] = []
    beyond_bound: list[str] = []
    for task, seen in sorted(by_task.items()):
        cells = []
        for timeout in timeouts:
            if timeout not in seen:
                cells.append("-")
                continue
            sample = seen[timeout]
            word = verdict_word(sample)
            last = sample.verdicts[-1] if sample.verdicts else None
            cells.append(word + (f", {last.duration_s:.1f} s" if last and last.duration_s
                                 else ""))
            verdict = verdict_of(sample.verdicts)
            if contradicts(truths[task], verdict):
                found = beyond_bound if verdict == BOUNDED else unsound
                found.append(f"{task} at {timeout:g} s: {word}, but it is {truths[task]}")
        lines.append(f"| {task} | {truths[task]} | " + " | ".join(cells) + " |")
    return "\n".join(lines), unsound, beyond_bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeouts", default="4,16,64,256", help="seconds, comma-separated")
    parser.add_argument("--output", type=Path, default=Path("runs/respec-timeout-sweep"))
    parser.add_argument("--answers", type=Path, default=ANSWERS)
    args = parser.parse_args()
    timeouts = [float(t) for t in args.timeouts.split(",")]
    out = args.output.resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.environ["KERNEL_CACHE_DIR"] = str(out / "cache")
    load_before = os.getloadavg()
    started = time.monotonic()
    source = source_run(args.answers, out, timeouts[0])
    table = tool("timeout_sweep")["sweep"](source, timeouts, out / "sweep", None, None)
    wall = time.monotonic() - started
    runs = [(t, RunStore(out / "sweep" / f"timeout-{t:g}").load_samples()) for t in timeouts]
    truths = {a.task: a.truth for a in tool("answers_replay")["load_answers"](args.answers)}
    candidates, unsound, beyond_bound = per_candidate(runs, truths)
    print(table, "", "### Verdict of each candidate per timeout (verdict, check duration)", "",
          candidates, "", sep="\n")
    print(f"wall time {wall / 60:.1f} min on {os.cpu_count()} cores; load average (1, 5, 15 min) "
          f"before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, after "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for line in beyond_bound:
        print(f"BOUNDED CLAIM WRONG (counterexample beyond the bound): {line}")
    for line in unsound:
        print(f"UNSOUND: {line}")
    sys.exit(1 if unsound else 0)

if __name__ == "__main__":
    main()
