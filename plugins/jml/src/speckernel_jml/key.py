"""The KeyCheck driver: compiled against the installed KeY, run warm or once per check.

Loading KeY (its taclets and the Java library model) costs seconds in a fresh JVM and much less in
a warm one, so :class:`KeyServer` keeps one JVM answering check requests over stdin/stdout (the
protocol is documented in ``java/KeyCheck.java``). Each check has a wall timeout enforced here: a
JVM that does not answer in time is killed with its process group and restarted on the next
request, and the check is reported as timed out. :func:`check_once` runs one JVM per check, the
way a plain command line would, and the ``__main__`` block proves one file from the shell.

KeY executes nothing: it reasons symbolically about the source, so the untrusted candidate never
runs inside these JVMs (the sandboxed test run of :mod:`speckernel_jml.program_tests` does that).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

import attrs

from speckernel_jml.toolchain import key_jars, tools_home

DRIVER = "KeyCheck"
DEFAULT_MAX_STEPS = 20000
"""KeY's rule applications per contract; the automatic strategy stops there."""

JVM_OPTIONS = (
    "-XX:+UseSerialGC",
    "-Xss16m",
    "-Xmx2g",
    "-XX:-UsePerfData",
    "-Dfile.encoding=UTF-8",
)
"""One GC thread (KeY's automatic strategy is single-threaded), a deep stack for KeY's recursive
term traversals, and a heap bound so parallel servers fit the machine."""

C1_ONLY = ("-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1")
"""JIT flags for JVMs that share the cores with each other (a pool of several servers). C2
compiles KeY's large code base on a core of its own, as much CPU as KeY spends running: a JVM
alone on the machine gains from it (the compiler takes the idle core), servers side by side
lose (each one's compiler takes the other's core; a second verifier slot bought nothing). With
C1 only, each server keeps to one core (README, Throughput)."""


class KeyUnavailable(RuntimeError):
    """KeY's jars are missing or the driver does not compile against them."""


@attrs.frozen
class ContractResult:
    """One JML contract and what KeY's automatic strategy left of its proof obligation."""

    status: str
    """``closed`` (proved), ``open`` (goals remain) or ``error`` (KeY could not set it up)."""
    target: str
    """``Class::method``."""
    contract: str
    open_goals: int
    nodes: int
    millis: int
    reasons: tuple[str, ...]
    """Per open goal, the branch labels on its path (``Body Preserves Invariant | Overflow
    check``); for an error, the exception chain."""


@attrs.frozen
class KeyReport:
    """Everything one check printed: the contracts, or why none could be examined."""

    contracts: tuple[ContractResult, ...]
    load_error: str | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stderr_tail: str = ""

    @property
    def proved(self) -> bool:
        """Every contract closed, and there was at least one."""
        return (not self.timed_out and self.load_error is None and bool(self.contracts)
                and all(c.status == "closed" for c in self.contracts))


def parse_contract_line(line: str) -> ContractResult:
    """A ``CONTRACT`` line of the protocol as a :class:`ContractResult`."""
    fields = line.rstrip("\n").split("\t")
    fields += [""] * (8 - len(fields))
    _, status, target, contract, open_goals, nodes, millis, reasons = fields[:8]
    return ContractResult(
        status=status, target=target, contract=contract,
        open_goals=_int(open_goals), nodes=_int(nodes), millis=_int(millis),
        reasons=tuple(r.strip() for r in reasons.split("; ") if r.strip()),
    )


def parse_report(lines: Iterable[str], seconds: float = 0.0, stderr_tail: str = "") -> KeyReport:
    """The report a sequence of protocol lines (up to and excluding ``DONE``) describes."""
    contracts: list[ContractResult] = []
    load_error: str | None = None
    for line in lines:
        if line.startswith("CONTRACT\t"):
            contracts.append(parse_contract_line(line))
        elif line.startswith("LOADERROR\t"):
            load_error = line.split("\t", 1)[1].strip()
    return KeyReport(tuple(contracts), load_error, seconds=seconds, stderr_tail=stderr_tail)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def _driver_source() -> bytes:
    return resources.files("speckernel_jml").joinpath(f"java/{DRIVER}.java").read_bytes()


