"""The toolchain manager: detection of real tools, the exact install command lines, the install
loop, and the per-process resolver verifiers use."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from speckernel.components import InstallStep, Toolchain, ToolStatus
from speckernel.errors import KernelError
from speckernel.toolchains import (
    DetectedTools,
    InstallSession,
    build_directory,
    detect_all,
    install,
    install_commands,
    install_lock,
    tools_dir,
)


class Java(Toolchain):
    name = "java"

    def detect(self) -> ToolStatus:
        version = self.version_of(["java", "-version"])
        if version is None:
            return ToolStatus(self.name, found=False, detail="java is not on PATH")
        return ToolStatus(self.name, found=True, version=version, path=shutil.which("java") or "")


class Missing(Toolchain):
    name = "missing"
    install = (InstallStep("debian", "no-such-package-speckernel"),)

    def detect(self) -> ToolStatus:
        found = self.version_of(["no-such-tool-speckernel", "--version"]) is not None
        return ToolStatus(self.name, found=found)


class Crashing(Toolchain):
    name = "crashing"

    def detect(self) -> ToolStatus:
        raise RuntimeError("detector bug")


class Recorder:
    """An install runner that only records the command lines (failing those in ``fail``): used to
    check which commands run, in which order, never to pretend a tool got installed."""

    def __init__(self, fail: tuple[str, ...] = ()) -> None:
        self.commands: list[str] = []
        self.fail = fail

    def __call__(self, command: list[str]) -> subprocess.CompletedProcess[str]:
        line = shlex.join(command)
        self.commands.append(line)
        return subprocess.CompletedProcess(command, 1 if line in self.fail else 0)


def appears_after(recorder: Recorder, trigger: str, *steps: InstallStep) -> Toolchain:
    """A toolchain installed by ``steps`` and found once ``recorder`` has run ``trigger``."""

    class Appears(Toolchain):
        name = "appears"
        install = steps

        def detect(self) -> ToolStatus:
            return ToolStatus(self.name, found=trigger in recorder.commands)

    return Appears()


class AlwaysFound(Toolchain):
    name = "always"
    install = (InstallStep("command", "never run"),)

    def detect(self) -> ToolStatus:
        return ToolStatus(self.name, found=True)


needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="no java on PATH")


# --------------------------------------------------------------------------- detection


@needs_java
def test_detect_all_finds_real_and_missing_tools() -> None:
    java, missing, crashing = detect_all([Java(), Missing(), Crashing()])
    assert java.found and "version" in java.version and java.path.endswith("java")
    assert missing == ToolStatus("missing", found=False)
    assert not crashing.found and "detector bug" in crashing.detail


def test_tools_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KERNEL_TOOLS_DIR", raising=False)
    assert tools_dir() == Path.home() / ".local/share/speckernel/tools"
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tmp_path))
    assert tools_dir() == tmp_path


# --------------------------------------------------------------------------- command lines


def test_debian_commands() -> None:
    assert install_commands(InstallStep("debian", "default-jre-headless  z3")) == [
        ["apt-get", "update"],
        ["apt-get", "install", "-y", "--no-install-recommends", "default-jre-headless", "z3"],
    ]


def test_pypi_command() -> None:
    assert install_commands(InstallStep("pypi", "z3-solver>=4.12")) == [
        [sys.executable, "-m", "pip", "install", "z3-solver>=4.12"]
    ]


def test_maven_command_expands_dest(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tmp_path))
    monkeypatch.setenv("HOME", "/home/someone")

    def dest_of(dest: str) -> str:
        (command,) = install_commands(InstallStep("maven", "org.lamport:tla2tools:1.8.0", dest))
        assert command[:3] == ["mvn", "-q", "dependency:copy"]
        assert command[3] == "-Dartifact=org.lamport:tla2tools:1.8.0"
        return command[4].removeprefix("-DoutputDirectory=")

    assert dest_of("{tools}/tla") == f"{tmp_path}/tla"
    assert dest_of("~/jars") == "/home/someone/jars"
    assert dest_of("") == str(tmp_path)


def test_command_step() -> None:
    assert install_commands(InstallStep("command", "echo hi && true")) == [
        ["bash", "-c", "echo hi && true"]
    ]


# --------------------------------------------------------------------------- install loop


def test_install_skips_a_found_tool() -> None:
    recorder = Recorder()
    assert install(AlwaysFound(), runner=recorder, echo=lambda line: None)
    assert recorder.commands == []


def test_install_runs_steps_until_found() -> None:
    recorder = Recorder()
    echoed: list[str] = []
    tool = appears_after(
        recorder,
        "bash -c 'fetch jar'",
        InstallStep("debian", "default-jre-headless"),
        InstallStep("command", "fetch jar"),
        InstallStep("command", "not needed"),
    )
    assert install(tool, runner=recorder, echo=echoed.append)
    assert recorder.commands == [
        "apt-get update",
        "apt-get install -y --no-install-recommends default-jre-headless",
        "bash -c 'fetch jar'",
    ]
    assert echoed == recorder.commands


def test_failed_step_stops_its_commands_not_the_install() -> None:
    recorder = Recorder(fail=("apt-get update",))
    tool = appears_after(
        recorder,
        "bash -c alternative",
        InstallStep("debian", "pkg"),
        InstallStep("command", "alternative"),
    )
    assert install(tool, runner=recorder, echo=lambda line: None)
    assert recorder.commands == ["apt-get update", "bash -c alternative"]


def test_apt_update_runs_once_per_session() -> None:
    recorder = Recorder()
    session = InstallSession(runner=recorder, echo=lambda line: None)
    first = appears_after(recorder, "-", InstallStep("debian", "a"))
    second = appears_after(recorder, "-", InstallStep("debian", "b"))
    assert not session.install(first) and not session.install(second)
    assert recorder.commands.count("apt-get update") == 1
    assert recorder.commands[-1] == "apt-get install -y --no-install-recommends b"


def test_install_reports_a_tool_still_missing() -> None:
    recorder = Recorder()
    assert not install(Missing(), runner=recorder, echo=lambda line: None)
    assert recorder.commands[-1].endswith("no-such-package-speckernel")


QUIET_PIP_INSTALL = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]


def test_real_install_of_a_pypi_package(tmp_path: Path) -> None:
    target = tmp_path / "site"

    class Six(Toolchain):
        name = "six"
        install = (
            InstallStep(
                "command",
                shlex.join([*QUIET_PIP_INSTALL, "--target", str(target), "six"]),
            ),
        )

        def detect(self) -> ToolStatus:
            return ToolStatus(self.name, found=(target / "six.py").is_file())

    echoed: list[str] = []
    assert install(Six(), echo=echoed.append)
    assert echoed[0].startswith("bash -c") and (target / "six.py").is_file()


# --------------------------------------------------------------------------- resolver


class Counting(Toolchain):
    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def detect(self) -> ToolStatus:
        self.calls += 1
        return ToolStatus(self.name, found=True, version=f"call {self.calls}")


def test_detected_tools_caches_per_process_across_threads() -> None:
    tool = Counting()
    tools = DetectedTools({"counting": tool})
    seen: list[ToolStatus] = []
    threads = [
        threading.Thread(target=lambda: seen.append(tools.status("counting"))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert tool.calls == 1 and {s.version for s in seen} == {"call 1"}


def test_detected_tools_guards_detect() -> None:
    assert not DetectedTools({"crashing": Crashing()}).status("crashing").found


def test_unknown_toolchain_suggests_a_name() -> None:
    with pytest.raises(KernelError, match=r"unknown toolchain 'jva' \(did you mean 'java'\?\)"):
        DetectedTools({"java": Java(), "z3": Missing()}).status("jva")


def test_a_build_directory_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "tools" / "driver" / "k1"
    calls: list[Path] = []

    def fill(build: Path) -> None:
        calls.append(build)
        (build / "pkg").mkdir()
        (build / "pkg" / "Driver.class").write_text("bytes")

    def built(where: Path) -> bool:
        return (where / "pkg" / "Driver.class").is_file()

    assert build_directory(target, fill, built) == target
    assert built(target) and len(calls) == 1 and not calls[0].exists()
    assert {oct(p.stat().st_mode & 0o777) for p in (target, target / "pkg")} == {"0o755"}
    build_directory(target, fill, built)
    assert len(calls) == 1  # built already: nothing is done again

    def broken(build: Path) -> None:
        (build / "half").write_text("written before the failure")
        raise RuntimeError("javac failed")

    with pytest.raises(RuntimeError, match="javac failed"):
        build_directory(tmp_path / "other", broken, built)
    assert not (tmp_path / "other").exists() and sorted(tmp_path.iterdir()) == [tmp_path / "tools"]


def test_a_concurrent_build_that_finished_first_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "k1"

    def racing(build: Path) -> None:  # another process renames its build in meanwhile
        target.mkdir()
        (target / "mark").write_text("theirs")
        (build / "mark").write_text("ours")

    assert build_directory(target, racing, lambda where: (where / "mark").is_file()) == target
    assert (target / "mark").read_text() == "theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["k1"]  # our temporary build is gone


# --------------------------------------------------------------------------- concurrent installs

HOLD_THE_LOCK = """
import fcntl, pathlib, sys, time
lock = open(sys.argv[1], "a")
fcntl.flock(lock, fcntl.LOCK_EX)
print("holding", flush=True)
time.sleep(float(sys.argv[3]))
pathlib.Path(sys.argv[2]).write_text("installed by the other process")
"""


def hold_install_lock(tools: Path, marker: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process (a second ``kernel tools install``) that holds the install lock for
    ``seconds``, then leaves the tool installed (``marker``) and exits."""
    tools.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(tools / ".install.lock"), str(marker),
         str(seconds)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
    return holder


