"""Untrusted text never reaches a terminal or a report page as control sequences or markup
(issue 20: a candidate cleared the screen and retitled the window through ``kernel show``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from speckernel import hookimpl
from speckernel.components import Agent, Benchmark, Phase, Table, Verifier
from speckernel.escaping import printable
from speckernel.model import Diagnostic, Status, Task, Verdict

HOSTILE_TEXTS = [
    "\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "\x9b2J", "safe\rEVIL", "abc\x08\x08\x08XYZ", "\u202etxt.exe", "\u2066hidden\u2069",
    "[bold red]markup[/bold red]", "[link=http://evil.example]y[/link]", ":warning: :skull:",
    "\x00nul", "\x7fdel", "\x1bP+q544e\x1b\\", "\ud800 lone surrogate", "\x1b[6n",
    "\x1b[?1049h", "\x1b[8mhidden\x1b[0m", "line\u2028separator", "a\x0bb\x0cc",
    "<script>alert(1)</script>", "\x1b[31m<b>red</b>\x1b[0m", "\x85next line", "\x1bc",
]
"""What a model, a tool or a plugin may try to show: escape sequences (clear, title, hyperlink,
device report, alternate screen, hidden text, reset), C1 controls, overwriting with carriage
returns and backspaces, bidirectional overrides, rich markup and emoji codes, NUL and DEL, a lone
surrogate, HTML."""

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                     "\u2066-\u2069\u2028\u2029\ud800-\udfff]")


def assert_inert(text: str) -> None:
    found = CONTROL.findall(text)
    assert not found, f"control characters reached the output: {found!r}"


@given(st.text())
def test_printable_leaves_no_control_character_and_keeps_text(text: str) -> None:
    shown = printable(text)
    assert_inert(shown)
    shown.encode("utf-8")  # a terminal can be sent it
    assert "\x1b" not in printable(text, lines=False) and "\n" not in printable(text, lines=False)
    if not CONTROL.search(text):
        assert shown == text


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Zl", "Zp"))))
def test_printable_is_the_identity_on_ordinary_text(text: str) -> None:
    assert printable(text) == text


# --------------------------------------------------------------------------- a hostile plugin

SHOWN: dict[str, str] = {}


class Loud(Benchmark):
    name = "loud"
    phases = (Phase("check", ("loud.verify",)),)
    default_agent = "loud-agent"
    description = ""

    def tasks(self, options: Mapping[str, Any]) -> list[Task]:
        return [Task("t", self.name)]

    def report_tables(self, samples: Sequence[Any]) -> list[Table]:
        text = SHOWN["text"]
        return [Table(f"table {text}", ("column", text), ((text, text),), note=text)]


class LoudVerifier(Verifier):
    name = "loud.verify"

    async def verify(self, candidate: Any, task: Task, ctx: Any) -> Verdict:
        text = SHOWN["text"]
        return Verdict(self.name, Status.FAILURE, (Diagnostic(text, file=text, line=1),),
                       tool=text, tool_version=text)


class LoudAgent(Agent):
    name = "loud-agent"
    needs_model = False

    async def solve(self, task: Task, ctx: Any) -> Mapping[str, str]:
        ctx.log(SHOWN["text"])
        return {"out.txt": SHOWN["text"], SHOWN["text"]: "x"}


class LoudPlugin:
    @hookimpl
    def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
        register(Loud())

    @hookimpl
    def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
        register(LoudVerifier())

    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        register(LoudAgent())


@pytest.fixture
def loud(kernel_plugins: Callable[..., None]) -> Any:
    kernel_plugins(LoudPlugin())
    yield SHOWN
    SHOWN.clear()


@pytest.mark.parametrize("text", HOSTILE_TEXTS, ids=[f"h{i}" for i in range(len(HOSTILE_TEXTS))])
def test_show_report_and_progress_print_hostile_text_inert(kernel_cli, loud, run_dir: Path,
                                                           text: str) -> None:
    loud["text"] = text
    # what is shown is the point here, not the samples' status
    ran = kernel_cli("run", "loud", "--output", run_dir, "--display", "plain")
    assert ran.exit_code == 0, ran.stderr
    assert_inert(ran.stdout)
    shown = kernel_cli("show", run_dir, "t")
    assert shown.exit_code == 0, shown.stderr
    assert_inert(shown.stdout)
    assert printable(text) in shown.stdout, "shown as escapes, not dropped"
    if "[" in text and not CONTROL.search(text):  # rich markup is printed as the text it is
        assert text in shown.stdout
    report = kernel_cli("report", run_dir)
    assert report.exit_code == 0, report.stderr
    for name in ("report.md", "report.html"):
        assert_inert((run_dir / name).read_text())
    html = (run_dir / "report.html").read_text()
    assert "<script>" not in html and "<b>" not in html
    json.loads((run_dir / "report.json").read_text())


@pytest.mark.parametrize("text", HOSTILE_TEXTS, ids=[f"h{i}" for i in range(len(HOSTILE_TEXTS))])
def test_error_lines_and_tables_print_hostile_text_inert(kernel_cli, loud, run_dir: Path,
                                                         text: str) -> None:
    loud["text"] = text
    Loud.description = text
    try:
        listed = kernel_cli("list", "benchmarks")
        assert listed.exit_code == 0
        assert_inert(listed.stdout)
        if "[" in text and not CONTROL.search(text):
            assert text.split("]")[0] in listed.stdout, "markup printed as text"
    finally:
        Loud.description = ""
    unknown = kernel_cli("show", run_dir, text)
    assert unknown.exit_code == 2
    assert_inert(unknown.stderr.rstrip("\n"))
    assert len(unknown.stderr.splitlines()) == 1
    bad = kernel_cli("run", "loud", "-t", text, "--display", "none")
    assert bad.exit_code == 2
    assert_inert(bad.stderr.rstrip("\n"))
