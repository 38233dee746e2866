"""The hands-on agent's actions (VeruSAGE notes B4): sixteen proof techniques the planner
chooses among for a failed assertion, and fixed repairs for the other error kinds.

Each action is a short instruction to the model plus the acceptance rule its candidates must
meet. The guidance is ours: one paragraph per technique, naming the Verus construct to use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from speckernel_verus.acceptance import Acceptance
from speckernel_verus.output import ErrorKind, VerusError, VerusResult


@attrs.frozen
class Action:
    name: str
    guidance: str
    acceptance: Acceptance = Acceptance.VERIFICATION_IMPROVEMENT


A = Acceptance
PLANNER_ACTIONS: tuple[Action, ...] = (
    Action("INSTANTIATE_FORALL", "A `forall` fact is known but Z3 does not use it at the needed "
           "point. Assert the instance you need (`assert(P(x));`) right before the failing step, "
           "or bring it in with `assert forall|i| ... by { ... }`."),
    Action("INSTANTIATE_EXISTS", "The goal is an `exists`. Provide a witness: assert the body "
           "for a concrete value (`assert(P(w));`), or `choose` a witness from a known exists."),
    Action("CASE_ANALYSIS", "Split the proof on the cases that matter: `if cond { ... } else "
           "{ ... }` or `match` inside a proof block, proving the goal in each branch."),
    Action("REVEAL_OPAQUE", "A function marked `#[verifier::opaque]` hides its body. Add "
           "`reveal(f);` (or `reveal_with_fuel(f, n)`) in the proof where its body is needed."),
    Action("EXTENSIONAL_EQUALITY", "Sequences, sets or maps are equal element-wise but Z3 needs "
           "extensionality: assert `a =~= b` (or `a =~~= b` for nested) before using `a == b`."),
    Action("INDUCTION", "The property holds by induction. Write the proof recursively in the "
           "proof function itself (call it on a smaller argument with a `decreases` clause)."),
    Action("INDUCTIVE_LEMMA", "Add a new `proof fn` lemma proved by induction (recursive call "
           "with `decreases`) stating the missing fact, and call it where the assertion fails.",
           A.DONT_AFFECT_VERIFIED),
    Action("REVEAL_WITH_FUEL", "A recursive spec function must unfold more than once: use "
           "`reveal_with_fuel(f, n)` or assert the intermediate unfoldings one by one."),
    Action("COMPUTE", "The fact is a closed computation: prove it with `assert(e) by "
           "(compute);` (or `by (compute_only)`)."),
    Action("SEQSETMAP", "Use the vstd lemmas on Seq/Set/Map (e.g. `lemma_len_intersect`, "
           "`Seq::lemma_push_index`, `push`, `subrange`, `add` properties) or assert the "
           "intermediate facts about `len`, indexing, `contains` and `dom` explicitly."),
    Action("NONLINEAR_ARITHMETIC", "The step needs nonlinear arithmetic (products, division, "
           "modulo of variables). Isolate it: `assert(x * y <= z) by (nonlinear_arith) "
           "requires ...;` with the facts it needs, or use vstd's `lemma_mul_*` lemmas."),
    Action("INTEGER_RING", "The fact is a polynomial identity or a congruence: prove it in a "
           "separate `#[verifier::integer_ring] proof fn` and call that lemma."),
    Action("BIT_VECTOR_REASONING", "The fact is about bit operations on fixed-width integers: "
           "prove it with `assert(e) by (bit_vector) requires ...;` on machine-integer terms."),
    Action("ADD_TRIGGER_ASSERT", "Quantifier triggers do not fire: add an assertion that "
           "mentions the trigger term (`assert(s[i] == ...)`) or an explicit `#[trigger]`."),
    Action("USELEMMA", "An existing lemma (in this file or in vstd) proves the needed fact: "
           "call it with the right arguments just before the failing step."),
    Action("LOOPINV", "The loop lacks invariants: add `invariant` clauses stating bounds, the "
           "relation between the loop variables and the result so far, and what is unchanged.",
           A.ERROR_REDUCTION),
)
"""The planner's menu, in upstream order."""

