"""KeY throughput for the jml plugin (issue 3): a warm JVM against a JVM per check, and the
kernel runner's parallel speedup.

Checks the bundled tasks' reference specs (every contract proved by KeY's automatic strategy),
each as the verifier hands it to KeY (``key_input``: the program as KeY can read it, nullable by
default; the task's test inputs for the vacuity probes; the plugin's library on the boot class
path), prepared once before timing starts:
1. one warm KeyCheck JVM serving all checks (``KeyServer``; its start-up included),
2. one fresh JVM per check (``check_once``, what a plain command line per file costs),
both in the kernel's local sandbox, as the verifier runs them,
and prints verifications per minute of each and their ratio (goal: >= 3x). Then it runs
``kernel run jml --agent reference`` on the same tasks with 1 and with 2 verifier slots (and as
many KeY servers), each with an empty cache, and prints the wall times and the speedup.

Wall time on a shared machine measures the neighbours as much as KeY, so the CPU seconds the
JVMs used are printed too, and the warm server's rate after its first check (the steady state a
long run sees). The JVMs run in the sandbox's PID namespaces, below a launcher and bubblewrap that
do not pass their children's rusage up, so :class:`CpuMeter` reads every descendant's CPU time
from the host's ``/proc`` five times a second (what a JVM spends in its last 0.2 s is missed).

Usage: python benchmarks/jml_throughput.py [--tasks 6] [--timeout 600] [--skip-parallel]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import anyio
import attrs
from speckernel_jml.bundled import load_bundled
from speckernel_jml.javatools import JavaTools
from speckernel_jml.key import C1_ONLY, JVM_OPTIONS, KeyServer, check_once
from speckernel_jml.toolchain import KeyToolchain
from speckernel_jml.verifiers import key_input, task_inputs

from speckernel.model import Task
from speckernel.sandbox.local import LocalSandbox


def chosen_tasks(count: int) -> list[Task]:
    """``count`` bundled tasks spread over the categories (every k-th in the stable order)."""
    tasks = list(load_bundled())
    step = max(len(tasks) // count, 1)
    return tasks[::step][:count]


Check = tuple[dict[str, str], str]
"""The files of one check and the task's test inputs."""


def reference_checks(tasks: list[Task], sandbox: LocalSandbox) -> list[Check]:
    """Each task's reference spec as KeY reads it, with the task's inputs."""
    checks = []
    with JavaTools(sandbox) as tools:
        for task in tasks:
            file = task.metadata["file"]
            assert task.reference is not None
            text, unsupported = key_input(task.reference[file], file.removesuffix(".java"),
                                          tools)
            assert not unsupported, (task.id, unsupported)
            checks.append(({file: text}, task_inputs(task)))
    return checks


def per_minute(count: int, seconds: float) -> float:
    return 60.0 * count / seconds if seconds > 0 else float("inf")


@attrs.frozen
class Phase:
    """Wall seconds per check, checks proved, and the CPU seconds the phase's JVMs used."""

    seconds: tuple[float, ...]
    proved: int
    cpu_s: float

    @property
    def total(self) -> float:
        return sum(self.seconds)


