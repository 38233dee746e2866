"""The KeyCheck driver, run in the kernel's sandbox: warm (one JVM serving many checks) or once
per check.

Loading KeY (its taclets and the Java library model) costs seconds in a fresh JVM and much less in
a warm one, so :class:`KeyServer` keeps one JVM answering check requests over stdin/stdout (the
protocol is documented in ``java/KeyCheck.java``). The JVM is a long-lived sandboxed process
(``Sandbox.open``): its own user, no network, no environment of the kernel's (no API keys), the
tools directory read-only, only its work directory writable. Each check's files are written into
that work directory under a directory of their own and removed after the answer. Each check has a
wall timeout enforced here: a JVM that does not answer in time is killed with its whole tree and
restarted on the next request, and the check is reported as timed out. :func:`check_once` runs
one sandboxed JVM per check (``Sandbox.run``), the way a plain command line would, and the
``__main__`` block proves files from the shell.

KeY reasons symbolically about the source and never executes it, but it parses untrusted text
with a large code base, so it gets the same boundary as every other tool.
"""

from __future__ import annotations

import argparse
import itertools
import os
import queue
import shutil
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO

import attrs
from speckernel.errors import KernelError
from speckernel.lines import split_lines
from speckernel.sandbox.base import Limits, Sandbox, SandboxProcess

from speckernel_jml.toolchain import (
    DRIVER,
    LIB_ENV,
    KeyUnavailable,
    boot_path,
    driver_classpath,
    lib_dir,
)

__all__ = ["KeyUnavailable", "driver_classpath"]

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


@attrs.frozen
class OpenGoal:
    """Where one open proof goal comes from (a ``GOAL`` line of the protocol)."""

    labels: tuple[str, ...]
    """KeY's branch labels on the goal's path, root first."""
    line: int
    """The line of the last statement symbolic execution reached on the path (0: none)."""
    statement: str
    clauses: tuple[tuple[str, int], ...]
    """The JML clauses (kind, line; line 0 for implicit ones) of the unproved formulas."""
    stuck_at_loop: bool
    """Symbolic execution stopped in front of a loop: it had no loop invariant to apply."""
    thrown: str = ""
    """The exception a ``throw`` on the goal's path creates (fully qualified), if any."""


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
    vacuous: str = ""
    """For a closed contract: why its proof says nothing about the task's inputs (its
    precondition is refuted, alone or with every test input), else empty."""
    goals: tuple[OpenGoal, ...] = ()
    """For an open contract: the first few open goals in detail."""


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
        elif line.startswith("GOAL\t"):
            fields = [*line.split("\t"), "", "", "", "", "", "", ""]
            goal = parse_goal(fields[3:9])
            for index, found in enumerate(contracts):
                if (found.target, found.contract) == (fields[1], fields[2]):
                    contracts[index] = attrs.evolve(found, goals=(*found.goals, goal))
        elif line.startswith("VACUOUS\t"):
            fields = [*line.split("\t"), "", "", ""]
            for index, found in enumerate(contracts):
                if (found.target, found.contract) == (fields[1], fields[2]):
                    contracts[index] = attrs.evolve(found, vacuous=fields[3] or "vacuous")
        elif line.startswith("LOADERROR\t"):
            load_error = line.split("\t", 1)[1].strip()
    return KeyReport(tuple(contracts), load_error, seconds=seconds, stderr_tail=stderr_tail)


def parse_goal(fields: Sequence[str]) -> OpenGoal:
    """The fields of a ``GOAL`` line after the contract's name."""
    labels, line, statement, clauses, stuck, *rest = [*fields[:6], ""][:6]
    kinds: list[tuple[str, int]] = []
    for clause in clauses.split(", "):
        kind, _, where = clause.strip().partition(":")
        if kind:
            kinds.append((kind, _int(where)))
    return OpenGoal(
        labels=tuple(label.strip() for label in labels.split(" | ")
                     if label.strip() and not label.strip().startswith("CUT:")),
        line=_int(line), statement=statement.strip(), clauses=tuple(kinds),
        stuck_at_loop=stuck.strip() == "loop", thrown=rest[0].strip() if rest else "")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


SERVER_LIMITS = Limits(wall_s=7 * 86400.0, memory_mb=3072, disk_mb=1024)
"""A warm server's sandbox: it lives as long as the kernel process needs it (checks have their
own deadlines, enforced by :class:`KeyServer`); memory for a 2 GB heap plus the JVM's own."""

CHECK_MEMORY_MB = 3072


