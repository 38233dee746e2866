"""The files a candidate is built from: the task's files, overridden by the candidate's."""

from __future__ import annotations

from speckernel.model import Candidate, Diagnostic, Task

from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation


def workspace(task: Task, candidate: Candidate) -> dict[str, str]:
    """The task's files with the candidate's on top: a candidate that rewrites a spec file is
    built with its version, which the audit's hash check then rejects."""
    return {**task.files, **candidate.files}


def missing_or_extra(candidate: Candidate, obligation: Obligation) -> tuple[Diagnostic, ...]:
    """An error when the candidate lacks ``Impl.v``; a warning per file that is never built."""
    found: list[Diagnostic] = []
    if CANDIDATE_FILE not in candidate.files:
        found.append(Diagnostic(f"the candidate has no {CANDIDATE_FILE}", file=CANDIDATE_FILE))
    found.extend(Diagnostic(f"{name} is not part of the build and is ignored", "warning", name)
                 for name in sorted(candidate.files) if name not in obligation.build_order)
    return tuple(found)
