"""Benchmark ``rocq_ids``: IDS (Inductive Deductive Synthesis) on speckernel.

Each task is one consistency guarantee (IDS §3) given as a specification store in the Rocq
framework; the artifact is ``Impl.v``, an implementation of the seven store methods and its
refinement proof. Phases, each a gate: ``compile`` (``rocq_ids.coqc``), ``audit``
(``rocq_ids.audit``) and ``extract`` (``rocq_ids.extract``: the verified store extracted, linked
and run, its state bounded, every key served and its histories within the spec). A sample is
solved when all three pass (metric ``pass``).

Options: ``suite`` (``reference``: the specs with a reference solution, the default; ``all``:
the whole IDS suite) and ``spec_path`` (a spec file written against the framework, added as one
more task; see :mod:`speckernel_rocq_ids.external`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from speckernel.components import Benchmark, Phase, Table
from speckernel.model import Sample, Task

from speckernel_rocq_ids.audit import AUDIT
from speckernel_rocq_ids.cluster import CLUSTER, OPTION_DESCRIPTIONS, OPTIONS, Sweep
from speckernel_rocq_ids.external import load_spec
from speckernel_rocq_ids.extraction import EXTRACT
from speckernel_rocq_ids.report import performance_table, sweep_table, synthesis_table
from speckernel_rocq_ids.scoring import PassScorer
from speckernel_rocq_ids.tasks import BENCHMARK, all_tasks
from speckernel_rocq_ids.verifiers import COQC


class IdsBenchmark(Benchmark):
    """The bundled IDS specs that have a reference solution (RYW, MW)."""

    name = BENCHMARK
    version = "2"
    description = "IDS: key-value stores refining a consistency spec, proved in Rocq"
    phases = (Phase("compile", (COQC,)), Phase("audit", (AUDIT,)), Phase("extract", (EXTRACT,)))
    scorers = (PassScorer.name,)
    harnesses = (CLUSTER,)
    default_agent = "reference"
    primary_metric = "pass"
    options = {"suite": "reference", "spec_path": "", **OPTIONS}
    option_descriptions = {
        "suite": "which bundled specs: reference (those with a reference solution) or all (the "
                 "whole IDS suite)",
        "spec_path": "a spec .v file written against the IDS framework, added as one more task "
                     "(empty: none)",
        **OPTION_DESCRIPTIONS,
    }

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        tasks = list(all_tasks(str(options.get("suite", "reference"))))
        if options.get("spec_path"):
            tasks.append(load_spec(str(options["spec_path"])))
        return tasks

    def preflight(self, options: Mapping[str, Any], agents: tuple[str, ...]) -> None:
        """A bad cluster option stops the run before any sample, not in each sample's log."""
        Sweep.of(options)

    def report_tables(self, samples: Sequence[Sample]) -> list[Table]:
        return [synthesis_table(samples), performance_table(samples), sweep_table(samples)]
