"""RESpecBench verifier throughput on real checks: checks per second per domain.

Every candidate differs textually from its oracle, so no check ends at an identical-text
shortcut (issue 13: the oracle submitted as its own candidate measured string equality):

* regex: the oracle as two alternatives of itself (``(?:R)|(?:R)``, DeepRegex ``(R)|(R)``);
* fol: bound variables renamed and the formula parenthesised;
* gsm: ``((E))`` (gsm answers may be booleans, so no arithmetic is added);
* sql: the oracle read through a derived table (``SELECT * FROM (Q) AS rewritten``), which
  changes the canonical form, so the check runs its search;
* rocq: timed by its warm/cold figure (one shared coqtop against one per check).

Checks run the way the kernel runs them: the domain verifier through a verifier context with
the kernel's worker processes (``ctx.run_sync``), one after the other, for ``--seconds`` per
domain. For SQL the share of decided checks (equivalent or refuted), of ``bounded`` ones and
the rows per table the bounded checks reached are printed, for the SQLite team tasks and, when
MariaDB is installed, for the MySQL fixture problems of ``tests/data/polygon_leetcode``.

Goals: >= 100 regex and >= 50 gsm/fol checks per second per core.

Usage: python benchmarks/respec_throughput.py [--seconds S] [--domains a,b]
"""

from __future__ import annotations

import argparse
import collections
import importlib
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

import anyio
from speckernel_respec import plugin
from speckernel_respec.domains import DOMAINS, module_name, spec_file
from speckernel_respec.tasks import load_polygon_leetcode, load_tasks

from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Provenance, Task
from speckernel.sandbox.base import Limits
from speckernel.testing import verify_context

GOALS = {"regex": 100.0, "gsm": 50.0, "fol": 50.0}
"""Checks per second per core the issue asks for."""

POLYGON = Path(__file__).resolve().parents[1] / "plugins" / "respec" / "tests" / "data" / \
    "polygon_leetcode"


def rewritten(task: Task) -> str:
    """A candidate equivalent to the task's oracle but not equal to it as text."""
    domain = str(task.metadata["domain"])
    oracle = str(task.metadata["oracle"]).strip()
    facts = task.metadata.get("facts") or {}
    if domain == "regex":
        python = isinstance(facts, dict) and facts.get("syntax") == "python"
        return f"(?:{oracle})|(?:{oracle})" if python else f"({oracle})|({oracle})"
    if domain == "fol":
        bound = sorted(set(re.findall(r"[∀∃]\s*(\w+)", oracle)), key=len, reverse=True)
        for name in bound:
            oracle = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", f"{name}_r", oracle)
        return f"({oracle})"
    if domain == "gsm":
        return f"(({oracle}))"
    if domain == "sql":
        return f"SELECT * FROM ({oracle.rstrip(';')}) AS rewritten"
    return oracle


def context() -> VerifyContext:
    return verify_context(toolchains=plugin.loaded().toolchains, limits=Limits(wall_s=120),
                          options={"timeout_s": 4.0})


def measure(verifier: Verifier, tasks: Sequence[Task], seconds: float
            ) -> tuple[int, float, collections.Counter[str], collections.Counter[int]]:
    """(checks, elapsed, verdicts, bounded checks by rows per table) of checking rewritten
    candidates one after the other for ``seconds`` (at least one round)."""
    ctx = context()
    verdicts: collections.Counter[str] = collections.Counter()
    bounds: collections.Counter[int] = collections.Counter()

    async def loop() -> tuple[int, float]:
        count, start_at = 0, time.perf_counter()
        while count == 0 or time.perf_counter() - start_at < seconds:
            for task in tasks:
                artifact = spec_file(str(task.metadata["domain"]))
                verdict = await verifier.verify(
                    Candidate({artifact: rewritten(task)}, Provenance("rewrite", "none")),
                    task, ctx)
                verdicts[str(verdict.data.get("verdict", verdict.status.value))] += 1
                bound = verdict.data.get("bound")
                if isinstance(bound, dict) and "rows_per_table" in bound:
                    bounds[int(bound["rows_per_table"])] += 1
                count += 1
        return count, time.perf_counter() - start_at

    try:
        count, elapsed = anyio.run(loop)
    finally:
        ctx.workers.close()  # type: ignore[attr-defined]
    return count, elapsed, verdicts, bounds


