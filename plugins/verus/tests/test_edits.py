"""Search-and-replace answers: applied in order, refused when a search text is not unique."""

from __future__ import annotations

import pytest

from speckernel_verus.edits import Edit, EditError, apply_edits, parse_edits, unified_diff

ANSWER = """Two edits.
<<<<<<< SEARCH
    let x = 1;
=======
    let x = 1;
    assert(x == 1);
>>>>>>> REPLACE
and
<<<<<<< SEARCH
fn g() {}
=======
fn g() { }
>>>>>>> REPLACE
"""


def test_blocks_are_parsed_in_order() -> None:
    assert parse_edits(ANSWER) == (
        Edit("    let x = 1;\n", "    let x = 1;\n    assert(x == 1);\n"),
        Edit("fn g() {}\n", "fn g() { }\n"))


def test_edits_apply_in_sequence() -> None:
    text = "fn f() {\n    let x = 1;\n}\nfn g() {}\n"
    assert apply_edits(text, parse_edits(ANSWER)) == (
        "fn f() {\n    let x = 1;\n    assert(x == 1);\n}\nfn g() { }\n")


@pytest.mark.parametrize(("text", "message"), [
    ("fn g() {}\n", "not found"),
    ("    let x = 1;\n    let x = 1;\nfn g() {}\n", "found 2 times"),
])
def test_missing_or_ambiguous_search_is_refused(text: str, message: str) -> None:
    with pytest.raises(EditError, match=message):
        apply_edits(text, parse_edits(ANSWER))


def test_an_answer_without_blocks_is_refused() -> None:
    with pytest.raises(EditError, match="no SEARCH/REPLACE block"):
        apply_edits("x", parse_edits("I think the proof is fine."))


def test_diff_shows_the_change() -> None:
    diff = unified_diff("a\nb\n", "a\nc\n", "t.rs")
    assert "-b" in diff and "+c" in diff and "b/t.rs" in diff