REPAIR_ACTIONS: tuple[Action, ...] = (
    Action("PRECONDITION_REPAIR", "A call's precondition is not established. Add assertions or "
           "lemma calls before the call proving each `requires` clause at that point (for a "
           "vector index, that the index is below the length)."),
    Action("POSTCONDITION_REPAIR", "The `ensures` clause is not proved at the end of the body. "
           "Add the proof steps (asserts, lemma calls, loop invariants) that establish it; never "
           "change the `ensures` clause itself."),
    Action("INVARIANT_FRONT_REPAIR", "A loop invariant does not hold when the loop starts. "
           "Prove it before the loop, or correct the invariant you added so it holds initially.",
           A.ERROR_REDUCTION),
    Action("INVARIANT_END_REPAIR", "A loop invariant is not preserved by the body. Strengthen "
           "the invariants (bounds, facts about unchanged data) or add asserts in the body.",
           A.ERROR_REDUCTION),
    Action("ARITHMETIC_OVERFLOW_REPAIR", "An operation may overflow or underflow. Add "
           "invariants or assertions bounding its operands (e.g. `counter <= index`, "
           "`index < arr.len()`) so the result fits the type; do not change the executable code."),
    Action("TYPE_REPAIR", "A type error: fix the ghost code you added (`as int`, `@` views, "
           "spec vs exec types). The executable code and the specifications stay as they are.",
           A.DONT_AFFECT_VERIFIED),
    Action("USE_REPAIR", "A method or item is not found: add the missing `use vstd::...;` "
           "import or call the right vstd function.", A.DONT_AFFECT_VERIFIED),
    Action("BITVASSERT_REPAIR", "A `by (bit_vector)` assertion fails: give it the `requires` "
           "facts it needs, split it, or state it on the machine-integer types.",
           A.ERROR_REDUCTION),
    Action("TERMINATION_REPAIR", "Termination is not proved: add or fix the `decreases` clause "
           "of the recursive function or loop, and prove the measure decreases.",
           A.ERROR_REDUCTION),
    Action("DECFAILEND_REPAIR", "The loop's `decreases` measure does not decrease each "
           "iteration: choose a measure that does, or add invariants that show it does.",
           A.ERROR_REDUCTION),
    Action("LOOPNODEC_REPAIR", "The loop needs a `decreases` clause: add one after its "
           "invariants (e.g. `decreases arr.len() - index`).", A.DONT_AFFECT_VERIFIED),
    Action("UNSUPBITVASSERT_REPAIR", "The expression is not supported in bit-vector mode: "
           "restate it with only machine-integer bit operations and comparisons.",
           A.DONT_AFFECT_VERIFIED),
    Action("SYNTAX_REPAIR", "The file does not compile. Fix the syntax or the type error in "
           "the proof code you added, changing nothing else.", A.DONT_AFFECT_VERIFIED),
    Action("FALLBACK_REPAIR", "Fix this verification error with the proof annotations it "
           "needs (asserts, lemma calls, invariants), changing no specification or code."),
)

ACTIONS = {a.name: a for a in (*PLANNER_ACTIONS, *REPAIR_ACTIONS)}

PLANNED = frozenset({ErrorKind.ASSERTION, ErrorKind.SPLIT_ASSERTION})
"""Error kinds the planner handles; every other kind has its fixed repair."""

