"""VeruSAGE's acceptance criteria on recorded runs: postcondition_overflow (1 verified,
1 error), loops (3 verified, 3 errors), assertions (2, 2), verified, syntax_error."""

from __future__ import annotations

import attrs
import pytest
from verus_fixtures import parsed

from speckernel_verus.acceptance import Acceptance, accepts, best

A = Acceptance


@pytest.mark.parametrize("rule", list(Acceptance))
def test_a_verified_file_is_always_kept_and_a_broken_one_never(rule: Acceptance) -> None:
    assert accepts(rule, parsed("loops"), parsed("verified"))
    assert not accepts(rule, parsed("loops"), parsed("syntax_error"))


def test_complete_fix_wants_verification() -> None:
    assert not accepts(A.COMPLETE_FIX, parsed("postcondition_overflow"), parsed("loops"))


def test_verification_improvement_is_a_better_eval_score() -> None:
    assert accepts(A.VERIFICATION_IMPROVEMENT, parsed("postcondition_overflow"), parsed("loops"))
    assert not accepts(A.VERIFICATION_IMPROVEMENT, parsed("loops"), parsed("assertions"))


def test_error_reduction_keeps_every_verified_function() -> None:
    before = parsed("loops")
    fewer = attrs.evolve(before, errors=2)
    assert accepts(A.ERROR_REDUCTION, before, fewer)
    assert not accepts(A.ERROR_REDUCTION, before, attrs.evolve(fewer, verified=2))
    same_count_fewer_errors = attrs.evolve(before, verus_errors=before.verus_errors[:2])
    assert accepts(A.ERROR_REDUCTION, before, same_count_fewer_errors)


def test_dont_affect_verified_allows_new_failures() -> None:
    before = parsed("postcondition_overflow")
    assert accepts(A.DONT_AFFECT_VERIFIED, before, attrs.evolve(before, errors=4))
    assert not accepts(A.DONT_AFFECT_VERIFIED, parsed("loops"), before)
    # repairing a compile error: anything that compiles is kept
    assert accepts(A.DONT_AFFECT_VERIFIED, parsed("syntax_error"), before)


def test_best_candidate_by_eval_score() -> None:
    chosen = best([("a", parsed("postcondition_overflow")), ("b", parsed("loops")),
                   ("c", parsed("assertions"))])
    assert chosen is not None and chosen[0] == "b"
    assert best([]) is None
