"""The parser against recorded Verus output: VeruSAGE's ``EvalScore`` and error taxonomy."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from verus_fixtures import SPLITLINES_ONLY, as_rustc_prints, parsed, recorded

from speckernel_verus.output import ErrorKind, classify, parse_diagnostics, parse_run


def test_a_verified_file_is_correct() -> None:
    result = parsed("verified")
    assert (result.verified, result.errors, result.compile_error) == (2, 0, False)
    assert result.correct and result.verus_errors == ()


def test_errors_are_typed_and_located() -> None:
    result = parsed("postcondition_overflow")
    assert not result.correct and (result.verified, result.errors) == (1, 1)
    kinds = [e.kind for e in result.verus_errors]
    assert kinds == [ErrorKind.ARITHMETIC_OVERFLOW] * 2 + [ErrorKind.POSTCONDITION]
    post = result.verus_errors[2]
    assert post.where is not None and (post.where.line, post.where.label) == (
        36, "at the end of the function body")
    assert "failed this postcondition" in post.render()


def test_aborting_lines_and_warnings_are_not_errors() -> None:
    result = parsed("assertions")
    assert [e.kind for e in result.verus_errors] == [
        ErrorKind.ASSERTION, ErrorKind.BIT_VECTOR_ASSERTION, ErrorKind.TERMINATION]


def test_vec_index_precondition_is_its_own_kind() -> None:
    vec, seq = parsed("precondition").verus_errors
    assert vec.kind is ErrorKind.PRECONDITION_VEC_LEN
    assert seq.kind is ErrorKind.PRECONDITION
    assert not vec.in_vstd  # the call site is in the task; only the requires clause is in vstd


def test_loop_errors() -> None:
    assert [e.kind for e in parsed("loops").verus_errors] == [
        ErrorKind.INVARIANT_FRONT, ErrorKind.INVARIANT_END, ErrorKind.DECREASES_END,
        ErrorKind.LOOP_NO_DECREASES]


@pytest.mark.parametrize("case", ["syntax_error", "mismatched_types"])
def test_no_report_is_a_compile_error(case: str) -> None:
    result = parsed(case)
    assert result.compile_error and (result.verified, result.errors) == (-1, 999)
    assert result.verus_errors and "no verification results" in result.reason


def test_a_vir_error_stops_before_verification() -> None:
    result = parsed("vir_error")
    assert result.compile_error and not result.correct
    assert [e.kind for e in result.verus_errors] == [ErrorKind.EXEC_IN_GHOST]
    assert result.reason.startswith("Verus rejected the program before verification")


def test_type_errors_keep_their_notes() -> None:
    (error,) = parsed("mismatched_types").verus_errors
    assert error.kind is ErrorKind.MISMATCHED_TYPE and "expected type `u64`" in error.notes[0]


def test_rustc_failing_after_verification_is_a_compile_error() -> None:
    result = parsed("rustc_after_verification")
    assert result.compile_error and not result.correct
    assert "rustc exited 1" in result.reason


def test_nothing_verified_is_a_compile_error() -> None:
    stdout, _, _ = recorded("verified")
    result = parse_run(stdout.replace('"verified": 2', '"verified": 0'), "", 0)
    assert result.compile_error and not result.correct


def test_ranking_follows_eval_score() -> None:
    ranked = sorted((parsed(c) for c in ("syntax_error", "postcondition_overflow", "verified",
                                         "precondition")), key=lambda r: r.rank())
    assert [r.verified for r in ranked] == [-1, 1, 1, 2]
    assert ranked[1].errors == 2  # same verified count: more errors ranks lower


@pytest.mark.parametrize(("message", "kind"), [
    ("split assertion failure", ErrorKind.SPLIT_ASSERTION),
    ("cannot call function with mode exec", ErrorKind.EXEC_IN_GHOST),
    ("no method named `foo` found for struct `Vec`", ErrorKind.METHOD_NOT_FOUND),
    ("panic is not supported (if you used Rust's `assert!` macro, you may have meant to use "
     "Verus's `assert` function)", ErrorKind.RUST_ASSERT),
    ("something new", ErrorKind.OTHER),
])
def test_classify(message: str, kind: ErrorKind) -> None:
    assert classify(message) is kind


def test_malformed_lines_are_skipped() -> None:
    _, stderr, _ = recorded("postcondition_overflow")
    noise = ('not json\n{"$message_type": "diagnostic", "level": "error", "message": "x", '
             '"spans": [{"text": 5}]}\n{"$message_type": "artifact", "artifact": "a.rmeta"}\n')
    assert parse_diagnostics(noise + stderr) == parse_diagnostics(stderr)


# ------------------------------------------------------------------ quoted source in diagnostics

@pytest.mark.parametrize("separator", list(SPLITLINES_ONLY))
def test_a_quoted_source_line_cannot_hide_its_error(separator: str) -> None:
    """A candidate ending the erroring line with ``// <U+2028>`` (whitespace to Rust) kept its
    type error out of the parse: the diagnostic, cut in two, was no JSON, and the compile error
    with no diagnostic read as a crash of Verus, an ``error`` verdict, not a failure."""
    stdout, stderr, code = recorded("mismatched_types")
    quoted = as_rustc_prints(stderr, f"    counter // {separator}")
    if separator < " ":
        assert separator not in quoted  # escaped: \u001c
    else:
        assert separator in quoted
    result = parse_run(stdout, quoted, code)
    assert [e.kind for e in result.verus_errors] == [ErrorKind.MISMATCHED_TYPE]
    assert result.verus_errors[0].spans[0].text == f"    counter // {separator}"


_FORGED = json.dumps({"$message_type": "diagnostic", "message": "aborting due to 1 previous error",
                      "level": "error", "spans": [], "children": []})


@given(st.text(alphabet=st.characters(blacklist_characters="\r\n", codec="utf-8"))
       | st.builds(lambda a, b: f"{a}\u2028{_FORGED}\u2028{b}", st.text(max_size=5),
                   st.text(max_size=5)))
def test_any_quoted_text_leaves_the_errors_as_they_are(source_line: str) -> None:
    """Whatever one source line holds (it has no line end), the diagnostics quoting it parse to
    the same errors, the line among their spans."""
    for case in ("postcondition_overflow", "mismatched_types", "loops"):
        stdout, stderr, code = recorded(case)
        expected = [(e.kind, e.message) for e in parse_run(stdout, stderr, code).verus_errors]
        result = parse_run(stdout, as_rustc_prints(stderr, source_line), code)
        assert [(e.kind, e.message) for e in result.verus_errors] == expected
        assert all(s.text == source_line for e in result.verus_errors for s in e.spans)
