"""Tool output is split where tools end lines (\\r\\n, \\r, \\n), never at the other characters
``str.splitlines`` splits at, which a tool prints raw when it quotes a candidate."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from speckernel.lines import split_lines

SPLITLINES_ONLY = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Where ``str.splitlines`` ends a line and a tool does not."""

no_line_end = st.text(alphabet=st.characters(blacklist_characters="\r\n"))
inline = st.text(alphabet=st.sampled_from([*SPLITLINES_ONLY, "a", " ", "{", ":"]))


def test_only_tool_line_ends_split() -> None:
    glued = "a\x1cb\x85c\u2028d\u2029e\x0bf\x0cg"
    assert split_lines(glued) == [glued] and len(glued.splitlines()) == 7
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert split_lines("a\n\nb\n") == ["a", "", "b"]
    assert split_lines("") == [] and split_lines("\n") == [""]


@given(st.lists(no_line_end))
def test_lines_joined_by_newlines_come_back(lines: list[str]) -> None:
    assert split_lines("".join(f"{line}\n" for line in lines)) == lines


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\r\n" + SPLITLINES_ONLY))))
def test_same_as_splitlines_on_text_without_the_other_separators(lines: list[str]) -> None:
    text = "\r\n".join(lines)
    assert split_lines(text) == text.splitlines()


@given(st.lists(no_line_end, min_size=1), st.integers(min_value=0), inline)
def test_quoted_text_without_line_ends_changes_one_line_only(
        lines: list[str], where: int, quoted: str) -> None:
    index = where % len(lines)
    changed = [*lines]
    changed[index] += quoted
    assert split_lines("".join(f"{line}\n" for line in changed)) == changed
