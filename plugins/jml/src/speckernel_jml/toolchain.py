"""Finding KeY (``org.key-project:key.core`` and its dependency closure) and installing it.

KeY is not one jar: ``key.core`` needs ``key.util``, ``key.ncore``, ``recoder``, ANTLR and a few
more on the class path. The install copies the whole closure from Maven Central into
``<tools>/key/lib`` with ``mvn dependency:copy-dependencies`` on a tiny bundled POM
(``java/key-closure.xml``); the KeyCheck driver is compiled against it on first use
(:mod:`speckernel_jml.key`). Run ``python -m speckernel_jml.toolchain`` to do the copy by hand.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from speckernel.components import InstallStep, Toolchain, ToolStatus

KEY_VERSION = "2.12.3"
TOOLS_SUBDIR = "key"
LIB_ENV = "KERNEL_KEY_LIB"
"""Environment variable naming a directory of KeY jars (the closure) to use instead."""

_CORE_JAR = re.compile(r"key\.core-(?P<version>[\w.\-]+)\.jar")


def tools_home() -> Path:
    """Where this plugin keeps KeY's jars and the compiled driver."""
    from speckernel.toolchains import tools_dir

    return tools_dir() / TOOLS_SUBDIR


def lib_dir() -> Path:
    """The directory holding KeY's jars: ``$KERNEL_KEY_LIB`` or ``<tools>/key/lib``."""
    user = os.environ.get(LIB_ENV)
    return Path(user).expanduser() if user else tools_home() / "lib"


def key_jars() -> list[Path]:
    """Every jar of the installed closure, sorted (the driver's class path)."""
    directory = lib_dir()
    return sorted(directory.glob("*.jar")) if directory.is_dir() else []


def key_version(jars: list[Path]) -> str | None:
    """The version of ``key.core`` among ``jars``, or None if it is missing."""
    for jar in jars:
        match = _CORE_JAR.fullmatch(jar.name)
        if match:
            return match["version"]
    return None


def install_closure(dest: Path | None = None) -> int:
    """Copy KeY's dependency closure into ``dest`` (default: :func:`lib_dir`); mvn's exit code."""
    target = dest or lib_dir()
    target.mkdir(parents=True, exist_ok=True)
    with resources.as_file(resources.files("speckernel_jml") / "java/key-closure.xml") as pom:
        command = ["mvn", "-q", "-f", str(pom), "dependency:copy-dependencies",
                   f"-DoutputDirectory={target}"]
        print(shlex.join(command))
        return subprocess.run(command).returncode


class KeyToolchain(Toolchain):
    """Java 17 plus KeY's jars: the deductive verifier the ``jml`` benchmark runs."""

    name = "key"
    description = f"KeY {KEY_VERSION} (JML deductive verifier) on a Java runtime, from Maven"
    install = (
        InstallStep("debian", "default-jre-headless default-jdk-headless maven",
                    note="java runs KeY; javac builds the KeyCheck driver; mvn fetches KeY"),
        InstallStep("command", f"{shlex.quote(sys.executable)} -m speckernel_jml.toolchain",
                    note=f"org.key-project:key.core:{KEY_VERSION} and its dependency closure"),
    )

    def detect(self) -> ToolStatus:
        java = self.version_of(["java", "-version"])
        if java is None:
            return ToolStatus(self.name, False, detail="java not found on PATH")
        if shutil.which("javac") is None:
            return ToolStatus(self.name, False, detail="javac not found: install a JDK")
        jars = key_jars()
        version = key_version(jars)
        if version is None:
            return ToolStatus(self.name, False, path=str(lib_dir()),
                              detail=f"no key.core jar in {lib_dir()}: run "
                                     "`kernel tools install jml`")
        return ToolStatus(self.name, True, version=version, path=str(lib_dir()),
                          detail=f"KeY {version}, {len(jars)} jars; {java}")


if __name__ == "__main__":
    sys.exit(install_closure())
