"""The ``verus`` benchmark: VeruSAGE-Bench (or Verus-Bench) tasks, checked for cheats and then
by Verus, scored per project (VeruSAGE Tables 6 and 7)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
from speckernel.components import Benchmark, Phase, Table, ToolStatus
from speckernel.errors import KernelError
from speckernel.model import Sample, Task
from speckernel.toolchains import detect

from speckernel_verus.feedback import CHEATS_VERIFIER
from speckernel_verus.scoring import CHEATS_ONLY, OutcomeScorer
from speckernel_verus.tables import report_tables
from speckernel_verus.tasks import load_tasks
from speckernel_verus.toolchain import VERUS_ENV, VerusToolchain
from speckernel_verus.verifier import DEFAULT_RLIMIT, DEFAULT_TIMEOUT_S, VerusVerifier

CHEATS = Phase("cheats", (CHEATS_VERIFIER,))
VERIFY = Phase("verify", (VerusVerifier.name,))
NO_VERUS_AGENTS = frozenset({"reference"})
"""Agents that may run without Verus, with ``check_only_cheats`` (they never call it)."""


def missing_verus_message(status: ToolStatus) -> str:
    """The one line a run without Verus stops with: what is wrong and the install step."""
    problem = f"Verus does not run ({status.detail})" if status.path else "Verus is not installed"
    return (f"{problem}: set {VERUS_ENV}=/path/to/verus, or run `kernel tools install verus` "
            "(official release zip "
            "plus rustup toolchain 1.88.0; see plugins/verus/README.md); without Verus only "
            "`kernel run verus --agent reference --check-only-cheats` runs")


class VerusBenchmark(Benchmark):
    """Proof synthesis for Verus-verified Rust: add proof annotations to one file until Verus
    verifies it, without touching specs or code and without assume/admit/axioms.

    Options: ``data`` (a VeruSAGE-Bench or Verus-Bench directory), ``projects`` (comma-separated
    project prefixes to keep, e.g. ``AL,IR``), ``check_only_cheats`` (skip Verus: only the cheat
    checker runs), ``verus_timeout_s``, ``rlimit`` and ``verus_args`` (for ``verus.verify``).
    """

    name = "verus"
    version = "1"
    description = "VeruSAGE-Bench / Verus-Bench: proof synthesis for Verus (cheat check, Verus)"
    phases = (CHEATS, VERIFY)
    scorers = (OutcomeScorer.name,)
    options = {
        "data": "",
        "projects": "",
        "check_only_cheats": False,
        "verus_timeout_s": DEFAULT_TIMEOUT_S,
        "rlimit": DEFAULT_RLIMIT,
        "verus_args": "",
    }
    option_descriptions = {
        "data": "a VeruSAGE-Bench (tasks/, source-projects/) or Verus-Bench (tasks.jsonl) "
                "directory, or one holding either or both (required)",
        "projects": "comma-separated projects to keep: AL, AC, IR, MA, NO, NR, OS, ST, VE or "
                    "CloverBench, Diffy, MBPP, Misc (empty: all)",
        "check_only_cheats": "run only the cheat checker, not Verus (then agent reference needs "
                             "no Verus); nothing counts as verified",
        "verus_timeout_s": "seconds one Verus run may take (VeruSAGE: 90); past it the verdict "
                           "is a timeout",
        "rlimit": "Verus's --rlimit, the solver resource limit per function (VeruSAGE: 250)",
        "verus_args": "extra Verus arguments appended to the pinned command line, split as a "
                      "shell would (e.g. -L and --extern for the ST tasks)",
    }
    default_agent = "reference"
    primary_metric = "verified"

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        data = str(options.get("data") or "")
        if not data:
            raise KernelError("benchmark 'verus' needs its data: -o data=PATH (a VeruSAGE-Bench "
                              "or Verus-Bench directory)")
        chosen = options.get("projects") or ""
        names = chosen if isinstance(chosen, list | tuple) else str(chosen).split(",")
        projects = {str(p).strip() for p in names if str(p).strip()}
        cheats_only = bool(options.get("check_only_cheats"))
        for task in load_tasks(data):
            if projects and task.metadata.get("project") not in projects:
                continue
            yield attrs.evolve(task, metadata={**task.metadata, CHEATS_ONLY: True}) \
                if cheats_only else task

    def pipeline(self, options: Mapping[str, Any]) -> tuple[Phase, ...]:
        """Both phases, or the cheat check alone under ``check_only_cheats``."""
        return (CHEATS,) if options.get("check_only_cheats") else self.phases

    def preflight(self, options: Mapping[str, Any], agents: tuple[str, ...]) -> None:
        """Stop a run that needs Verus when it is missing, in one line naming the install."""
        if options.get("check_only_cheats") and set(agents) <= NO_VERUS_AGENTS:
            return
        status = detect(VerusToolchain())
        if not status.found:
            raise KernelError(missing_verus_message(status))

    def report_tables(self, samples: Sequence[Sample]) -> list[Table]:
        return report_tables(samples)
