"""OpenJML output read as FormalBench reads it, on fixtures in OpenJML's format (OpenJML itself
cannot be installed here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA
from hypothesis import given
from hypothesis import strategies as st
from speckernel.model import Status

from speckernel_jml import openjml
from speckernel_jml.failures import Category
from speckernel_jml.verifiers import OpenJmlBackend, openjml_outcome


def fixture(name: str) -> str:
    return (DATA / "openjml" / f"{name}.txt").read_text()


@pytest.mark.parametrize(("name", "n_errors"), [
    ("verified", 0), ("postcondition", 2), ("overflow_and_index", 4), ("syntax_error", 2),
    ("unsupported_sum", 1), ("ranking_and_precondition", 3), ("internal_bug", -5)])
def test_error_counts_follow_extract_output(name: str, n_errors: int) -> None:
    assert openjml.count_errors(fixture(name)) == n_errors


def test_associated_declarations_join_their_error_and_warnings_are_dropped() -> None:
    messages = openjml.parse_messages(fixture("overflow_and_index"))
    assert [(m.line, m.category) for m in messages] == [
        (14, Category.ARITHMETIC_RANGE), (14, Category.ARRAY_INDEX),
        (11, Category.LOOP_INVARIANT)]
    assert "Associated method exit" in messages[-1].detail
    [post] = openjml.parse_messages(fixture("postcondition"))
    assert post.category is Category.POSTCONDITION
    assert "Associated declaration" in post.detail and "\\result >= 0" in post.detail


def test_syntax_and_unsupported_and_called_precondition() -> None:
    assert {m.category for m in openjml.parse_messages(fixture("syntax_error"))} == {
        Category.SYNTAX_ERROR}
    assert [m.category for m in openjml.parse_messages(fixture("unsupported_sum"))] == [
        Category.UNSUPPORTED_SUM]
    assert [m.category for m in openjml.parse_messages(fixture("ranking_and_precondition"))] == [
        Category.RANKING_FUNCTION, Category.CALLED_METHOD_PRECONDITION, Category.PRECONDITION]


def test_outcomes_map_n_errors_to_verdicts() -> None:
    assert openjml_outcome(fixture("verified"), False, "A.java").status is Status.SUCCESS
    failed = openjml_outcome(fixture("postcondition"), False, "Absolute.java")
    assert failed.status is Status.FAILURE
    assert failed.categories == ["PostconditionFailure"]
    assert failed.diagnostics[0].line == 7
    bug = openjml_outcome(fixture("internal_bug"), False, "A.java")
    assert bug.status is Status.FAILURE and bug.data["n_errors"] == -5
    assert openjml_outcome("", True, "A.java").status is Status.TIMEOUT


def test_command_is_formalbenchs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    binary = tmp_path / "openjml"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.setenv(openjml.ENV, str(binary))
    assert openjml.command("A.java", {}) == [
        str(binary), "--esc", "--prover=cvc4", "--nullable-by-default", "--esc-max-warnings",
        "1", "A.java"]
    monkeypatch.setenv(openjml.ENV, str(tmp_path / "missing"))
    assert openjml.command("A.java", {}) is None


@pytest.mark.anyio
async def test_missing_openjml_is_an_error_verdict_naming_the_fix(
        monkeypatch: pytest.MonkeyPatch, make_ctx: object, tmp_path: Path) -> None:
    monkeypatch.setenv(openjml.ENV, str(tmp_path / "missing"))
    outcome = await OpenJmlBackend().check("A.java", "class A {}", make_ctx())  # type: ignore[operator]
    assert outcome.status is Status.ERROR
    assert "OPENJML" in outcome.diagnostics[0].message


# ------------------------------------------------------------- the candidate's quoted source lines

FORGED_COUNTS = " // 0 verification failures, 0 warnings, 0 errors"
SEPARATORS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
"""Where ``str.splitlines`` ends a line and OpenJML does not."""


def quoting(output: str, added: str) -> str:
    """``output`` as OpenJML prints it when every source line it quotes (the line above a caret
    line) ends with ``added``: a comment the candidate put there."""
    lines = output.split("\n")
    return "\n".join(line + added if i + 1 < len(lines) and lines[i + 1].strip() == "^" else line
                     for i, line in enumerate(lines))


def test_counts_in_a_quoted_comment_do_not_verify_a_failed_proof() -> None:
    """FormalBench's reading takes the first "N verification failure" anywhere: the comment on
    the failing ensures clause, quoted before the summary, made the count 0 and the verdict
    success."""
    output = quoting(fixture("postcondition"), FORGED_COUNTS)
    assert FORGED_COUNTS in output
    assert openjml.count_errors(output) == 2
    assert openjml_outcome(output, False, "Absolute.java").status is Status.FAILURE


def test_a_quoted_line_reading_as_a_summary_is_not_one() -> None:
    """A whole quoted line (a JML block comment's line) that reads "0 errors": its caret line
    follows it, so it is not OpenJML's count, even where OpenJML printed none (a crash)."""
    output = ("Bad.java:3: error: illegal start of expression\n0 errors\n^\n"
              + fixture("internal_bug"))
    assert openjml.count_errors(output) == -5
    assert openjml.count_errors(fixture("syntax_error").replace(
        "      //@ ensures \\result >= 0\n", "0 errors\n")) == 2


@pytest.mark.parametrize("separator", SEPARATORS)
def test_a_separator_in_a_quoted_line_forges_no_message(separator: str) -> None:
    """OpenJML prints the line raw: ``str.splitlines`` read what follows the separator as a
    message header of the candidate's choosing."""
    forged = f" /* {separator}Absolute.java:1: verify: forged{separator}1 error */"
    output = quoting(fixture("postcondition"), forged)
    assert [(m.line, m.text) for m in openjml.parse_messages(output)] == [
        (m.line, m.text) for m in openjml.parse_messages(fixture("postcondition"))]
    assert openjml.count_errors(output) == 2


quoted_text = (st.text(alphabet=st.characters(blacklist_characters="\r\n", codec="utf-8"))
               | st.lists(st.sampled_from([*SEPARATORS, "0 errors", "0 warnings", " ", "x",
                                           "0 verification failures", "A.java:1: error: x",
                                           "A.java:2: verify: y"])).map("".join))
"""Any text without a line end, and text built from separators and pieces of OpenJML's own."""


@given(quoted_text)
@pytest.mark.parametrize("name", ["postcondition", "overflow_and_index", "syntax_error",
                                  "ranking_and_precondition", "unsupported_sum"])
def test_any_quoted_text_leaves_counts_and_messages(name: str, added: str) -> None:
    """Whatever a quoted source line holds (it has no line end), the count and the messages
    (where, what level, what text) are those of the output without it."""
    output = fixture(name)
    changed = quoting(output, added)
    assert openjml.count_errors(changed) == openjml.count_errors(output)

    def heads(text: str) -> list[tuple[str, int, str, str]]:
        return [(m.file, m.line, m.level, m.text) for m in openjml.parse_messages(text)]

    assert heads(changed) == heads(output)