class CpuMeter:
    """CPU seconds used by every descendant of this process while the meter runs."""

    def __init__(self, period: float = 0.2) -> None:
        self._period = period
        self._seen: dict[tuple[int, int], float] = {}
        self._stop = threading.Event()
        self._tick = os.sysconf("SC_CLK_TCK")
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> CpuMeter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    @property
    def seconds(self) -> float:
        return sum(self._seen.values())

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            self._sample()

    def _sample(self) -> None:
        parents: dict[int, int] = {}
        times: dict[int, tuple[int, float]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(entry)
            parents[pid] = int(fields[1])
            # utime, stime are fields 14, 15 of stat (11, 12 after the name); start time 22 (19)
            times[pid] = (int(fields[19]), (int(fields[11]) + int(fields[12])) / self._tick)
        me = os.getpid()
        for pid, (started, cpu) in times.items():
            ancestor = parents.get(pid)
            while ancestor is not None and ancestor not in (me, 0, 1):
                ancestor = parents.get(ancestor)
            if ancestor == me:
                key = (pid, started)
                self._seen[key] = max(self._seen.get(key, 0.0), cpu)


def warm(checks: list[Check], timeout: float) -> Phase:
    """All checks in one KeyServer; its JVM start-up is part of the first check."""
    server = KeyServer()
    sandbox = LocalSandbox()
    seconds, proved = [], 0
    with CpuMeter() as meter:
        try:
            for sources, inputs in checks:
                started = time.monotonic()
                report = server.check(sandbox, sources, timeout=timeout, inputs=inputs)
                proved += report.proved and not any(c.vacuous for c in report.contracts)
                seconds.append(time.monotonic() - started)
        finally:
            server.close()
    return Phase(tuple(seconds), proved, meter.seconds)


def cold(checks: list[Check], timeout: float) -> Phase:
    """One fresh JVM per check."""
    sandbox = LocalSandbox()
    seconds, proved = [], 0
    with CpuMeter() as meter:
        for sources, inputs in checks:
            started = time.monotonic()
            report = anyio.run(lambda s=sources, i=inputs: check_once(sandbox, s, timeout=timeout,
                                                                      inputs=i))
            proved += report.proved and not any(c.vacuous for c in report.contracts)
            seconds.append(time.monotonic() - started)
    return Phase(tuple(seconds), proved, meter.seconds)


def kernel_run(task_ids: list[str], slots: int, timeout: float) -> float:
    with tempfile.TemporaryDirectory(prefix="jml-throughput-") as scratch:
        env = {**os.environ, "KERNEL_CACHE_DIR": f"{scratch}/cache",
               "KERNEL_KEY_SERVERS": str(slots)}
        argv = [shutil.which("kernel") or "kernel", "run", "jml", "--agent", "reference",
                "--output", f"{scratch}/run", "--display", "none", "--verifier-concurrency",
                str(slots), "-o", "completeness=false", "-o", f"timeout_s={timeout}"]
        for task_id in task_ids:
            argv += ["-t", task_id]
        started = time.monotonic()
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        elapsed = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"kernel run failed:\n{done.stderr}")
        return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--skip-parallel", action="store_true")
    args = parser.parse_args()
    status = KeyToolchain().detect()
    if not status.found:
        print(f"KeY not available: {status.detail}", file=sys.stderr)
        return 2
    tasks = chosen_tasks(args.tasks)
    print(f"KeY {status.version}; {len(tasks)} bundled reference specs: "
          f"{', '.join(t.id for t in tasks)}; {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}")
    print(f"JVM options (warm and per-check alike): {' '.join(JVM_OPTIONS)}; kernel runs with "
          f"several servers add {' '.join(C1_ONLY)}")
    checks = reference_checks(tasks, LocalSandbox())
    hot = warm(checks, args.timeout)
    fresh = cold(checks, args.timeout)
    n = len(checks)
    steady = hot.seconds[1:] or hot.seconds
    print(f"warm JVM     : {hot.total:7.1f} s wall, {per_minute(n, hot.total):6.2f} checks/min, "
          f"{hot.cpu_s:7.1f} s CPU ({hot.proved}/{n} proved); after the first check "
          f"{per_minute(len(steady), sum(steady)):6.2f} checks/min")
    print(f"JVM per check: {fresh.total:7.1f} s wall, {per_minute(n, fresh.total):6.2f} "
          f"checks/min, {fresh.cpu_s:7.1f} s CPU ({fresh.proved}/{n} proved)")
    print(f"warm / cold  : {fresh.total / hot.total:.2f}x wall, "
          f"{fresh.cpu_s / max(hot.cpu_s, 1e-9):.2f}x CPU; steady state "
          f"{(fresh.total / n) / (sum(steady) / len(steady)):.2f}x")
    if not args.skip_parallel:
        ids = [t.id for t in tasks]
        one = kernel_run(ids, 1, args.timeout)
        two = kernel_run(ids, 2, args.timeout)
        print(f"kernel run, 1 slot : {one:7.1f} s")
        print(f"kernel run, 2 slots: {two:7.1f} s  speedup {one / two:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
