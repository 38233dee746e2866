"""Finding Verus (the ``VERUS`` variable, the tools directory, PATH), the cheat checker's helper
and verusfmt."""

from __future__ import annotations

from pathlib import Path

import pytest

from speckernel_verus.toolchain import (
    RELEASE_DIR,
    VerusToolchain,
    parse_version,
    verus_env,
    verus_read_only,
)

VERSION_OUTPUT = """Verus
  Platform: linux_x86_64
  Version: 0.2025.09.11.ddc6611
  Profile: release
  Toolchain: 1.88.0-x86_64-unknown-linux-gnu
"""


@pytest.fixture
def no_verus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("VERUS", raising=False)
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tmp_path / "tools"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    return tmp_path


def test_version_line() -> None:
    assert parse_version(VERSION_OUTPUT) == "0.2025.09.11.ddc6611"
    assert parse_version("verus 0.2026.08.09.92f466f (release)") == "0.2026.08.09.92f466f"
    assert parse_version("error: no such command") is None


def test_missing_verus_names_every_way_to_get_it(no_verus: Path) -> None:
    status = VerusToolchain().detect()
    assert not status.found
    assert "VERUS" in status.detail and "kernel tools install verus" in status.detail


def test_a_binary_that_does_not_run_is_not_found(no_verus: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    broken = no_verus / "tools" / "verus" / RELEASE_DIR / "verus"
    broken.parent.mkdir(parents=True)
    broken.write_text("not an executable")
    status = VerusToolchain().detect()
    assert not status.found and status.path == str(broken) and "does not run" in status.detail


def test_install_step_is_the_official_release() -> None:
    (step,) = VerusToolchain.install
    assert step.kind == "command" and "x86-linux.zip" in step.spec
    assert "rustup toolchain install 1.88.0" in step.spec


def test_the_sandbox_sees_the_release_and_rusts_homes(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    release = tmp_path / "verus-x86-linux"
    release.mkdir()
    (release / "verus").write_text("")
    monkeypatch.setenv("RUSTUP_HOME", str(tmp_path / "rustup"))
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "absent"))
    monkeypatch.delenv("VERUS_Z3_PATH", raising=False)
    (tmp_path / "rustup").mkdir()
    assert verus_read_only(str(release / "verus")) == [release, tmp_path / "rustup"]


def test_the_sandbox_keeps_rustups_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUSTUP_HOME", "/opt/rustup")
    monkeypatch.delenv("VERUS_Z3_PATH", raising=False)
    env = verus_env()
    assert env["RUSTUP_HOME"] == "/opt/rustup" and "CARGO_HOME" in env
    assert "VERUS_Z3_PATH" not in env


def test_verusfmt_is_a_pinned_crates_io_install_without_the_self_updater(no_verus: Path):
    from speckernel.toolchains import install_commands

    from speckernel_verus.toolchain import VERUSFMT_VERSION, VerusfmtToolchain

    toolchain = VerusfmtToolchain()
    (step,) = toolchain.install
    (command,) = install_commands(step)
    assert f"cargo install verusfmt --version ={VERUSFMT_VERSION}" in command[-1]
    assert "--no-default-features" in command[-1] and "--locked" in command[-1]
    status = toolchain.detect()
    assert not status.found and "kernel tools install verusfmt" in status.detail


def test_the_installed_verusfmt_reports_its_version(verusfmt: Path):
    from speckernel_verus.toolchain import VERUSFMT_VERSION, VerusfmtToolchain

    status = VerusfmtToolchain().detect()
    assert status.found and status.version == VERUSFMT_VERSION and status.path == str(verusfmt)
