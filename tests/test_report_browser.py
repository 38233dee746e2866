"""The report and the live display, looked at the way a person does: in a real headless
Chromium (Debian ``chromium`` + ``chromium-driver``, from ``kernel tools install browser``),
driven by Selenium, on a real run of the fixture benchmark by two models.

Marked ``browser`` (``tox -e viewer`` runs these); without the browser they are skipped with the
reason, unless ``KERNEL_REQUIRE_BROWSER=1``. With ``KERNEL_SCREENSHOTS=DIR`` the README's
pictures of both are written into ``DIR``.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from rich._export_format import CONSOLE_SVG_FORMAT
from rich.console import Console

from speckernel import hookimpl
from speckernel.components import Agent, Model, ModelProvider
from speckernel.config import RunConfig
from speckernel.live import LiveDisplay
from speckernel.model import Completion, GenerateParams, Message
from speckernel.providers.pricing import Price, PriceTable
from viewerkit import chromium

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("pyfunc")]

ANSWERS = {
    "gcd": ("def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
            "def gcd(a, b):\n    return a if b == 0 else gcd(b, a % b) if a else b\n",
            "def gcd(a, b):\n    return max(a, b)\n"),
    "is_prime": ("def is_prime(n):\n    return n > 1 and all(n % d for d in range(2, n))\n",
                 "def is_prime(n):\n    return n % 2 == 1\n",
                 "def is_prime(n):\n    return n in (2, 3, 5, 7, 97)\n"),
    "reverse_words": ("def reverse_words(s):\n    return ' '.join(s.split()[::-1])\n",
                      "def reverse_words(s):\n    return s[::-1]\n",
                      "def reverse_words(s):\n    return ' '.join(reversed(s.split(' ')))\n"),
}
"""Per task: a right answer, and two wrong ones (the last is right on some checks)."""

OFFLINE_SVG = re.sub(r"@font-face \{\{.*?\}\}", "", CONSOLE_SVG_FORMAT, flags=re.DOTALL)
"""rich's SVG page without its web fonts (nothing may be fetched: the machine is offline)."""

DEMO_PRICES = PriceTable({"demo:*": Price(2.50, 10.00)})


class DemoModel(Model):
    """A deterministic model: ``demo:strong`` answers right on two attempts in three,
    ``demo:weak`` on one in three; priced like a mid-size hosted model."""

    def __init__(self, name: str) -> None:
        self.id = f"demo:{name}"
        self.right = 2 if name == "strong" else 1
        self.calls: dict[str, int] = {}

    async def complete(self, messages: list[Message], params: GenerateParams) -> Completion:
        prompt = messages[-1].content
        task = next(t for t in ANSWERS if f"{t}(" in prompt)
        n = self.calls[task] = self.calls.get(task, -1) + 1
        answer = ANSWERS[task][0 if n % 3 < self.right else 1 + n % 2]
        usage = DEMO_PRICES.usage(self.id, 180 + 40 * n, 60 + 25 * (n % 3))
        return Completion(f"```solution.py\n{answer}```", self.id, usage, 1.0, "stop")


class DemoProvider(ModelProvider):
    name = "demo"
    description = "deterministic priced answers for the report's pictures"

    def __init__(self) -> None:
        self.models: dict[str, DemoModel] = {}

    def model(self, model: str, options: Mapping[str, Any]) -> Model:
        return self.models.setdefault(model, DemoModel(model))


class Demo:
    @hookimpl
    def register_models(self, register: Any) -> None:
        register(DemoProvider())


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(width=1000, height=900) as driver:
        yield driver


SCREENSHOTS = (Path(os.environ["KERNEL_SCREENSHOTS"]).resolve()
               if os.environ.get("KERNEL_SCREENSHOTS") else None)
"""Read and resolved at import: the tests' private environment (``kernel_env``) drops every
KERNEL_* variable and changes the working directory."""


def screenshots() -> Path | None:
    return SCREENSHOTS


