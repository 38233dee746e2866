"""Benchmark ``rocq_ids``: IDS (Inductive Deductive Synthesis) on speckernel.

Each task is one consistency guarantee (IDS §3) given as a specification store in the Rocq
framework; the artifact is ``Impl.v``, an implementation of the seven store methods and its
refinement proof. Phases: ``compile`` (``rocq_ids.coqc``, gate) then ``audit``
(``rocq_ids.audit``). A sample is solved when both pass (metric ``pass``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from speckernel.components import Benchmark, Phase
from speckernel.model import Task

from speckernel_rocq_ids.audit import AUDIT
from speckernel_rocq_ids.scoring import PassScorer
from speckernel_rocq_ids.tasks import BENCHMARK, all_tasks
from speckernel_rocq_ids.verifiers import COQC


class IdsBenchmark(Benchmark):
    """The bundled IDS specs that have a reference solution (RYW, MW)."""

    name = BENCHMARK
    version = "1"
    description = "IDS: key-value stores refining a consistency spec, proved in Rocq"
    phases = (Phase("compile", (COQC,)), Phase("audit", (AUDIT,)))
    scorers = (PassScorer.name,)
    default_agent = "reference"
    primary_metric = "pass"

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        return all_tasks()
