"""Talking to the warm helper JVM.

A request is a command line, the number of fields, and each field as its UTF-8 byte length on a
line followed by the bytes; the answer is one JSON line (see ``java/JavaTools.java``). Requests
are serialised by a lock, and a request that outlives its deadline or finds the JVM dead gets the
JVM killed and an error; the next request starts a fresh one, so a stuck mutant or test costs one
request, not the session.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from speckernel.errors import KernelError

from speckernel_jml.javatools.toolchain import MAIN_CLASS, find_jar, helper_classpath

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


class JavaToolsError(KernelError):
    """The helper could not answer: not installed, crashed, timed out, or rejected the input."""


class JavaTools:
    """One helper JVM serving requests; usable from many threads (one request at a time)."""

    def __init__(self, jar: Path | None = None, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._jar = jar
        self._timeout = timeout
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=5)

    def request(self, command: str, *fields: str, timeout: float | None = None) -> dict[str, Any]:
        """Send one request and return the decoded answer; an ``error`` answer raises."""
        payload = bytearray(f"{command}\n{len(fields)}\n".encode())
        for field in fields:
            data = field.encode()
            payload += f"{len(data)}\n".encode() + data
        with self._lock:
            process = self._ensure_started()
            try:
                assert process.stdin is not None
                process.stdin.write(bytes(payload))
                process.stdin.flush()
                line = self._lines.get(timeout=timeout or self._timeout)
            except (OSError, queue.Empty) as exc:
                self._stop()
                reason = "timed out" if isinstance(exc, queue.Empty) else f"failed: {exc}"
                raise JavaToolsError(f"JavaParser helper {reason} on `{command}`") from None
            if not line:
                tail = " | ".join(self._stderr)
                self._stop()
                raise JavaToolsError(f"JavaParser helper exited during `{command}`: {tail}")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise JavaToolsError(answer["error"])
        return answer

    def close(self) -> None:
        with self._lock:
            self._stop()

    def __enter__(self) -> JavaTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ensure_started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        jar = self._jar or find_jar()
        if jar is None:
            raise JavaToolsError("no javaparser-core jar: run `kernel tools install jml` "
                                 "or set KERNEL_JAVAPARSER_JAR")
        try:
            classpath = os.pathsep.join(str(p) for p in helper_classpath(jar))
        except KernelError as exc:
            raise JavaToolsError(str(exc)) from None
        try:
            self._process = subprocess.Popen(
                ["java", *JVM_OPTIONS, "-cp", classpath, MAIN_CLASS],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env={**os.environ, "MALLOC_ARENA_MAX": "2"},
            )
        except OSError as exc:
            raise JavaToolsError(f"cannot start java for the JavaParser helper: {exc}") from None
        self._lines = queue.Queue()
        self._stderr = collections.deque(maxlen=5)
        threading.Thread(target=_pump, args=(self._process, self._lines), daemon=True).start()
        threading.Thread(target=_keep_tail, args=(self._process, self._stderr),
                         daemon=True).start()
        return self._process

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


def _pump(process: subprocess.Popen[bytes], lines: queue.Queue[bytes]) -> None:
    """Move the helper's answer lines into ``lines``; an empty line marks its end."""
    assert process.stdout is not None
    for line in process.stdout:
        lines.put(line)
    lines.put(b"")


def _keep_tail(process: subprocess.Popen[bytes], tail: collections.deque[str]) -> None:
    """Keep the last lines the helper wrote to stderr, to say why it died."""
    assert process.stderr is not None
    for line in process.stderr:
        text = line.decode(errors="replace").strip()
        if text and not text.startswith("WARNING:"):  # Java 17's security manager notice
            tail.append(text)


_shared: JavaTools | None = None
_shared_lock = threading.Lock()


def shared_tools() -> JavaTools:
    """The process's helper, started at first use and stopped at exit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = JavaTools()
            atexit.register(_shared.close)
        return _shared
