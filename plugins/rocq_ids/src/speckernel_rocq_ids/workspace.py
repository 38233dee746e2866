"""The files a candidate is built from: the task's files and the candidate's ``Impl.v``."""

from __future__ import annotations

from speckernel.model import Candidate, Diagnostic, Task

from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation


def workspace(task: Task, candidate: Candidate) -> dict[str, str]:
    """The task's files and the candidate's ``Impl.v``, nothing else: a candidate's copy of a
    framework, spec or obligation file is never built (the audit names it), and no other file
    of the candidate's reaches the build directory."""
    return {**task.files, CANDIDATE_FILE: candidate.files.get(CANDIDATE_FILE, "")}


def missing_or_extra(candidate: Candidate, obligation: Obligation) -> tuple[Diagnostic, ...]:
    """An error when the candidate lacks ``Impl.v``; a warning per other file (never built)."""
    found: list[Diagnostic] = []
    if CANDIDATE_FILE not in candidate.files:
        found.append(Diagnostic(f"the candidate has no {CANDIDATE_FILE}", file=CANDIDATE_FILE))
    found.extend(Diagnostic(f"{name} is not part of the build and is ignored", "warning", name)
                 for name in sorted(candidate.files) if name != CANDIDATE_FILE)
    return tuple(found)
