"""The IDS tasks (IDS §3): one per consistency guarantee that has a reference solution.

A task's ``files`` are the framework, the spec and the obligation file stating the final theorem;
all three are pinned by SHA-256 in ``metadata["pinned"]``. The candidate writes ``Impl.v`` holding
the implementation module and its refinement module, whose names the obligation file fixes.
``metadata`` is read back by :class:`Obligation`, the contract between tasks and verifiers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import attrs
from speckernel.errors import KernelError
from speckernel.model import JSON, Task

from speckernel_rocq_ids.sources import FRAMEWORK, coq_source, sha256

BENCHMARK = "rocq_ids"
CANDIDATE_FILE = "Impl.v"


@attrs.frozen
class Obligation:
    """What a candidate must prove and how the audit judges it (task metadata)."""

    spec_file: str
    obligation_file: str
    spec_module: str
    impl_module: str
    refinement_module: str
    theorem: str
    pinned: Mapping[str, str]
    probes: tuple[str, ...]
    allowed_assumptions: tuple[str, ...] = ()

    @property
    def build_order(self) -> tuple[str, ...]:
        """Files in dependency order: framework, spec, candidate, obligation."""
        return (FRAMEWORK, self.spec_file, CANDIDATE_FILE, self.obligation_file)

    def to_json(self) -> dict[str, JSON]:
        return {**attrs.asdict(self), "probes": list(self.probes),
                "allowed_assumptions": list(self.allowed_assumptions)}

    @classmethod
    def of(cls, task: Task) -> Obligation:
        """The obligation recorded in ``task``'s metadata."""
        raw = task.metadata.get("obligation")
        if not isinstance(raw, Mapping):
            raise KernelError(f"task {task.id}: no IDS obligation in its metadata")
        try:
            return cls(**{**raw, "probes": tuple(raw["probes"]),
                          "allowed_assumptions": tuple(raw.get("allowed_assumptions", ()))})
        except (KeyError, TypeError) as exc:
            raise KernelError(f"task {task.id}: malformed IDS obligation: {exc}") from exc


@attrs.frozen
class Guarantee:
    """One spec of the suite with its packaged spec, obligation and reference files."""

    id: str
    title: str
    prefix: str
    theorem: str
    probes: tuple[str, ...]

    def obligation(self, files: Mapping[str, str]) -> Obligation:
        spec, correct = f"{self.prefix}.v", f"{self.prefix}_Correct.v"
        return Obligation(spec, correct, f"{self.prefix}_Spec", f"{self.prefix}_Impl",
                          f"{self.prefix}_Refinement", self.theorem,
                          {name: sha256(text) for name, text in files.items()}, self.probes)


GUARANTEES = (
    Guarantee("ryw", "Read-Your-Writes", "RYW", "ryw_impl_refines_spec",
              ("put_visible", "get_waits_for_own_put", "state_compressed")),
    Guarantee("mw", "Monotonic Writes", "MW", "mw_impl_refines_spec",
              ("put_visible", "put_waits_for_own_earlier_put", "state_compressed")),
)
"""The specs with a reference solution, in task order."""

PROMPT = """\
Implement a replicated key-value store satisfying {title} and prove it in Coq 8.16.

{framework} defines the interface `AlgDef` (seven methods over client and replica state), the
concurrent world, `Refinement` and `TraceInclusion`. {spec} defines the specification store
`{spec_module}`; {obligation} states the theorem `{theorem}` you must make true.

Write one file, `{candidate}`, compiled with `coqc -Q . IDS` after {spec}. It must define
`Module {impl_module} <: AlgDef` over compact state (bounded by keys x clients, not histories)
and `Module {refinement_module} <: Refinement {impl_module} {spec_module}` proving the simulation.
Forbidden: Admitted, admit, Axiom, Conjecture, Hypothesis, Parameter, `Unset ... Checking`,
editing the given files, reusing `{spec_module}` as the implementation, equality as the relation.
"""


def make_task(guarantee: Guarantee) -> Task:
    files = {FRAMEWORK: coq_source("framework", FRAMEWORK),
             f"{guarantee.prefix}.v": coq_source("specs", f"{guarantee.prefix}.v"),
             f"{guarantee.prefix}_Correct.v": coq_source("specs",
                                                         f"{guarantee.prefix}_Correct.v")}
    obligation = guarantee.obligation(files)
    prompt = PROMPT.format(title=guarantee.title, framework=FRAMEWORK, spec=obligation.spec_file,
                           obligation=obligation.obligation_file, theorem=obligation.theorem,
                           spec_module=obligation.spec_module, candidate=CANDIDATE_FILE,
                           impl_module=obligation.impl_module,
                           refinement_module=obligation.refinement_module)
    reference = {CANDIDATE_FILE: coq_source("reference", f"{guarantee.prefix}_Impl.v")}
    return Task(guarantee.id, BENCHMARK, prompt, files,
                {"title": guarantee.title, "obligation": obligation.to_json()}, reference)


def all_tasks() -> Iterator[Task]:
    """Every bundled task, in suite order."""
    return (make_task(g) for g in GUARANTEES)