def test_an_install_waits_for_another_and_finds_its_tool(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tmp_path / "tools"))
    marker = tmp_path / "tool"

    class InstalledElsewhere(Toolchain):
        name = "elsewhere"
        install = (InstallStep("debian", "the-tool"),)

        def detect(self) -> ToolStatus:
            return ToolStatus(self.name, found=marker.exists())

    holder = hold_install_lock(tmp_path / "tools", marker, 1.0)
    recorder, echoed = Recorder(), []
    assert install(InstalledElsewhere(), runner=recorder, echo=echoed.append)
    assert holder.wait(10) == 0
    assert recorder.commands == []  # no apt-get racing the other install for dpkg's lock
    lock = tmp_path / "tools" / ".install.lock"
    assert echoed == [f"waiting for another install to finish (lock {lock})"]


def test_an_install_lock_held_too_long_is_an_error_not_a_hang(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tmp_path / "tools"))
    holder = hold_install_lock(tmp_path / "tools", tmp_path / "tool", 30.0)
    try:
        with (pytest.raises(KernelError, match=r"another install has held .* for 1 s"),
              install_lock(lambda line: None, wait_s=1.0)):
            pass
    finally:
        holder.kill()
        holder.wait()
    with install_lock(lambda line: None, wait_s=1.0):  # released when its holder died
        pass
