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
    assert "2 samples finished" in result.stdout and result.stdout.count("\n") == 2
    assert result.stdout.splitlines()[1] == f"report {run_dir / 'report.html'}"


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


# --------------------------------------------------------------------------- issue 17


def test_help_documents_the_exit_statuses(kernel_cli) -> None:
    text = " ".join(kernel_cli("--help").stdout.split())
    for line in ("0 done", "1 internal failure", "2 usage error",
                 "3 a run finished but some samples ended in error", "4 --max-cost stopped",
                 "5 the run stopped early", "130 interrupted"):
        assert line in text


def test_doctor_prints_install_commands_a_shell_runs_as_they_are(kernel_cli,
                                                                 kernel_plugins) -> None:
    """Issue 17 E: the commands were joined with spaces, so ``bash -c <spec>`` pasted into a
    shell ran ``bash -c echo`` with the rest as its arguments."""
    import shlex

    class Scripted(Toolchain):
        name = "needs-script"
        install = (InstallStep("command", "echo 'two words' > /dev/null"),)

        def detect(self) -> ToolStatus:
            return ToolStatus(self.name, False, detail="not built")

    class Plugin:
        @hookimpl
        def register_toolchains(self, register: Callable[[Toolchain], None]) -> None:
            register(Scripted())

    kernel_plugins(Plugin())
    result = kernel_cli("doctor")
    [line] = [x for x in result.stdout.splitlines() if x.startswith("install needs-script: ")]
    command = line.removeprefix("install needs-script: ").split("  (or: ")[0]
    assert shlex.split(command) == ["bash", "-c", "echo 'two words' > /dev/null"]
    assert "(or: kernel tools install needs-script)" in line


def test_show_finds_a_task_whose_id_has_a_slash(kernel_cli, kernel_plugins, run_dir) -> None:
    """Issue 17 G: a task id with ``/`` (``branching/Clamp``) is not its sample id
    (``branching-Clamp__...-<hash>``), and neither could be given to ``kernel show``."""
    from speckernel.components import Benchmark, Phase, Verifier
    from speckernel.model import Status, Task, Verdict

    class Pass(Verifier):
        name = "slashed.pass"

        async def verify(self, candidate, task, ctx):
            return Verdict(self.name, Status.SUCCESS)  # no tool: nothing to say about one

    class Slashed(Benchmark):
        name = "slashed"
        phases = (Phase("check", ("slashed.pass",)),)

        def tasks(self, options):
            return [Task("branching/Clamp", self.name, reference={"a.txt": "x"}),
                    Task("loops/Sum", self.name, reference={"a.txt": "y"})]

    class Plugin:
        @hookimpl
        def register_benchmarks(self, register):
            register(Slashed())

        @hookimpl
        def register_verifiers(self, register):
            register(Pass())

    kernel_plugins(Plugin())
    assert kernel_cli("run", "slashed", "--output", run_dir, "--display", "none").exit_code == 0
    for name in ("branching/Clamp", "branching/Clamp__reference__none__0", "branching/"):
        shown = kernel_cli("show", run_dir, name)
        assert shown.exit_code == 0, (name, shown.stderr)
        assert "task branching/Clamp" in shown.stdout
    # Issue 17 J: a verdict without tool information reads "(0.00 s)", not "( , 0.00 s)"
    assert "( ," not in shown.stdout and "\n(0.0" in shown.stdout
    written = kernel_cli("artifacts", run_dir, "loops/Sum")
    assert written.exit_code == 0 and written.stdout.count("\n") == 1


def test_a_missing_run_directory_says_so(kernel_cli, tmp_path: Path) -> None:
    """Issue 17 H: it used to say "no sample is installed"."""
    missing = tmp_path / "nowhere"
    for command in ("show", "artifacts", "report"):
        args = (command, missing, "x") if command == "show" else (command, missing)
        result = kernel_cli(*args)
        assert result.exit_code == 2
        assert result.stderr == f"error: {missing}: no such run directory\n", command
    (tmp_path / "empty").mkdir()
    result = kernel_cli("show", tmp_path / "empty", "x")
    assert "is not a run directory (no run.yaml)" in result.stderr


def test_tools_install_takes_several_names(kernel_cli, kernel_plugins) -> None:
    """Plugins and tools, several at once: ``kernel tools install respec jml``."""
    kernel_plugins(Tools())
    result = kernel_cli("tools", "install", "python-found", "speckernel_pyfunc.plugin")
    assert result.exit_code == 0, result.stderr
    assert "2 tool(s) ready" in result.stdout
    bad = kernel_cli("tools", "install", "python-found", "nosuchplugin")
    assert bad.exit_code == 2 and "unknown plugin or tool 'nosuchplugin'" in bad.stderr


def test_list_plugins_and_doctor_print_json(kernel_cli, kernel_plugins) -> None:
    kernel_plugins(Tools())
    listed = json.loads(kernel_cli("list", "--json").stdout)
    assert {"name": "pyfunc", "plugin": "speckernel_pyfunc.plugin",
            "description": "write a small Python function (fixture plugin)"} in listed["benchmarks"]
    assert set(listed) == {"benchmarks", "agents", "models", "verifiers", "scorers",
                           "harnesses", "toolchains"}
    assert json.loads(kernel_cli("list", "tasks", "pyfunc", "--json").stdout) == [
        "gcd", "is_prime", "reverse_words"]
    options = json.loads(kernel_cli("list", "options", "pyfunc", "--json").stdout)
    assert options == [{"name": "only", "default": None,
                        "description": "run only the task of this id"}]
    plugins = json.loads(kernel_cli("plugins", "--json").stdout)
    assert "speckernel_pyfunc.plugin" in {p["name"] for p in plugins["plugins"]}
    assert plugins["failures"] == []
    doctor = json.loads(kernel_cli("doctor", "--json").stdout)
    tools = {t["name"]: t for t in doctor["toolchains"]}
    assert tools["python-found"]["found"] and tools["python-found"]["install"] == []
    assert tools["nosuchtool"]["install"][-1] == (
        "apt-get install -y --no-install-recommends nosuchtool-pkg")
    assert doctor["sandbox"]["name"] == "local"


def test_benchmark_options_are_listed_with_their_descriptions(kernel_cli,
                                                              kernel_plugins) -> None:
    from speckernel.components import Benchmark

    class Described(Benchmark):
        name = "described"
        options = {"per_action": False, "budget_s": 30}
        option_descriptions = {"per_action": "score each action separately",
                               "budget_s": "seconds per check"}

        def tasks(self, options):
            return []

    class Plugin:
        @hookimpl
        def register_benchmarks(self, register):
            register(Described())

    kernel_plugins(Plugin())
    for result in (kernel_cli("list", "options", "described"),
                   kernel_cli("run", "described", "--help")):
        assert result.exit_code == 0, result.stderr
        assert "--per-action / --no-per-action" in result.stdout
        assert "score each action separately" in result.stdout
        assert "--budget-s" in result.stdout and "seconds per check" in result.stdout
    assert "--max-cost" in kernel_cli("run", "--help").stdout


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
