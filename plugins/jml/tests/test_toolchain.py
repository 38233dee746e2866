"""KeY's toolchain: what `kernel tools install jml` runs and how KeY is detected."""

from __future__ import annotations

from pathlib import Path

import pytest
from speckernel.toolchains import install_commands

from speckernel_jml.toolchain import LIB_ENV, KeyToolchain, key_version


def test_install_fetches_the_closure_with_the_bundled_pom() -> None:
    commands = [c for step in KeyToolchain.install for c in install_commands(step)]
    assert ["apt-get", "update"] in commands
    assert any("speckernel_jml.toolchain" in " ".join(c) for c in commands)


def test_version_comes_from_the_core_jar() -> None:
    jars = [Path("antlr4-runtime-4.13.2.jar"), Path("key.core-2.12.3.jar")]
    assert key_version(jars) == "2.12.3"
    assert key_version([Path("key.util-2.12.3.jar")]) is None


def test_missing_jars_say_how_to_install(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    monkeypatch.setenv(LIB_ENV, str(tmp_path))
    status = KeyToolchain().detect()
    assert not status.found
    assert "kernel tools install jml" in status.detail


def test_installed_key_is_found(key_installed: None) -> None:
    status = KeyToolchain().detect()
    assert status.found and status.version == "2.12.3"
