"""Meta-test: every hook of the contract is documented and exercised by a test."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from speckernel import hookspecs

ROOT = Path(__file__).parent.parent
HOOKS = [name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
         if hasattr(fn, "speckernel_spec")]


def test_the_contract_has_the_seven_hooks() -> None:
    assert sorted(HOOKS) == sorted([
        "register_benchmarks", "register_agents", "register_models", "register_verifiers",
        "register_scorers", "register_harnesses", "register_toolchains"])


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_docstring_and_guide_entry(hook: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, hook)) or ""
    assert ":param register:" in doc and len(doc.split()) > 20, f"{hook} is undocumented"
    guide = (ROOT / "docs" / "writing-a-plugin.md").read_text(encoding="utf-8")
    assert f"`{hook}`" in guide, f"{hook} has no entry in docs/writing-a-plugin.md"


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_exercised_by_a_test(hook: str) -> None:
    me = Path(__file__).name
    users = [p for p in (ROOT / "tests").glob("test_*.py")
             if p.name != me and f"def {hook}(" in p.read_text(encoding="utf-8")]
    assert users, f"no test implements {hook}"
