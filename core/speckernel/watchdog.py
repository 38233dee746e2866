"""The event loop's watchdog: names the code that blocks the loop.

Everything in a run shares one event loop: model calls, sandbox timers, the sample writer. A
plugin that does CPU-bound work in a coroutine instead of ``ctx.run_sync`` freezes all of it,
and the run looks hung. A task on the loop beats every ``interval`` seconds; a thread watches
the beats, and when none came for ``threshold`` seconds it samples the loop thread's stack and
reports the innermost frame of code that is not the kernel's, anyio's or the standard library's
— the plugin to blame — once per stall.
"""

from __future__ import annotations

import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from types import FrameType

import anyio

_OURS = ("speckernel.", "anyio.", "asyncio.", "sniffio.", "attrs.", "_pytest.", "pluggy.")
_STDLIB = sysconfig.get_paths()["stdlib"]


def culprit(frame: FrameType | None) -> str:
    """``module:line`` of the innermost frame that is plugin code (or the innermost frame if
    all of it is the kernel's)."""
    innermost = None
    while frame is not None:
        module = str(frame.f_globals.get("__name__", "?"))
        where = f"{module}:{frame.f_lineno}"
        innermost = innermost or where
        path = frame.f_code.co_filename
        if not module.startswith(_OURS) and module != "speckernel" \
                and not path.startswith(_STDLIB):
            return where
        frame = frame.f_back
    return innermost or "?"


class LoopWatchdog:
    """Use ``async with LoopWatchdog(report):`` around the work; ``report`` gets one line per
    stall, from the watchdog's thread."""

    def __init__(self, report: Callable[[str], None], threshold: float = 5.0,
                 interval: float = 0.25) -> None:
        self.report = report
        self.threshold = threshold
        self.interval = interval
        self.stalls: list[str] = []
        self._beat = time.monotonic()
        self._loop_thread = threading.get_ident()
        self._stop = threading.Event()
        self._scope: anyio.CancelScope | None = None

    async def __aenter__(self) -> LoopWatchdog:
        self._loop_thread = threading.get_ident()
        self._beat = time.monotonic()
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(self._heartbeat)
        threading.Thread(target=self._watch, name="speckernel-loop-watchdog",
                         daemon=True).start()
        return self

    async def __aexit__(self, *exc: object) -> bool | None:
        self._stop.set()
        self._group.cancel_scope.cancel()
        return await self._group.__aexit__(*exc)  # type: ignore[arg-type]

    async def _heartbeat(self) -> None:
        while True:
            self._beat = time.monotonic()
            await anyio.sleep(self.interval)

    def _watch(self) -> None:
        reported_beat = None
        while not self._stop.wait(self.interval):
            beat = self._beat
            lag = time.monotonic() - beat
            if lag < self.threshold or beat == reported_beat:
                continue
            reported_beat = beat
            where = culprit(sys._current_frames().get(self._loop_thread))
            line = (f"the event loop has been blocked for {lag:.1f} s by {where}: CPU-bound "
                    "plugin code belongs in ctx.run_sync")
            self.stalls.append(line)
            self.report(line)
