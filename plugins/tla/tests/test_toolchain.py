"""Finding the jar, its version, and the plugin's registration."""

from __future__ import annotations

import importlib.metadata
import shutil
from pathlib import Path

import pytest
from speckernel.errors import KernelError
from speckernel.plugins import Registry

from speckernel_tla import plugin
from speckernel_tla.jvm import driver_classpath
from speckernel_tla.toolchain import JAR_ENV, Tla2ToolsToolchain, build_driver, tlc_version


def test_detect_reports_tlc_version(jar: Path) -> None:
    status = Tla2ToolsToolchain().detect()
    assert status.found and status.path == str(jar)
    assert status.version[0].isdigit() and status.detail.startswith("TLC2 Version")


def test_user_jar_wins(jar: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / "tla2tools.jar"
    shutil.copy(jar, mine)
    monkeypatch.setenv(JAR_ENV, str(mine))
    status = Tla2ToolsToolchain().detect()
    assert status.found and status.path == str(mine) and JAR_ENV in status.detail


def test_a_jar_that_is_not_tla2tools_is_reported(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    bogus = tmp_path / "bogus.jar"
    bogus.write_bytes(b"not a jar")
    monkeypatch.setenv(JAR_ENV, str(bogus))
    status = Tla2ToolsToolchain().detect()
    assert not status.found and status.path == str(bogus)


def test_the_driver_is_built_at_install_not_at_check_time(
        jar: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The checks run in the sandbox, where the tools directory is read-only: a jar without a
    # built driver is "missing" until `kernel tools install` (the command step) builds it.
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tmp_path / "tools"))
    monkeypatch.setenv(JAR_ENV, str(jar))
    status = Tla2ToolsToolchain().detect()
    assert not status.found and "SanyBatch is not built" in status.detail
    with pytest.raises(KernelError, match="SanyBatch driver is not built"):
        driver_classpath(jar)
    assert [s.kind for s in Tla2ToolsToolchain.install] == [
        "debian", "maven", "command", "pypi", "command"]
    assert Tla2ToolsToolchain.install[2].spec.endswith("-m speckernel_tla.toolchain")
    built = build_driver(jar)
    assert (built / "SanyBatch.class").is_file() and built.is_relative_to(tmp_path / "tools")
    assert Tla2ToolsToolchain().detect().found and driver_classpath(jar) == built
    # TLC starts through TlcMain, built beside SanyBatch: a directory missing it is not a build.
    (built / "TlcMain.class").unlink()
    assert not Tla2ToolsToolchain().detect().found


def test_version_keeps_the_build_date() -> None:
    assert tlc_version("TLC2 Version 2.18 of 20 March 2023") == "2.18 of 20 March 2023"


def test_entry_point_registers_the_plugins_components() -> None:
    names = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="speckernel")}
    assert names["tla"] == "speckernel_tla.plugin"
    registry = Registry()
    registry.add_plugin(plugin, "tla")
    assert registry.names("toolchain") == ["tla2tools"]
    assert registry.names("verifier") == ["tla.conformance", "tla.invariants", "tla.runtime",
                                          "tla.sany"]
    assert registry.names("benchmark") == ["tla"]
    assert registry.names("scorer") == ["tla.conformance", "tla.invariants", "tla.runtime",
                                        "tla.syntax"]
