"""How a run shows its progress: a rich bar on a terminal, plain lines in CI, or nothing."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from speckernel.escaping import printable
from speckernel.model import Sample
from speckernel.runner import Progress


def choose_display(requested: str | None, stream: TextIO | None = None) -> str:
    """``rich`` on a terminal, ``plain`` otherwise, unless one is requested."""
    if requested:
        if requested not in ("rich", "plain", "none"):
            from speckernel.errors import KernelError

            raise KernelError(f"unknown display '{requested}' (known: rich, plain, none)")
        return requested
    return "rich" if (stream or sys.stdout).isatty() else "plain"


class PlainProgress(Progress):
    """One line per finished sample: readable in CI logs and greppable."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.total = 0
        self.done = 0

    def start(self, total: int, skipped: int) -> None:
        self.total, self.done = total, skipped
        if skipped:
            print(f"resuming: {skipped} of {total} samples already finished", file=self.stream)

    def finished(self, sample: Sample) -> None:
        self.done += 1
        k = sample.key
        metrics = " ".join(f"{n}={v:.3g}" for n, v in sample.metrics().items() if v is not None)
        line = (f"[{self.done}/{self.total}] {k.task_id} {k.agent} {k.model} #{k.index}: "
                f"{sample.status.value} ({sample.duration_s:.2f} s)"
                f"{' ' + metrics if metrics else ''}")
        print(printable(line, lines=False), file=self.stream, flush=True)


class RichProgress(Progress):
    """A live progress bar with per-status counts."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as Bar

        self.bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), TimeRemainingColumn(),
                       TextColumn("{task.fields[counts]}"))
        self.counts: dict[str, int] = {}
        self.task_id = self.bar.add_task("samples", total=0, counts="")
        self.last = 0.0

    def start(self, total: int, skipped: int) -> None:
        self.bar.start()
        self.bar.update(self.task_id, total=total, completed=skipped)

    def finished(self, sample: Sample) -> None:
        self.counts[sample.status.value] = self.counts.get(sample.status.value, 0) + 1
        now = time.monotonic()
        text = " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))
        self.bar.update(self.task_id, advance=1, counts=text, refresh=now - self.last > 0.1)
        self.last = now

    def close(self) -> None:
        self.bar.stop()


def make_progress(display: str) -> Progress:
    if display == "rich":
        return RichProgress()
    if display == "plain":
        return PlainProgress()
    return Progress()
