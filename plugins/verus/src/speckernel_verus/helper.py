"""The cheat checker's helper process (``verus-cheatcheck``), always behind the kernel's sandbox.

The helper answers one JSON request per stdin line with one JSON line on stdout, as soon as each
is ready (``cheatcheck/src/main.rs``), so one process serves a whole run: a ``HelperServer`` is
that process, opened with ``Sandbox.open``, with a reader thread handing each answer to the
future of its request. ``server_for`` keeps one warm server per sandbox (the run's), restarted
when it died; ``ask`` runs a batch through a server of its own and closes it (task loading,
benchmarks). A request whose server died under it (a candidate that crashed or exhausted the
helper, or another request's timeout) is answered again by a process of its own
(``ask_alone``), so a verdict always belongs to the candidate it names.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import itertools
import json
import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from speckernel.errors import KernelError
from speckernel.lines import split_lines
from speckernel.sandbox.base import Limits, Sandbox, SandboxProcess

from speckernel_verus.toolchain import CHEATCHECK, cheatcheck_binary

SERVER_LIMITS = Limits(wall_s=24 * 3600.0, memory_mb=4096, disk_mb=64)
"""A warm server lives as long as a run may (restarted when it ends); what it holds is its own
memory, the inputs travel through its stdin."""

Answer = dict[str, Any]


class HelperError(RuntimeError):
    """The helper itself failed: not built, not started, died, or answered out of protocol."""


def helper_binary() -> Path:
    """The helper, or ``HelperError`` naming the install step when it is not built."""
    exe = cheatcheck_binary()
    if not exe.is_file():
        raise HelperError(f"{CHEATCHECK} is not built ({exe}): run `kernel tools install verus`")
    return exe


def encode(request_id: int, payload: Mapping[str, Any]) -> bytes:
    return (json.dumps({**payload, "id": request_id}) + "\n").encode()


class HelperServer:
    """One helper process in the sandbox, serving requests from any thread."""

    def __init__(self, sandbox: Sandbox, exe: Path, jobs: int = 2,
                 limits: Limits = SERVER_LIMITS) -> None:
        try:
            self.process: SandboxProcess = sandbox.open(
                [str(exe), "--jobs", str(max(1, jobs))], limits=limits, read_only=[exe],
                stdin=True, stdout="pipe", stderr="devnull")
        except KernelError as exc:
            raise HelperError(f"{CHEATCHECK} could not start: {exc}") from exc
        self._ids = itertools.count()
        self._pending: dict[int, concurrent.futures.Future[Answer]] = {}
        self._lock = threading.Lock()
        self._dead: str | None = None
        self._reader = threading.Thread(target=self._read, name=f"{CHEATCHECK}-reader",
                                        daemon=True)
        self._reader.start()

    @property
    def alive(self) -> bool:
        return self._dead is None and self.process.poll() is None

    def submit(self, payload: Mapping[str, Any]) -> concurrent.futures.Future[Answer]:
        """Send one request; its future resolves to the answer or raises ``HelperError``."""
        future: concurrent.futures.Future[Answer] = concurrent.futures.Future()
        with self._lock:
            if self._dead is not None:
                future.set_exception(HelperError(self._dead))
                return future
            request_id = next(self._ids)
            self._pending[request_id] = future
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(encode(request_id, payload))
                self.process.stdin.flush()
            except (OSError, ValueError):
                self._pending.pop(request_id, None)
                future.set_exception(HelperError(f"{CHEATCHECK} stopped taking requests"))
        return future

    def finish_input(self) -> None:
        """No more requests: the helper exits once it has answered those it has."""
        with self._lock, contextlib.suppress(OSError, ValueError, TimeoutError):
            assert self.process.stdin is not None
            self.process.stdin.close()

    def close(self) -> None:
        """Kill the process; requests still pending fail with ``HelperError``."""
        self.process.close()
        self._reader.join(timeout=5)
        self._fail_pending(f"{CHEATCHECK} was stopped")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            try:
                answer = json.loads(raw)
                request_id = int(answer["id"])
            except (ValueError, KeyError, TypeError):
                self._fail_pending(f"{CHEATCHECK} answered out of protocol: {raw[:120]!r}")
                self.process.kill()
                return
            with self._lock:
                future = self._pending.pop(request_id, None)
            if future is not None:
                future.set_result(answer)
        code = self.process.poll()
        if code is None:
            with contextlib.suppress(OSError, ValueError, TimeoutError):
                code = self.process.wait(timeout=5)
        limit = self.process.limit
        self._fail_pending(f"{CHEATCHECK} ended (exit {code}"
                           + (f", {limit} limit" if limit else "") + ")")

    def _fail_pending(self, why: str) -> None:
        with self._lock:
            self._dead = self._dead or why
            pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(HelperError(why))


def ask(payloads: Sequence[Mapping[str, Any]], *, sandbox: Sandbox | None = None,
        jobs: int = 2, timeout_s: float = 600.0) -> list[Answer]:
    """Answers to ``payloads``, in order, from one helper process of their own (task loading,
    batches). ``HelperError`` when the helper is missing, dies or runs out of time."""
    if not payloads:
        return []
    if sandbox is None:
        from speckernel.sandbox.local import LocalSandbox

        sandbox = LocalSandbox()
    server = HelperServer(sandbox, helper_binary(), jobs,
                          Limits(wall_s=timeout_s, memory_mb=4096, disk_mb=64))
    try:
        futures = [server.submit(p) for p in payloads]
        server.finish_input()
        _, late = concurrent.futures.wait(futures, timeout=timeout_s)
        if late:
            raise HelperError(f"{CHEATCHECK} did not finish within {timeout_s:g} s")
        return [f.result() for f in futures]
    finally:
        server.close()


_SERVERS: weakref.WeakKeyDictionary[Sandbox, HelperServer] = weakref.WeakKeyDictionary()
_SERVERS_LOCK = threading.Lock()


def server_for(sandbox: Sandbox, jobs: int = 2) -> HelperServer:
    """The warm helper of ``sandbox`` (one per run), started or restarted as needed."""
    with _SERVERS_LOCK:
        server = _SERVERS.get(sandbox)
        if server is None or not server.alive:
            if server is not None:
                server.close()
            server = HelperServer(sandbox, helper_binary(), jobs)
            _SERVERS[sandbox] = server
            weakref.finalize(sandbox, server.close)
        return server


async def ask_warm(sandbox: Sandbox, payload: Mapping[str, Any], timeout_s: float) -> Answer:
    """One request through ``sandbox``'s warm server. ``TimeoutError`` past ``timeout_s`` (the
    server is then killed: the request may be what hangs it); ``HelperError`` when the server
    died under it."""
    server = server_for(sandbox)
    future = server.submit(payload)
    try:
        return await anyio.to_thread.run_sync(functools.partial(future.result, timeout_s))
    except concurrent.futures.TimeoutError:
        server.close()
        raise TimeoutError(f"{CHEATCHECK} gave no answer within {timeout_s:g} s") from None


async def ask_alone(sandbox: Sandbox, payload: Mapping[str, Any], limits: Limits) -> Answer:
    """One request in a process of its own within ``limits``: ``TimeoutError`` past the wall
    budget, ``HelperError`` (with the limit it hit) when the helper did not answer."""
    exe = helper_binary()
    result = await sandbox.run([str(exe), "--jobs", "1"], stdin=encode(0, payload).decode(),
                               limits=limits, read_only=[exe])
    if result.timed_out or result.limit == "wall":
        raise TimeoutError(f"{CHEATCHECK} gave no answer within {limits.wall_s:g} s")
    try:
        # The first line as the helper ends it: an answer quoting the candidate holds U+2028 or
        # U+0085 raw (serde_json leaves them), where str.splitlines would cut it.
        answer: Answer = json.loads(split_lines(result.stdout)[0])
    except (ValueError, IndexError):
        raise HelperError(f"{CHEATCHECK} ended without an answer (exit {result.returncode}"
                          + (f", {result.limit} limit" if result.limit else "") + ")") from None
    return answer
