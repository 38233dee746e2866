"""The lexer behind the cheating check: comments are told from code exactly."""

from __future__ import annotations

from speckernel_jml.javasource import (
    code_tokens,
    first_difference,
    jml_comments,
    strip_jml,
    tokenize,
    top_level_class,
)

PROGRAM = """import java.util.*;

class Abs {
    public static int abs(int x) {
        String s = "// not a comment /* nor this */";
        char c = '\\'';
        if (x < 0) {
            return -x;
        }
        return x;
    }
}
"""

ANNOTATED = """import java.util.*;
class Abs {
    /*@ public normal_behavior
      @ requires x > Integer.MIN_VALUE;
      @ ensures \\result >= 0;
      @*/
    public static int abs(int x) {
        String s = "// not a comment /* nor this */";   // a plain comment
        char c = '\\'';
        //@ assert true;
        if (x < 0) { return -x; }
        return x;
    }
}
"""


def test_comment_markers_inside_literals_are_code() -> None:
    strings = [t.text for t in tokenize(PROGRAM) if t.kind == "string"]
    assert strings == ['"// not a comment /* nor this */"']
    assert not any(t.is_comment for t in tokenize(PROGRAM))


def test_jml_comments_are_the_at_sign_comments_only() -> None:
    found = [t.text.split()[0] for t in jml_comments(ANNOTATED)]
    assert found == ["/*@", "//@"]


def test_adding_jml_comments_and_relayout_changes_no_code() -> None:
    assert first_difference(PROGRAM, ANNOTATED) is None


def test_strip_jml_gives_back_the_program() -> None:
    assert first_difference(PROGRAM, strip_jml(ANNOTATED)) is None
    assert not jml_comments(strip_jml(ANNOTATED))
    assert "a plain comment" in strip_jml(ANNOTATED)


def test_a_changed_body_is_located() -> None:
    changed = ANNOTATED.replace("return -x;", "return x * -1;")
    difference = first_difference(PROGRAM, changed)
    assert difference is not None
    assert difference.line == 11
    assert difference.expected.startswith("-")
    assert "line 11" in difference.describe()


def test_truncated_code_is_a_difference() -> None:
    difference = first_difference(PROGRAM, "class Abs {")
    assert difference is not None
    assert "ends early" in difference.describe()


def test_imports_do_not_count_as_code() -> None:
    assert [t.text for t in code_tokens(PROGRAM)][:2] == ["class", "Abs"]
    assert first_difference(PROGRAM, PROGRAM.replace("import java.util.*;", "")) is None


def test_operators_are_munched_maximally() -> None:
    assert [t.text for t in tokenize("a >>>= b >= c ->")] == ["a", ">>>=", "b", ">=", "c", "->"]


def test_unterminated_comment_does_not_raise() -> None:
    tokens = list(tokenize("class A { /*@ requires x"))
    assert tokens[-1].is_jml


def test_top_level_class() -> None:
    assert top_level_class(ANNOTATED) == "Abs"
    assert top_level_class("no java here") is None
