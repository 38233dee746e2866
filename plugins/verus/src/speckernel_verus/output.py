"""Reading what Verus prints with ``--output-json --error-format=json``.

stdout holds one JSON object whose ``verification-results`` counts verified and failed functions;
stderr holds rustc's JSON diagnostics, one object per line. Following VeruSAGE's ``veval.py``
(notes B2): every ``level == "error"`` diagnostic except rustc's closing "aborting due to ..."
becomes a typed error, its kind found by the first known phrase its message contains, and the
run counts as correct only with verified > 0, no errors, no compile error and no typed error.

Both streams are read as lines where they end, at ``\\n`` (:func:`speckernel.lines.split_lines`):
rustc's JSON quotes the candidate's source lines, and leaves U+0085, U+2028 and U+2029 raw in a
JSON string. ``str.splitlines`` cut a diagnostic there into two halves that are not JSON, so a
candidate hid its errors by putting such a character on the lines they point at (a compile error
with no diagnostic left then read as a crash of Verus: an ``error`` verdict, not a failure).
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs
from speckernel.lines import split_lines


class ErrorKind(enum.StrEnum):
    """VeruSAGE's error taxonomy (``VerusErrorType``); the value is its upstream name."""

    PRECONDITION = "PreCondFail"
    PRECONDITION_VEC_LEN = "PreCondFailVecLen"
    POSTCONDITION = "PostCondFail"
    INVARIANT_END = "InvFailEnd"
    INVARIANT_FRONT = "InvFailFront"
    DECREASES_END = "DecFailEnd"
    DECREASES_CONTINUE = "DecFailCont"
    SPLIT_ASSERTION = "SplitAssertFail"
    SPLIT_PRECONDITION = "SplitPreFail"
    SPLIT_POSTCONDITION = "SplitPostFail"
    RECOMMENDS = "RecommendNotMet"
    ASSERTION = "AssertFail"
    ARITHMETIC_OVERFLOW = "ArithmeticFlow"
    MISMATCHED_TYPE = "MismatchedType"
    UNEXPECTED_PROOF_BLOCK = "UnxProofBlock"
    RUST_ASSERT = "RustAssert"
    EXEC_IN_GHOST = "ExecinGhost"
    EXPECTED_PARENTHESES = "ExpectedParentheses"
    UNSUPPORTED_BIT_VECTOR = "UnsupportedForBitVector"
    METHOD_NOT_FOUND = "MethodNotFound"
    LOOP_NO_DECREASES = "LoopNoDec"
    BIT_VECTOR_ASSERTION = "BitVAssertFail"
    TERMINATION = "TerminationFail"
    OTHER = "Other"


MESSAGE_KINDS: tuple[tuple[str, ErrorKind], ...] = (
    ("precondition not satisfied", ErrorKind.PRECONDITION),
    ("postcondition not satisfied", ErrorKind.POSTCONDITION),
    ("invariant not satisfied at end of loop body", ErrorKind.INVARIANT_END),
    ("invariant not satisfied before loop", ErrorKind.INVARIANT_FRONT),
    ("decreases not satisfied at end of loop", ErrorKind.DECREASES_END),
    ("decreases not satisfied at continue", ErrorKind.DECREASES_CONTINUE),
    ("split assertion failure", ErrorKind.SPLIT_ASSERTION),
    ("split precondition failure", ErrorKind.SPLIT_PRECONDITION),
    ("split postcondition failure", ErrorKind.SPLIT_POSTCONDITION),
    ("recommendation not met", ErrorKind.RECOMMENDS),
    ("assertion failed", ErrorKind.ASSERTION),
    ("possible arithmetic underflow/overflow", ErrorKind.ARITHMETIC_OVERFLOW),
    ("mismatched types", ErrorKind.MISMATCHED_TYPE),
    ("unexpected proof block", ErrorKind.UNEXPECTED_PROOF_BLOCK),
    ("panic is not supported", ErrorKind.RUST_ASSERT),
    ("cannot call function with mode exec", ErrorKind.EXEC_IN_GHOST),
    ("expected `)`", ErrorKind.EXPECTED_PARENTHESES),
    ("unsupported for bit-vector", ErrorKind.UNSUPPORTED_BIT_VECTOR),
    ("no method named", ErrorKind.METHOD_NOT_FOUND),
    ("loop must have a decreases clause", ErrorKind.LOOP_NO_DECREASES),
    ("bitvector assertion not satisfied", ErrorKind.BIT_VECTOR_ASSERTION),
    ("could not prove termination", ErrorKind.TERMINATION),
)
"""Message phrase -> kind, tried in order (upstream's dictionary order)."""