def java_argv(mode_args: Sequence[str], shares_cores: bool = False,
              library: bool = True) -> list[str]:
    """``java ... KeyCheck mode_args`` with KeY on the class path; ``shares_cores`` for a JVM
    that runs beside other KeY JVMs (:data:`C1_ONLY`); ``library``: KeY's library model with
    the plugin's stubs (:func:`speckernel_jml.toolchain.build_boot`) rather than KeY's own.
    KeY keeps its settings under ``$HOME/.key``; the driver points ``user.home`` at ``$HOME``,
    the sandbox's work directory (the tools directory is read-only there)."""
    classpath = os.pathsep.join(str(p) for p in driver_classpath())
    jit = C1_ONLY if shares_cores else ()
    boot = (f"-Dkeycheck.boot={boot_path()}",) if library else ()
    return ["java", *JVM_OPTIONS, *jit, *boot, "-cp", classpath, DRIVER, *mode_args]


def visible_paths() -> list[str]:
    """Host paths the JVM must read besides the tools directory: a user's own KeY jars."""
    return [str(lib_dir())] if os.environ.get(LIB_ENV) else []


KEY_TIMEOUT_SHARE = 0.5
"""The share of a check's wall timeout given to KeY's own per-contract timeout: KeY then stops
by itself and reports its open goals, and the wall timeout only catches a JVM that hangs."""


def check_layout(sources: Mapping[str, str], inputs: str | None = None) -> dict[str, str]:
    """The files of one check as the driver reads them: the Java sources under ``src/``, and
    ``inputs`` when vacuity probes are wanted: the task's test inputs, lines ``method<TAB>
    arity<TAB>JML constraint`` (empty: refute each precondition alone)."""
    files = {f"src/{name}": text for name, text in sources.items()}
    if inputs is not None:
        files["inputs"] = inputs
    return files


def _report_from_output(stdout: str, seconds: float, stderr: str) -> KeyReport:
    # Lines end at \n as the driver writes them (as :func:`_pump` reads them): its messages
    # quote the candidate's JML, where str.splitlines would also cut at \x1c, U+2028 and more.
    lines = [line for line in split_lines(stdout) if line and not line.startswith("DONE")]
    return parse_report(lines, seconds, stderr[-2000:])


async def check_once(sandbox: Sandbox, sources: Mapping[str, str],
                     max_steps: int = DEFAULT_MAX_STEPS, timeout: float = 300.0,
                     inputs: str | None = None, library: bool = True) -> KeyReport:
    """Prove every contract of ``sources`` (file name to text) in a fresh sandboxed JVM (the
    cold path); ``inputs`` as in :func:`check_layout`."""
    start = time.monotonic()
    result = await sandbox.run(
        java_argv(["prove", "check", str(max_steps),
                   str(int(timeout * 1000 * KEY_TIMEOUT_SHARE))], library=library),
        files={f"check/{name}": text for name, text in check_layout(sources, inputs).items()},
        limits=Limits(wall_s=timeout + 60, memory_mb=CHECK_MEMORY_MB),
        read_only=visible_paths())
    seconds = time.monotonic() - start
    if result.timed_out:
        return KeyReport((), timed_out=True, seconds=seconds)
    if result.returncode in (126, 127) and not result.stdout:
        raise KeyUnavailable(f"cannot run KeY's JVM: {result.stderr.strip()[-500:]}")
    report = _report_from_output(result.stdout, seconds, result.stderr)
    if result.returncode != 0 and not report.contracts and report.load_error is None:
        code = result.returncode if result.signal is None else -result.signal
        why = result.limit or f"exit {code}"
        return attrs.evolve(report, load_error=f"KeY's JVM ended abnormally ({why})")
    return report


