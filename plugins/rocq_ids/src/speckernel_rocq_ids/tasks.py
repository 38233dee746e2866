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
    support: tuple[str, ...] = ()

    @property
    def build_order(self) -> tuple[str, ...]:
        """Files in dependency order: framework, the spec's support files (e.g. convergence),
        spec, candidate, obligation."""
        return (FRAMEWORK, *self.support, self.spec_file, CANDIDATE_FILE, self.obligation_file)

    def to_json(self) -> dict[str, JSON]:
        return {**attrs.asdict(self), "probes": list(self.probes),
                "allowed_assumptions": list(self.allowed_assumptions),
                "support": list(self.support)}

    @classmethod
    def of(cls, task: Task) -> Obligation:
        """The obligation recorded in ``task``'s metadata."""
        raw = task.metadata.get("obligation")
        if not isinstance(raw, Mapping):
            raise KernelError(f"task {task.id}: no IDS obligation in its metadata")
        try:
            return cls(**{**raw, "probes": tuple(raw["probes"]),
                          "allowed_assumptions": tuple(raw.get("allowed_assumptions", ())),
                          "support": tuple(raw.get("support", ()))})
        except (KeyError, TypeError) as exc:
            raise KernelError(f"task {task.id}: malformed IDS obligation: {exc}") from exc


@attrs.frozen
class Guarantee:
    """One spec of the suite with its packaged spec, obligation and reference files.

    ``support`` lists packaged files (``folder/name``) the spec builds on besides the
    framework; ``solved`` says whether a reference solution ships; ``interface`` is what the
    candidate must define beyond the implementation and refinement modules."""

    id: str
    title: str
    prefix: str
    theorem: str
    probes: tuple[str, ...]
    support: tuple[str, ...] = ()
    solved: bool = True
    interface: str = ""

    def obligation(self, files: Mapping[str, str]) -> Obligation:
        spec, correct = f"{self.prefix}.v", f"{self.prefix}_Correct.v"
        return Obligation(spec, correct, f"{self.prefix}_Spec", f"{self.prefix}_Impl",
                          f"{self.prefix}_Refinement", self.theorem,
                          {name: sha256(text) for name, text in files.items()}, self.probes,
                          support=tuple(path.split("/")[-1] for path in self.support))


GUARANTEES = (
    Guarantee("ryw", "Read-Your-Writes", "RYW", "ryw_impl_refines_spec",
              ("put_visible", "get_waits_for_own_put", "state_compressed"),
              support=("framework/Simulation.v",)),
    Guarantee("mw", "Monotonic Writes", "MW", "mw_impl_refines_spec",
              ("put_visible", "put_waits_for_own_earlier_put", "state_compressed"),
              support=("framework/Simulation.v",)),
)
"""The specs with a reference solution, in task order."""

UNSOLVED = (
    Guarantee("mr", "Monotonic Reads", "MR", "mr_impl_refines_spec",
              ("put_visible", "get_waits_for_seen_put", "state_compressed"), solved=False),
    Guarantee("rywmw", "Read-Your-Writes and Monotonic Writes", "RYWMW",
              "rywmw_impl_refines_spec",
              ("put_visible", "get_waits_for_own_put", "put_waits_for_own_earlier_put",
               "state_compressed"), solved=False),
    Guarantee("cc", "Causal Consistency (explicit dependency sets)", "CC",
              "cc_impl_refines_spec",
              ("put_visible", "get_waits_for_own_put", "put_waits_for_own_earlier_put",
               "get_waits_for_seen_put", "state_compressed"), solved=False),
    Guarantee("lcc", "Labeled Causal Consistency (labels, per-client interest masks)", "LCC",
              "lcc_impl_refines_spec",
              ("put_visible", "get_waits_for_own_put", "put_waits_for_own_earlier_put",
               "get_waits_for_seen_put", "state_compressed"), solved=False),
    Guarantee("ec", "eventual consistency (Relaxed traces plus convergence)", "EC",
              "ec_impl_refines_spec_and_converges", ("put_visible",),
              support=("framework/Convergence.v", "specs/Relaxed.v"), solved=False,
              interface="It must also define `Module EC_Convergence <: Convergent EC_Impl` "
                        "(Convergence.v) proving `converges`.\n"),
)
"""The rest of the IDS suite: team-written specs without a reference solution."""

SUITES = {"reference": GUARANTEES, "all": GUARANTEES + UNSOLVED}
"""Benchmark option ``suite``: the specs with a reference (default) or every spec."""

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
{interface}"""


def make_task(guarantee: Guarantee) -> Task:
    files = {FRAMEWORK: coq_source("framework", FRAMEWORK)}
    files |= {path.split("/")[1]: coq_source(*path.split("/")) for path in guarantee.support}
    files |= {f"{guarantee.prefix}.v": coq_source("specs", f"{guarantee.prefix}.v"),
              f"{guarantee.prefix}_Correct.v": coq_source("specs",
                                                          f"{guarantee.prefix}_Correct.v")}
    obligation = guarantee.obligation(files)
    prompt = PROMPT.format(title=guarantee.title, framework=FRAMEWORK, spec=obligation.spec_file,
                           obligation=obligation.obligation_file, theorem=obligation.theorem,
                           spec_module=obligation.spec_module, candidate=CANDIDATE_FILE,
                           impl_module=obligation.impl_module,
                           refinement_module=obligation.refinement_module,
                           interface=guarantee.interface)
    reference = ({CANDIDATE_FILE: coq_source("reference", f"{guarantee.prefix}_Impl.v")}
                 if guarantee.solved else None)
    return Task(guarantee.id, BENCHMARK, prompt, files,
                {"title": guarantee.title, "obligation": obligation.to_json(),
                 "artifact_files": [CANDIDATE_FILE]}, reference)


def all_tasks(suite: str = "reference") -> Iterator[Task]:
    """Every bundled task of ``suite`` (a key of :data:`SUITES`), in suite order."""
    if suite not in SUITES:
        raise KernelError(f"unknown IDS suite '{suite}' (choose one of: {', '.join(SUITES)})")
    return (make_task(g) for g in SUITES[suite])
