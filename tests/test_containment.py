"""Plugins cannot take the kernel down: every ``BaseException`` a plugin raises (at import, at
registration, from any component method) is contained and reported like any other plugin
failure, while the user's real Ctrl-C still stops the kernel (issue 20)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import textwrap
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from speckernel import hookimpl
from speckernel.components import (
    Agent,
    Benchmark,
    Harness,
    Metric,
    ModelProvider,
    Phase,
    Scorer,
    Toolchain,
    ToolStatus,
    Verifier,
)
from speckernel.model import Score, Status, Task, Verdict
from speckernel.plugins import load_registry


class Weird(BaseException):
    """A plugin's own BaseException subclass."""


KINDS: dict[str, Callable[[], BaseException]] = {
    "SystemExit": lambda: SystemExit(3),
    "SystemExit0": lambda: SystemExit(0),
    "KeyboardInterrupt": KeyboardInterrupt,
    "GeneratorExit": GeneratorExit,
    "CancelledError": asyncio.CancelledError,
    "Weird": lambda: Weird("odd"),
    "BaseExceptionGroup": lambda: BaseExceptionGroup("several", [SystemExit(1), Weird()]),
    "RecursionError": lambda: RecursionError("deep"),
}
"""What a plugin may raise; the name each shows up under is the class name."""

FAULT: dict[str, Callable[[], BaseException]] = {}
"""site -> exception factory, set by each test for the trap plugin below."""


def trip(site: str) -> None:
    make = FAULT.get(site)
    if make is not None:
        raise make()


class Trap(Benchmark):
    name = "trap"
    phases = (Phase("check", ("trap.verify",)),)
    scorers = ("trap.score",)
    harnesses = ("trap.measure",)
    default_agent = "trap-agent"
    options = {"n": 2}

    def tasks(self, options: Mapping[str, Any]) -> list[Task]:
        trip("tasks")
        return [Task(f"t{i}", self.name, reference={"a.txt": "x"}) for i in range(options["n"])]

    def preflight(self, options: Mapping[str, Any], agents: tuple[str, ...]) -> None:
        trip("preflight")

    def pipeline(self, options: Mapping[str, Any]) -> tuple[Phase, ...]:
        trip("pipeline")
        return self.phases

    def report_tables(self, samples: Sequence[Any]) -> list[Any]:
        trip("report_tables")
        return []

    def solved(self, sample: Any) -> bool:
        trip("solved")
        return super().solved(sample)


class TrapVerifier(Verifier):
    name = "trap.verify"

    async def verify(self, candidate: Any, task: Task, ctx: Any) -> Verdict:
        trip("verify")
        return Verdict(self.name, Status.SUCCESS)


class TrapScorer(Scorer):
    name = "trap.score"
    metrics = (Metric("ok"),)

    def score(self, task: Task, candidate: Any, verdicts: Sequence[Verdict]) -> Score:
        trip("score")
        return Score(self.name, {"ok": 1.0})


class TrapHarness(Harness):
    name = "trap.measure"
    metrics = (Metric("speed", unit="count"),)

    async def measure(self, candidate: Any, task: Task, ctx: Any) -> Mapping[str, float]:
        trip("measure")
        return {"speed": 1.0}


class TrapAgent(Agent):
    name = "trap-agent"
    needs_model = False

    async def solve(self, task: Task, ctx: Any) -> Mapping[str, str]:
        trip("solve")
        return {"a.txt": "x"}


class TrapModels(ModelProvider):
    name = "trapmodel"

    def model(self, model: str, options: Mapping[str, Any]) -> Any:
        trip("model")
        raise AssertionError("not reached in these tests")


class TrapTool(Toolchain):
    name = "traptool"

    def detect(self) -> ToolStatus:
        trip("detect")
        return ToolStatus(self.name, True, "1")


class TrapPlugin:
    @hookimpl
    def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
        register(Trap())

    @hookimpl
    def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
        register(TrapVerifier())

    @hookimpl
    def register_scorers(self, register: Callable[[Scorer], None]) -> None:
        register(TrapScorer())

    @hookimpl
    def register_harnesses(self, register: Callable[[Harness], None]) -> None:
        register(TrapHarness())

    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        register(TrapAgent())

    @hookimpl
    def register_models(self, register: Callable[[ModelProvider], None]) -> None:
        register(TrapModels())

    @hookimpl
    def register_toolchains(self, register: Callable[[Toolchain], None]) -> None:
        register(TrapTool())