class KeyServer:
    """One warm sandboxed JVM running ``KeyCheck serve``; checks are serialised on a lock.

    The JVM starts on the first check, in the sandbox that check passes. A check that outlives
    its timeout kills the JVM (its state is unknown, and KeY cannot be interrupted reliably from
    outside) and the next check starts a fresh one.
    """

    def __init__(self, shares_cores: bool = False, library: bool = True) -> None:
        self.shares_cores = shares_cores
        self.library = library
        self._process: SandboxProcess | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.starts = 0

    def _start(self, sandbox: Sandbox) -> SandboxProcess:
        try:
            process = sandbox.open(java_argv(["serve"], self.shares_cores, self.library),
                                   limits=SERVER_LIMITS,
                                   read_only=visible_paths(), stdin=True, stdout="pipe",
                                   stderr="devnull")
        except KernelError as exc:
            raise KeyUnavailable(f"cannot start KeY's JVM: {exc}") from None
        self._lines = queue.Queue()
        assert process.stdout is not None
        threading.Thread(target=_pump, args=(process.stdout, self._lines), daemon=True).start()
        self.starts += 1
        return process

    def check(self, sandbox: Sandbox, sources: Mapping[str, str],
              max_steps: int = DEFAULT_MAX_STEPS, timeout: float = 300.0,
              startup_timeout: float = 300.0, inputs: str | None = None) -> KeyReport:
        """Prove every contract of ``sources`` (file name to text); ``timeout`` bounds the wall
        time of this check once the JVM is up (KeY's own per-contract timeout is a share of
        it); ``inputs`` as in :func:`check_layout`. Raises :class:`KeyUnavailable` when the JVM
        cannot be started."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._reset()
                self._process = self._start(sandbox)
                if not self._await("READY", time.monotonic() + startup_timeout):
                    self._reset()
                    raise KeyUnavailable(f"KeY's JVM did not start within {startup_timeout} s")
            request_id = str(next(self._ids))
            try:
                folder = self._process.write_files(check_layout(sources, inputs),
                                                   under=f"check-{request_id}")
            except (KernelError, OSError) as exc:
                raise KeyUnavailable(f"cannot hand the files to KeY: {exc}") from None
            try:
                return self._ask(request_id, folder, max_steps, timeout)
            finally:
                shutil.rmtree(folder, ignore_errors=True)

    def _ask(self, request_id: str, folder: Path, max_steps: int, timeout: float) -> KeyReport:
        assert self._process is not None and self._process.stdin is not None
        start = time.monotonic()
        try:
            self._process.stdin.write(f"CHECK\t{request_id}\t{folder}\t{max_steps}\t"
                                      f"{int(timeout * 1000 * KEY_TIMEOUT_SHARE)}\n".encode())
            self._process.stdin.flush()
        except OSError:
            self._reset()
            return KeyReport((), load_error="KeY's JVM exited", seconds=0.0)
        collected: list[str] = []
        done = self._await(f"DONE\t{request_id}", start + timeout, collected)
        seconds = time.monotonic() - start
        if done:
            return parse_report(collected, seconds)
        crashed = self._process.poll() is not None
        why = self._process.limit if crashed else None
        self._reset()
        if crashed:
            return parse_report([*collected, "LOADERROR\tKeY's JVM exited mid-check"
                                 + (f" (limit: {why})" if why else "")], seconds)
        return attrs.evolve(parse_report(collected, seconds), timed_out=True)

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
            self._process.close()
            self._process = None

    def close(self) -> None:
        """Stop the JVM (it is restarted by the next check)."""
        with self._lock:
            self._reset()


def _pump(stream: IO[bytes], lines: queue.Queue[str | None]) -> None:
    """Move the JVM's protocol lines into ``lines``; None marks the end of its output."""
    for raw in stream:
        lines.put(raw.decode("utf-8", errors="replace").rstrip("\n"))
    lines.put(None)


class KeyPool:
    """A fixed number of warm servers shared by a process; a check takes a free one.

    Free servers are a stack: the one used last is taken first, so sequential checks keep
    hitting the same warm JVM and the others start only when checks really overlap."""

    def __init__(self, size: int) -> None:
        self.size = max(size, 1)
        self._free: queue.LifoQueue[KeyServer] = queue.LifoQueue()
        for _ in range(self.size):
            self._free.put(KeyServer(shares_cores=self.size > 1))

    def check(self, sandbox: Sandbox, sources: Mapping[str, str],
              max_steps: int = DEFAULT_MAX_STEPS, timeout: float = 300.0,
              inputs: str | None = None) -> KeyReport:
        server = self._free.get()
        try:
            return server.check(sandbox, sources, max_steps, timeout, inputs=inputs)
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
             + (f"  VACUOUS: {c.vacuous}" if c.vacuous else "")
             for c in report.contracts]
    if report.load_error:
        lines.append(f"load error: {report.load_error}")
    if report.timed_out:
        lines.append("timed out")
    verdict = "PROVED" if report.proved else "NOT PROVED"
    lines.append(f"{verdict} ({len(report.contracts)} contracts, {report.seconds:.1f} s)")
    return "\n".join(lines)


def _sources_of(path: Path) -> dict[str, str]:
    files = [path] if path.is_file() else sorted(path.rglob("*.java"))
    return {(f.name if path.is_file() else f.relative_to(path).as_posix()):
            f.read_text(encoding="utf-8") for f in files}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m speckernel_jml.key FILE.java|DIR ...``: prove each in one warm sandboxed
    JVM, print per-contract results; exit 0 when every argument is fully proved."""
    from speckernel.sandbox.local import LocalSandbox

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--steps", type=int, default=DEFAULT_MAX_STEPS)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args(argv)
    sandbox = LocalSandbox()
    server = KeyServer()
    all_proved = True
    try:
        for path in args.paths:
            report = server.check(sandbox, _sources_of(path), args.steps, args.timeout)
            print(f"== {path}")
            print(format_report(report), flush=True)
            all_proved &= report.proved
    except KeyUnavailable as exc:
        print(exc, file=sys.stderr)
        return 2
    finally:
        server.close()
    return 0 if all_proved else 1


if __name__ == "__main__":
    sys.exit(main())
