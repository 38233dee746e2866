"""Finding KeY (``org.key-project:key.core`` and its dependency closure) and installing it.

KeY is not one jar: ``key.core`` needs ``key.util``, ``key.ncore``, ``recoder``, ANTLR and a few
more on the class path. The install copies the whole closure from Maven Central into
``<tools>/key/lib`` with ``mvn dependency:copy-dependencies`` on a tiny bundled POM
(``java/key-closure.xml``), then compiles the KeyCheck driver (``java/KeyCheck.java``) against it
into ``<tools>/key/driver/<hash>``, the hash covering the driver's source and the jar set, so a
new plugin version or a new closure gets a build of its own, and writes KeY's boot class path
into ``<tools>/key/boot/<hash>``: KeY's own Java library model (``JavaRedux``, copied out of the
``key.core`` jar) with the plugin's stubs (``keylib/``) over it. Run ``python -m
speckernel_jml.toolchain`` to do all of it by hand.

This is the only module of the KeY integration that starts processes itself (``mvn``, ``javac``:
trusted commands on the plugin's own files); KeY runs in the kernel's sandbox
(:mod:`speckernel_jml.key`), where the tools directory is read-only — hence the build here.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from speckernel.components import InstallStep, Toolchain, ToolStatus
from speckernel.toolchains import build_directory

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


DRIVER = "KeyCheck"


class KeyUnavailable(RuntimeError):
    """KeY's jars or the compiled driver are missing, or the driver does not compile."""


def install_closure(dest: Path | None = None) -> int:
    """Copy KeY's dependency closure into ``dest`` (default: :func:`lib_dir`); mvn's exit code."""
    target = dest or lib_dir()
    target.mkdir(parents=True, exist_ok=True)
    with resources.as_file(resources.files("speckernel_jml") / "java/key-closure.xml") as pom:
        command = ["mvn", "-q", "-f", str(pom), "dependency:copy-dependencies",
                   f"-DoutputDirectory={target}"]
        print(shlex.join(command))
        return subprocess.run(command).returncode


def _driver_source() -> bytes:
    return resources.files("speckernel_jml").joinpath(f"java/{DRIVER}.java").read_bytes()


def driver_dir(jars: list[Path]) -> Path:
    """Where the driver compiled against ``jars`` lives (built or not)."""
    names = "\n".join(f"{j.name}:{j.stat().st_size}" for j in jars).encode()
    key = hashlib.sha256(_driver_source() + names).hexdigest()[:16]
    return tools_home() / "driver" / key


def driver_classpath() -> list[Path]:
    """The class path running KeyCheck: its compiled classes, then KeY's jars. Raises
    :class:`KeyUnavailable` with the install command when either is missing."""
    jars = key_jars()
    if not jars:
        raise KeyUnavailable("KeY is not installed: run `kernel tools install jml`")
    target = driver_dir(jars)
    if not (target / f"{DRIVER}.class").is_file():
        raise KeyUnavailable(f"the {DRIVER} driver of this plugin version is not built: run "
                             "`kernel tools install jml`")
    return [target, *jars]


def build_driver() -> Path:
    """Compile the driver against the installed jars (nothing to do when this build exists).

    The build goes to a temporary sibling renamed into place, so a concurrent build or a
    sandboxed JVM never sees a half-written class."""
    jars = key_jars()
    if not jars:
        raise KeyUnavailable(f"no KeY jars in {lib_dir()}")
    if shutil.which("javac") is None:
        raise KeyUnavailable("javac not found: install a JDK (default-jdk-headless)")

    def compile_driver(build: Path) -> None:
        (build / f"{DRIVER}.java").write_bytes(_driver_source())
        done = subprocess.run(
            ["javac", "-encoding", "UTF-8", "-nowarn", "-cp", os.pathsep.join(map(str, jars)),
             "-d", str(build), str(build / f"{DRIVER}.java")],
            capture_output=True, text=True, timeout=600,
        )
        if done.returncode != 0:
            raise KeyUnavailable(f"compiling {DRIVER} failed:\n{done.stderr.strip()}")
        (build / f"{DRIVER}.java").unlink()

    return build_directory(driver_dir(jars), compile_driver,
                           lambda target: (target / f"{DRIVER}.class").is_file())


