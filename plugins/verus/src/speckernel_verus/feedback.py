"""What an agent learns from one ``ctx.verify`` call: the cheat checker's word, Verus's typed
result, or the reason neither could run (a missing tool is an infrastructure error, not a
verdict on the draft, so feedback loops stop on it instead of spinning)."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from speckernel.model import Status, Verdict

from speckernel_verus.output import VerusResult
from speckernel_verus.verifier import result_of

CHEATS_VERIFIER = "verus.cheats"


@attrs.frozen
class Check:
    verdicts: tuple[Verdict, ...]
    result: VerusResult | None = None
    cheat: str | None = None
    infrastructure: str | None = None

    @property
    def solved(self) -> bool:
        """Every verifier of the pipeline passed (no cheat, Verus verified the file)."""
        return bool(self.verdicts) and all(v.passed for v in self.verdicts)

    def summary(self) -> str:
        """The check as the model reads it."""
        if self.solved:
            return "Verification succeeded: no cheat found, Verus verified the file."
        if self.infrastructure:
            return f"The verifier could not run: {self.infrastructure}"
        if self.cheat:
            return f"The cheat checker rejected the file: {self.cheat}"
        if self.result is None:
            return "\n".join(v.summary() for v in self.verdicts if not v.passed)
        head = (f"Verus: {self.result.verified} verified, {self.result.errors} errors"
                + (" (compile error)" if self.result.compile_error else "")
                + (" (timed out)" if self.result.timed_out else ""))
        body = [e.render() for e in self.result.verus_errors]
        if not body and self.result.reason:
            body = [self.result.reason]
        return "\n".join([head, *body])


def _reason(verdict: Verdict) -> str:
    texts = [d.message for d in verdict.diagnostics]
    return "; ".join(texts[:3]) or str(verdict.data.get("reason", "")) or verdict.status.value


def read_check(verdicts: Sequence[Verdict]) -> Check:
    """Sort a pipeline's verdicts into a :class:`Check`."""
    verdicts = tuple(verdicts)
    infrastructure = next((f"{v.verifier}: {_reason(v)}" for v in verdicts
                           if v.status is Status.ERROR), None)
    cheat = next((_reason(v) for v in verdicts
                  if v.verifier == CHEATS_VERIFIER and v.status is not Status.SUCCESS
                  and v.status is not Status.ERROR), None)
    result = next((r for v in verdicts if (r := result_of(v)) is not None), None)
    return Check(verdicts, result, cheat, infrastructure)
