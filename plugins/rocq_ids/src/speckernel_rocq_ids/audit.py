"""Verifier ``rocq_ids.audit``: the deterministic audit of a compiled candidate (notes §1.4,
extended with the App. F.3 patterns IDS leaves to its LLM critic).

Checks, each recorded in ``data["checks"]``:

- ``commands``: every sentence of ``Impl.v`` is on :mod:`commands`'s allow-list (no hole, no
  assumption, no checker switch, nothing that reaches files or extraction); a refused candidate
  is not compiled at all;
- ``spec_integrity``: a framework, spec or obligation file the candidate ships differs from the
  task's pin (the build always uses the task's);
- ``spec_alias`` and ``relation_equality``: the spec module is not the implementation and the
  refinement relation is not plain equality;
- ``clean_build``: everything compiles from an empty directory, each file judged by coqc's
  exit status;
- ``assumptions``: ``Print Assumptions`` of the final theorem says exactly "Closed under the
  global context" (any other output is read as the assumptions it lists);
- ``probe:<name>``: each semantic probe of :mod:`speckernel_rocq_ids.probes` the task lists,
  proved inside Coq and judged by coqc's exit status, run as soon as the implementation
  compiles, so a vacuous store is named even when its proof does not go through.
"""

from __future__ import annotations

import time

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_rocq_ids import commands, scan
from speckernel_rocq_ids.coqbuild import Step, StepResult, compile_step, run_build
from speckernel_rocq_ids.probes import PROBES
from speckernel_rocq_ids.sources import LOGICAL_ROOT
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation
from speckernel_rocq_ids.toolchain import CoqIdsToolchain
from speckernel_rocq_ids.verifiers import limit_verdict
from speckernel_rocq_ids.workspace import missing_or_extra, workspace

AUDIT = "rocq_ids.audit"
ASSUMPTIONS_FILE = "IdsAssumptions.v"
CLOSED = "Closed under the global context"
_SECTIONS = ("Axioms:", "Section Variables:", "Opaque constants:")


def assumptions(output: str) -> list[str]:
    """The names ``Print Assumptions`` lists; none only when its whole output is the one line
    "Closed under the global context" (a listing is never read as closed because that line
    appears somewhere in it)."""
    lines = [line for line in output.splitlines() if line.strip()]
    if [line.strip() for line in lines] == [CLOSED]:
        return []
    names: list[str] = []
    listing = False
    for line in lines:
        if line.strip() in _SECTIONS:
            listing = True
        elif listing and not line[0].isspace():
            names.append(line.split(" :")[0].strip())
    return names or [f"(unrecognised Print Assumptions output: {' | '.join(lines)[:200]})"]


def assumption_findings(step: StepResult | None, obligation: Obligation) -> list[Diagnostic]:
    if step is None or not step.ok:
        return [Diagnostic("Print Assumptions did not run", code="assumptions")]
    extra = [n for n in assumptions(step.output) if n not in obligation.allowed_assumptions]
    return [Diagnostic(f"{obligation.theorem} rests on {name}", file=obligation.obligation_file,
                       code="assumptions") for name in extra]


def probe_findings(step: StepResult | None, name: str) -> list[Diagnostic]:
    if step is not None and step.ok:
        return []
    return [Diagnostic(f"probe {name} failed: rejects {PROBES[name].rejects}", file=CANDIDATE_FILE,
                       code=f"probe:{name}")]


def assumptions_source(obligation: Obligation) -> str:
    """The file printing the final theorem's assumptions, by its full name."""
    stem = obligation.obligation_file.removesuffix(".v")
    return (f"From {LOGICAL_ROOT} Require {stem}.\n"
            f"Print Assumptions {LOGICAL_ROOT}.{stem}.{obligation.theorem}.\n")


class AuditVerifier(Verifier):
    """The mechanical audit; passes only when every check does."""

    name = AUDIT
    version = "2"
    description = "escape hatches, pinned specs, clean build, assumptions, vacuity probes"
    tools = (CoqIdsToolchain.name,)
    limits = Limits(wall_s=300.0, memory_mb=4096)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        tool = ctx.tools.status(CoqIdsToolchain.name)
        verdict = Verdict(self.name, Status.ERROR, tool=tool.name, tool_version=tool.version)
        obligation = Obligation.of(task)
        files = workspace(task, candidate)
        impl = files[CANDIDATE_FILE]
        findings = {
            "candidate_files": list(missing_or_extra(candidate, obligation)),
            "commands": commands.check(impl, CANDIDATE_FILE),
            "spec_integrity": scan.spec_integrity(obligation.pinned, dict(candidate.files)),
            "spec_alias": scan.spec_aliases(impl, obligation.spec_module, CANDIDATE_FILE),
            "relation_equality": scan.relation_is_equality(impl, CANDIDATE_FILE),
        }
        if not findings["commands"]:
            limited = await self._build(ctx, obligation, files, findings)
            if limited is not None:
                return attrs.evolve(limited, duration_s=time.monotonic() - started)
        else:
            findings["clean_build"] = [Diagnostic(
                "not built: the candidate uses commands outside the allow-list",
                code="clean_build")]
        errors = tuple(d for found in findings.values() for d in found if d.severity == "error")
        warnings = tuple(d for found in findings.values() for d in found if d.severity != "error")
        checks = {name: not any(d.severity == "error" for d in found)
                  for name, found in findings.items()}
        return attrs.evolve(verdict, status=Status.FAILURE if errors else Status.SUCCESS,
                            diagnostics=errors + warnings, data={"checks": checks},
                            duration_s=time.monotonic() - started)

    async def _build(self, ctx: VerifyContext, obligation: Obligation, files: dict[str, str],
                     findings: dict[str, list[Diagnostic]]) -> Verdict | None:
        """The clean build with the probes and ``Print Assumptions``; its findings are added to
        ``findings``. Returns the verdict when a sandbox limit ended the build."""
        files[ASSUMPTIONS_FILE] = assumptions_source(obligation)
        *first, last = obligation.build_order
        steps = [compile_step(f) for f in first]
        for name in obligation.probes:
            files[f"Probe_{name}.v"] = PROBES[name].source(obligation)
            steps.append(Step(f"probe:{name}", compile_step(f"Probe_{name}.v").argv, True))
        steps += [attrs.evolve(compile_step(f), keep_going=True)
                  for f in (last, ASSUMPTIONS_FILE)]
        build = await run_build(ctx, files, steps)
        tool = ctx.tools.status(CoqIdsToolchain.name)
        limited = limit_verdict(Verdict(self.name, Status.ERROR, tool=tool.name,
                                        tool_version=tool.version), build, "the audit build")
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
        return None