def driver_classpath() -> list[Path]:
    """The class path running KeyCheck: its compiled class, then KeY's jars.

    The class is compiled once per (driver source, jar set) into the tools directory; the build
    goes to a temporary sibling renamed into place, so concurrent first uses never see a half
    written class.
    """
    jars = key_jars()
    if not jars:
        raise KeyUnavailable("KeY is not installed: run `kernel tools install jml`")
    source = _driver_source()
    names = "\n".join(f"{j.name}:{j.stat().st_size}" for j in jars).encode()
    key = hashlib.sha256(source + names).hexdigest()[:16]
    target = tools_home() / "driver" / key
    if not (target / f"{DRIVER}.class").is_file():
        _compile(source, jars, target)
    return [target, *jars]


def _compile(source: bytes, jars: Sequence[Path], target: Path) -> None:
    if shutil.which("javac") is None:
        raise KeyUnavailable("javac not found: install a JDK (default-jdk-headless)")
    target.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    try:
        (build / f"{DRIVER}.java").write_bytes(source)
        done = subprocess.run(
            ["javac", "-encoding", "UTF-8", "-nowarn", "-cp", os.pathsep.join(map(str, jars)),
             "-d", str(build), str(build / f"{DRIVER}.java")],
            capture_output=True, text=True, timeout=600,
        )
        if done.returncode != 0:
            raise KeyUnavailable(f"compiling {DRIVER} failed:\n{done.stderr.strip()}")
        (build / f"{DRIVER}.java").unlink()
        try:
            build.rename(target)
        except OSError:  # another process finished first; its build is as good as ours
            if not (target / f"{DRIVER}.class").is_file():
                raise
    finally:
        shutil.rmtree(build, ignore_errors=True)


def java_argv(mode_args: Sequence[str], shares_cores: bool = False) -> list[str]:
    """``java ... KeyCheck mode_args`` with KeY on the class path and its settings kept in the
    tools directory (KeY reads and writes ``~/.key``; ``user.home`` points it at ours);
    ``shares_cores`` for a JVM that runs beside other KeY JVMs (:data:`C1_ONLY`)."""
    classpath = os.pathsep.join(str(p) for p in driver_classpath())
    home = tools_home() / "home"
    home.mkdir(parents=True, exist_ok=True)
    jit = C1_ONLY if shares_cores else ()
    return ["java", *JVM_OPTIONS, *jit, f"-Duser.home={home}", "-cp", classpath, DRIVER,
            *mode_args]


