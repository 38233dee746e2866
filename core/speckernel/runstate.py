"""What a run is doing right now: the samples in flight and the stage each is in, what has
finished, tokens and money so far, and the model calls that had to be retried. The runner
keeps one ``RunState`` per run; the live display (``live.py``) draws it a few times a second.

Code deep in a sample (a verifier call, a provider's retry loop) reports to the run it belongs
to without being handed the state: the runner sets two context variables, the run's state and
the sample's key, before a sample starts, and every task the sample spawns inherits them
(``contextvars``, which anyio's task groups copy). Outside a run both are unset and ``stage``
and ``note_retry`` do nothing.
"""

from __future__ import annotations

import contextvars
import time
from pathlib import Path

import attrs

from speckernel.model import Sample, SampleKey, Usage


@attrs.define
class Running:
    """A sample in flight: its current stage (``generating``, ``verifying tla.sany``, ...)
    and when it started (``time.monotonic``)."""

    key: SampleKey
    stage: str
    started: float


@attrs.define
class RunState:
    """The live figures of one run. ``total`` counts every sample of the run, ``skipped`` those
    finished before this session (a resume); ``max_cost`` is ``--max-cost`` (None: no cap)."""

    root: Path
    benchmark: str
    total: int
    skipped: int
    max_cost: float | None = None
    started: float = attrs.field(factory=time.monotonic)
    running: dict[SampleKey, Running] = attrs.field(factory=dict)
    counts: dict[str, int] = attrs.field(factory=dict)
    solved: int = 0
    usage: Usage = attrs.field(factory=Usage)
    """Tokens, calls and money of the model calls this session made (cache hits left out)."""
    cached_calls: int = 0
    retries: int = 0
    rate_limited: int = 0

    @property
    def finished(self) -> int:
        """Samples finished in this session."""
        return sum(self.counts.values())

    @property
    def done(self) -> int:
        """Samples finished, in this session or before it."""
        return self.skipped + self.finished

    def elapsed(self, now: float | None = None) -> float:
        return (now if now is not None else time.monotonic()) - self.started

    def eta(self, now: float | None = None) -> float | None:
        """Seconds until every sample is done, at this session's pace so far (None before the
        first sample finishes)."""
        if not self.finished:
            return None
        left = self.total - self.done
        return self.elapsed(now) / self.finished * left

    # -- events -----------------------------------------------------------------------------

    def begin(self, key: SampleKey) -> None:
        self.running[key] = Running(key, "starting", time.monotonic())

    def end(self, sample: Sample) -> None:
        self.running.pop(sample.key, None)
        self.counts[sample.status.value] = self.counts.get(sample.status.value, 0) + 1
        self.solved += bool(sample.solved)

    def model_call(self, usage: Usage, cached: bool) -> None:
        """A model call finished. ``usage`` counts what this session sent and spent, so a call
        served from the cache (``cached``) is only counted as such."""
        if cached:
            self.cached_calls += 1
        else:
            self.usage = self.usage + usage


_RUN: contextvars.ContextVar[RunState | None] = contextvars.ContextVar("run", default=None)
_SAMPLE: contextvars.ContextVar[SampleKey | None] = contextvars.ContextVar("sample",
                                                                          default=None)


def enter_run(state: RunState) -> None:
    """Make ``state`` the current run of this task and of the tasks it starts from now on (a
    task's context variables end with it)."""
    _RUN.set(state)


def enter_sample(key: SampleKey) -> None:
    """Make ``key`` the current sample of this task (the runner's task for that sample)."""
    state = _RUN.get()
    _SAMPLE.set(key)
    if state is not None:
        state.begin(key)


def stage(text: str) -> None:
    """The current sample is now at ``text`` (``generating``, ``verifying X``)."""
    state, key = _RUN.get(), _SAMPLE.get()
    if state is not None and key is not None and key in state.running:
        state.running[key].stage = text


def model_call(usage: Usage, cached: bool) -> None:
    """A model call of the current run finished (``RunState.model_call``)."""
    state = _RUN.get()
    if state is not None:
        state.model_call(usage, cached)


def note_retry(rate_limited: bool) -> None:
    """A model call of the current run failed and will be tried again (``rate_limited``: the
    server answered 429 Too Many Requests)."""
    state = _RUN.get()
    if state is not None:
        state.retries += 1
        state.rate_limited += rate_limited
