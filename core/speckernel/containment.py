"""Containing plugin failures: telling the user's Ctrl-C and the runner's cancellations from
plugin code that raises ``KeyboardInterrupt``, ``SystemExit`` or any other ``BaseException``.

Plugin code runs in the kernel's process: its import, its hooks, its components' methods. A
plugin that raises ``SystemExit`` (``sys.exit`` in a library it calls), ``KeyboardInterrupt``,
``GeneratorExit`` or a ``BaseException`` subclass of its own must fail like one raising
``ValueError``: a recorded failure of that plugin or that sample, never the end of the kernel
(issue 20). Two of those exceptions are also how the kernel itself is stopped, though: a real
SIGINT arrives as ``KeyboardInterrupt`` (inside an asyncio run, first as the cancellation of the
main task, then, on a second Ctrl-C, as ``KeyboardInterrupt``), and anyio cancels work by raising
``asyncio.CancelledError``. The kernel runs on anyio's asyncio backend only, so that is the
cancellation class checked here.

``counting_sigint`` wraps the SIGINT handler in place so that every real Ctrl-C is counted before
the handler runs; ``run`` does the same inside an async run, around the handler asyncio installs;
``plugin_fault`` then says whether an exception caught around plugin code is the plugin's, and
``plugin_call`` turns such a failure of a synchronous plugin method into one ``KernelError`` line.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

import anyio

from speckernel.errors import KernelError, one_line

T = TypeVar("T")

_received = 0
"""Real SIGINTs received since the outermost ``counting_sigint`` began (one kernel command)."""
_depth = 0


def sigint_received() -> bool:
    """Whether the user has pressed Ctrl-C during this command."""
    return _received > 0


@contextlib.contextmanager
def counting_sigint() -> Iterator[None]:
    """Count real SIGINTs while inside, then let the handler that was in place act on them.
    The outermost use starts the count from zero (a command; the tests run many in-process).

    Only a Python handler is wrapped: under ``SIG_DFL`` a SIGINT ends the process and under
    ``SIG_IGN`` none arrives, so neither can be mistaken for a plugin's exception. Outside the
    main thread no handler can be set, and none is needed (signals run on the main thread).
    """
    global _received, _depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _depth == 0:
        _received = 0
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):
        yield
        return
    delegate: Callable[[int, FrameType | None], Any] = previous

    def count(signum: int, frame: FrameType | None) -> Any:
        global _received
        _received += 1
        return delegate(signum, frame)

    signal.signal(signal.SIGINT, count)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if signal.getsignal(signal.SIGINT) is count:
            signal.signal(signal.SIGINT, previous)


def run(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``anyio.run(fn, *args)`` with SIGINT still counted.

    asyncio installs its own SIGINT handler (cancel the main task, so that a run stops cleanly)
    only when it finds Python's default one, so the default is put back for the run and asyncio's
    handler is wrapped once it is in place.
    """
    if threading.current_thread() is not threading.main_thread():
        return anyio.run(_counted, fn, *args)
    outer = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return anyio.run(_counted, fn, *args)
    finally:
        signal.signal(signal.SIGINT, outer)


async def _counted(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    with counting_sigint():
        return await fn(*args)


def _being_cancelled() -> bool:
    """Whether the current asyncio task has a cancellation pending (anyio's cancel scopes and
    asyncio's Ctrl-C handler both cancel through ``Task.cancel``)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop: nothing can be cancelling us
        return False
    return task is not None and task.cancelling() > 0


def plugin_fault(exc: BaseException) -> bool:
    """Whether ``exc``, caught around plugin code, is that code's failure, to be contained and
    reported like any other, rather than the kernel being stopped (a real Ctrl-C, a cancellation
    by the runner), which must go on propagating."""
    if isinstance(exc, BaseExceptionGroup):
        return all(plugin_fault(e) for e in exc.exceptions)
    if isinstance(exc, KeyboardInterrupt):
        return not sigint_received()
    if isinstance(exc, asyncio.CancelledError):
        return not _being_cancelled()
    return True


def plugin_call(what: str, fn: Callable[..., T], *args: Any, name_kernel_errors: bool = False
                ) -> T:
    """``fn(*args)``, a synchronous plugin method whose failure stops the command (listing a
    benchmark's tasks, its preflight): any plugin fault becomes ``KernelError("<what>:
    <Type: message>")``; a ``KernelError`` the plugin raised is already one line and passes,
    prefixed with ``<what>: `` when ``name_kernel_errors`` (where the plugin's message does not
    say which of several calls failed: one model of a run's several)."""
    try:
        return fn(*args)
    except KernelError as exc:
        if name_kernel_errors:
            raise KernelError(f"{what}: {exc}") from exc
        raise
    except BaseException as exc:
        if not plugin_fault(exc):
            raise
        raise KernelError(f"{what}: {one_line(exc)}") from exc
