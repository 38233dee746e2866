"""Java command lines, and the SanyBatch driver compiled against the jar in use.

Starting a JVM costs about half a second, and SysMoBench's per-action syntax check (notes §2)
starts one per action and recovery round. SanyBatch (``java/SanyBatch.java``) parses many modules
in one JVM instead; it is compiled once per jar, with the JDK's ``javac``, into the plugin's tools
directory, keyed by the hash of the jar and of the driver's source.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from speckernel.errors import KernelError

from speckernel_tla.toolchain import tools_home

DRIVER = "SanyBatch"

JVM_OPTIONS = (
    "-XX:+UseSerialGC",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=256m",
    "-Xss4m",
    "-Dfile.encoding=UTF-8",
    "-Djava.io.tmpdir=.",
    "-XX:-UsePerfData",
    "-XX:TieredStopAtLevel=1",
)
"""Options for every JVM: one GC thread (SANY and ``-workers 1`` TLC are single-threaded), small
up-front reservations (where no memory cgroup exists the sandbox's memory budget falls back to an
address-space limit, and the JVM otherwise reserves a gigabyte of class space alone), room for
SANY's recursive descent on deeply nested expressions, UTF-8 output to decode, and a temporary
directory inside the sandbox's own work directory: SANY copies the standard modules into
``java.io.tmpdir``, and concurrent runs sharing ``/tmp`` race on those copies ("Cannot find source
file for module FiniteSets"). No hsperfdata files either. Only the C1 compiler: the benchmark's
runs are short and budgeted, and C2's compile threads roughly double their CPU time (a gold
TLC run took 3.4-4.3 s of CPU with C2, 1.9-2.0 s without)."""

JVM_ENV = {"MALLOC_ARENA_MAX": "2"}
"""glibc reserves an arena per thread otherwise, which an address-space rlimit counts."""


def java_argv(classpath: Sequence[Path], main: str, args: Sequence[str],
              memory_mb: int | None) -> list[str]:
    """``java ... main args`` with the heap sized to half the sandbox's memory budget, so the
    JVM's own reservations (metaspace, code cache, thread stacks) fit in the rest."""
    heap = [f"-Xmx{max(memory_mb // 2, 128)}m"] if memory_mb else []
    cp = os.pathsep.join(str(p) for p in classpath)
    return ["java", *JVM_OPTIONS, *heap, "-cp", cp, main, *args]


@functools.lru_cache(maxsize=16)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _driver_source() -> bytes:
    return resources.files("speckernel_tla").joinpath(f"java/{DRIVER}.java").read_bytes()


def driver_classpath(jar: Path) -> Path:
    """The directory holding ``SanyBatch.class`` built against ``jar``, compiling it if needed.

    The build goes to a temporary sibling directory renamed into place, so concurrent first
    uses never see a half-written class.
    """
    stat = jar.stat()
    source = _driver_source()
    key = hashlib.sha256(
        _file_sha256(str(jar), stat.st_size, stat.st_mtime_ns).encode() + source
    ).hexdigest()[:16]
    target = tools_home() / "sanybatch" / key
    if (target / f"{DRIVER}.class").is_file():
        return target
    if shutil.which("javac") is None:
        raise KernelError("javac not found: install a JDK (default-jdk-headless) to build "
                          f"the {DRIVER} driver")
    target.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    try:
        (build / f"{DRIVER}.java").write_bytes(source)
        done = subprocess.run(
            ["javac", "-encoding", "UTF-8", "-nowarn", "-cp", str(jar), "-d", str(build),
             str(build / f"{DRIVER}.java")],
            capture_output=True, text=True, timeout=300,
        )
        if done.returncode != 0:
            raise KernelError(f"compiling {DRIVER} against {jar} failed:\n{done.stderr.strip()}")
        (build / f"{DRIVER}.java").unlink()
        try:
            build.rename(target)
        except OSError:  # another process finished first; its build is as good as ours
            if not (target / f"{DRIVER}.class").is_file():
                raise
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return target