VEC_LEN_TRACE = "i < vec.view().len()"
"""A failed precondition whose trace shows this is an out-of-bounds vector index."""

ABORTING = "aborting due to"

VSTD_MARKER = "/vstd/"
"""A span whose file path contains this lies in vstd's sources."""


def classify(message: str, trace: str = "") -> ErrorKind:
    """The kind of an error with ``message``; ``trace`` is the text of its spans."""
    kind = next((k for phrase, k in MESSAGE_KINDS if phrase in message), ErrorKind.OTHER)
    if kind is ErrorKind.PRECONDITION and VEC_LEN_TRACE in trace:
        return ErrorKind.PRECONDITION_VEC_LEN
    return kind


@attrs.frozen
class Span:
    """A place an error points at, with rustc's label and the source line."""

    file: str
    line: int
    column: int
    label: str = ""
    text: str = ""
    primary: bool = True


@attrs.frozen
class VerusError:
    """One error diagnostic, typed. ``in_vstd`` when its primary span lies in vstd's sources
    (upstream treats those apart: the model cannot edit them)."""

    kind: ErrorKind
    message: str
    spans: tuple[Span, ...] = ()
    notes: tuple[str, ...] = ()
    in_vstd: bool = False

    @property
    def where(self) -> Span | None:
        """The primary span outside vstd, else the first span."""
        spans = [s for s in self.spans if s.primary] or list(self.spans)
        return spans[0] if spans else None

    def render(self) -> str:
        """The error as a repair prompt shows it: kind, message, labelled source lines."""
        lines = [f"{self.kind.value}: {self.message}"]
        for span in self.spans:
            label = f" ({span.label})" if span.label else ""
            lines.append(f"  {span.file}:{span.line}:{span.column}{label}: {span.text.strip()}")
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)


@attrs.frozen
class VerusResult:
    """One Verus run, as VeruSAGE's ``EvalScore`` sees it.

    ``verified`` and ``errors`` are Verus's counts; a timeout makes them -1 and 999, and so
    does a compile error (no usable counts, or rustc failing after verification).
    """

    verified: int
    errors: int
    compile_error: bool
    timed_out: bool = False
    verus_errors: tuple[VerusError, ...] = ()
    reason: str = ""

    @property
    def correct(self) -> bool:
        """``is_correct()``: something verified, nothing failed, no compile error."""
        return (self.verified > 0 and self.errors == 0 and not self.compile_error
                and not self.timed_out and not self.verus_errors)

    def rank(self) -> tuple[bool, int, int, int]:
        """Ordering key, larger is better: no compile error, more verified, fewer errors,
        fewer typed errors."""
        return (not self.compile_error, self.verified, -self.errors, -len(self.verus_errors))


TIMED_OUT = VerusResult(-1, 999, compile_error=False, timed_out=True, reason="timeout")


def _json_lines(text: str) -> Iterator[Mapping[str, Any]]:
    for line in split_lines(text):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value


def _span(raw: Mapping[str, Any]) -> Span:
    text = raw.get("text") or []
    return Span(file=str(raw.get("file_name", "")), line=int(raw.get("line_start") or 0),
                column=int(raw.get("column_start") or 0), label=str(raw.get("label") or ""),
                text=str(text[0].get("text", "")) if text else "",
                primary=bool(raw.get("is_primary", True)))


