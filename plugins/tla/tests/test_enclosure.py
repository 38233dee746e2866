"""Which template texts may share a checking module (:mod:`speckernel_tla.enclosure`): every
text holding something that reaches past its own definition runs alone, whatever surrounds it;
plain expressions share."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speckernel_tla.enclosure import GENERATED_NAME, enclosed
from speckernel_tla.invariants import (
    DEFINITION_PREFIX,
    MONITOR_MODULE_PREFIX,
    MONITOR_PREFIX,
    RESIDUAL_PREFIX,
    SAFETY_PREFIX,
    WRAPPER_PREFIX,
)
from speckernel_tla.shapes import IDENTIFIER_PREFIX, SHAPE_PREFIX
from speckernel_tla.tlc import BUDGET_PREFIX

PREFIXES = (DEFINITION_PREFIX, SAFETY_PREFIX, MONITOR_PREFIX, RESIDUAL_PREFIX, SHAPE_PREFIX,
            WRAPPER_PREFIX, MONITOR_MODULE_PREFIX, IDENTIFIER_PREFIX, BUDGET_PREFIX)
REACHING = ("(*", "*)", "\\*", "==", "====", "----", " LET ", " CONSTANT ", " CONSTANTS ",
            " VARIABLE ", " VARIABLES ", " ASSUME ", " INSTANCE ", " EXTENDS ", " MODULE ",
            " LOCAL ", " RECURSIVE ", " THEOREM ", " AXIOM ")
SAFE_PIECES = (" x", " y1", " pc[t]", " = ", " # ", " /= ", " <= ", " >= ", " => ", " <=> ",
               " /\\ ", " \\/ ", " ~", " \\in ", " \\A t \\in S : ", " \\E t \\in S : ", " []",
               " <>", " ~> ", " (", " )", " {", " }", " <<", " >>", " 'x'", " \"a\"", " - ",
               " + ", " * ", " .. ", "\n", "\r", "\r\n", "\t", " IF ", " THEN ", " ELSE ",
               " Cardinality", " Skip", " SKETCH", " Let", " WF_vars(Next)", " x'")
PIECES = st.lists(st.sampled_from(SAFE_PIECES), max_size=12)
QUICK = settings(suppress_health_check=[HealthCheck.too_slow])
"""Drawing is cheap; a loaded machine makes it look slow."""


def test_every_name_the_plugin_generates_is_reserved() -> None:
    for prefix in PREFIXES:
        assert GENERATED_NAME.fullmatch(f"{prefix}A"), prefix
        assert not enclosed(f" x > 0 /\\ {prefix}A")


@QUICK
@given(PIECES, st.sampled_from(REACHING), PIECES)
def test_a_text_reaching_past_its_definition_runs_alone(before: list[str], reaching: str,
                                                        after: list[str]) -> None:
    assert not enclosed("".join(before) + reaching + "".join(after))


@QUICK
@given(PIECES, st.sampled_from(PREFIXES), st.from_regex(r"[A-Za-z0-9_]{0,8}", fullmatch=True),
       PIECES)
def test_a_text_naming_a_generated_name_runs_alone(before: list[str], prefix: str, rest: str,
                                                   after: list[str]) -> None:
    assert not enclosed(f"{''.join(before)} {prefix}{rest}{''.join(after)}")


@QUICK
@given(PIECES)
def test_a_plain_expression_shares_a_run(pieces: list[str]) -> None:
    assert enclosed("".join(pieces))
