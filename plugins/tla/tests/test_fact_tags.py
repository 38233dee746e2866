"""Facts a validation module prints are read only under the tag drawn for that module: what
the model under test prints, whatever it is, is not a fact (``fact_tags``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speckernel_tla import fact_tags

KINDS = ("line", "win")
NUMBERS = st.integers(min_value=0, max_value=9_999_999_999)


def printed(tag: str, kind: str, a: int, b: int, c: int) -> str:
    """The line TLC prints for ``PrintT(<<tag, kind, a, b, c>>)``."""
    return f'<<"{tag}", "{kind}", {a}, {b}, {c}>>'


def test_tags_are_fresh_and_well_formed() -> None:
    tags = {fact_tags.new_tag() for _ in range(1_000)}
    assert len(tags) == 1_000 and all(fact_tags.TAG.fullmatch(t) for t in tags)


@given(facts=st.lists(st.tuples(st.sampled_from(KINDS), NUMBERS, NUMBERS, NUMBERS)),
       noise=st.lists(st.text()), other=st.sampled_from(["SkFact", "Sk" + "0" * 24]))
def test_only_lines_under_the_drawn_tag_are_facts(
        facts: list[tuple[str, int, int, int]], noise: list[str], other: str) -> None:
    tag = fact_tags.new_tag()
    lines = [printed(tag, *fact) for fact in facts]
    forged = [printed(t, *fact) for fact in facts for t in (other, fact_tags.new_tag())]
    output = "\n".join([*noise, *forged, *lines, *noise])
    assert list(fact_tags.read(output, tag, KINDS)) == facts


def test_a_fact_fits_on_one_of_tlcs_printed_lines() -> None:
    """TLC breaks a printed tuple longer than 80 characters over lines."""
    widest = printed(fact_tags.new_tag(), "ready", *[9_999_999_999] * 3)
    assert len(widest) <= 80


def test_a_tag_is_checked_before_it_is_written_or_read() -> None:
    with pytest.raises(ValueError, match="not a fact tag"):
        fact_tags.report('x", TRUE>>) \\/ PrintT(<<"', '"line"', "1", "2", "3")
    with pytest.raises(ValueError, match="not a fact tag"):
        list(fact_tags.read("", ".*", KINDS))
