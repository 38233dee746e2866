"""When the hands-on agent keeps a candidate (VeruSAGE's per-action acceptance criteria).

Every action carries one rule; a candidate is compared with the file it was made from, both as
Verus judged them. Among the candidates an action accepts, the best by ``EvalScore`` order wins.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from speckernel_verus.output import VerusResult


class Acceptance(enum.StrEnum):
    """The four criteria; the value is upstream's name."""

    COMPLETE_FIX = "COMPLETE_FIX"
    """Only a file that verifies outright."""
    ERROR_REDUCTION = "ERROR_REDUCTION"
    """Fewer failures (functions, then errors), without losing a verified function."""
    VERIFICATION_IMPROVEMENT = "VERIFICATION_IMPROVEMENT"
    """A better ``EvalScore``: more verified functions, or as many and fewer failures
    (upstream's default)."""
    DONT_AFFECT_VERIFIED = "DONT_AFFECT_VERIFIED"
    """Anything that still compiles and keeps every verified function verified."""


def accepts(rule: Acceptance, before: VerusResult, after: VerusResult) -> bool:
    """Whether ``after`` (a candidate) is kept over ``before`` (the file it edits) under
    ``rule``. A file that verifies is always kept; one that fails to compile or times out
    never is."""
    if after.correct:
        return True
    if after.compile_error or after.timed_out:
        return False
    match rule:
        case Acceptance.COMPLETE_FIX:
            return False
        case Acceptance.ERROR_REDUCTION:
            return after.verified >= before.verified and _failures(after) < _failures(before)
        case Acceptance.VERIFICATION_IMPROVEMENT:
            return after.rank() > before.rank()
        case Acceptance.DONT_AFFECT_VERIFIED:
            return after.verified >= before.verified


def _failures(result: VerusResult) -> tuple[int, int]:
    """Failing functions, then typed errors: an edit that fixes one of two assertions in a
    function leaves Verus's count alone but is still a reduction."""
    return result.errors, len(result.verus_errors)


def best(candidates: Sequence[tuple[str, VerusResult]]) -> tuple[str, VerusResult] | None:
    """The candidate ranked highest by ``EvalScore`` order (the first among equals)."""
    if not candidates:
        return None
    return max(candidates, key=lambda c: c[1].rank())
