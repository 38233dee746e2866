"""Bad answers are recorded failures with a one-line reason, before any prover runs: prose,
Javadoc instead of JML, a changed method body, an added System.exit, a missing file."""

from __future__ import annotations

from typing import Any

import pytest
from speckernel.model import Status, Task

from speckernel_jml.bundled import make_task
from speckernel_jml.failures import Category
from speckernel_jml.verifiers import cheating_reason, check_file

PROGRAM = """class Twice {
    public static int twice(int x) {
        return x + x;
    }
}
"""
SPEC = """class Twice {
    /*@ public normal_behavior
      @ requires -1000 <= x && x <= 1000;
      @ ensures \\result == 2 * x;
      @*/
    public static int twice(int x) {
        return x + x;
    }
}
"""


def task() -> Task:
    return make_task("t/Twice", "Twice", PROGRAM, "Double a number.", {"category": "sequential"},
                     SPEC)


def test_the_reference_passes_the_check() -> None:
    assert cheating_reason(PROGRAM, SPEC) is None


@pytest.mark.parametrize(("answer", "category", "words"), [
    ("", Category.MISSING_SPECIFICATION, "empty"),
    ("The method doubles x, so the result is 2x.", Category.CODE_CHANGED, "differs"),
    (PROGRAM.replace("    public", "    /** Returns 2x. @return 2*x */\n    public"),
     Category.MISSING_SPECIFICATION, "Javadoc"),
    (PROGRAM, Category.MISSING_SPECIFICATION, "no JML"),
    (SPEC.replace("return x + x;", "return 2 * x;"), Category.CODE_CHANGED, "line 7"),
    (SPEC.replace("return x + x;", "System.exit(0); return x + x;"), Category.CODE_CHANGED,
     "System.exit"),
])
def test_bad_answers(answer: str, category: Category, words: str) -> None:
    found = cheating_reason(PROGRAM, answer)
    assert found is not None
    assert found[0] is category
    assert words in found[1]
    assert "\n" not in found[1]


@pytest.mark.anyio
async def test_check_file_records_reasons_without_running_a_prover(make_ctx: Any) -> None:
    missing = await check_file(task(), {"Other.java": SPEC}, make_ctx())
    assert missing.status is Status.FAILURE
    assert "expected Twice.java" in missing.diagnostics[0].message
    changed = await check_file(task(), {"Twice.java": SPEC.replace("x + x", "x * 2")},
                               make_ctx())
    assert changed.status is Status.FAILURE
    assert changed.categories == ["CodeChanged"]
