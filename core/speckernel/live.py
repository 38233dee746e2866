"""The live display of a run on a terminal (``--display rich``, the default when stdout is one).

It redraws, a few times a second, the run's ``RunState`` (``runstate.py``):

* the benchmark and the run directory (where ``kernel run --resume`` and ``kernel report``
  point);
* a bar with samples done out of the run's total, the time elapsed and the time left at the
  pace so far;
* the finished samples by status and how many the benchmark counts as solved (``success`` says
  every verifier passed, *solved* is the benchmark's own verdict, e.g. a primary metric of 1);
* the model calls made and served from the cache, their tokens, the money spent against
  ``--max-cost`` (an unknown price is said, not shown as $0), and the calls that were retried,
  429 Too Many Requests among them;
* the samples in flight, each with its stage: ``generating`` (waiting on the model),
  ``verifying <verifier>``, ``benchmarking <harness>``, and how long it has run.

Every name in it (task ids, agents, models, verifiers) comes from plugins or the command line and
is drawn as plain text, never as markup, with control characters shown as escapes
(``escaping.printable``).
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from speckernel.escaping import printable, rich_text
from speckernel.model import Sample, Status
from speckernel.report import format_cost
from speckernel.runner import Progress
from speckernel.runstate import RunState

MAX_ROWS = 12
"""Samples in flight shown by name; the rest are counted."""

_STATUS_STYLE = {Status.SUCCESS: "green", Status.FAILURE: "red", Status.UNKNOWN: "yellow",
                 Status.TIMEOUT: "magenta", Status.ERROR: "bold red"}


def clock(seconds: float | None) -> str:
    """``1:02:03``, ``2:03`` or ``0:07``; ``?`` when unknown."""
    if seconds is None:
        return "?"
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def money(state: RunState) -> str:
    """What the session spent, against the cap, saying when some prices were unknown."""
    spent = format_cost(state.usage.cost_usd, state.usage.unpriced_calls)
    if state.max_cost is not None:
        spent += f" of ${state.max_cost:g} (--max-cost)"
    return spent


def render(state: RunState, now: float | None = None) -> RenderableType:
    """One frame of the display for ``state`` (a pure function of it and the clock)."""
    now = time.monotonic() if now is None else now
    header = Text()
    header.append("speckernel run ", style="bold")
    header.append(printable(state.benchmark, lines=False), style="bold cyan")
    header.append("  ·  run directory ")
    header.append(printable(str(state.root), lines=False), style="bold")

    bar = Table.grid(padding=(0, 1))
    bar.add_row(ProgressBar(total=max(state.total, 1), completed=state.done, width=40),
                Text(f"{state.done}/{state.total} samples · {clock(state.elapsed(now))} elapsed"
                     f" · ETA {clock(state.eta(now))}"))

    finished = Text("finished: ")
    shown = [s for s in Status if state.counts.get(s.value)]
    for i, status in enumerate(shown):
        finished.append(f"{state.counts[status.value]} {status.value}",
                        style=_STATUS_STYLE[status])
        if i < len(shown) - 1:
            finished.append(" · ")
    if not shown:
        finished.append("none yet")
    if state.skipped:
        finished.append(f" (+{state.skipped} before this session)")
    finished.append("   solved ", style="bold")
    finished.append(f"{state.solved}", style="bold green")
    if state.finished:
        finished.append(f" of {state.finished} ({100 * state.solved / state.finished:.0f}%)")

    usage = state.usage
    calls = Text(f"model calls: {usage.calls}")
    if state.cached_calls:
        calls.append(f" (+{state.cached_calls} from the cache)")
    calls.append(f" · tokens {usage.input_tokens:,} in / {usage.output_tokens:,} out · ")
    calls.append(f"cost {money(state)}",
                 style="bold red" if state.max_cost is not None
                 and usage.cost_usd >= 0.8 * state.max_cost else "")
    retries = f" · retries {state.retries}"
    if state.rate_limited:
        retries += f" ({state.rate_limited} rate-limited, HTTP 429)"
    calls.append(retries, style="yellow" if state.retries else "")

    running = Table(box=None, padding=(0, 2), show_edge=False, title_justify="left",
                    title=f"running ({len(state.running)})", title_style="bold")
    for column in ("task", "agent", "model", "#", "stage", "time"):
        running.add_column(column, overflow="ellipsis", no_wrap=True,
                           justify="right" if column in ("#", "time") else "left")
    in_flight = sorted(state.running.values(), key=lambda r: r.started)
    for r in in_flight[:MAX_ROWS]:
        running.add_row(rich_text(r.key.task_id, lines=False), rich_text(r.key.agent, lines=False),
                        rich_text(r.key.model, lines=False), str(r.key.index),
                        Text(printable(r.stage, lines=False), style="cyan"),
                        clock(now - r.started))
    parts: list[Any] = [header, bar, finished, calls, running]
    if len(in_flight) > MAX_ROWS:
        parts.append(Text(f"… and {len(in_flight) - MAX_ROWS} more", style="dim"))
    return Group(*parts)


class LiveDisplay(Progress):
    """Draws the run's state on a terminal while it runs, and leaves the last frame."""

    def __init__(self, console: Console | None = None, refresh_per_second: float = 4) -> None:
        self.console = console or Console(highlight=False)
        self.refresh_per_second = refresh_per_second
        self.live: Live | None = None

    def frame(self) -> RenderableType:
        return render(self.state) if self.state is not None else Text("starting…")

    def start(self, total: int, skipped: int) -> None:
        self.live = Live(get_renderable=self.frame, console=self.console,
                         refresh_per_second=self.refresh_per_second, transient=False)
        self.live.start()

    def finished(self, sample: Sample) -> None:
        """Nothing to do: the runner has updated the state, the next frame shows it."""

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

    def warning(self, message: str) -> None:
        self.console.print(Text(f"warning: {printable(message, lines=False)}", style="yellow"))
