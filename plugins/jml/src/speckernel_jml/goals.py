"""KeY's open proof goals as failure messages a model can act on (issue 15, 7).

FormalBench's repair loop sends OpenJML's messages, which name the failing assertion, its source
line and the clause. KeY reports proof goals instead; the driver describes each open goal by its
branch labels (the obligation: ``Overflow check``, ``Body Preserves Invariant``), the last Java
statement symbolic execution reached on its path (line and text), the JML clauses its unproved
formulas come from (KeY's origin labels), and whether execution stopped in front of a loop
(``java/KeyCheck.java``, ``GOAL`` lines). This module turns that into one diagnostic per goal:
the category (:func:`speckernel_jml.failures.classify_key_goal`), the Java line, and the text of
the clauses, read from the file KeY verified.

A loop without a loop invariant is not a wrong postcondition: KeY's strategy has no rule to apply
to it and stops there. That is reported as such (``LoopInvariantFailure``, "needs a
loop_invariant"), as FormalBench's OpenJML reports what it cannot verify about a loop.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from speckernel.model import Diagnostic

from speckernel_jml.failures import Category, classify_key_goal
from speckernel_jml.key import ContractResult, OpenGoal

_THROWN = {
    "NegativeArraySizeException": Category.NEGATIVE_SIZE,
    "ArithmeticException": Category.DIVIDE_BY_ZERO,
    "NullPointerException": Category.NULL_DEREFERENCE,
    "ArrayIndexOutOfBoundsException": Category.ARRAY_INDEX,
    "ClassCastException": Category.BAD_CAST,
    "ArrayStoreException": Category.BAD_ARRAY_ASSIGNMENT,
}
"""Runtime exceptions KeY raises by an explicit ``throw`` in its translation of the program
(a negative array size: ``if (n < 0) throw new NegativeArraySizeException()``), by the
category FormalBench gives the condition."""

_CLAUSE_PREFIX = re.compile(r"^\s*(?:/\*|//)?[+\-\w]*@*\s*|\s*@?\*/\s*$")
_CLAUSE_TEXT = 120


def clause_text(lines: Sequence[str], line: int) -> str:
    """The JML on line ``line`` (1-based) of the verified file, without comment markers."""
    if not 1 <= line <= len(lines):
        return ""
    text = _CLAUSE_PREFIX.sub("", lines[line - 1]).strip()
    return text if len(text) <= _CLAUSE_TEXT else text[:_CLAUSE_TEXT] + "..."


def describe_goal(target: str, goal: OpenGoal, lines: Sequence[str]) -> tuple[Category, str, int]:
    """The category, the message and the line of one open goal."""
    statement = goal.statement if len(goal.statement) <= 80 else goal.statement[:80] + "..."
    if goal.stuck_at_loop:
        return (Category.LOOP_INVARIANT,
                f"{target}: KeY stopped at the loop on line {goal.line} (`{statement}`): it "
                "verifies a loop only through its loop_invariant (with a decreases clause), "
                "and this loop has none it could use", goal.line)
    category = _THROWN.get(goal.thrown.rsplit(".", 1)[-1]) or classify_key_goal(goal.labels)
    shown = f" (`{statement}`)" if statement.strip("{} ") else ""
    where = f" at line {goal.line}{shown}" if goal.line else ""
    obligation = " > ".join(goal.labels) or "the postcondition on the main path"
    if goal.thrown:
        obligation += f" (the code throws {goal.thrown.rsplit('.', 1)[-1]} there)"
    clauses = []
    for kind, line in goal.clauses:
        text = clause_text(lines, line) if line else ""
        clauses.append(f"{kind} on line {line}: `{text}`" if text else
                       (f"{kind} (line {line})" if line else f"{kind} (implicit)"))
    unproved = f"; unproved: {'; '.join(clauses)}" if clauses else ""
    return category, f"{target}: cannot prove {obligation}{where}{unproved}", goal.line


def goal_diagnostics(contract: ContractResult, file_name: str,
                     lines: Sequence[str]) -> list[Diagnostic]:
    """One diagnostic per open goal of ``contract`` (by its branch labels alone when the
    driver sent no goal details)."""
    if contract.goals:
        diagnostics = []
        for goal in contract.goals:
            category, message, line = describe_goal(contract.target, goal, lines)
            diagnostics.append(Diagnostic(message, file=file_name, line=line or None,
                                          code=category))
        return diagnostics
    found = []
    for reason in contract.reasons or ("",):
        labels = [label for label in reason.split(" | ") if label]
        found.append(Diagnostic(
            f"{contract.target}: open goal ({' > '.join(labels) or 'main path'}) of "
            f"{contract.contract}", file=file_name, code=classify_key_goal(labels)))
    return found
