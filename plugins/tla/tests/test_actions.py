"""Per-action syntax credit: splitting, recovery, and the batched rounds against real SANY."""

from __future__ import annotations

from pathlib import Path

import pytest
import tla_testdata as m
from speckernel.sandbox.base import Sandbox
from tla_testdata import LIMITS

from speckernel_tla.actions import Unit, call_arity, check_actions, recover, split_definitions
from speckernel_tla.sany import parse_sany_output


def test_split_keeps_column_zero_definitions_with_their_lines() -> None:
    units = split_definitions(m.SPIN)
    assert list(units) == ["vars", "TryAcquire", "Release", "Holders", "Broken", "Init", "Next",
                           "Spec", "MutualExclusion"]
    assert units["TryAcquire"].startswith("TryAcquire(t) ==")
    assert units["TryAcquire"].endswith("ELSE UNCHANGED vars")
    assert "\\* A thread" not in units["TryAcquire"]  # the comment precedes it, in vars


def test_call_arity_counts_top_level_commas() -> None:
    body = "F == G(a, [x |-> 1, y |-> 2], {1, 2}) /\\ H() /\\ K"
    assert call_arity(body, "G") == 3
    assert call_arity(body, "H") == 0
    assert call_arity(body, "K") is None


def test_recover_declares_values_and_stubs_calls() -> None:
    unit = Unit("A", "A == x' = F(x, 1) /\\ y")
    output = ("Semantic errors:\n\n*** Errors: 3\n\n"
              "line 1, col 6 to line 1, col 6 of module m_A\n\nUnknown operator: `x'.\n\n\n"
              "line 1, col 13 to line 1, col 13 of module m_A\n\nUnknown operator: `F'.\n\n\n"
              "line 1, col 26 to line 1, col 26 of module m_A\n\nUnknown operator: `y'.\n\n")
    repaired = recover(unit, parse_sany_output("m_A", output, 0))
    assert repaired.variables == ("x", "y")
    assert repaired.stubs == (("F", 2),)
    assert "VARIABLES x, y\nF(x1, x2) == TRUE\n" in repaired.module_text("m_A")
    arity = ("Semantic errors:\n\n*** Errors: 1\n\n"
             "line 1, col 6 to line 1, col 6 of module m_A\n\n"
             "The operator y requires 1 arguments.\n\n")
    fixed = recover(repaired, parse_sany_output("m_A", arity, 0))
    assert fixed.variables == ("x",) and dict(fixed.stubs) == {"F": 2, "y": 1}


@pytest.mark.anyio
async def test_actions_of_a_model_checked_alone(jar: Path, sandbox: Sandbox) -> None:
    actions, whole = await check_actions(sandbox, jar, "spin", m.SPIN, limits=LIMITS,
                                         extra={"spin": m.SPIN})
    assert not whole["spin"].ok  # Broken has a parse error
    failed = {name for name, a in actions.items() if not a.ok}
    assert failed == {"Broken"}
    assert actions["Release"].variables == ("pc", "locked")
    assert actions["Next"].stubs == ("TryAcquire", "Release")
    assert actions["MutualExclusion"].variables == ("Holders",)  # a value: declared
    assert actions["Init"].rounds == 2 and actions["vars"].rounds == 2
    assert actions["Broken"].errors
