"""How a run shows its progress: the live display on a terminal (``live.py``), plain lines in
CI, or nothing."""

from __future__ import annotations

import sys
from typing import TextIO

from speckernel.escaping import printable
from speckernel.model import Sample
from speckernel.runner import Progress
from speckernel.runstate import RunState


def choose_display(requested: str | None, stream: TextIO | None = None) -> str:
    """``rich`` on a terminal, ``plain`` otherwise, unless one is requested."""
    if requested:
        if requested not in ("rich", "plain", "none"):
            from speckernel.errors import KernelError

            raise KernelError(f"unknown display '{requested}' (known: rich, plain, none)")
        return requested
    return "rich" if (stream or sys.stdout).isatty() else "plain"


class PlainProgress(Progress):
    """The run directory first, then one line per finished sample (its status, and whether the
    benchmark counts it as solved): readable in CI logs and greppable."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.total = 0
        self.done = 0

    def watch(self, state: RunState) -> None:
        super().watch(state)
        print(printable(f"run directory {state.root}", lines=False), file=self.stream,
              flush=True)

    def start(self, total: int, skipped: int) -> None:
        self.total, self.done = total, skipped
        if skipped:
            print(f"resuming: {skipped} of {total} samples already finished", file=self.stream)

    def finished(self, sample: Sample) -> None:
        self.done += 1
        k = sample.key
        metrics = " ".join(f"{n}={v:.3g}" for n, v in sample.metrics().items() if v is not None)
        line = (f"[{self.done}/{self.total}] {k.task_id} {k.agent} {k.model} #{k.index}: "
                f"{sample.status.value}{', solved' if sample.solved else ''} "
                f"({sample.duration_s:.2f} s)"
                f"{' ' + metrics if metrics else ''}")
        print(printable(line, lines=False), file=self.stream, flush=True)


def make_progress(display: str, stream: TextIO | None = None) -> Progress:
    """The display ``display`` names (see ``choose_display``), drawing on ``stream`` (default
    stdout; ``kernel run --json`` keeps stdout for its JSON)."""
    if display == "rich":
        from rich.console import Console

        from speckernel.live import LiveDisplay

        return LiveDisplay(Console(file=stream, highlight=False) if stream else None)
    if display == "plain":
        return PlainProgress(stream)
    return Progress()
