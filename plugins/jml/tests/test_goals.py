"""KeY's open goals as messages a model can act on (issue 15, finding 7): the obligation, the
Java line and statement, the JML clause's own text and line, and a missing loop invariant named
as what it is rather than a wrong postcondition."""

from __future__ import annotations

from speckernel_jml.failures import Category
from speckernel_jml.goals import clause_text, describe_goal, goal_diagnostics
from speckernel_jml.key import ContractResult, OpenGoal, parse_report

SOURCE = """class Clamp {
    /*@ public normal_behavior
      @ requires low <= high;
      @ ensures \\result >= low && \\result <= high;
      @*/
    public static int clamp(int value, int low, int high) {
        int r = value + 1;
        //@ loop_invariant 0 <= i;
        for (int i = 0; i < 3; i++) { r--; }
        return r;
    }
}
"""
LINES = SOURCE.splitlines()


def test_a_clause_is_quoted_from_the_file_without_comment_markers() -> None:
    assert clause_text(LINES, 4) == "ensures \\result >= low && \\result <= high;"
    assert clause_text(LINES, 8) == "loop_invariant 0 <= i;"
    assert clause_text(LINES, 99) == ""


def test_an_overflow_goal_names_the_statement_and_the_clause() -> None:
    goal = OpenGoal(("Overflow check",), 7, "r = value + 1;", (("ensures", 4),), False)
    category, message, line = describe_goal("Clamp::clamp", goal, LINES)
    assert category is Category.ARITHMETIC_RANGE and line == 7
    assert message == ("Clamp::clamp: cannot prove Overflow check at line 7 (`r = value + 1;`); "
                       "unproved: ensures on line 4: `ensures \\result >= low && \\result <= "
                       "high;`")


def test_a_loop_without_an_invariant_is_named_as_such() -> None:
    goal = OpenGoal((), 9, "while (i < 3) { r--; i++; }", (("ensures", 4),), True)
    category, message, _ = describe_goal("Clamp::clamp", goal, LINES)
    assert category is Category.LOOP_INVARIANT
    assert "KeY stopped at the loop on line 9" in message and "loop_invariant" in message


def test_goal_lines_of_the_protocol_reach_the_diagnostics() -> None:
    report = parse_report([
        "CONTRACT\topen\tClamp::clamp\tc0\t1\t120\t40\tOverflow check",
        "GOAL\tClamp::clamp\tc0\tOverflow check | CUT: x <= 5 TRUE\t7\tr = value + 1;\t"
        "ensures:4, ensures\t",
    ])
    [contract] = report.contracts
    assert contract.goals == (OpenGoal(("Overflow check",), 7, "r = value + 1;",
                                       (("ensures", 4), ("ensures", 0)), False),)
    [diagnostic] = goal_diagnostics(contract, "Clamp.java", LINES)
    assert diagnostic.line == 7 and diagnostic.code is Category.ARITHMETIC_RANGE
    assert "ensures (implicit)" in diagnostic.message


def test_without_goal_details_the_branch_labels_still_classify() -> None:
    contract = ContractResult("open", "A::f", "c0", 1, 10, 5, ("Invariant Initially Valid",))
    [diagnostic] = goal_diagnostics(contract, "A.java", [])
    assert diagnostic.code is Category.LOOP_INVARIANT


def test_an_exception_the_code_throws_on_the_path_decides_the_category() -> None:
    """KeY translates a negative array size into ``throw new NegativeArraySizeException()``;
    the goal reports the exception, and FormalBench's NegativeSize category is reachable."""
    report = parse_report([
        "CONTRACT\topen\tNeg::make\tc0\t1\t30\t10\tif b true",
        "GOAL\tNeg::make\tc0\tif b true | Normal Execution\t9\t{}\tensures:3\t\t"
        "java.lang.NegativeArraySizeException",
    ])
    [contract] = report.contracts
    [diagnostic] = goal_diagnostics(contract, "Neg.java", LINES)
    assert diagnostic.code is Category.NEGATIVE_SIZE
    assert "throws NegativeArraySizeException" in diagnostic.message