REPAIR_FOR: dict[ErrorKind, str] = {
    ErrorKind.PRECONDITION: "PRECONDITION_REPAIR",
    ErrorKind.PRECONDITION_VEC_LEN: "PRECONDITION_REPAIR",
    ErrorKind.SPLIT_PRECONDITION: "PRECONDITION_REPAIR",
    ErrorKind.POSTCONDITION: "POSTCONDITION_REPAIR",
    ErrorKind.SPLIT_POSTCONDITION: "POSTCONDITION_REPAIR",
    ErrorKind.INVARIANT_FRONT: "INVARIANT_FRONT_REPAIR",
    ErrorKind.INVARIANT_END: "INVARIANT_END_REPAIR",
    ErrorKind.ARITHMETIC_OVERFLOW: "ARITHMETIC_OVERFLOW_REPAIR",
    ErrorKind.MISMATCHED_TYPE: "TYPE_REPAIR",
    ErrorKind.METHOD_NOT_FOUND: "USE_REPAIR",
    ErrorKind.BIT_VECTOR_ASSERTION: "BITVASSERT_REPAIR",
    ErrorKind.TERMINATION: "TERMINATION_REPAIR",
    ErrorKind.DECREASES_END: "DECFAILEND_REPAIR",
    ErrorKind.DECREASES_CONTINUE: "DECFAILEND_REPAIR",
    ErrorKind.LOOP_NO_DECREASES: "LOOPNODEC_REPAIR",
    ErrorKind.UNSUPPORTED_BIT_VECTOR: "UNSUPBITVASSERT_REPAIR",
    ErrorKind.EXPECTED_PARENTHESES: "SYNTAX_REPAIR",
}

PRIORITY = (ErrorKind.MISMATCHED_TYPE, ErrorKind.PRECONDITION_VEC_LEN,
            ErrorKind.ARITHMETIC_OVERFLOW, ErrorKind.INVARIANT_FRONT, ErrorKind.INVARIANT_END)
"""Which error to repair first (upstream's order); otherwise the first error."""


def pick_error(result: VerusResult) -> VerusError | None:
    """The error the next step works on: by ``PRIORITY``, else the first outside vstd."""
    errors = [e for e in result.verus_errors if not e.in_vstd] or list(result.verus_errors)
    for kind in PRIORITY:
        for error in errors:
            if error.kind is kind:
                return error
    return errors[0] if errors else None


def repair_for(error: VerusError | None, compile_error: bool = False) -> str:
    """The fixed repair for an error the planner does not handle; an untyped error that
    stops compilation (a parse error, say) gets the syntax repair."""
    if error is None or (compile_error and error.kind is ErrorKind.OTHER):
        return "SYNTAX_REPAIR"
    return REPAIR_FOR.get(error.kind, "FALLBACK_REPAIR")


_HINTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bforall\b"), "INSTANTIATE_FORALL"),
    (re.compile(r"\bexists\b"), "INSTANTIATE_EXISTS"),
    (re.compile(r"=~=|=~~=|\.subrange\(|\.push\(|\.insert\(|\.remove\(|\.dom\(\)"),
     "EXTENSIONAL_EQUALITY"),
    (re.compile(r"\bSeq\b|\bSet\b|\bMap\b|\.len\(\)|\.contains\("), "SEQSETMAP"),
    (re.compile(r"[&|^]|<<|>>"), "BIT_VECTOR_REASONING"),
    (re.compile(r"\w\s*[*/%]\s*\w"), "NONLINEAR_ARITHMETIC"),
)


def static_suggestions(error: VerusError | None, code: str) -> tuple[str, ...]:
    """Actions the failing line itself suggests (upstream's static preprocessing), used to
    complete the planner's choice and to stand in for an unreadable plan."""
    text = " ".join(s.text for s in error.spans) if error else ""
    found = [name for pattern, name in _HINTS if pattern.search(text)]
    if "#[verifier::opaque]" in code:
        found.append("REVEAL_OPAQUE")
    if "while " in code or "loop {" in code:
        found.append("LOOPINV")
    found += ["ADD_TRIGGER_ASSERT", "USELEMMA", "CASE_ANALYSIS"]
    return tuple(dict.fromkeys(found))


def plan_order(chosen: Sequence[str], suggested: Sequence[str], width: int = 6) -> tuple[str, ...]:
    """The actions to try for one planned step: the planner's primary and secondary choices
    (known names only), then static suggestions, at most ``width``."""
    names = [n for n in chosen if n in ACTIONS and any(a.name == n for a in PLANNER_ACTIONS)]
    return tuple(dict.fromkeys([*names, *suggested]))[:width]
