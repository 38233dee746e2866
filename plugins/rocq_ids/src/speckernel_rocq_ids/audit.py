"""Verifier ``rocq_ids.audit``: the deterministic audit of a compiled candidate (notes §1.4,
extended with the App. F.3 patterns IDS leaves to its LLM critic).

Checks, each recorded in ``data["checks"]``:

- ``escape_hatches``: no Admitted/admit/Axiom/Conjecture/Hypothesis/Parameter/``Unset ...
  Checking`` in the candidate's files, comments included;
- ``spec_integrity``: the framework, spec and obligation files hash to the task's pins;
- ``spec_alias`` and ``relation_equality``: the spec module is not the implementation and the
  refinement relation is not plain equality;
- ``clean_build``: everything compiles from an empty directory;
- ``assumptions``: ``Print Assumptions`` of the final theorem names nothing beyond the task's
  allowed assumptions (the framework declares none);
- ``probe:<name>``: each semantic probe of :mod:`speckernel_rocq_ids.probes` the task lists,
  run as soon as the implementation compiles, so a vacuous store is named even when its proof
  does not go through.
"""

from __future__ import annotations

import time

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_rocq_ids import scan
from speckernel_rocq_ids.coqbuild import Step, StepResult, compile_step, run_build
from speckernel_rocq_ids.probes import PROBES
from speckernel_rocq_ids.sources import LOGICAL_ROOT
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation
from speckernel_rocq_ids.toolchain import CoqIdsToolchain
from speckernel_rocq_ids.verifiers import limit_verdict
from speckernel_rocq_ids.workspace import missing_or_extra, workspace

AUDIT = "rocq_ids.audit"
ASSUMPTIONS_FILE = "IdsAssumptions.v"
_CLOSED = "Closed under the global context"


def assumptions(output: str) -> list[str]:
    """The names ``Print Assumptions`` lists (unindented lines ``name : type``); none when the
    theorem is closed."""
    if _CLOSED in output:
        return []
    names: list[str] = []
    listing = False
    for line in output.splitlines():
        if line.rstrip().endswith(":") and line.strip() in ("Axioms:", "Section Variables:",
                                                           "Opaque constants:"):
            listing = True
        elif listing and line and not line[0].isspace():
            names.append(line.split(" :")[0].strip())
    return names or ["(unparsed Print Assumptions output)"]


def assumption_findings(step: StepResult | None, obligation: Obligation) -> list[Diagnostic]:
    if step is None or not step.ok:
        return [Diagnostic("Print Assumptions did not run", code="assumptions")]
    extra = [n for n in assumptions(step.output) if n not in obligation.allowed_assumptions]
    return [Diagnostic(f"{obligation.theorem} rests on {name}", file=obligation.obligation_file,
                       code="assumptions") for name in extra]


def probe_findings(step: StepResult | None, name: str) -> list[Diagnostic]:
    probe = PROBES[name]
    if step is not None and probe.passed(step.returncode, step.output):
        return []
    return [Diagnostic(f"probe {name} failed: rejects {probe.rejects}", file=CANDIDATE_FILE,
                       code=f"probe:{name}")]


class AuditVerifier(Verifier):
    """The mechanical audit; passes only when every check does."""

    name = AUDIT
    version = "1"
    description = "escape hatches, pinned specs, clean build, assumptions, vacuity probes"
    tools = (CoqIdsToolchain.name,)
    limits = Limits(wall_s=300.0, memory_mb=4096)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        tool = ctx.tools.status(CoqIdsToolchain.name)
        verdict = Verdict(self.name, Status.ERROR, tool=tool.name, tool_version=tool.version)
        obligation = Obligation.of(task)
        files = workspace(task, candidate)
        own = {n: t for n, t in candidate.files.items() if n not in obligation.pinned}
        impl = candidate.files.get(CANDIDATE_FILE, "")
        findings = {
            "candidate_files": list(missing_or_extra(candidate, obligation)),
            "escape_hatches": scan.escape_hatches(own),
            "spec_integrity": scan.spec_integrity(obligation.pinned, files),
            "spec_alias": scan.spec_aliases(impl, obligation.spec_module, CANDIDATE_FILE),
            "relation_equality": scan.relation_is_equality(impl, CANDIDATE_FILE),
        }
        files[ASSUMPTIONS_FILE] = (
            f"From {LOGICAL_ROOT} Require Import {obligation.obligation_file.removesuffix('.v')}.\n"
            f"Print Assumptions {obligation.theorem}.\n")
        *first, last = obligation.build_order
        steps = [compile_step(f) for f in first]
        for name in obligation.probes:
            files[f"Probe_{name}.v"] = PROBES[name].source(obligation)
            steps.append(Step(f"probe:{name}", compile_step(f"Probe_{name}.v").argv, True))
        steps += [attrs.evolve(compile_step(f), keep_going=True)
                  for f in (last, ASSUMPTIONS_FILE)]
        build = await run_build(ctx, files, steps)
        verdict = attrs.evolve(verdict, duration_s=time.monotonic() - started)
        limited = limit_verdict(verdict, build, "the audit build")
        if limited is not None:
            return limited
        built = build.succeeded(obligation.build_order)
        findings["clean_build"] = [] if built else [
            Diagnostic("the candidate does not build from an empty directory",
                       code="clean_build")]
        if built:
            findings["assumptions"] = assumption_findings(build.steps.get(ASSUMPTIONS_FILE),
                                                          obligation)
        if build.succeeded(first):
            for name in obligation.probes:
                findings[f"probe:{name}"] = probe_findings(build.steps.get(f"probe:{name}"), name)
        errors = tuple(d for found in findings.values() for d in found if d.severity == "error")
        warnings = tuple(d for found in findings.values() for d in found if d.severity != "error")
        checks = {name: not any(d.severity == "error" for d in found)
                  for name, found in findings.items()}
        return attrs.evolve(verdict, status=Status.FAILURE if errors else Status.SUCCESS,
                            diagnostics=errors + warnings, data={"checks": checks})