def report(label: str, cores: int, figures: tuple[int, float, collections.Counter[str],
                                                   collections.Counter[int]]) -> None:
    count, elapsed, verdicts, bounds = figures
    per_core = count / elapsed / cores
    goal = GOALS.get(label)
    mark = "" if goal is None else f" (goal {goal:g}: {'met' if per_core >= goal else 'MISSED'})"
    shares = ", ".join(f"{v} {100 * n / count:.0f}%" for v, n in sorted(verdicts.items()))
    print(f"{label}: {count} checks in {elapsed:.2f} s = {count / elapsed:.1f} checks/s, "
          f"{per_core:.1f}/s per core{mark}; verdicts: {shares}")
    if label.startswith("sql"):
        decided = verdicts["equivalent"] + verdicts["refuted"] + verdicts["invalid"]
        reached = ", ".join(f"k={k}: {n}" for k, n in sorted(bounds.items())) or "none"
        print(f"  {label}: decided {100 * decided / count:.0f}%, bounded "
              f"{100 * verdicts['bounded'] / count:.0f}%; rows per table reached: {reached}")


def rocq_warm_ratio(tasks: Sequence[Task]) -> str:
    """The warm shared Coq process against one Coq process per check, if the domain has both."""
    rocq = importlib.import_module(module_name("rocq"))
    if not all(hasattr(rocq, f) for f in ("request", "check_batch_warm", "check_one_cold")):
        return "rocq: skipped, the domain offers no warm/cold pair"
    ctx = context()
    requests = [r for t in tasks if isinstance(
        r := rocq.request(t, next(iter((t.reference or {}).values()))), rocq.Request)]

    async def timed() -> tuple[float, float]:
        t0 = time.perf_counter()
        await rocq.check_batch_warm(ctx, requests, 4.0)
        t1 = time.perf_counter()
        for req in requests:
            await rocq.check_one_cold(ctx, req, 4.0)
        return t1 - t0, time.perf_counter() - t1

    warm, cold = anyio.run(timed)
    return (f"rocq: {len(requests)} checks: one warm coqtop {warm:.2f} s, one coqtop per check "
            f"{cold:.2f} s; warm is {cold / warm:.1f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="duration per domain")
    parser.add_argument("--domains", default=",".join(DOMAINS))
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    loaded = plugin.loaded()
    print(f"{cores} cores, load average {os.getloadavg()[0]:.1f}; goals per core: "
          + ", ".join(f"{d} >= {g:g}/s" for d, g in GOALS.items()))
    for domain in args.domains.split(","):
        if domain not in loaded.verifiers:
            print(f"{domain}: skipped, not installed ({loaded.missing.get(domain)})")
            continue
        tasks = load_tasks({"team": True}, [domain])
        if domain == "rocq":
            print(rocq_warm_ratio(tasks))
            continue
        label = "sql (sqlite, team tasks)" if domain == "sql" else domain
        report(label, cores, measure(loaded.verifiers[domain], tasks, args.seconds))
        if domain == "sql":
            mariadb = importlib.import_module("speckernel_respec.toolchain")
            if not mariadb.MariadbToolchain().detect().found:
                print("sql (mysql): skipped, MariaDB is not installed")
                continue
            mysql = [e.task() for e in load_polygon_leetcode(POLYGON)]
            report("sql (mysql, polygon fixture)", cores,
                   measure(loaded.verifiers[domain], mysql, args.seconds))


if __name__ == "__main__":
    main()
