"""FormalBench's five prompt styles, answer extraction, and the category-driven fix prompt."""

from __future__ import annotations

import pytest

from speckernel_jml.failures import Category
from speckernel_jml.javasource import first_difference, jml_comments, strip_jml
from speckernel_jml.prompting import (
    _EXAMPLES,
    COT,
    LEAST_TO_MOST,
    STYLES,
    SYNTAX_RULES,
    extract_specification,
    messages_for,
    repair_messages,
)

CODE = "class A {\n    static int f(int x) { return x; }\n}\n"


@pytest.mark.parametrize("style", STYLES)
def test_every_style_ends_with_the_task_code(style: str) -> None:
    messages = messages_for(style, "Please generate JML specifications.", CODE)
    assert messages[0].role == "system"
    assert messages[-1].role == "user"
    assert CODE.strip() in messages[-1].content


def test_styles_differ_as_formalbench_defines_them() -> None:
    zero = messages_for("zero_shot", "t", CODE)
    assert len(zero) == 2 and COT not in zero[-1].content
    assert messages_for("zs_cot", "t", CODE)[-1].content.endswith(COT)
    few = messages_for("fs_cot", "t", CODE)
    assert [m.role for m in few[1:-1]] == ["user", "assistant"] * 3
    two = messages_for("two_shot", "t", CODE)
    assert SYNTAX_RULES in two[0].content and len(two) == 2 + 4
    assert LEAST_TO_MOST in messages_for("fs_ltm", "t", CODE)[-1].content
    with pytest.raises(ValueError, match="style"):
        messages_for("one_shot", "t", CODE)


def test_examples_are_their_programs_plus_jml() -> None:
    for code, _, spec in _EXAMPLES:
        assert first_difference(code, spec) is None
        assert jml_comments(spec)
        assert first_difference(code, strip_jml(spec)) is None


@pytest.mark.parametrize(("answer", "expected"), [
    (f"Here it is:\n```java\n{CODE}```\nDone.", CODE),
    (f"```java\nint helper;\n```\n### SPECIFICATION\n```\n{CODE}```", CODE),
    (f"```java\n//@ requires true;\n```\n```java\n{CODE}```", CODE),
    (f"reasoning\n### FIXED SPECIFICATION\n```java\n{CODE}```", CODE),
    ("I cannot do that.", "I cannot do that."),
])
def test_extraction(answer: str, expected: str) -> None:
    assert extract_specification(answer) == expected


def test_blocks_without_a_class_are_joined_as_upstream() -> None:
    answer = "```java\n//@ requires x > 0;\n```\n```java\n//@ ensures true;\n```"
    assert extract_specification(answer) == \
        "//@ requires x > 0;\n\n// block\n//@ ensures true;\n"


def test_repair_prompt_lists_each_category_once_with_guidance() -> None:
    messages = repair_messages(CODE, "open goal (Overflow check)",
                               ["ArithmeticOperationRange", "ArithmeticOperationRange",
                                "NullUnbox", "NotACategory"])
    text = messages[-1].content
    assert "### ERROR MESSAGE:\nopen goal (Overflow check)" in text
    assert text.count("Error Type: ArithmeticOperationRange") == 1
    assert "Error Type: NullUnbox" in text and "Error Type: Other" in text
    assert "### FIXED SPECIFICATION" in text
    assert all(c.value in repair_messages("", "", [c.value])[-1].content for c in Category)
