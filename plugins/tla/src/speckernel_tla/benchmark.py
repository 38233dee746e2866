"""Benchmark ``tla``: SysMoBench (Cheng et al., ICLR 2026) on speckernel.

An agent writes a TLA+ model (``<M>.tla`` and its TLC configuration ``<M>.cfg``) of a real
system from its code; the phases of SysMoBench §3.2 judge it in order:

1. syntax: ``tla.sany`` with per-action partial credit; only a model SANY accepts goes on;
2. runtime: ``tla.runtime``; only a model that runs without runtime errors goes on;
3. conformance and invariants: ``tla.conformance`` (the system's traces) and ``tla.invariants``
   (the expert templates).

The primary metric is ``invariants`` (M_i): the last, gated phase, so a sample that has it passed
syntax and runtime in full, and among those it ranks by how much of the system's expected
behaviour the model gets right; samples that stopped earlier have none and rank last. A sample is
solved when every phase scores 100 %.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from speckernel.components import Benchmark, EvaluatorContext, Phase, Table
from speckernel.errors import KernelError
from speckernel.model import Candidate, Files, Sample, Task

from speckernel_tla.evaluator import prepare
from speckernel_tla.report import per_action_table, phase_table
from speckernel_tla.scoring import CONFORMANCE, INVARIANTS, PHASE_METRICS, RUNTIME, SANY, SCORERS
from speckernel_tla.tasks import (
    BENCHMARK,
    UPSTREAM_BUDGETS,
    Budgets,
    bundled_root,
    load_bundled,
    load_upstream,
)

TASK_SOURCES = ("bundled", "upstream", "all")


class TlaBenchmark(Benchmark):
    """SysMoBench: bundled system artifacts, optionally the upstream tasks (option
    ``upstream``: a SysMoBench checkout or a copy of its data)."""

    name = BENCHMARK
    version = "1"
    description = "SysMoBench: TLA+ models of real systems, judged by SANY and TLC"
    phases = (Phase("syntax", (SANY,)), Phase("runtime", (RUNTIME,)),
              Phase("conformance+invariants", (CONFORMANCE, INVARIANTS), gate=False))
    scorers = tuple(scorer.name for scorer in SCORERS)
    options = {
        "tasks_from": "bundled",
        "upstream": None,
        "per_action": True,
        "sany_timeout_s": 30.0,
        "budgets": Budgets().to_json(),
        "upstream_settings": False,
    }
    option_descriptions = {
        "tasks_from": "which tasks: bundled (the systems shipped with the plugin), upstream "
                      "(SysMoBench's, from option upstream) or all",
        "upstream": "path of a SysMoBench checkout or a copy of its data; needed by "
                    "tasks_from=upstream or all",
        "per_action": "also parse each top-level definition alone with SANY, for the syntax "
                      "score's partial credit (off: a model SANY rejects scores 0)",
        "sany_timeout_s": "seconds SANY may parse one module before it counts as a timeout "
                          "(SysMoBench: 30)",
        "budgets": "TLC budgets over the defaults: depth and states bound the search (0: none), "
                   "the runtime check simulates simulate_runs x 50 behaviours of "
                   "simulate_depth steps, wall_s seconds per TLC run",
        "upstream_settings": "start from SysMoBench's budgets (full search, 20 x 50 simulated "
                             "behaviours of depth 50, 60 s per TLC run); option budgets "
                             "overrides keys",
    }
    default_agent = "reference"
    primary_metric = "invariants"

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        source = options.get("tasks_from", "bundled")
        if source not in TASK_SOURCES:
            raise KernelError(f"option tasks_from: '{source}' is not one of "
                              f"{', '.join(TASK_SOURCES)}")
        timeout = options.get("sany_timeout_s", 30.0)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) \
                or not 0 < timeout < float("inf"):
            raise KernelError(f"option sany_timeout_s: expected a positive number of seconds, "
                              f"not {timeout!r}")
        if not isinstance(options.get("per_action", True), bool):
            raise KernelError(f"option per_action: expected true or false, "
                              f"not {options['per_action']!r}")
        budgets = self.budgets(options)
        if source in ("bundled", "all"):
            yield from load_bundled(bundled_root(), budgets)
        if source in ("upstream", "all"):
            upstream = options.get("upstream")
            if not upstream:
                raise KernelError(f"option tasks_from={source} needs option upstream: the path "
                                  "of a SysMoBench checkout or of a copy of its data")
            root = Path(str(upstream)).expanduser()
            if not root.is_dir():
                raise KernelError(f"option upstream: no directory {root}")
            yield from load_upstream(root, budgets)

    @staticmethod
    def budgets(options: Mapping[str, Any]) -> Budgets:
        """The TLC budgets: option ``budgets`` over the defaults, or, with
        ``upstream_settings``, over SysMoBench's own settings (:data:`UPSTREAM_BUDGETS`)."""
        preset = options.get("upstream_settings", False)
        if not isinstance(preset, bool):
            raise KernelError(f"option upstream_settings: expected true or false, not {preset!r}")
        given = options.get("budgets")
        if not preset:
            return Budgets.parse(given, "option budgets")
        if not isinstance(given, Mapping) or given == Budgets().to_json():
            given = {}
        return Budgets.parse({**UPSTREAM_BUDGETS.to_json(), **given}, "option budgets")

    def solved(self, sample: Sample) -> bool:
        """Every phase of the pipeline at 100 % (Table 3's all-✓ row)."""
        metrics = sample.metrics()
        return all(metrics.get(PHASE_METRICS[verifier]) == 1.0
                   for phase in self.phases for verifier in phase.verifiers)

    def report_tables(self, samples: Sequence[Sample]) -> list[Table]:
        return [phase_table(samples), per_action_table(samples)]

    async def prepare(self, candidate: Candidate, task: Task, ctx: EvaluatorContext) -> Files:
        """With the run's evaluator model, the invariant templates concretised for the
        candidate's model, and the mapping of the traces onto it when the candidate brings one,
        on the evaluator's side, as upstream does (:mod:`speckernel_tla.evaluator`)."""
        return await prepare(candidate, task, ctx)