_REDUX = "de/uka/ilkd/key/java/JavaRedux/"


def _stubs() -> dict[str, bytes]:
    """The plugin's library stubs by path under the boot directory (``java/util/HashMap.java``)."""
    found: dict[str, bytes] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
            elif entry.name.endswith(".java"):
                found[prefix + entry.name] = entry.read_bytes()

    walk(resources.files("speckernel_jml").joinpath("keylib"), "")
    return found


def _core_jar(jars: list[Path]) -> Path | None:
    return next((jar for jar in jars if _CORE_JAR.fullmatch(jar.name)), None)


def boot_dir(jars: list[Path]) -> Path:
    """Where the boot class path for ``jars`` and this plugin's stubs lives (built or not)."""
    core = _core_jar(jars)
    digest = hashlib.sha256(f"{core.name}:{core.stat().st_size}".encode() if core else b"")
    for name, data in _stubs().items():
        digest.update(name.encode() + b"\0" + data)
    return tools_home() / "boot" / digest.hexdigest()[:16]


def boot_path() -> Path:
    """KeY's boot class path (:func:`build_boot`); :class:`KeyUnavailable` when not built."""
    target = boot_dir(key_jars())
    if not (target / "java" / "lang" / "Object.java").is_file():
        raise KeyUnavailable("KeY's library model of this plugin version is not built: run "
                             "`kernel tools install jml`")
    return target


def build_boot() -> Path:
    """KeY's library model (the ``JavaRedux`` sources of its ``key.core`` jar) with the
    plugin's stubs written over it, in a directory KeyCheck gives KeY as its boot class path."""
    jars = key_jars()
    core = _core_jar(jars)
    if core is None:
        raise KeyUnavailable(f"no key.core jar in {lib_dir()}")

    def unpack(build: Path) -> None:
        with zipfile.ZipFile(core) as jar:
            for entry in jar.namelist():
                relative = entry[len(_REDUX):]
                if not entry.startswith(_REDUX) or not relative or entry.endswith("/") \
                        or ".." in relative.split("/"):
                    continue
                destination = build / relative
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(jar.read(entry))
        for relative, data in _stubs().items():
            destination = build / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data)

    return build_directory(boot_dir(jars), unpack,
                           lambda target: (target / "java" / "lang" / "Object.java").is_file())


def install() -> int:
    """The install step: the closure from Maven Central, then the driver build and the boot
    class path."""
    code = install_closure()
    if code != 0:
        return code
    try:
        print(f"built {build_driver()}")
        print(f"built {build_boot()}")
    except KeyUnavailable as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


class KeyToolchain(Toolchain):
    """Java 17 plus KeY's jars: the deductive verifier the ``jml`` benchmark runs."""

    name = "key"
    description = f"KeY {KEY_VERSION} (JML deductive verifier) on a Java runtime, from Maven"
    install = (
        InstallStep("debian", "default-jre-headless default-jdk-headless maven",
                    note="java runs KeY; javac builds the KeyCheck driver; mvn fetches KeY"),
        InstallStep("command", f"{shlex.quote(sys.executable)} -m speckernel_jml.toolchain",
                    note=f"org.key-project:key.core:{KEY_VERSION} and its dependency closure; "
                         "the KeyCheck driver compiled against it; KeY's library model "
                         "with the plugin's stubs"),
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
        try:
            driver_classpath()
            boot_path()
        except KeyUnavailable as exc:
            return ToolStatus(self.name, False, path=str(lib_dir()), detail=str(exc))
        return ToolStatus(self.name, True, version=version, path=str(lib_dir()),
                          detail=f"KeY {version}, {len(jars)} jars; {java}")


if __name__ == "__main__":
    sys.exit(install())