@pytest.fixture
def trap(kernel_plugins: Callable[..., None]) -> Any:
    kernel_plugins(TrapPlugin())
    yield FAULT
    FAULT.clear()


def records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]


SAMPLE_SITES = {
    # site -> where the failure shows in the saved sample
    "verify": lambda r: r["verdicts"][0]["diagnostics"][0]["message"],
    "score": lambda r: r["error"].removeprefix("scoring: "),
    "measure": lambda r: r["error"].removeprefix("benchmarking: "),
    "solve": lambda r: r["error"].removeprefix("agent trap-agent: "),
    "solved": lambda r: r["error"].removeprefix("benchmark trap: solved: "),
}
PLANNING_SITES = {"tasks": "could not load its tasks", "preflight": "could not check its tools",
                  "pipeline": "could not give its pipeline"}

SAMPLE_CASES = [(site, kind) for site in SAMPLE_SITES for kind in KINDS]
PLANNING_CASES = [(site, kind) for site in PLANNING_SITES for kind in KINDS]


@pytest.mark.parametrize("site, kind", SAMPLE_CASES, ids=[f"{s}-{k}" for s, k in SAMPLE_CASES])
def test_a_component_raising_any_base_exception_is_an_error_sample_and_the_run_goes_on(
        kernel_cli, trap, run_dir: Path, site: str, kind: str) -> None:
    trap[site] = KINDS[kind]
    result = kernel_cli("run", "trap", "--output", run_dir, "--display", "none")
    assert result.exit_code == 3, result.stderr  # the run went on; its samples are errors
    saved = records(run_dir)
    assert len(saved) == 2, "every sample is saved"
    for record in saved:
        assert record["status"] == "error"
        shown = SAMPLE_SITES[site](record)
        assert shown.startswith(type(KINDS[kind]()).__name__), shown


@pytest.mark.parametrize("site, kind", PLANNING_CASES,
                         ids=[f"{s}-{k}" for s, k in PLANNING_CASES])
def test_a_benchmark_raising_any_base_exception_at_planning_is_one_error_line(
        kernel_cli, trap, run_dir: Path, site: str, kind: str) -> None:
    trap[site] = KINDS[kind]
    result = kernel_cli("run", "trap", "--output", run_dir, "--display", "none")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: benchmark 'trap' ") and PLANNING_SITES[site] in line
    assert type(KINDS[kind]()).__name__ in line and "internal error" not in line


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_list_tasks_and_doctor_contain_a_plugin_base_exception(kernel_cli, trap,
                                                               kind: str) -> None:
    trap["tasks"] = KINDS[kind]
    listed = kernel_cli("list", "tasks", "trap")
    assert listed.exit_code == 2 and "could not load its tasks" in listed.stderr
    trap["detect"] = KINDS[kind]
    doctor = kernel_cli("doctor")
    assert doctor.exit_code == 0
    assert "detect() failed" in doctor.stdout


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_model_provider_raising_at_planning_is_one_error_line(kernel_cli, trap,
                                                                kind: str) -> None:
    trap["model"] = KINDS[kind]
    result = kernel_cli("run", "trap", "--agent", "prompt", "--model", "trapmodel:x",
                        "--display", "none")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: model 'trapmodel:x': ")


# --------------------------------------------------------------------------- loading


class RaisesInHook:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        raise KINDS[self.kind]()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_registration_hook_raising_any_base_exception_fails_that_plugin_only(
        kind: str) -> None:
    reg = load_registry({"bad": RaisesInHook(kind)})
    [failure] = reg.failures
    assert failure.name == "bad" and failure.error.startswith(type(KINDS[kind]()).__name__)
    assert "reference" in reg.names("agent")


