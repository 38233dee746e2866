"""FormalBench's failure categories: recognising them in each backend's messages, and the repair
guidance the ``jml-repair`` agent sends for each.

The categories and OpenJML patterns are FormalBench's (``assistants/failure_analysis.py``, notes
§A3), matched in the same order. Upstream gives repair guidance for 15 of them and crashes on the
other six; here every category has guidance, and a message no pattern matches is ``Other``
instead of an exception. KeY reports open proof goals instead of OpenJML's assertion kinds; the
branch labels on the path to an open goal name the proof obligation (``Overflow check``,
``Invariant Initially Valid``, ``Null Reference (a = null)``, ``Pre (m)``), and
:func:`classify_key_goal` maps them onto the same categories as far as they correspond.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

import attrs


class Category(enum.StrEnum):
    """A FormalBench failure category (plus those this plugin adds: the candidate carries no
    JML, changes the program, assumes what it should prove, uses what KeY cannot load, or fails
    in a way no pattern recognises)."""

    SYNTAX_ERROR = "SyntaxError"
    UNSUPPORTED_SUM = "UnsupportedSumNumOfProductQuantifierExpression"
    UNSUPPORTED_MINMAX = "UnsupportedMinMaxQuantifierExpression"
    LOOP_INVARIANT = "LoopInvariantFailure"
    ARITHMETIC_RANGE = "ArithmeticOperationRange"
    ASSIGNABLE = "AssignableFailure"
    POSTCONDITION = "PostconditionFailure"
    ASSERT = "AssertFailure"
    NULL_DEREFERENCE = "NullDeReference"
    ARRAY_INDEX = "ArrayIndex"
    NEGATIVE_SIZE = "NegativeSize"
    RANKING_FUNCTION = "RankingFunctionFailure"
    BAD_ARRAY_ASSIGNMENT = "BadArrayAssignment"
    PRECONDITION = "PreconditionFailure"
    DIVIDE_BY_ZERO = "DivideByZero"
    BAD_CAST = "BadCast"
    EXCEPTIONAL_POSTCONDITION = "ExceptionalPostconditionFailure"
    CALLED_METHOD_PRECONDITION = "CalledMethodPrecondition"
    NULL_UNBOX = "NullUnbox"
    ARITHMETIC_CAST_RANGE = "ArithmeticCastRange"
    LARGE_SHIFT = "LargeShift"
    MISSING_SPECIFICATION = "MissingSpecification"
    CODE_CHANGED = "CodeChanged"
    VACUOUS = "VacuousSpecification"
    UNSUPPORTED_BY_KEY = "UnsupportedByKeY"
    OTHER = "Other"


@attrs.frozen
class Guidance:
    """What a category means and how to repair a specification that fails with it."""

    description: str
    guidance: str


GUIDANCE: dict[Category, Guidance] = {
    Category.SYNTAX_ERROR: Guidance(
        "The specification does not parse or type-check as JML.",
        "Put every annotation in //@ or /*@ ... @*/ comments, end each clause with a semicolon, "
        "use \\result, \\old(e), \\forall/\\exists with a declared bound variable and a range, "
        "and only names visible in the method (parameters, fields; locals only in loop "
        "annotations). Do not invent keywords."),
    Category.UNSUPPORTED_SUM: Guidance(
        "The verifier does not support \\sum, \\num_of or \\product quantifiers here.",
        "Replace the generalized quantifier by a loop invariant over an explicit accumulator "
        "(e.g. relate the partial sum to the processed prefix) or by a model method, and state "
        "the postcondition with \\forall/\\exists or plain arithmetic."),
    Category.UNSUPPORTED_MINMAX: Guidance(
        "The verifier does not support the \\min or \\max quantifiers here.",
        "Express minimum or maximum with \\forall (every element is >= / <= the result) and "
        "\\exists (some element equals the result) instead of \\min/\\max."),
    Category.LOOP_INVARIANT: Guidance(
        "A loop invariant does not hold on entry to the loop or is not preserved by its body.",
        "Check the invariant with the initial values first, then against one iteration: bound "
        "every loop variable (0 <= i && i <= n), describe exactly the part already processed, "
        "and strengthen it with facts the body needs (bounds on accumulators, array "
        "non-nullness). Weaken clauses that only hold after the loop."),
    Category.ARITHMETIC_RANGE: Guidance(
        "An integer operation in the code may overflow (Java int/long range is checked).",
        "Add preconditions that bound the inputs (e.g. requires x > Integer.MIN_VALUE, "
        "requires 0 <= n && n <= 10000) and loop invariants that bound accumulators so every "
        "+, -, * and unary minus provably stays within range."),
    Category.ASSIGNABLE: Guidance(
        "The method or loop writes a location its assignable (frame) clause does not allow.",
        "List every field or array element the method writes in assignable (e.g. assignable "
        "a[*];), use assignable \\nothing only for methods and loops that write locals only, "
        "and give loops their own assignable clause."),
    Category.POSTCONDITION: Guidance(
        "A postcondition is not established by the method on some input the preconditions allow.",
        "Compare each ensures clause with what the code computes on boundary inputs (empty "
        "arrays, zero, negative values); fix the formula or add the missing precondition, and "
        "make loop invariants strong enough to imply the postcondition on exit."),
    Category.ASSERT: Guidance(
        "An assert statement in the specification cannot be proved at its program point.",
        "Remove assertions that are not needed, or make the facts they rely on available: add "
        "them to the preconditions or loop invariants that hold at that point."),
    Category.NULL_DEREFERENCE: Guidance(
        "A reference (usually an array or object parameter) may be null where it is used.",
        "Add requires p != null for every reference parameter the method dereferences (and "
        "\\nonnullelements for arrays of references), or specify the null case separately."),
    Category.ARRAY_INDEX: Guidance(
        "An array access may be out of bounds.",
        "Bound index variables in preconditions and loop invariants (0 <= i && i < a.length "
        "where a[i] is read; 0 <= i && i <= a.length as the loop invariant), and require "
        "a.length > 0 when the code reads a[0]."),
    Category.NEGATIVE_SIZE: Guidance(
        "An array may be created with a negative length.",
        "Require (or establish by invariant) that every expression used as an array size in "
        "new T[size] is non-negative, e.g. requires n >= 0."),
    Category.RANKING_FUNCTION: Guidance(
        "A loop's decreases clause is not non-negative or does not strictly decrease.",
        "Use a decreases expression that the loop condition keeps non-negative and every "
        "iteration reduces, typically n - i for an up-counting loop or i for a down-counting "
        "one; make sure the loop invariant bounds it."),
    Category.BAD_ARRAY_ASSIGNMENT: Guidance(
        "An array store may put an element of the wrong runtime type into the array.",
        "Constrain the array's element type (\\elemtype(\\typeof(a)) == \\type(T)) in the "
        "precondition, or require that stored values are instances of the element type."),
    Category.PRECONDITION: Guidance(
        "A precondition is violated, or preconditions contradict each other.",
        "Keep preconditions satisfiable and as weak as the code allows; when a called method "
        "has a precondition, make the caller's specification imply it at the call."),
    Category.DIVIDE_BY_ZERO: Guidance(
        "A division or remainder may have a zero divisor.",
        "Require the divisor to be non-zero (requires d != 0) or keep it non-zero by loop "
        "invariant, and guard / and % in specifications the same way."),
    Category.BAD_CAST: Guidance(
        "A cast may fail at run time.",
        "Require that the value is an instance of the target type (\\typeof(x) <: \\type(T) "
        "or x instanceof T) before the cast, or specify the exceptional case."),
    Category.EXCEPTIONAL_POSTCONDITION: Guidance(
        "The method may throw an exception the specification does not allow, or its "
        "signals clause does not hold when it throws.",
        "Rule out the exception with preconditions (null, bounds, divisors) for a "
        "normal_behavior contract, or add an exceptional_behavior case whose signals clause "
        "describes exactly when the exception is thrown."),
    Category.CALLED_METHOD_PRECONDITION: Guidance(
        "A method called from the code is called in a state its own precondition excludes.",
        "Strengthen the caller's preconditions or loop invariants so that the callee's "
        "requires clauses hold at every call, or weaken the callee's precondition."),
    Category.NULL_UNBOX: Guidance(
        "A boxed value (Integer, Boolean) may be null where the code unboxes it.",
        "Require the boxed parameters or collection elements to be non-null before they are "
        "unboxed, e.g. requires x != null."),
    Category.ARITHMETIC_CAST_RANGE: Guidance(
        "A numeric cast may lose information (the value is outside the target type's range).",
        "Bound the value before narrowing casts (long to int, int to short/byte/char) with "
        "preconditions such as requires Integer.MIN_VALUE <= x && x <= Integer.MAX_VALUE."),
    Category.LARGE_SHIFT: Guidance(
        "A shift distance may be negative or not smaller than the operand's bit width.",
        "Require the shift distance to be in 0..31 for int (0..63 for long)."),
    Category.MISSING_SPECIFICATION: Guidance(
        "The answer has no JML annotation comments (prose, Javadoc or plain comments instead).",
        "Write the specification as JML in //@ or /*@ ... @*/ comments directly above the "
        "method and before each loop; Javadoc and ordinary comments are not checked."),
    Category.CODE_CHANGED: Guidance(
        "The Java code differs from the task's program; only annotations may be added.",
        "Return the original program token for token (same statements, names and literals) and "
        "add JML comments only; do not fix, simplify or reformat the code into something else."),
    Category.VACUOUS: Guidance(
        "The specification proves nothing: it assumes facts instead of stating checked ones "
        "(assume, axiom, a precondition or invariant that is false), or its precondition "
        "excludes every input the task's examples use.",
        "Remove assume statements and axioms; write preconditions that the intended inputs "
        "satisfy (only what the code needs: non-null references, bounds that rule out "
        "overflow or bad indices), and let the postconditions state what the method "
        "computes."),
    Category.UNSUPPORTED_BY_KEY: Guidance(
        "KeY cannot read this program (a limit of the verifier, not of the specification): it "
        "uses Java KeY's front end has no translation for (lambdas, method references, "
        "generic declarations) or a library method KeY's model lacks.",
        "Nothing in the specification can fix this; the program is outside what KeY verifies."),
    Category.OTHER: Guidance(
        "The verifier rejected the specification for a reason no known pattern matches.",
        "Read the verifier message, simplify the specification to the essential pre- and "
        "postconditions and loop invariants, and remove constructs the verifier may not "
        "support."),
}


def guidance_for(category: Category) -> Guidance:
    """The guidance of ``category`` (every category has one)."""
    return GUIDANCE[category]


# --------------------------------------------------------------------------- OpenJML

_ASSERTION_KIND = re.compile(r"The prover cannot establish an assertion \((?P<kind>\w+)")
_OPENJML_KINDS: tuple[tuple[tuple[str, ...], Category], ...] = (
    (("LoopInvariantBeforeLoop", "LoopInvariant"), Category.LOOP_INVARIANT),
    (("ArithmeticOperationRange",), Category.ARITHMETIC_RANGE),
    (("Assignable",), Category.ASSIGNABLE),
    (("Postcondition",), Category.POSTCONDITION),
    (("Assert",), Category.ASSERT),
    (("UndefinedNullDeReference", "PossiblyNullDeReference"), Category.NULL_DEREFERENCE),
    (("PossiblyNegativeIndex", "PossiblyTooLargeIndex", "UndefinedTooLargeIndex",
      "UndefinedNegativeIndex"), Category.ARRAY_INDEX),
    (("PossiblyNegativeSize",), Category.NEGATIVE_SIZE),
    (("LoopDecreases", "LoopDecreasesNonNegative"), Category.RANKING_FUNCTION),
    (("PossiblyBadArrayAssignment",), Category.BAD_ARRAY_ASSIGNMENT),
    (("Precondition",), Category.PRECONDITION),
    (("PossiblyDivideByZero", "UndefinedDivideByZero"), Category.DIVIDE_BY_ZERO),
    (("PossiblyBadCast",), Category.BAD_CAST),
    (("ExceptionalPostcondition",), Category.EXCEPTIONAL_POSTCONDITION),
    (("UndefinedCalledMethodPrecondition",), Category.CALLED_METHOD_PRECONDITION),
    (("PossiblyNullUnbox", "UndefinedNullUnbox"), Category.NULL_UNBOX),
    (("ArithmeticCastRange",), Category.ARITHMETIC_CAST_RANGE),
    (("PossiblyLargeShift",), Category.LARGE_SHIFT),
)
"""FormalBench's table, keyed by the assertion kind OpenJML names in parentheses. Upstream
matches substrings in order, so "Precondition:" shadows "UndefinedCalledMethodPrecondition:"
and "Postcondition:" shadows "ExceptionalPostcondition:"; matching the whole kind keeps every
category reachable. Kinds that only start with a listed name (``Assignable...``) match too."""

_SUM_QUANTIFIERS = ("\\sum", "\\num_of", "\\product")
_MINMAX_QUANTIFIERS = ("\\min", "\\max")


def classify_openjml(level: str, message: str, whole_output: str = "") -> Category:
    """The category of one OpenJML error of ``level`` (``error`` or ``verify``).

    As upstream: an unsupported generalized quantifier (``NOT IMPLEMENTED:``) is checked first,
    then every ``error`` is a syntax error, then the assertion kind decides; the plain
    "Precondition conjunct is false:" is a precondition failure.
    """
    if "NOT IMPLEMENTED:" in whole_output or "NOT IMPLEMENTED:" in message:
        text = whole_output + message
        if any(q in text for q in _SUM_QUANTIFIERS):
            return Category.UNSUPPORTED_SUM
        if any(q in text for q in _MINMAX_QUANTIFIERS):
            return Category.UNSUPPORTED_MINMAX
    if level == "error":
        return Category.SYNTAX_ERROR
    found = _ASSERTION_KIND.search(message)
    if found:
        kind = found["kind"]
        for names, category in _OPENJML_KINDS:
            if kind in names:
                return category
        for names, category in _OPENJML_KINDS:
            if any(kind.startswith(name) for name in names):
                return category
    if "Precondition conjunct is false:" in message:
        return Category.PRECONDITION
    return Category.OTHER


# --------------------------------------------------------------------------- KeY

_KEY_LABELS: tuple[tuple[re.Pattern[str], Category], ...] = (
    (re.compile(r"^Overflow check", re.I), Category.ARITHMETIC_RANGE),
    (re.compile(r"^Null Reference", re.I), Category.NULL_DEREFERENCE),
    (re.compile(r"^Index Out of Bounds", re.I), Category.ARRAY_INDEX),
    (re.compile(r"division by zero|^Div(?:ision|isor)", re.I), Category.DIVIDE_BY_ZERO),
    (re.compile(r"negative array (?:size|length)", re.I), Category.NEGATIVE_SIZE),
    (re.compile(r"array ?store", re.I), Category.BAD_ARRAY_ASSIGNMENT),
    (re.compile(r"class ?cast|^cast", re.I), Category.BAD_CAST),
    (re.compile(r"^Pre \(|^Precondition", re.I), Category.CALLED_METHOD_PRECONDITION),
    (re.compile(r"^Invariant Initially Valid", re.I), Category.LOOP_INVARIANT),
    (re.compile(r"^Body Preserves Invariant", re.I), Category.LOOP_INVARIANT),
    (re.compile(r"^Termination|^Decreas|variant", re.I), Category.RANKING_FUNCTION),
    (re.compile(r"^Exceptional", re.I), Category.EXCEPTIONAL_POSTCONDITION),
    (re.compile(r"^Assertion", re.I), Category.ASSERT),
)
"""KeY's branch labels by the proof obligation they stand for, most specific first."""


def classify_key_goal(labels: Sequence[str]) -> Category:
    """The category of one open KeY goal, from the branch labels on its path (root first).

    The deepest label that names an obligation decides (an overflow inside a loop body is an
    arithmetic range failure, not an invariant failure); a goal under no such label is the
    contract's postcondition on the straight-line path, which is what is left to prove there.
    """
    for label in reversed(labels):
        for pattern, category in _KEY_LABELS:
            if pattern.search(label.strip()):
                return category
    return Category.POSTCONDITION


def classify_key_error(message: str) -> Category:
    """The category of a KeY load or proof-setup error: JML or Java that KeY cannot read is a
    syntax error, except the generalized quantifiers FormalBench counts separately."""
    lowered = message.lower()
    if "not supported" in lowered or "unsupported" in lowered:
        if any(q in message for q in _SUM_QUANTIFIERS):
            return Category.UNSUPPORTED_SUM
        if any(q in message for q in _MINMAX_QUANTIFIERS):
            return Category.UNSUPPORTED_MINMAX
    return Category.SYNTAX_ERROR