def _kill(process: subprocess.Popen[str]) -> None:
    """End ``process`` and anything it started (it leads its own process group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


KEY_TIMEOUT_SHARE = 0.5
"""The share of a check's wall timeout given to KeY's own per-contract timeout: KeY then stops
by itself and reports its open goals, and the wall timeout only catches a JVM that hangs."""


def check_once(directory: Path, max_steps: int = DEFAULT_MAX_STEPS,
               timeout: float = 300.0) -> KeyReport:
    """Prove every contract under ``directory`` in a fresh JVM (the cold path)."""
    start = time.monotonic()
    process = subprocess.Popen(
        java_argv(["prove", str(directory), str(max_steps),
                   str(int(timeout * 1000 * KEY_TIMEOUT_SHARE))]),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        _kill(process)
        return KeyReport((), timed_out=True, seconds=time.monotonic() - start)
    lines = [line for line in out.splitlines() if line and not line.startswith("DONE")]
    return parse_report(lines, time.monotonic() - start, err[-2000:])


class KeyServer:
    """One warm JVM running ``KeyCheck serve``; checks are serialised on a lock.

    The JVM starts on the first check. A check that outlives its timeout kills the JVM (its
    state is unknown, and KeY cannot be interrupted reliably from outside) and the next check
    starts a fresh one.
    """

    def __init__(self, shares_cores: bool = False) -> None:
        self.shares_cores = shares_cores
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.starts = 0

    def _start(self) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            java_argv(["serve"], self.shares_cores), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, encoding="utf-8", bufsize=1,
            start_new_session=True,
        )
        self._lines = queue.Queue()
        threading.Thread(target=self._pump, args=(process, self._lines), daemon=True).start()
        self.starts += 1
        return process

    @staticmethod
    def _pump(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def check(self, directory: Path, max_steps: int = DEFAULT_MAX_STEPS,
              timeout: float = 300.0, startup_timeout: float = 300.0) -> KeyReport:
        """Prove every contract under ``directory``; ``timeout`` bounds the wall time of this
        check once the JVM is up (KeY's own per-contract timeout is a share of it)."""
        if "\t" in str(directory) or "\n" in str(directory):
            raise ValueError(f"unusable path for the protocol: {directory!r}")
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = self._start()
                if not self._await("READY", time.monotonic() + startup_timeout):
                    self._reset()
                    return KeyReport((), load_error="KeY did not start", timed_out=True)
            request_id = str(next(self._ids))
            start = time.monotonic()
            assert self._process.stdin is not None
            try:
                self._process.stdin.write(f"CHECK\t{request_id}\t{directory}\t{max_steps}\t"
                                          f"{int(timeout * 1000 * KEY_TIMEOUT_SHARE)}\n")
                self._process.stdin.flush()
            except OSError:
                self._reset()
                return KeyReport((), load_error="KeY's JVM exited", seconds=0.0)
            collected: list[str] = []
            done = self._await(f"DONE\t{request_id}", start + timeout, collected)
            seconds = time.monotonic() - start
            if not done:
                crashed = self._process.poll() is not None
                self._reset()
                if crashed:
                    return parse_report([*collected, "LOADERROR\tKeY's JVM exited mid-check"],
                                        seconds)
                report = parse_report(collected, seconds)
                return attrs.evolve(report, timed_out=True)
            return parse_report(collected, seconds)

    def _await(self, marker: str, deadline: float, collected: list[str] | None = None) -> bool:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                return False
            if line is None:
                return False
            if line == marker:
                return True
            if collected is not None:
                collected.append(line)

    def _reset(self) -> None:
        if self._process is not None:
            _kill(self._process)
            self._process = None

    def close(self) -> None:
        """Stop the JVM (it is restarted by the next check)."""
        with self._lock:
            self._reset()


class KeyPool:
    """A fixed number of warm servers shared by a process; a check takes a free one.

    Free servers are a stack: the one used last is taken first, so sequential checks keep
    hitting the same warm JVM and the others start only when checks really overlap."""

    def __init__(self, size: int) -> None:
        self.size = max(size, 1)
        self._free: queue.LifoQueue[KeyServer] = queue.LifoQueue()
        for _ in range(self.size):
            self._free.put(KeyServer(shares_cores=self.size > 1))

    def check(self, directory: Path, max_steps: int = DEFAULT_MAX_STEPS,
              timeout: float = 300.0) -> KeyReport:
        server = self._free.get()
        try:
            return server.check(directory, max_steps, timeout)
        finally:
            self._free.put(server)

    def close(self) -> None:
        """Stop every server's JVM (waiting for running checks to finish)."""
        servers = [self._free.get() for _ in range(self.size)]
        for server in servers:
            server.close()
            self._free.put(server)


_POOL: KeyPool | None = None
_POOL_LOCK = threading.Lock()


def shared_pool() -> KeyPool:
    """The process-wide pool, one server per core (``KERNEL_KEY_SERVERS`` overrides)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            size = int(os.environ.get("KERNEL_KEY_SERVERS") or os.cpu_count() or 1)
            _POOL = KeyPool(size)
        return _POOL


def format_report(report: KeyReport) -> str:
    """A human-readable summary, one line per contract."""
    lines = [f"{c.status:6} {c.target}  [{c.contract}]  open={c.open_goals} nodes={c.nodes} "
             f"{c.millis} ms" + (f"  {'; '.join(c.reasons)}" if c.reasons else "")
             for c in report.contracts]
    if report.load_error:
        lines.append(f"load error: {report.load_error}")
    if report.timed_out:
        lines.append("timed out")
    verdict = "PROVED" if report.proved else "NOT PROVED"
    lines.append(f"{verdict} ({len(report.contracts)} contracts, {report.seconds:.1f} s)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m speckernel_jml.key FILE.java|DIR ...``: prove each, print per-contract
    results; exit 0 when every argument is fully proved."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--steps", type=int, default=DEFAULT_MAX_STEPS)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args(argv)
    server = KeyServer()
    all_proved = True
    try:
        for path in args.paths:
            with tempfile.TemporaryDirectory(prefix="keycheck-") as work:
                if path.is_file():
                    shutil.copy(path, Path(work) / path.name)
                    directory = Path(work)
                else:
                    directory = path.resolve()
                report = server.check(directory, args.steps, args.timeout)
            print(f"== {path}")
            print(format_report(report), flush=True)
            all_proved &= report.proved
    finally:
        server.close()
    return 0 if all_proved else 1


if __name__ == "__main__":
    sys.exit(main())
