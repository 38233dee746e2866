"""Java command lines, and where the driver classes built against the jar in use live.

Starting a JVM costs about half a second, and SysMoBench's per-action syntax check (notes §2)
starts one per action and recovery round. SanyBatch (``java/SanyBatch.java``) parses many modules
in one JVM instead, and TlcMain (``java/TlcMain.java``) starts TLC without the third of a second
a breadth-first TLC JVM otherwise idles at exit. ``kernel tools install tla2tools`` compiles both
once per jar (:mod:`speckernel_tla.toolchain`) into the plugin's tools directory, which the
sandbox shows read-only.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from speckernel.errors import KernelError

from speckernel_tla.toolchain import DRIVER, driver_built, driver_dir

JVM_OPTIONS = (
    "-XX:+UseSerialGC",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:MaxMetaspaceSize=256m",
    "-Xss4m",
    "-Dfile.encoding=UTF-8",
    "-Djava.io.tmpdir=.",
    "-XX:-UsePerfData",
)
"""Options for every JVM: one GC thread (SANY and ``-workers 1`` TLC are single-threaded), small
up-front reservations (where no memory cgroup exists the sandbox's memory budget falls back to an
address-space limit, and the JVM otherwise reserves a gigabyte of class space alone), room for
SANY's recursive descent on deeply nested expressions, UTF-8 output to decode, and a temporary
directory inside the sandbox's own work directory: SANY copies the standard modules into
``java.io.tmpdir``, and concurrent runs sharing ``/tmp`` race on those copies ("Cannot find source
file for module FiniteSets"). No hsperfdata files either."""

QUICK = ("-XX:TieredStopAtLevel=1",)
"""Only the C1 compiler, for runs that are short (parsing, simulations, coverage runs, trace
validation): C2's compile threads roughly double their CPU time (a gold TLC run took 3.4-4.3 s
of CPU with C2, 1.9-2.0 s without)."""

JVM_ENV = {"MALLOC_ARENA_MAX": "2"}
"""glibc reserves an arena per thread otherwise, which an address-space rlimit counts."""


def java_argv(classpath: Sequence[Path], main: str, args: Sequence[str],
              memory_mb: int | None, *, search: bool = False) -> list[str]:
    """``java ... main args`` with the heap sized to half the sandbox's memory budget, so the
    JVM's own reservations (metaspace, code cache, thread stacks) fit in the rest. ``search``:
    a model-checking search that may run long (the liveness tableau of the invariant phase),
    given the optimising compiler too, which makes a search of tens of seconds a third shorter
    (locksvc's gold: 15.8 s to 10.7 s) and costs a short run a few hundred milliseconds."""
    heap = [f"-Xmx{max(memory_mb // 2, 128)}m"] if memory_mb else []
    cp = os.pathsep.join(str(p) for p in classpath)
    return ["java", *JVM_OPTIONS, *(() if search else QUICK), *heap, "-cp", cp, main, *args]


def driver_classpath(jar: Path) -> Path:
    """The directory holding the driver classes (``SanyBatch``, ``TlcMain``) built against
    ``jar`` at install time (:func:`speckernel_tla.toolchain.build_driver`)."""
    if not driver_built(jar):
        raise KernelError(f"the {DRIVER} driver is not built for {jar}: run "
                          "`kernel tools install tla2tools`")
    return driver_dir(jar)