def test_the_report_shows_error_bars_and_cuts_no_column(browser, kernel_cli, kernel_plugins,
                                                        tmp_path: Path) -> None:
    kernel_plugins(Demo())
    run = tmp_path / "runs" / "pyfunc-two-models"
    result = kernel_cli("run", "pyfunc", "--agent", "prompt", "--model", "demo:strong",
                        "--model", "demo:weak", "-n", "3", "--output", run, "--display", "none")
    assert result.exit_code == 0, result.stdout + result.stderr
    browser.set_window_size(1000, 900)
    browser.get((run / "report.html").as_uri())
    assert browser.title == "speckernel report: pyfunc 1"

    bars = browser.find_elements("css selector", "svg.chart g.errorbar line")
    assert len(bars) >= 3 * 2 * 3  # pass@k: 2 arms x 3 ks, each a stem and two caps
    heights = [b.rect["height"] for b in bars[::3]]  # the stems
    assert any(h > 5 for h in heights), heights  # drawn, not collapsed to a point
    legends = browser.find_elements("css selector", "svg.chart g.legend")
    assert {e.text for e in legends} >= {"prompt / demo:strong", "prompt / demo:weak"}

    wrappers = browser.find_elements("css selector", "div.scroll")
    tables = browser.find_elements("css selector", "table")
    assert len(tables) >= 5 and all(
        t.find_element("xpath", "..").get_attribute("class") == "scroll" for t in tables)
    for box in wrappers:
        geometry = browser.execute_script(
            "const box = arguments[0], table = box.querySelector('table');"
            "if (!table) return null;"
            "box.scrollLeft = box.scrollWidth;"
            "const cells = table.querySelectorAll('tr:first-child > *');"
            "const last = cells[cells.length - 1].getBoundingClientRect();"
            "const outer = box.getBoundingClientRect();"
            "return {table: table.scrollWidth, box: box.scrollWidth, client: box.clientWidth,"
            " overflow: getComputedStyle(box).overflowX, lastRight: last.right,"
            " boxRight: outer.right, page: document.documentElement.clientWidth};",
            box)
        if geometry is None:
            continue
        # the whole table lies in its box's scrollable area, the box within the page, and
        # scrolled to its end the last column is in view: no column is cut off
        assert geometry["table"] <= geometry["box"], geometry
        assert geometry["boxRight"] <= geometry["page"] + 1, geometry
        assert geometry["lastRight"] <= geometry["boxRight"] + 1, geometry
        if geometry["table"] > geometry["client"]:
            assert geometry["overflow"] == "auto", geometry
    summary = browser.find_element("xpath", "//h2[text()='Summary']/following-sibling::div")
    assert "mean wall time" in summary.text and "$" in summary.text
    out = screenshots()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        browser.execute_script("document.querySelectorAll('div.scroll')"
                               ".forEach(b => b.scrollLeft = 0)")
        browser.set_window_size(1500, 2150)
        browser.save_screenshot(str(out / "report.png"))


class Paced(Agent):
    """The prompt agent's answer, held back on some samples, so the picture shows samples
    at different stages: odd attempts wait for the test, a candidate of the last task takes
    seconds to import (its verification is seen running)."""

    name = "paced"

    def __init__(self, gate: anyio.Event) -> None:
        self.gate = gate

    async def solve(self, task, ctx):
        completion = await ctx.generate([Message("user", task.prompt)])
        if ctx.key.index % 2:
            await self.gate.wait()
        body = completion.text.split("\n", 1)[1].rsplit("```", 1)[0]
        if task.id == "reverse_words" and ctx.key.index == 0:
            body = "import time\ntime.sleep(4)\n" + body
        return {"solution.py": body}


def test_the_live_display_in_a_terminal_picture(browser, kernel_env, kernel_plugins,
                                                tmp_path: Path) -> None:
    """A frame of a real run, exported by rich as the SVG of a terminal, looked at in
    Chromium: the run directory, samples at their stages, counts, solved, tokens and money."""
    from speckernel import cli, runs

    gate = anyio.Event()

    class Plugin:
        @hookimpl
        def register_agents(self, register: Any) -> None:
            register(Paced(gate))

    kernel_plugins(Demo(), Plugin())
    console = Console(file=io.StringIO(), width=112, force_terminal=True)
    display = LiveDisplay(console, refresh_per_second=10)
    svg: list[str] = []

    async def go() -> None:
        async def look() -> None:
            while display.state is None or not any(
                    r.stage.startswith("verifying") for r in display.state.running.values()
            ) or display.state.finished < 2:
                await anyio.sleep(0.05)
            picture = Console(file=io.StringIO(), width=112, record=True, force_terminal=True)
            picture.print(display.frame())
            svg.append(picture.export_svg(title="kernel run pyfunc --agent paced ...",
                                          code_format=OFFLINE_SVG))
            gate.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(look)
            config = RunConfig(benchmark="pyfunc", agents=("paced",),
                               models=("demo:strong", "demo:weak"), samples=2, max_cost=0.5)
            await runs.start(cli.registry(), config, Path("runs/20261126-101500-pyfunc"),
                             display)

    anyio.run(go)
    page = tmp_path / "live.html"
    page.write_text(f"<!DOCTYPE html><html><body style='margin:0'>{svg[0]}</body></html>",
                    encoding="utf-8")
    browser.set_window_size(1000, 700)
    browser.get(page.as_uri())
    text = " ".join(browser.find_element("css selector", "svg").text.replace("\xa0", " ").split())
    for words in ("run directory runs/20261126-101500-pyfunc", "verifying pyfunc.tests",
                  "generating", "solved", "of $0.5 (--max-cost)", "samples", "ETA"):
        assert words in text, words
    out = screenshots()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        svg_box = browser.find_element("css selector", "svg").rect
        browser.set_window_size(int(svg_box["width"]) + 20, int(svg_box["height"]) + 140)
        browser.find_element("css selector", "svg").screenshot(str(out / "live-display.png"))