@pytest.fixture
def entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Install an entry point ``broken`` whose module runs ``body`` when imported."""

    def install(body: str) -> None:
        (tmp_path / "broken_plugin.py").write_text(textwrap.dedent(body))
        info = tmp_path / "broken_plugin-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\n"
                                       "Version: 1.0\n")
        (info / "entry_points.txt").write_text("[speckernel]\nbroken = broken_plugin\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.setenv("KERNEL_LOAD_PLUGINS", "broken")

    return install


IMPORT_BODIES = {
    "SystemExit": "raise SystemExit(3)",
    "sys.exit": "import sys\nsys.exit('bye')",
    "KeyboardInterrupt": "raise KeyboardInterrupt",
    "GeneratorExit": "raise GeneratorExit",
    "Weird": "class Weird(BaseException):\n    pass\nraise Weird('odd')",
    "os.abort-free RecursionError": "def f():\n    return f()\nf()",
}


@pytest.mark.parametrize("name", sorted(IMPORT_BODIES))
def test_a_plugin_raising_any_base_exception_at_import_is_reported_and_every_command_works(
        kernel_cli, entry_point: Callable[[str], None], name: str) -> None:
    entry_point(IMPORT_BODIES[name])
    plugins = kernel_cli("plugins")
    assert plugins.exit_code == 0, plugins.stderr
    assert "broken (broken-plugin): import failed: " in plugins.stdout
    listed = kernel_cli("list", "agents")
    assert listed.exit_code == 0 and "reference" in listed.stdout
    assert "interrupted" not in listed.stderr + plugins.stderr


# --------------------------------------------------------------------------- real Ctrl-C


@pytest.fixture
def foreground() -> Iterator[None]:
    """SIGINT handled as in a terminal's foreground job, where a Ctrl-C comes from: a shell
    starts a background job with SIGINT ignored (the suite run as ``.ci/run &``), and the
    kernel then rightly leaves a SIGINT ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class InterruptsItself(Verifier):
    """Sends the kernel a real SIGINT, as a user's Ctrl-C would, then keeps working."""

    name = "trap.verify"

    async def verify(self, candidate: Any, task: Task, ctx: Any) -> Verdict:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(30)
        return Verdict(self.name, Status.SUCCESS)


def test_a_real_ctrl_c_during_a_run_still_stops_it(foreground, kernel_cli, kernel_plugins,
                                                   run_dir: Path) -> None:
    class Plugin(TrapPlugin):
        @hookimpl
        def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
            register(InterruptsItself())

    kernel_plugins(Plugin())
    started = time.monotonic()
    result = kernel_cli("run", "trap", "--output", run_dir, "--display", "none")
    assert result.exit_code == 130 and "interrupted" in result.stderr
    assert time.monotonic() - started < 20


def test_a_real_ctrl_c_in_plugin_code_outside_a_run_still_stops_the_command(
        foreground, kernel_cli, trap) -> None:
    def ctrl_c() -> BaseException:
        os.kill(os.getpid(), signal.SIGINT)  # the handler raises KeyboardInterrupt here
        raise AssertionError("a real SIGINT raises before this line")

    trap["tasks"] = ctrl_c
    result = kernel_cli("list", "tasks", "trap")
    assert result.exit_code == 130 and "interrupted" in result.stderr
    trap["tasks"] = KeyboardInterrupt  # the next command counts afresh: the plugin's own
    assert kernel_cli("list", "tasks", "trap").exit_code == 2


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_benchmark_raising_in_its_report_tables_is_one_error_line(kernel_cli, trap,
                                                                   run_dir: Path,
                                                                   kind: str) -> None:
    """The tables are made when the run ends (recorded for reports without the plugin): failing
    there is a warning and the run's report is not written; ``kernel report`` asks the plugin
    again and says what failed, in one line."""
    trap["report_tables"] = KINDS[kind]
    ran = kernel_cli("run", "trap", "--output", run_dir, "--display", "none")
    assert ran.exit_code == 0, ran.stderr
    assert "could not build its report tables" in ran.stderr
    assert "no report: benchmark 'trap' could not build its report tables" in ran.stdout
    result = kernel_cli("report", run_dir)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: benchmark 'trap' could not build its report tables: "
                           + type(KINDS[kind]()).__name__)


BASE_ONLY = sorted(k for k in KINDS if not isinstance(KINDS[k](), Exception))


@pytest.mark.parametrize("kind", BASE_ONLY)
def test_the_last_guard_stops_the_command_with_one_line_where_no_closer_guard_is(
        kernel_cli, kernel_plugins, run_dir: Path, kind: str) -> None:
    """``Verifier.tools_for`` is called while the run is set up, outside any plugin guard: a
    BaseException from it still ends as one line, never a silent exit or "interrupted"."""

    class Odd(TrapVerifier):
        def tools_for(self, options: Mapping[str, Any]) -> tuple[str, ...]:
            raise KINDS[kind]()

    class Plugin(TrapPlugin):
        @hookimpl
        def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
            register(Odd())

    kernel_plugins(Plugin())
    result = kernel_cli("run", "trap", "--output", run_dir, "--display", "none")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: plugin code stopped the command: "
                           + type(KINDS[kind]()).__name__)
