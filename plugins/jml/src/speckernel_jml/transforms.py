"""Semantic-preserving transformations for FormalBench's robustness metric (notes §A5).

FormalBench publishes transformed programs but not the code that made them; the rules follow
SPAT's eighteen (Java, Eclipse JDT) plus the two FormalBench variants observed in its data that
SPAT lacks (else-if nesting, relation swapping), implemented on JavaParser
(``javatools/java/Transforms.java``). A rule rewrites every site it applies to and the class is
printed again, tab-indented like FormalBench's variants. Each variant is compiled and, given the
program's test main, run against it: a variant that does not compile or whose test outcome or
output differs from the original's is discarded.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import attrs

from speckernel_jml.javatools import JavaTools, shared_tools

RULES: dict[str, str] = {
    "local-variable-renaming": "locals renamed v0, v1, ... (SPAT LocalVarRenaming; FB rule_1)",
    "for-to-while": "for loop to initialisation plus while loop (SPAT For2While; FB rule_2)",
    "while-to-for": "while loop to for loop, a trailing update moved into it (FB rule_3)",
    "else-if-nesting": "else if (c) s to else { if (c) s } (FB rule_5)",
    "switch-to-if": "switch without fall-through to an if/else-if chain (SPAT Case2IfElse)",
    "compound-assignment-expansion": "x op= e to x = x op (e) (SPAT AddAssignment2Equal"
                                     "Assignment; FB rule_9)",
    "increment-to-compound-assignment": "i++ to i += 1 (SPAT PP2AddAssignment)",
    "declaration-merging": "adjacent declarations of one type merged (SPAT VarDeclaration"
                           "Merging; FB rule_11)",
    "declaration-splitting": "T a = e; to T a; a = e; (SPAT VarDeclarationDividing)",
    "statement-swapping": "adjacent independent statements swapped (SPAT StatementsOrder"
                          "Rearrangement; FB rule_12)",
    "if-else-reversal": "if (c) a else b to if (!c) b else a (SPAT ReverseIfElse; FB rule_14)",
    "if-to-conditional": "if/else assignment or return to ?: (SPAT SingleIF2ConditionalExp; "
                         "FB rule_15)",
    "conditional-to-if": "?: in an assignment, declaration or return to if/else (SPAT "
                         "ConditionalExp2SingleIF)",
    "infix-splitting": "an operand of an infix expression moved into a new local (SPAT "
                       "InfixExpressionDividing; FB rule_17)",
    "equality-operand-swap": "a == b to b == a (SPAT SwitchEqualSides; FB rule_21)",
    "equals-receiver-swap": "a.equals(b) to (b != null && b.equals(a)) (SPAT SwitchString"
                            "Equal; FB rule_22)",
    "relation-swapping": "a < b to b > a (FB rule_23)",
    "condition-splitting": "if (a && b) s to if (a) { if (b) s } (SPAT IfDividing)",
    "loop-continue-to-else": "if (c) { a; continue; } rest to if (c) { a } else { rest } "
                             "(SPAT LoopIfContinue2Else)",
    "increment-extraction": "r[k++] = e; to r[k] = e; k++; (SPAT PrePostFixExpressionDividing)",
}
"""Rule id to what it does and where it comes from (SPAT's name, FormalBench's rule number
where its published variants show the same rewrite)."""

Status = Literal["ok", "not-applicable", "uncompilable", "behaviour-changed", "error"]
"""``error``: the rule itself failed on this program (a bug in the rule, reported, not raised,
so the other rules' variants survive)."""


@attrs.frozen
class ProgramTest:
    """A class with a ``main`` that exercises the program and exits non-zero on a wrong
    result."""

    class_name: str
    source: str


@attrs.frozen
class RuleOutcome:
    """What one rule did to a program: ``source`` is the variant (None when the rule matched
    nothing), ``reason`` says why a variant was discarded."""

    rule: str
    status: Status
    source: str | None
    reason: str

    @property
    def kept(self) -> bool:
        return self.status == "ok"


@attrs.frozen
class Variant:
    """A checked, semantically equivalent rewrite of a program by one rule."""

    rule: str
    source: str


def apply_rules(source: str, class_name: str, rules: Iterable[str] = RULES,
                test: ProgramTest | None = None,
                tools: JavaTools | None = None) -> list[RuleOutcome]:
    """Every rule's outcome on ``source``, in the order given. Raises ``JavaToolsError`` when
    the original does not parse or compile or its test fails."""
    chosen = list(rules)
    unknown = [rule for rule in chosen if rule not in RULES]
    if unknown:
        raise ValueError(f"unknown transformation rules {unknown}; known: {list(RULES)}")
    answer = (tools or shared_tools()).request(
        "transform", class_name, source, ",".join(chosen),
        test.class_name if test else "", test.source if test else "")
    return [RuleOutcome(rule=r["rule"], status=r["status"], source=r["source"],
                        reason=r["reason"]) for r in answer["results"]]


def transform(source: str, class_name: str, rule: str, test: ProgramTest | None = None,
              tools: JavaTools | None = None) -> str | None:
    """``source`` rewritten by ``rule``, or None when the rule does not apply or its variant
    failed the compile-and-test check."""
    (outcome,) = apply_rules(source, class_name, [rule], test, tools)
    return outcome.source if outcome.kept else None


def variants(source: str, class_name: str, rules: Iterable[str] = RULES,
             test: ProgramTest | None = None, tools: JavaTools | None = None) -> list[Variant]:
    """The kept variants of ``source``, one per applicable rule, in rule order."""
    return [Variant(o.rule, o.source) for o in apply_rules(source, class_name, rules, test, tools)
            if o.kept and o.source is not None]
