"""The ``kernel`` commands as a user meets them: list, doctor, report, show, cache, env flags."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from speckernel import hookimpl
from speckernel.components import InstallStep, Toolchain, ToolStatus

pytestmark = pytest.mark.usefixtures("pyfunc")


class Found(Toolchain):
    name = "python-found"
    description = "the interpreter running the tests"

    def detect(self) -> ToolStatus:
        return ToolStatus(self.name, True, "3.x", "/usr/bin/python3")


class Missing(Toolchain):
    name = "nosuchtool"
    install = (InstallStep("debian", "nosuchtool-pkg"),)

    def detect(self) -> ToolStatus:
        return ToolStatus(self.name, False, detail="not on PATH")


class Tools:
    @hookimpl
    def register_toolchains(self, register: Callable[[Toolchain], None]) -> None:
        register(Found())
        register(Missing())


def test_version(kernel_cli) -> None:
    result = kernel_cli("--version")
    assert result.exit_code == 0 and result.stdout.startswith("speckernel ")


def test_list_shows_every_kind_and_tasks(kernel_cli) -> None:
    listed = kernel_cli("list")
    assert listed.exit_code == 0
    for word in ("benchmarks", "pyfunc", "agents", "reference", "prompt", "models", "openai",
                 "anthropic", "replay", "verifiers", "pyfunc.tests", "scorers"):
        assert word in listed.stdout
    assert kernel_cli("list", "agents").stdout.count("pyfunc.tests") == 0
    tasks = kernel_cli("list", "tasks", "pyfunc")
    assert tasks.stdout.split() == ["gcd", "is_prime", "reverse_words"]


def test_doctor_shows_found_missing_and_install_command(kernel_cli, kernel_plugins) -> None:
    kernel_plugins(Tools())
    result = kernel_cli("doctor")
    assert result.exit_code == 0
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert "found" in lines["python-found"] and "3.x" in lines["python-found"]
    assert "missing" in lines["nosuchtool"]
    assert "apt-get install -y --no-install-recommends nosuchtool-pkg" in result.stdout
    assert "sandbox local:" in result.stdout
    for layer in ("boundary:", "user:", "capabilities:", "namespaces:", "filesystem:",
                  "network:", "environment:", "lifetime:", "pids cgroup:", "memory:",
                  "disk:", "kernel process:"):
        assert f"  {layer}" in result.stdout, layer


def test_report_and_show(kernel_cli, run_dir: Path) -> None:
    assert kernel_cli("run", "pyfunc", "--output", run_dir, "--display", "none").exit_code == 0
    report = kernel_cli("report", run_dir)
    assert report.exit_code == 0
    for name in ("report.md", "report.csv", "report.json", "report.html"):
        assert (run_dir / name).is_file()
    data = json.loads((run_dir / "report.json").read_text())
    assert data["aggregate"][0]["status_counts"]["success"] == 3
    md = (run_dir / "report.md").read_text()
    assert "passed" in md and "100.0" in md
    shown = kernel_cli("show", run_dir, "gcd")
    assert shown.exit_code == 0
    assert "def gcd" in shown.stdout and "pyfunc.tests: success" in shown.stdout
    assert "passed=1" in shown.stdout
    ambiguous = kernel_cli("show", run_dir, "")
    assert ambiguous.exit_code == 2 and "matches 3 samples" in ambiguous.stderr


def test_environment_variables_set_flags(kernel_cli, run_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERNEL_SAMPLES", "2")
    monkeypatch.setenv("KERNEL_TASK", "gcd")
    monkeypatch.setenv("KERNEL_DISPLAY", "none")
    result = kernel_cli("run", "pyfunc", "--output", run_dir)
    assert result.exit_code == 0
    assert "2 samples finished" in result.stdout and result.stdout.count("\n") == 1


def test_run_file_with_flag_override(kernel_cli, kernel_env: Path, run_dir: Path) -> None:
    (kernel_env / "my-run.yaml").write_text(
        "benchmark: pyfunc\ntasks: [gcd, is_prime]\nsamples: 3\n")
    result = kernel_cli("run", "my-run.yaml", "-n", "1", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0
    assert "2 samples finished" in result.stdout


def test_rerunning_into_a_different_runs_directory_is_refused(kernel_cli, run_dir: Path) -> None:
    assert kernel_cli("run", "pyfunc", "-t", "gcd", "--output", run_dir,
                      "--display", "none").exit_code == 0
    again = kernel_cli("run", "pyfunc", "-n", "4", "--output", run_dir, "--display", "none")
    assert again.exit_code == 2 and "holds a different run" in again.stderr


def test_cache_clear(kernel_cli, run_dir: Path) -> None:
    kernel_cli("run", "pyfunc", "--output", run_dir, "--display", "none")
    assert "verdict: 3 entries" in kernel_cli("cache", "stats").stdout
    assert "removed 3 entries" in kernel_cli("cache", "clear").stdout


def test_tools_install_reports_what_it_cannot_install(kernel_cli, kernel_plugins) -> None:
    kernel_plugins(Tools())
    result = kernel_cli("tools", "install", "nosuchplugin")
    assert result.exit_code == 2 and "unknown plugin or tool 'nosuchplugin'" in result.stderr


def test_tools_install_takes_one_tool_by_name(kernel_cli, kernel_plugins) -> None:
    """Naming a tool installs only it: here the one already found, so the missing one (whose
    install would fail) is not tried."""
    kernel_plugins(Tools())
    result = kernel_cli("tools", "install", "python-found")
    assert result.exit_code == 0 and "1 tool(s) ready" in result.stdout


def test_list_tasks_takes_benchmark_options_like_run(kernel_cli, monkeypatch) -> None:
    """Issue 16: ``kernel list tasks BENCH -o KEY=VALUE`` (and ``KERNEL_OPTION``), so tasks
    that exist only under an option (an upstream checkout, say) can be listed."""
    only = kernel_cli("list", "tasks", "pyfunc", "-o", "only=gcd")
    assert only.exit_code == 0, only.stderr
    assert only.stdout.split() == ["gcd"]
    monkeypatch.setenv("KERNEL_OPTION", "only=is_prime")
    assert kernel_cli("list", "tasks", "pyfunc").stdout.split() == ["is_prime"]
    assert kernel_cli("list", "agents").exit_code == 0  # the variable is for tasks and runs
    monkeypatch.delenv("KERNEL_OPTION")
    for args, message in (
            (("list", "tasks", "pyfunc", "-o", "nope=1"), "unknown option 'nope'"),
            (("list", "tasks", "pyfunc", "-o", "only"), "expected KEY=VALUE"),
            (("list", "tasks", "pyfunc", "-o", "only=.nan"), "finite"),
            (("list", "agents", "-o", "only=gcd"), "is for 'kernel list tasks")):
        refused = kernel_cli(*args)
        assert refused.exit_code == 2 and message in refused.stderr, refused.stderr
        assert len(refused.stderr.splitlines()) == 1
