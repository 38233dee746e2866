"""Talking to the warm helper JVM, which runs in the kernel's sandbox.

A request is ``<id> <command>``, the number of fields, and each field as its UTF-8 byte length on
a line followed by the bytes; the answer is one JSON line carrying the request's id (see
``java/JavaTools.java``). Requests are serialised by a lock. An answer that does not decode, or
carries another id, is never taken for this request's: the JVM is killed and the request sent once
more to a fresh one, and a second bad answer is an error. A request that outlives its deadline or
finds the JVM dead gets the JVM killed and an error; the next request starts a fresh one, so a
stuck mutant or test costs one request, not the session. An answer saying ``restart`` (a test
thread the helper could not stop) is used, and the JVM is replaced before the next request.

The JVM is a long-lived sandboxed process (``Sandbox.open``): its own user, no network, none of
the kernel's environment, only its work directory writable. Task loading, which has no verifier
context, runs it in a :class:`~speckernel.sandbox.local.LocalSandbox`; verifiers pass theirs.
"""

from __future__ import annotations

import atexit
import collections
import itertools
import json
import os
import queue
import threading
from typing import IO, Any

from speckernel.errors import KernelError
from speckernel.sandbox.base import Limits, Sandbox, SandboxProcess

from speckernel_jml.javatools.toolchain import JAR_ENV, MAIN_CLASS, find_jar, helper_classpath

JVM_OPTIONS = (
    "-Djava.security.manager=allow",
    "-XX:+UseSerialGC",
    "-Xss8m",
    "-Xmx768m",
    "-XX:-UsePerfData",
    "-Dfile.encoding=UTF-8",
)
"""The exit trap needs a security manager (Java 17 warns, later JDKs need ``allow``); one GC
thread on a shared machine; deep stacks for JavaParser on nested expressions."""

DEFAULT_TIMEOUT = 300.0
"""Seconds one request may take: mutating a class compiles every mutant (tens per second)."""

LIMITS = Limits(wall_s=7 * 86400.0, memory_mb=1536, disk_mb=256)
"""The helper's sandbox: it lives as long as the kernel process needs it (requests have their
own deadlines); memory for its 768 MB heap, the compiler's metaspace and the JVM's own."""


class JavaToolsError(KernelError):
    """The helper could not answer: not installed, crashed, timed out, or rejected the input."""


class _BadAnswer(Exception):
    """An answer line that is not this request's: undecodable, or another request's id."""


class JavaTools:
    """One helper JVM serving requests; usable from many threads (one request at a time).

    ``sandbox`` runs the JVM (default: a new ``LocalSandbox`` when it first starts)."""

    def __init__(self, sandbox: Sandbox | None = None, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.sandbox = sandbox
        self._timeout = timeout
        self._lock = threading.Lock()
        self._process: SandboxProcess | None = None
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=5)
        self._ids = itertools.count(1)
        self.starts = 0

    def request(self, command: str, *fields: str, timeout: float | None = None) -> dict[str, Any]:
        """Send one request and return the decoded answer; an ``error`` answer raises."""
        with self._lock:
            try:
                answer = self._exchange(command, fields, timeout)
            except _BadAnswer:
                self._stop()
                try:
                    answer = self._exchange(command, fields, timeout)
                except _BadAnswer as exc:
                    self._stop()
                    raise JavaToolsError(f"JavaParser helper gave no valid answer to "
                                         f"`{command}` twice: {exc}") from None
            if answer.get("restart"):
                self._stop()
        if "error" in answer:
            raise JavaToolsError(str(answer["error"]))
        return answer

    def _exchange(self, command: str, fields: tuple[str, ...],
                  timeout: float | None) -> dict[str, Any]:
        request_id = str(next(self._ids))
        payload = bytearray(f"{request_id} {command}\n{len(fields)}\n".encode())
        for field in fields:
            data = field.encode()
            payload += f"{len(data)}\n".encode() + data
        process = self._ensure_started()
        try:
            assert process.stdin is not None
            process.stdin.write(bytes(payload))
            process.stdin.flush()
            line = self._lines.get(timeout=timeout or self._timeout)
        except queue.Empty:
            self._stop()
            raise JavaToolsError(f"JavaParser helper timed out on `{command}`") from None
        except OSError as exc:
            raise _BadAnswer(f"the helper's input closed ({exc})") from None
        if not line:
            tail = " | ".join(self._stderr)
            raise _BadAnswer(f"the helper exited{': ' + tail if tail else ''}")
        try:
            answer = json.loads(line)
        except ValueError:
            raise _BadAnswer(f"undecodable answer {line[:80]!r}") from None
        if not isinstance(answer, dict) or answer.get("id") != request_id:
            found = answer.get("id") if isinstance(answer, dict) else None
            raise _BadAnswer(f"answer for request {found!r}, not {request_id!r}")
        return answer

    def close(self) -> None:
        with self._lock:
            self._stop()

    def __enter__(self) -> JavaTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ensure_started(self) -> SandboxProcess:
        if self._process is not None and self._process.poll() is None:
            return self._process
        self._stop()
        jar = find_jar()
        if jar is None:
            raise JavaToolsError("no javaparser-core jar: run `kernel tools install jml` "
                                 f"or set {JAR_ENV}")
        try:
            classpath = os.pathsep.join(str(p) for p in helper_classpath(jar))
        except KernelError as exc:
            raise JavaToolsError(str(exc)) from None
        if self.sandbox is None:
            from speckernel.sandbox.local import LocalSandbox

            self.sandbox = LocalSandbox()
        try:
            process = self.sandbox.open(
                ["java", *JVM_OPTIONS, "-cp", classpath, MAIN_CLASS], limits=LIMITS,
                env={"MALLOC_ARENA_MAX": "2"}, read_only=[str(jar.parent)],
                stdin=True, stdout="pipe", stderr="pipe")
        except KernelError as exc:
            raise JavaToolsError(f"cannot start the JavaParser helper: {exc}") from None
        self._process = process
        self.starts += 1
        self._lines = queue.Queue()
        self._stderr = collections.deque(maxlen=5)
        assert process.stdout is not None and process.stderr is not None
        threading.Thread(target=_pump, args=(process.stdout, self._lines), daemon=True).start()
        threading.Thread(target=_keep_tail, args=(process.stderr, self._stderr),
                         daemon=True).start()
        return process

    def _stop(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None


def _pump(stream: IO[bytes], lines: queue.Queue[bytes]) -> None:
    """Move the helper's answer lines into ``lines``; an empty line marks its end."""
    for line in stream:
        lines.put(line)
    lines.put(b"")


def _keep_tail(stream: IO[bytes], tail: collections.deque[str]) -> None:
    """Keep the last lines the helper wrote to stderr, to say why it died."""
    for line in stream:
        text = line.decode(errors="replace").strip()
        if text and not text.startswith("WARNING:"):  # Java 17's security manager notice
            tail.append(text)


_shared: JavaTools | None = None
_shared_lock = threading.Lock()


def shared_tools(sandbox: Sandbox | None = None) -> JavaTools:
    """The process's helper, started at first use and stopped at exit; ``sandbox`` (a
    verifier's) runs it when it (re)starts from now on."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = JavaTools(sandbox)
            atexit.register(_shared.close)
        elif sandbox is not None:
            _shared.sandbox = sandbox
        return _shared
