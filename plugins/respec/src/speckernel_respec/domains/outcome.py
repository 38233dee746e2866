"""The three-way RESpecBench verdict (plus ``invalid``) and its kernel ``Verdict`` form.

RESpecBench §2: a sound verifier answers *equivalent* (proved), *refuted* (with a counterexample
that has been re-checked by evaluation) or *unknown* (timeout, or outside the fragment it
decides). A candidate that is not a specification of the domain at all is *invalid*. The kernel
status is SUCCESS for equivalent, FAILURE for refuted and invalid, UNKNOWN for unknown; ``data``
holds exactly ``verdict``, ``counterexample``, ``reason``, ``bounded``, ``bound`` and ``seconds``.

:func:`verify` is the part every domain verifier shares: read the candidate's one spec file (a
missing one is ``invalid``), run the domain's check in a worker thread under the option
``timeout_s`` (default 4 s), and report a broken task (:class:`TaskError`) as a kernel error
rather than as a verdict on the candidate.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

import anyio.to_thread
import attrs
from speckernel.components import VerifyContext
from speckernel.model import JSON, Candidate, Diagnostic, Status, Task, Verdict

Kind = Literal["equivalent", "refuted", "unknown", "invalid"]

_STATUS: dict[Kind, Status] = {
    "equivalent": Status.SUCCESS,
    "refuted": Status.FAILURE,
    "invalid": Status.FAILURE,
    "unknown": Status.UNKNOWN,
}


@attrs.frozen
class Outcome:
    """One equivalence check's result. ``bounded`` marks an equivalence established only up to
    ``bound`` (SQL's exhaustive small-database check), never a refutation."""

    verdict: Kind
    reason: str
    counterexample: JSON = None
    bounded: bool = False
    bound: JSON = None

    def to_verdict(self, verifier: str, seconds: float) -> Verdict:
        severity = "info" if self.verdict == "equivalent" else "error"
        return Verdict(
            verifier, _STATUS[self.verdict], (Diagnostic(self.reason, severity=severity),),
            duration_s=seconds,
            data={"verdict": self.verdict, "counterexample": self.counterexample,
                  "reason": self.reason, "bounded": self.bounded, "bound": self.bound,
                  "seconds": seconds})


def equivalent(reason: str) -> Outcome:
    return Outcome("equivalent", reason)


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
timeout in seconds) -> Outcome``; it may raise :class:`TaskError`."""


async def verify(verifier: str, spec_file: str, check: Check, candidate: Candidate, task: Task,
                 ctx: VerifyContext) -> Verdict:
    """The verdict of ``check`` on the candidate's ``spec_file`` against the task's oracle."""
    started = time.monotonic()
    text = candidate.files.get(spec_file)
    if text is None:
        result = invalid(f"the candidate has no {spec_file}")
    else:
        try:
            result = await anyio.to_thread.run_sync(
                check, str(task.metadata["oracle"]), text, task.metadata.get("facts"),
                float(ctx.options.get("timeout_s", 4.0)))
        except TaskError as exc:
            return Verdict(verifier, Status.ERROR, (Diagnostic(f"{task.id}: {exc}"),),
                           duration_s=time.monotonic() - started)
    return result.to_verdict(verifier, time.monotonic() - started)
