"""OpenJML output read as FormalBench reads it, on fixtures in OpenJML's format (OpenJML itself
cannot be installed here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA
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
