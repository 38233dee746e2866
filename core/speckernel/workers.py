"""Kernel worker processes: where plugins' CPU-bound Python runs (``ctx.run_sync``), so that
the event loop never waits on it and a check past its budget can be killed.

A worker is a warm Python process in the sandbox (``worker.py`` is its inside), kept for later
calls with the same limits; a call that outlives its wall budget, or is cancelled, kills its
worker, and the next call starts a fresh one. Results come back pickled but are read with an
unpickler that builds plain data only: the worker has just read untrusted input, and a pickle
that names a class could make the kernel run code.
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import pickle
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import attrs

from speckernel.components import Workers
from speckernel.errors import CandidateError, KernelError, WorkerError
from speckernel.sandbox.base import Limits, Sandbox, SandboxProcess
from speckernel.worker import read_frame, write_frame

R = TypeVar("R")

_LIFETIME_S = 30 * 24 * 3600.0
"""A worker's own wall budget: it lives as long as the run (each call has its own budget)."""


class _PlainUnpickler(pickle.Unpickler):
    """Builds only what pickle encodes without naming a class: None, bool, int, float, str,
    bytes, and tuples, lists, dicts and sets of them."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a worker result may hold plain data only, not "
                                     f"{module}.{name}")


def plain_loads(data: bytes) -> Any:
    return _PlainUnpickler(io.BytesIO(data)).load()


def _reference(fn: Callable[..., Any]) -> tuple[str, str, str | None]:
    """How the worker finds ``fn``: its module, its qualified name, and the directory its
    top-level package was loaded from here (the worker puts it on its path, so a package that
    is importable in the kernel only through ``sys.path`` changes is importable there too)."""
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or module == "__main__" or "<" in qualname:
        raise KernelError(f"run_sync needs a module-level function of an installed package, "
                          f"not {fn!r}")
    top = sys.modules.get(module.split(".")[0])
    where = getattr(top, "__path__", None)
    if where:
        return module, qualname, os.path.dirname(next(iter(where)))
    return module, qualname, None


class _Worker:
    """One worker process and the tail of what it wrote to stderr (to say why it died)."""

    def __init__(self, process: SandboxProcess) -> None:
        self.process = process
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=5)
        if process.stderr is not None:
            threading.Thread(target=self._keep_tail, daemon=True).start()

    def _keep_tail(self) -> None:
        assert self.process.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for line in self.process.stderr:
                text = line.decode(errors="replace").strip()
                if text:
                    self.stderr_tail.append(text[:500])

    def exchange(self, request: bytes) -> bytes | None:
        """Send one request and wait for its answer (None if the worker died)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            write_frame(self.process.stdin, request)
        except (OSError, ValueError):
            return None
        return read_frame(self.process.stdout)


class WorkerPool(Workers):
    """Up to ``size`` idle workers per limits, started in ``sandbox`` on demand."""

    def __init__(self, sandbox: Sandbox, size: int) -> None:
        self.sandbox = sandbox
        self.size = size
        self._idle: dict[Limits, list[_Worker]] = {}
        self._lock = threading.Lock()
        self._closed = False

    async def call(self, fn: Callable[..., R], args: Sequence[Any], limits: Limits) -> R:
        module, qualname, search = _reference(fn)
        request = pickle.dumps((module, qualname, search, tuple(args)),
                               protocol=pickle.HIGHEST_PROTOCOL)
        shape = attrs.evolve(limits, wall_s=_LIFETIME_S, cpu_s=None)
        taken = self._take(shape)
        worker = taken if taken is not None else await anyio.to_thread.run_sync(self._start, shape)
        kept = False
        try:
            with anyio.fail_after(limits.wall_s):
                answer = await anyio.to_thread.run_sync(worker.exchange, request,
                                                        abandon_on_cancel=True)
            if answer is None:
                raise self._death(worker)
            result: R = _unpack(answer)
            kept = True
            return result
        except TimeoutError:
            raise TimeoutError(f"{module}.{qualname} exceeded {limits.wall_s:g} s") from None
        finally:
            if kept:
                self._give_back(shape, worker)
            else:
                await anyio.to_thread.run_sync(worker.process.close)

    def _start(self, shape: Limits) -> _Worker:
        return _Worker(self.sandbox.open([sys.executable, "-I", "-m", "speckernel.worker"],
                                         limits=shape, stderr="pipe"))

    def _take(self, shape: Limits) -> _Worker | None:
        with self._lock:
            idle = self._idle.get(shape)
            return idle.pop() if idle else None

    def _give_back(self, shape: Limits, worker: _Worker) -> None:
        with self._lock:
            idle = self._idle.setdefault(shape, [])
            if not self._closed and len(idle) < self.size:
                idle.append(worker)
                return
        worker.process.close()

    @staticmethod
    def _death(worker: _Worker) -> Exception:
        """What a worker's death means: the candidate's doing when it ran out of memory or
        crashed on its input, otherwise an error of the worker."""
        code = worker.process.wait()
        limit = worker.process.limit
        tail = " | ".join(worker.stderr_tail)
        if limit == "memory":
            return CandidateError("the check ran out of memory on this candidate")
        if code < 0:
            return CandidateError(f"the checker crashed on this candidate (signal {-code})"
                                  + (f": {tail}" if tail else ""))
        return WorkerError("WorkerDied", f"exit status {code}" + (f": {tail}" if tail else ""))

    def close(self) -> None:
        """Stop every idle worker (the run is over)."""
        with self._lock:
            self._closed = True
            workers = [w for idle in self._idle.values() for w in idle]
            self._idle.clear()
        for worker in workers:
            worker.process.close()


def _unpack(answer: bytes) -> Any:
    try:
        message = plain_loads(answer)
    except Exception as exc:
        raise WorkerError("BadAnswer", str(exc)) from None
    match message:
        case ("ok", value):
            return value
        case ("raise", str(kind), str(text), True):
            raise CandidateError(f"{kind}: {text}" if text else kind)
        case ("raise", str(kind), str(text), False):
            raise WorkerError(kind, text)
    raise WorkerError("BadAnswer", "the worker's answer has an unknown shape")
