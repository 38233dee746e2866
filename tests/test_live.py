"""The live display of a run: what a frame shows, that a real run feeds it (stages, counts,
tokens, money), and that providers' retries and 429s reach it."""

from __future__ import annotations

import io
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from speckernel import hookimpl, runstate
from speckernel.components import Agent
from speckernel.config import RunConfig
from speckernel.live import LiveDisplay, clock, render
from speckernel.model import GenerateParams, Message, Sample, SampleKey, Status, Usage
from speckernel.runstate import RunState
from test_providers import Canned, ScriptedServer, chat_reply, openai_model

pytestmark = pytest.mark.usefixtures("pyfunc")

GOOD_GCD = ("```solution.py\ndef gcd(a, b):\n    while b:\n        a, b = b, a % b\n"
            "    return a\n```")


def text_of(renderable: object, width: int = 140) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def state_mid_run() -> RunState:
    state = RunState(Path("runs/20261126-tla"), "tla", total=20, skipped=2, max_cost=5.0,
                     started=100.0)
    for i, task in enumerate(("spinlock", "raft/log", "mutex")):
        state.begin(SampleKey(task, "basic", "openai:gpt-4o", i))
        state.running[SampleKey(task, "basic", "openai:gpt-4o", i)].started = 100.0 + i
    state.running[SampleKey("spinlock", "basic", "openai:gpt-4o", 0)].stage = "generating"
    state.running[SampleKey("raft/log", "basic", "openai:gpt-4o", 1)].stage = \
        "verifying tla.runtime"
    for status, solved in ((Status.SUCCESS, True), (Status.SUCCESS, False),
                           (Status.FAILURE, False), (Status.ERROR, False)):
        state.end(Sample(SampleKey("done", "basic", "m", 0), status, solved=solved))
    state.model_call(Usage(41_230, 9_120, 1.25, 25), cached=False)
    state.model_call(Usage(10, 10, 0.5, 1), cached=True)
    state.retries, state.rate_limited = 3, 1
    return state


def test_a_frame_shows_what_a_researcher_asks_of_a_running_run() -> None:
    frame = text_of(render(state_mid_run(), now=160.0))
    for text in ("speckernel run tla", "run directory runs/20261126-tla",
                 "6/20 samples", "1:00 elapsed", "ETA 3:30",  # 60 s for 4: 14 left at 15 s
                 "2 success", "1 failure", "1 error", "(+2 before this session)",
                 "solved 1 of 4 (25%)",
                 "model calls: 25 (+1 from the cache)", "tokens 41,230 in / 9,120 out",
                 "cost $1.2500 of $5 (--max-cost)", "retries 3 (1 rate-limited, HTTP 429)",
                 "running (3)", "generating", "verifying tla.runtime", "raft/log"):
        assert text in frame, text
    assert clock(3725) == "1:02:05" and clock(None) == "?"


def test_unknown_prices_are_said_in_the_frame() -> None:
    state = RunState(Path("r"), "b", 1, 0)
    state.model_call(Usage(5, 5, 0.0, 2, unpriced_calls=2), cached=False)
    assert "cost unknown (2 unpriced calls)" in text_of(render(state))


def test_names_from_plugins_are_shown_as_text_not_markup() -> None:
    state = RunState(Path("r"), "[bold red]b", 1, 0)
    state.begin(SampleKey("[link=x]t[/link]", "a", "m", 0))
    frame = text_of(render(state))
    assert "[bold red]b" in frame and "[link=x]t[/link]" in frame


class Pausing(Agent):
    """Waits on the test before it answers, so the test can look at a frame mid-run."""

    name = "pausing"
    needs_model = True

    def __init__(self, gate: anyio.Event) -> None:
        self.gate = gate

    async def solve(self, task, ctx):
        completion = await ctx.generate([Message("user", task.prompt)])
        await self.gate.wait()
        return {"solution.py": completion.text.split("\n", 1)[1].rsplit("```", 1)[0]}


def test_a_real_run_feeds_the_display(kernel_env: Path, kernel_plugins, scripted_model,
                                      tmp_path: Path) -> None:
    from speckernel import cli, runs

    gate = anyio.Event()

    class Plugin:
        @hookimpl
        def register_agents(self, register):
            register(Pausing(gate))

    kernel_plugins(Plugin())
    model = scripted_model(lambda messages: GOOD_GCD)
    console = Console(file=io.StringIO(), width=140, record=True, force_terminal=True)
    display = LiveDisplay(console, refresh_per_second=20)
    frames: list[str] = []

    async def go() -> None:
        async def look() -> None:
            while display.state is None or len(display.state.running) < 3 or any(
                    r.stage != "generating" for r in display.state.running.values()) or \
                    display.state.usage.calls < 3:
                await anyio.sleep(0.02)
            frames.append(text_of(display.frame()))
            gate.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(look)
            config = RunConfig(benchmark="pyfunc", agents=("pausing",), models=(model,),
                               max_cost=2.0)
            await runs.start(cli.registry(), config, tmp_path / "run", display)

    anyio.run(go)
    [frame] = frames
    assert f"run directory {tmp_path / 'run'}" in frame
    assert "0/3 samples" in frame and "running (3)" in frame and "generating" in frame
    assert "model calls: 3" in frame and "of $2 (--max-cost)" in frame
    final = text_of(display.frame())
    # the gcd answer is right for gcd only
    assert "3/3 samples" in final and "1 success · 2 failure" in final
    assert "solved 1 of 3 (33%)" in final
    assert "running (0)" in final


@pytest.mark.anyio
async def test_retries_and_429s_of_a_provider_reach_the_run_state() -> None:
    with ScriptedServer() as server:
        server.script.extend([Canned(429, {"error": {"message": "slow down"}}),
                              Canned(503, {"error": {"message": "busy"}}), chat_reply()])
        state = RunState(Path("r"), "b", 1, 0)
        runstate.enter_run(state)
        await openai_model(server).complete([Message("user", "hi")], GenerateParams())
    assert (state.retries, state.rate_limited) == (2, 1)
