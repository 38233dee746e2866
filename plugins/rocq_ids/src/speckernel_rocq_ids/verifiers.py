"""Verifier ``rocq_ids.coqc``: the candidate compiles with the framework (IDS §4, the oracle).

The framework, the spec, the candidate's ``Impl.v`` and the obligation file are compiled in
dependency order from an empty directory, each judged by coqc's exit status; the first failing
file's located Coq messages become the verdict's diagnostics. A candidate that uses a command
outside :mod:`commands`'s allow-list is refused before coqc runs. Running out of the wall budget
(a looping tactic, a huge computation) is a ``timeout`` verdict; exhausting memory is a
``failure`` naming the limit.
"""

from __future__ import annotations

import time

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_rocq_ids import commands
from speckernel_rocq_ids.coqbuild import BuildResult, compile_step, diagnostics, run_build
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation
from speckernel_rocq_ids.toolchain import CoqIdsToolchain
from speckernel_rocq_ids.workspace import missing_or_extra, workspace

COQC = "rocq_ids.coqc"


def limit_verdict(verdict: Verdict, build: BuildResult, stage: str) -> Verdict | None:
    """The verdict for a build a sandbox limit ended, None when no limit did."""
    process = build.process
    if process.timed_out or process.limit == "wall":
        return attrs.evolve(verdict, status=Status.TIMEOUT, diagnostics=(
            Diagnostic(f"{stage} ran out of its {process.duration_s:.0f} s wall budget"),))
    if process.limit is not None:
        return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=(
            Diagnostic(f"{stage} was stopped by the sandbox's {process.limit} limit"),))
    return None


class CoqcVerifier(Verifier):
    """Compiles framework, spec, candidate and obligation with ``coqc``; ``data`` holds the
    seconds each file took (``file_s``) and the total (``coqc_s``)."""

    name = COQC
    version = "2"
    description = "coqc of the IDS framework, spec, candidate and obligation, in order"
    tools = (CoqIdsToolchain.name,)
    limits = Limits(wall_s=300.0, memory_mb=4096)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        tool = ctx.tools.status(CoqIdsToolchain.name)
        verdict = Verdict(self.name, Status.ERROR, tool=tool.name, tool_version=tool.version)
        obligation = Obligation.of(task)
        notes = missing_or_extra(candidate, obligation)
        if any(d.severity == "error" for d in notes):
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=notes)
        refused = commands.check(candidate.files[CANDIDATE_FILE], CANDIDATE_FILE)
        if refused:
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=(*refused, *notes),
                                duration_s=time.monotonic() - started)
        build = await run_build(ctx, workspace(task, candidate),
                                [compile_step(f) for f in obligation.build_order])
        timing = {name: step.duration_s for name, step in build.steps.items()}
        verdict = attrs.evolve(verdict, duration_s=time.monotonic() - started,
                               data={"file_s": timing, "coqc_s": sum(timing.values())})
        limited = limit_verdict(verdict, build, "coqc")
        if limited is not None:
            return limited
        failed = build.failed()
        if failed is not None:
            return attrs.evolve(verdict, status=Status.FAILURE,
                                diagnostics=notes + diagnostics(failed.output, failed.name))
        if not build.succeeded(obligation.build_order):
            stopped = Diagnostic(f"the build stopped early (exit {build.process.returncode}): "
                                 f"{build.process.stderr[-2000:]}")
            return attrs.evolve(verdict, diagnostics=(*notes, stopped))
        return attrs.evolve(verdict, status=Status.SUCCESS, diagnostics=notes)
