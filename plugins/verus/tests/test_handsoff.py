"""The hands-off loop: the text protocol (edits, whole files, RUN commands, DONE), the vstd
tools, budgets, and stopping when verified or when Verus is missing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from loop_context import FILE, MISSING_VERUS, TASK_TEXT, LoopContext, recorded_pipeline
from speckernel.model import Task

from speckernel_verus.handsoff import Command, HandsOffAgent, apply_answer, parse_command
from speckernel_verus.vstd import VstdSources

pytestmark = pytest.mark.anyio

TASK = Task("t", "verus", prompt="Add the proof.", files={FILE: TASK_TEXT},
            metadata={"file": FILE})


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def vstd(tmp_path: Path) -> Path:
    (tmp_path / "std_specs").mkdir()
    (tmp_path / "seq_lib.rs").write_text("pub proof fn lemma_push_len<A>(s: Seq<A>, a: A)\n")
    (tmp_path / "std_specs" / "vec.rs").write_text("pub open spec fn spec_index() {}\n")
    return tmp_path


def edit(search: str, replace: str, command: str) -> str:
    return (f"<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n\n{command}\n")


def test_commands() -> None:
    assert parse_command("I will check.\nRUN verus\n") == Command("verus")
    assert parse_command("RUN vstd std_specs/vec.rs") == Command("vstd", "std_specs/vec.rs")
    assert parse_command("```\nRUN verus\n```\nDONE") == Command("done")
    assert parse_command("The proof is complete.") is None


def test_answers_edit_or_replace_the_file() -> None:
    code, note = apply_answer("a\nb\n", edit("b", "c", "RUN verus"))
    assert (code, note) == ("a\nc\n", "Edits applied.")
    code, note = apply_answer("a\n", edit("zzz", "c", ""))
    assert code == "a\n" and "not found" in note
    whole = "```rust\nverus! { fn f() {} }\n```\nDONE"
    assert apply_answer("a\n", whole) == ("verus! { fn f() {} }\n", "File replaced.")
    assert apply_answer("a\n", "no change") == ("a\n", "")


async def test_tools_then_verus_until_verified(scripted_model: Callable[..., str],
                                               vstd: Path) -> None:
    model = scripted_model([
        "Let me look at the library.\nRUN vstd",
        "RUN grep lemma_push",
        "RUN vstd std_specs/vec.rs",
        edit("    let mut index = 0;", "    let mut index = 0; // first", "RUN verus"),
        edit("// first", "// done", "RUN verus"),
    ])
    ctx = LoopContext(model, recorded_pipeline([("// done", "verified")],
                                               default="postcondition_overflow"),
                      {"vstd_path": str(vstd)})
    files = await HandsOffAgent().solve(TASK, ctx)
    assert "// done" in files[FILE]
    assert "seq_lib.rs" in ctx.prompts[1] and "std_specs/vec.rs" in ctx.prompts[1]
    assert "seq_lib.rs:1: pub proof fn lemma_push_len" in ctx.prompts[2]
    assert "spec_index" in ctx.prompts[3]
    assert "Edits applied." in ctx.prompts[4] and "PostCondFail" in ctx.prompts[4]
    assert "1 verified, 1 errors" in ctx.prompts[4]
    assert len(ctx.drafts) == 2 and len(ctx.model.calls) == 5


async def test_cheats_are_reported_back(scripted_model: Callable[..., str]) -> None:
    model = scripted_model([
        edit("    counter\n}", "    proof { assume(false); }\n    counter\n}", "RUN verus"),
        "DONE"])
    ctx = LoopContext(model, recorded_pipeline([], default="loops"))
    files = await HandsOffAgent().solve(TASK, ctx)
    assert "The cheat checker rejected the file" in ctx.prompts[1]
    assert "assume(false)" in files[FILE]  # the answer is judged as it is


async def test_verus_run_budget(scripted_model: Callable[..., str]) -> None:
    model = scripted_model(["RUN verus", "RUN verus", "DONE"])
    ctx = LoopContext(model, recorded_pipeline([], default="loops"), {"max_verus_runs": 1})
    await HandsOffAgent().solve(TASK, ctx)
    assert len(ctx.drafts) == 1 and "No Verus runs left" in ctx.prompts[2]


async def test_turn_budget_and_unknown_commands(scripted_model: Callable[..., str]) -> None:
    model = scripted_model(lambda messages: "RUN make")
    ctx = LoopContext(model, recorded_pipeline([], default="loops"), {"max_turns": 3})
    await HandsOffAgent().solve(TASK, ctx)
    assert len(ctx.model.calls) == 3 and "Unknown command 'make'" in ctx.prompts[1]


async def test_no_vstd_configured(scripted_model: Callable[..., str]) -> None:
    ctx = LoopContext(scripted_model(["RUN vstd", "DONE"]),
                      recorded_pipeline([], default="loops"))
    await HandsOffAgent().solve(TASK, ctx)
    assert "not available" in ctx.prompts[1]


async def test_stops_when_verus_is_missing(scripted_model: Callable[..., str]) -> None:
    ctx = LoopContext(scripted_model([edit("let mut index = 0;", "let mut index = 0; // x",
                                           "RUN verus")]), lambda code: [MISSING_VERUS])
    files = await HandsOffAgent().solve(TASK, ctx)
    assert "// x" in files[FILE] and "tool 'verus' is missing" in ctx.logs[-1]


@pytest.mark.usefixtures("helper")
async def test_run_cheats_asks_the_real_checker(scripted_model: Callable[..., str]) -> None:
    model = scripted_model([
        edit("    counter\n}", "    proof { assume(false); }\n    counter\n}", "RUN cheats"),
        edit("    proof { assume(false); }\n    counter", "    counter", "RUN cheats"),
        "DONE"])
    ctx = LoopContext(model, recorded_pipeline([], default="loops"))
    files = await HandsOffAgent().solve(TASK, ctx)
    assert "assume" in ctx.prompts[1] and "No cheat found" not in ctx.prompts[1]
    assert "No cheat found" in ctx.prompts[2]
    assert files[FILE] == TASK_TEXT and ctx.drafts == []  # no Verus run


def test_vstd_reads_stay_inside_the_sources(vstd: Path) -> None:
    sources = VstdSources(vstd / "std_specs")
    assert "no vstd file" in sources.show("../seq_lib.rs")
    assert "spec_index" in sources.show("vec.rs")
    assert sources.grep("nothing like this") == "no match for 'nothing like this'"
