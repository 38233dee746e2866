"""Finding the JavaParser jar and a JDK, and building the helper against them.

JavaParser comes from Maven Central (``kernel tools install jml`` copies the jar into the tools
directory). The helper's own sources ship with the plugin and are compiled with ``javac`` by the
install step (``python -m speckernel_jml.javatools``) into
``<tools>/javaparser/javatools/<hash>``, the hash covering the jar and the sources, so an upgraded
plugin or jar gets a build of its own. The helper itself runs in the kernel's sandbox, where the
tools directory is read-only: building there is not possible, hence the install step; this module
is the only one of the helper that starts a process itself (``javac`` on the plugin's own files).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

from speckernel.components import InstallStep, Toolchain, ToolStatus
from speckernel.errors import KernelError
from speckernel.toolchains import build_directory

JAR_ENV = "KERNEL_JAVAPARSER_JAR"
"""Environment variable naming a user-supplied ``javaparser-core`` jar."""

MAVEN_ARTIFACT = "com.github.javaparser:javaparser-core:3.26.2"
TOOLS_SUBDIR = "javaparser"
MAIN_CLASS = "speckernel.javatools.JavaTools"


def tools_home() -> Path:
    """Where the jar and the compiled helper live."""
    from speckernel.toolchains import tools_dir

    return tools_dir() / TOOLS_SUBDIR


def find_jar() -> Path | None:
    """The user's jar if named, else the newest ``javaparser-core`` jar installed from Maven."""
    user = os.environ.get(JAR_ENV)
    if user:
        path = Path(user).expanduser()
        return path if path.is_file() else None
    jars = sorted(tools_home().glob("javaparser-core-*.jar"), reverse=True)
    return jars[0] if jars else None


class JavaParserToolchain(Toolchain):
    """A JDK (the helper compiles in-process with ``javax.tools``) plus JavaParser."""

    name = "javaparser"
    description = "JavaParser and a JDK: the mutation and transformation helper"
    install = (
        InstallStep("maven", MAVEN_ARTIFACT, dest=f"{{tools}}/{TOOLS_SUBDIR}",
                    note="JavaParser, the Java parser the mutants and transformations use"),
        InstallStep("debian", "default-jdk-headless",
                    note="javac and the javax.tools compiler the helper runs in-process"),
        InstallStep("command",
                    f"{shlex.quote(sys.executable)} -m speckernel_jml.javatools",
                    note="the helper compiled against the JavaParser jar"),
    )

    def detect(self) -> ToolStatus:
        javac = self.version_of(["javac", "-version"])
        if javac is None:
            return ToolStatus(self.name, False, detail="javac not found: install a JDK")
        jar = find_jar()
        if jar is None:
            return ToolStatus(self.name, False, detail=f"no javaparser-core jar: set {JAR_ENV} "
                              "or run `kernel tools install jml`")
        version = jar.stem.removeprefix("javaparser-core-")
        try:
            helper_classpath(jar)
        except KernelError as exc:
            return ToolStatus(self.name, False, path=str(jar), detail=str(exc))
        return ToolStatus(self.name, True, version=version, path=str(jar),
                          detail=f"{jar}; {javac}")


@functools.lru_cache(maxsize=8)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _sources() -> dict[str, bytes]:
    folder = resources.files("speckernel_jml.javatools").joinpath("java")
    return {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir(),
                                                                 key=lambda e: e.name)
            if entry.name.endswith(".java")}


def _helper_dir(jar: Path, sources: dict[str, bytes]) -> Path:
    stat = jar.stat()
    key = hashlib.sha256(_digest(str(jar), stat.st_size, stat.st_mtime_ns).encode())
    for name, text in sources.items():
        key.update(name.encode() + b"\0" + text)
    return tools_home() / "javatools" / key.hexdigest()[:16]


def _built(target: Path) -> bool:
    return (target / "speckernel" / "javatools" / "JavaTools.class").is_file()


def helper_classpath(jar: Path) -> list[Path]:
    """The classpath running the helper: its classes and ``jar``; a ``KernelError`` naming the
    install command when this plugin version's build is missing."""
    target = _helper_dir(jar, _sources())
    if not _built(target):
        raise KernelError("the JavaParser helper of this plugin version is not built: run "
                          "`kernel tools install jml`")
    return [target, jar]


def build_helper(jar: Path | None = None) -> Path:
    """Compile the helper against ``jar`` (default: :func:`find_jar`) unless this build exists."""
    found = jar or find_jar()
    if found is None:
        raise KernelError(f"no javaparser-core jar: set {JAR_ENV} or run `kernel tools install "
                          "jml`")
    sources = _sources()
    target = _helper_dir(found, sources)
    return build_directory(target, functools.partial(_compile, found, sources), _built)


def _compile(jar: Path, sources: dict[str, bytes], out: Path) -> None:
    """Compile the helper's ``sources`` against ``jar`` into ``out``."""
    if shutil.which("javac") is None:
        raise KernelError("javac not found: install a JDK (default-jdk-headless) to build the "
                          "JavaParser helper")
    with tempfile.TemporaryDirectory(prefix="javatools-src-") as source_dir:
        for name, text in sources.items():
            (Path(source_dir) / name).write_bytes(text)
        done = subprocess.run(
            ["javac", "-encoding", "UTF-8", "-nowarn", "-cp", str(jar), "-d", str(out),
             *sorted(str(p) for p in Path(source_dir).iterdir())],
            capture_output=True, text=True, timeout=600,
        )
    if done.returncode != 0:
        first = "\n".join(done.stderr.strip().splitlines()[:3])
        raise KernelError(f"compiling the JavaParser helper against {jar} failed:\n{first}")



def main() -> int:
    """The install step: build the helper, say where."""
    try:
        print(f"built {build_helper()}")
    except KernelError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0
