"""The action catalogue and routing: which error is repaired first and by which action."""

from __future__ import annotations

from verus_fixtures import parsed

from speckernel_verus.actions import (
    ACTIONS,
    PLANNER_ACTIONS,
    REPAIR_ACTIONS,
    REPAIR_FOR,
    pick_error,
    plan_order,
    repair_for,
    static_suggestions,
)
from speckernel_verus.output import ErrorKind


def test_sixteen_planner_actions_and_a_repair_for_every_routed_kind() -> None:
    assert len(PLANNER_ACTIONS) == 16 and len({a.name for a in PLANNER_ACTIONS}) == 16
    assert len(ACTIONS) == len(PLANNER_ACTIONS) + len(REPAIR_ACTIONS)
    assert set(REPAIR_FOR.values()) <= set(ACTIONS)


def test_priority_order() -> None:
    error = pick_error(parsed("postcondition_overflow"))
    assert error is not None and error.kind is ErrorKind.ARITHMETIC_OVERFLOW
    assert repair_for(error) == "ARITHMETIC_OVERFLOW_REPAIR"
    vec = pick_error(parsed("precondition"))
    assert vec is not None and vec.kind is ErrorKind.PRECONDITION_VEC_LEN
    first = pick_error(parsed("assertions"))
    assert first is not None and first.kind is ErrorKind.ASSERTION


def test_a_compile_error_without_typed_errors_gets_the_syntax_repair() -> None:
    assert repair_for(pick_error(parsed("crash")), compile_error=True) == "SYNTAX_REPAIR"
    assert repair_for(pick_error(parsed("syntax_error")), compile_error=True) == "SYNTAX_REPAIR"
    assert repair_for(pick_error(parsed("mismatched_types")), compile_error=True) == "TYPE_REPAIR"
    other = parsed("syntax_error").verus_errors[0]
    assert repair_for(other) == "FALLBACK_REPAIR"


def test_plan_keeps_known_planner_actions_then_static_hints() -> None:
    error = pick_error(parsed("assertions"))
    hints = static_suggestions(error, "while i < n { }")
    assert "LOOPINV" in hints and hints[-3:] == ("ADD_TRIGGER_ASSERT", "USELEMMA",
                                                  "CASE_ANALYSIS")
    order = plan_order(["COMPUTE", "POSTCONDITION_REPAIR", "BOGUS", "COMPUTE"], hints)
    assert order[0] == "COMPUTE" and "POSTCONDITION_REPAIR" not in order and len(order) <= 6
