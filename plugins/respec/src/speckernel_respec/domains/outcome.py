"""The three-way RESpecBench verdict (plus ``invalid``) and its kernel ``Verdict`` form.

RESpecBench §2: a sound verifier answers *equivalent* (proved), *refuted* (with a counterexample
that has been re-checked by evaluation) or *unknown* (timeout, or outside the fragment it
decides). A candidate that is not a specification of the domain at all is *invalid*. SQL adds
*bounded*: no counterexample among the databases up to a recorded bound, which is not a proof,
so it is never a success (issue 13): its kernel status is UNKNOWN and it is counted apart. The
kernel status is SUCCESS for equivalent, FAILURE for refuted and invalid, UNKNOWN for unknown
and bounded; ``data`` holds exactly ``verdict``, ``counterexample``, ``reason``, ``bounded``,
``bound`` and ``seconds``.

:func:`verify` is the part every domain verifier shares: read the candidate's one spec file (a
missing one is ``invalid``), run the domain's check in a kernel worker process
(``ctx.run_sync``, issue 20) under the option ``timeout_s`` (default 4 s), and report a broken
task (:class:`TaskError`) as a kernel error rather than as a verdict on the candidate.

The checks are CPU-bound Python (an automaton construction, Z3, SQLite) on text an adversary
wrote, and none of them can be interrupted from another thread: a regex whose re-check
backtracks exponentially, or an SQL ``printf`` that builds a gigabyte string, would hold the
process for minutes. In a worker process the kernel kills the check once its wall budget
(:func:`budget`) has passed, which is then the verdict ``unknown`` (timeout); a check that runs
out of stack or memory is a verdict on the candidate (``invalid``, "the candidate broke the
checker"), never an ``error`` that a resume would run again.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs
from speckernel.components import VerifyContext
from speckernel.errors import CandidateError, WorkerError
from speckernel.model import JSON, Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

Kind = Literal["equivalent", "refuted", "unknown", "invalid", "bounded"]

_STATUS: dict[Kind, Status] = {
    "equivalent": Status.SUCCESS,
    "refuted": Status.FAILURE,
    "invalid": Status.FAILURE,
    "unknown": Status.UNKNOWN,
    "bounded": Status.UNKNOWN,
}


@attrs.frozen
class Outcome:
    """One equivalence check's result. ``bounded`` is True exactly for the verdict ``bounded``
    (no counterexample up to ``bound``, SQL), kept as a flag for readers of older runs."""

    verdict: Kind
    reason: str
    counterexample: JSON = None
    bounded: bool = False
    bound: JSON = None

    def to_plain(self) -> dict[str, JSON]:
        """The outcome as plain data, the form a worker process may return."""
        return {"verdict": self.verdict, "reason": self.reason,
                "counterexample": self.counterexample, "bounded": self.bounded,
                "bound": self.bound}

    @staticmethod
    def from_plain(data: Mapping[str, Any]) -> Outcome:
        return Outcome(data["verdict"], str(data["reason"]), data.get("counterexample"),
                       bool(data.get("bounded")), data.get("bound"))

    def to_verdict(self, verifier: str, seconds: float) -> Verdict:
        severity = "info" if self.verdict == "equivalent" else \
            "warning" if self.verdict == "bounded" else "error"
        return Verdict(
            verifier, _STATUS[self.verdict], (Diagnostic(self.reason, severity=severity),),
            duration_s=seconds,
            data={"verdict": self.verdict, "counterexample": self.counterexample,
                  "reason": self.reason, "bounded": self.bounded, "bound": self.bound,
                  "seconds": seconds})


def equivalent(reason: str) -> Outcome:
    return Outcome("equivalent", reason)


def bounded(reason: str, bound: JSON) -> Outcome:
    return Outcome("bounded", reason, bounded=True, bound=bound)


def refuted(reason: str, counterexample: JSON) -> Outcome:
    return Outcome("refuted", reason, counterexample)


def unknown(reason: str) -> Outcome:
    return Outcome("unknown", reason)


def invalid(reason: str) -> Outcome:
    return Outcome("invalid", reason)


class TaskError(ValueError):
    """The task itself is broken (its oracle or facts): no verdict on the candidate is possible."""


Check = Callable[[str, str, Any, float], Outcome]
"""A domain's check: ``(oracle, candidate text, the task's facts as stored (None when absent),
timeout in seconds) -> Outcome``; it may raise :class:`TaskError`. It must be a module-level
function of a ``speckernel_respec.domains`` module: it runs in a kernel worker process."""

SLACK_S = 2.0
"""What a worker may take beyond the check's own budget (its deadlines are checked between
steps, and a step can overrun by a little) before the kernel kills it."""

MEMORY_MB = 2048
"""The memory one check may hold; past it the worker is killed and the candidate blamed."""


def budget(timeout_s: float) -> Limits:
    """The worker limits of one check: its budget plus slack, and a memory cap."""
    return Limits(wall_s=timeout_s * 1.25 + SLACK_S, memory_mb=MEMORY_MB)


def run_check(module: str, name: str, oracle: str, candidate: str, facts: Any,
              timeout_s: float) -> dict[str, JSON]:
    """The worker side of :func:`verify`: the domain check ``module.name`` as plain data, or
    ``{"task_error": message}`` for a broken task."""
    if not module.startswith(f"{__package__}."):
        raise ValueError(f"not a respec domain module: {module}")
    check: Check = getattr(importlib.import_module(module), name)
    try:
        return check(oracle, candidate, facts, timeout_s).to_plain()
    except TaskError as exc:
        return {"task_error": str(exc)}


async def checked(ctx: VerifyContext, check: Check, oracle: str, candidate: str, facts: Any,
                  timeout_s: float) -> Outcome:
    """``check`` in a kernel worker: its outcome, ``unknown`` when it was killed at its budget,
    ``invalid`` when the candidate broke it; ``TaskError`` for a broken task."""
    try:
        plain = await ctx.run_sync(run_check, check.__module__, check.__name__, oracle,
                                   candidate, facts, timeout_s, limits=budget(timeout_s))
    except TimeoutError:
        return unknown(f"timeout after {timeout_s:g} s (the check was stopped)")
    except CandidateError as exc:
        return invalid(f"the candidate broke the checker: {exc}")
    except WorkerError as exc:
        if exc.kind == "TaskError":
            raise TaskError(str(exc).removeprefix("TaskError: ")) from None
        raise
    if "task_error" in plain:
        raise TaskError(str(plain["task_error"]))
    return Outcome.from_plain(plain)


async def verify(verifier: str, spec_file: str, check: Check, candidate: Candidate, task: Task,
                 ctx: VerifyContext) -> Verdict:
    """The verdict of ``check`` on the candidate's ``spec_file`` against the task's oracle."""
    started = time.monotonic()
    text = candidate.files.get(spec_file)
    if text is None:
        result = invalid(f"the candidate has no {spec_file}")
    else:
        try:
            result = await checked(ctx, check, str(task.metadata["oracle"]), text,
                                   task.metadata.get("facts"),
                                   float(ctx.options.get("timeout_s", 4.0)))
        except TaskError as exc:
            return Verdict(verifier, Status.ERROR, (Diagnostic(f"{task.id}: {exc}"),),
                           duration_s=time.monotonic() - started)
    return result.to_verdict(verifier, time.monotonic() - started)
