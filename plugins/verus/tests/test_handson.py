"""The hands-on loop (VeruSAGE B4) on recorded Verus verdicts: error priority, planner and
repairs, search/replace answers, acceptance per action, failure history, budgets."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from loop_context import FILE, MISSING_VERUS, TASK_TEXT, LoopContext, recorded_pipeline
from speckernel.model import Task

from speckernel_verus.edits import apply_edits, parse_edits
from speckernel_verus.handson import HandsOnAgent, parse_plan

pytestmark = pytest.mark.anyio

TASK = Task("t", "verus", files={FILE: TASK_TEXT}, metadata={"file": FILE})


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def edit(search: str, replace: str) -> str:
    return f"Here is the fix.\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


INVARIANTS = edit("    while index < arr.len() {",
                  "    while index < arr.len()\n        invariant counter <= index, // inv\n"
                  "    {")
FIX_FRONT = edit("counter <= index, // inv", "counter <= index, index <= arr.len(), // done")


async def test_repairs_in_priority_order_until_verified(
        scripted_model: Callable[..., str]) -> None:
    model = scripted_model([edit("no such line", "x"), INVARIANTS, FIX_FRONT])
    ctx = LoopContext(model, recorded_pipeline(
        [("// done", "verified"), ("// inv", "loops")], default="postcondition_overflow"))
    files = await HandsOnAgent().solve(TASK, ctx)
    assert "// done" in files[FILE] and "index <= arr.len()" in files[FILE]
    # overflow outranks the postcondition, the front invariant outranks the end invariant
    assert "Action ARITHMETIC_OVERFLOW_REPAIR" in ctx.prompts[0]
    assert "Action ARITHMETIC_OVERFLOW_REPAIR" in ctx.prompts[1]
    assert "Action INVARIANT_FRONT_REPAIR" in ctx.prompts[2]
    # the unusable answer is fed back; Verus ran on the start file and on two candidates
    assert "SEARCH text not found" in ctx.prompts[1]
    assert len(ctx.drafts) == 3


async def test_planner_secondary_action_after_a_caught_cheat(
        scripted_model: Callable[..., str]) -> None:
    plan = ('The quantifier is not instantiated.\n{"primary_action": "INSTANTIATE_FORALL", '
            '"secondary_actions": ["NO_SUCH_ACTION", "COMPUTE"]}')
    cheat = edit("    counter\n}", "    proof { assume(false); }\n    counter\n}")
    honest = edit("    counter\n}", "    assert(counter <= arr.len()) by (compute); // done\n"
                  "    counter\n}")
    model = scripted_model([plan, cheat, honest])
    ctx = LoopContext(model, recorded_pipeline([("// done", "verified")], default="assertions"))
    files = await HandsOnAgent().solve(TASK, ctx)
    assert "// done" in files[FILE] and "assume" not in files[FILE]
    assert "INSTANTIATE_FORALL" in ctx.prompts[0] and "primary_action" in ctx.prompts[0]
    assert "Action INSTANTIATE_FORALL" in ctx.prompts[1]
    assert "Action COMPUTE" in ctx.prompts[2]
    assert "the cheat checker rejected it" in ctx.prompts[2] and "assume(false)" in ctx.prompts[2]


async def test_a_candidate_must_meet_its_actions_rule(scripted_model: Callable[..., str]) -> None:
    # INVARIANT_FRONT_REPAIR wants fewer failures; a compile error is never kept
    broken = edit("counter <= index, // inv", "counter <= index,, // broken")
    model = scripted_model([broken, edit("no such line", "x"), FIX_FRONT])
    ctx = LoopContext(model, recorded_pipeline(
        [("// done", "verified"), ("// broken", "syntax_error"), ("// inv", "loops")],
        default="loops"))
    start = apply_edits(TASK_TEXT, parse_edits(INVARIANTS))
    files = await HandsOnAgent().solve(
        Task("t", "verus", files={FILE: start}, metadata={"file": FILE}), ctx)
    assert "// done" in files[FILE] and "// broken" not in files[FILE]
    assert "Action SYNTAX_REPAIR" in ctx.prompts[1] and "// broken" in ctx.prompts[1]
    assert "it does not compile" in ctx.prompts[2]


async def test_a_candidate_that_does_not_compile_gets_one_syntax_repair(
        scripted_model: Callable[..., str]) -> None:
    broken = edit("    counter\n}", "    assert(counter <= arr.len()) // broken\n    counter\n}")
    repair = edit("arr.len()) // broken", "arr.len()); // done")
    model = scripted_model([broken, repair])
    ctx = LoopContext(model, recorded_pipeline(
        [("// done", "verified"), ("// broken", "syntax_error")], default="postcondition_overflow"))
    files = await HandsOnAgent().solve(TASK, ctx)
    assert "arr.len()); // done" in files[FILE]
    assert len(ctx.drafts) == 3 and "Verus: -1 verified, 999 errors (compile error)" in \
        ctx.prompts[1]


async def test_each_action_is_tried_at_most_three_times(
        scripted_model: Callable[..., str]) -> None:
    model = scripted_model(lambda messages: edit("no such line", "x"))
    ctx = LoopContext(model, recorded_pipeline([], default="postcondition_overflow"),
                      {"max_steps": 10})
    files = await HandsOnAgent().solve(TASK, ctx)
    assert files[FILE] == TASK_TEXT
    assert len(ctx.model.calls) == 3
    assert "used its attempts" in ctx.logs[-1]


async def test_step_budget(scripted_model: Callable[..., str]) -> None:
    answers = iter([edit("let mut index = 0;", f"let mut index = 0; // try {i}")
                    for i in range(5)])
    model = scripted_model(lambda messages: next(answers))
    ctx = LoopContext(model, recorded_pipeline([], default="postcondition_overflow"),
                      {"max_steps": 2})
    await HandsOnAgent().solve(TASK, ctx)
    assert len(ctx.model.calls) == 2


async def test_time_budget(scripted_model: Callable[..., str]) -> None:
    ctx = LoopContext(scripted_model([]), recorded_pipeline([], default="loops"),
                      {"max_minutes": 0})
    assert (await HandsOnAgent().solve(TASK, ctx))[FILE] == TASK_TEXT
    assert ctx.model.calls == []


async def test_stops_without_verus(scripted_model: Callable[..., str]) -> None:
    ctx = LoopContext(scripted_model([]), lambda code: [MISSING_VERUS])
    assert (await HandsOnAgent().solve(TASK, ctx))[FILE] == TASK_TEXT
    assert ctx.model.calls == [] and "tool 'verus' is missing" in ctx.logs[-1]


def test_plan_parsing() -> None:
    assert parse_plan('x {"primary_action": "case_analysis", "secondary_actions": ["COMPUTE"]}'
                      ) == ("CASE_ANALYSIS", "COMPUTE")
    assert parse_plan("no json here") == ()
    assert parse_plan('{"primary_action": ') == ()