def parse_diagnostic(raw: Mapping[str, Any]) -> VerusError | None:
    """A typed error for one rustc JSON diagnostic, None unless it is a counted error."""
    message = str(raw.get("message", ""))
    if raw.get("level") != "error" or ABORTING in message:
        return None
    spans = tuple(_span(s) for s in raw.get("spans") or ())
    children = raw.get("children") or ()
    spans += tuple(_span(s) for child in children for s in child.get("spans") or ())
    notes = tuple(str(c.get("message", "")) for c in children if c.get("message"))
    trace = "\n".join(s.text for s in spans)
    primary = [s for s in spans if s.primary]
    in_vstd = bool(primary) and all(VSTD_MARKER in s.file for s in primary)
    return VerusError(classify(message, trace), message, spans, notes, in_vstd)


def parse_diagnostics(stderr: str) -> tuple[VerusError, ...]:
    """Every counted error in rustc's JSON diagnostics (stderr); a JSON line that is not a
    well-formed diagnostic is skipped."""
    errors = []
    for raw in _json_lines(stderr):
        if raw.get("$message_type", "diagnostic") != "diagnostic":
            continue
        try:
            error = parse_diagnostic(raw)
        except (TypeError, ValueError, AttributeError, IndexError):
            continue
        if error is not None:
            errors.append(error)
    return tuple(errors)


def verification_results(stdout: str) -> Mapping[str, Any] | None:
    """The ``verification-results`` object of Verus's JSON report (pretty-printed over many
    lines, possibly after other output), if stdout holds one."""
    decoder = json.JSONDecoder()
    for start in _OBJECT_LINE.finditer(stdout):
        try:
            report, _ = decoder.raw_decode(stdout, start.start())
        except json.JSONDecodeError:
            continue
        if isinstance(report, dict) and isinstance(report.get("verification-results"), dict):
            results: Mapping[str, Any] = report["verification-results"]
            return results
    return None


_OBJECT_LINE = re.compile(r"^\{", re.MULTILINE)
"""A ``{`` opening a line: ``re``'s ``^`` matches after ``\\n`` only, where Verus ends lines."""


def parse_run(stdout: str, stderr: str, returncode: int | None) -> VerusResult:
    """The result of one finished (not timed-out) Verus run."""
    errors = parse_diagnostics(stderr)
    results = verification_results(stdout)
    first = errors[0].message if errors else _last_line(stderr) or "no output"
    if results is not None and results.get("encountered-vir-error"):
        return VerusResult(-1, 999, compile_error=True, verus_errors=errors,
                           reason=f"Verus rejected the program before verification: {first}")
    verified, failed = (results or {}).get("verified"), (results or {}).get("errors")
    if results is None or not isinstance(verified, int) or not isinstance(failed, int):
        return VerusResult(-1, 999, compile_error=True, verus_errors=errors,
                           reason=f"no verification results (exit {returncode}): {first}")
    if verified == 0 and failed == 0:
        return VerusResult(-1, 999, compile_error=True, verus_errors=errors,
                           reason=f"nothing was verified: {first}")
    if failed == 0 and returncode not in (0, None):
        return VerusResult(-1, 999, compile_error=True, verus_errors=errors,
                           reason=f"verus verified but rustc exited {returncode}: {first}")
    reason = "" if failed == 0 and not errors else (
        f"{failed} verification error(s): " + "; ".join(sorted({e.kind.value for e in errors})))
    return VerusResult(verified, failed, compile_error=False, verus_errors=errors, reason=reason)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in split_lines(text) if line.strip()]
    return lines[-1][:300] if lines else ""


def error_counts(errors: Sequence[VerusError]) -> dict[str, int]:
    """How many errors of each kind, for a verdict's data."""
    counts: dict[str, int] = {}
    for error in errors:
        counts[error.kind.value] = counts.get(error.kind.value, 0) + 1
    return counts
