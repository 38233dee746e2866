"""The run store: a directory that is enough to resume, re-score and report a run.

Layout::

    run.yaml                  resolved configuration, seed, plugin and tool versions
    samples.jsonl             one finished sample per line, appended and fsync'd
    samples-<i>of<n>.jsonl    the same, per shard, when the run is split with --shard i/n
    responses.jsonl           every model call (the replay provider's input)
    artifacts/<sample-id>/    candidates' files, written on request by ``kernel artifacts``

A line is written with one ``write`` on an ``O_APPEND`` descriptor and only counts once it ends
with a newline, so a run killed at any instant leaves at most one torn last line, which the next
open drops. Finished samples are written by one writer task that batches whatever is ready and
fsyncs once per batch (group commit), which keeps durability per sample without one disk flush
per sample.

What the store guarantees besides (issue 20):

- one writer per run directory (``runlock``; ``RunStore.locked``);
- every line is strict JSON (RFC 8259): a non-finite number a plugin put in a verdict or a
  measurement is written as ``null``, never as a bare ``NaN``;
- a damaged line anywhere (a disk error, a hand edit) is skipped with a warning naming the file
  and line, so reports still read the run and a resume runs that sample again;
- a write that fails (a full disk, a directory made read-only) stops the run with one
  ``StoreError`` line instead of killing the writer and leaving the run waiting for it forever;
  the batch that failed is cut off again, so the file ends on a complete line and resumes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from speckernel import runlock
from speckernel.errors import KernelError
from speckernel.model import Sample, SampleKey, Status, from_json, strict_json, to_json
from speckernel.secrets import redact
from speckernel.yamlio import dump_yaml, load_yaml, plain

SAMPLES_GLOB = "samples*.jsonl"


def samples_filename(shard: tuple[int, int]) -> str:
    index, count = shard
    return "samples.jsonl" if count == 1 else f"samples-{index}of{count}.jsonl"


def _complete_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(byte offset, line) for each newline-terminated line; a torn tail is not yielded."""
    offset = 0
    with path.open("rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                return
            yield offset, line
            offset += len(line)


Warn = Callable[[str], None]


def warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


class StoreError(KernelError):
    """The run directory cannot be written (a full disk, a read-only directory): the run stops,
    and what was saved resumes."""


@contextlib.contextmanager
def _writing(path: Path, resume: Path | None = None) -> Iterator[None]:
    """Turn an ``OSError`` while writing ``path`` into one ``StoreError`` line (with how to go
    on when it interrupted the run in ``resume``)."""
    try:
        yield
    except OSError as exc:
        hint = (f"; finished samples are saved: fix it, then continue with kernel run --resume "
                f"{resume}" if resume is not None else "")
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}{hint}") from None


def read_samples(path: Path, warn: Warn = warn_on_stderr) -> list[Sample]:
    """Samples of one file; the last line for a key wins. A damaged line is skipped with a
    warning: its sample counts as not run, so a resume runs it again."""
    by_key: dict[SampleKey, Sample] = {}
    for number, (_, line) in enumerate(_complete_lines(path), 1):
        try:
            sample = _checked(from_json(Sample, json.loads(line)))
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            reason = " ".join(str(exc).split())[:200]
            warn(f"{path}:{number}: damaged line skipped ({type(exc).__name__}: {reason}); its "
                 "sample counts as not run")
            continue
        by_key[sample.key] = sample
    return list(by_key.values())


def _checked(sample: Sample) -> Sample:
    """``sample`` if the fields the kernel sorts, counts and prints by have their types (a
    damaged line can be valid JSON of the wrong shape), else ``TypeError``."""
    key = sample.key
    if not (isinstance(key, SampleKey) and all(isinstance(v, str) for v in
                                               (key.task_id, key.agent, key.model))
            and isinstance(key.index, int) and not isinstance(key.index, bool)):
        raise TypeError("the sample key is not (task, agent, model, index)")
    numbers = (sample.started_at, sample.duration_s)
    if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers):
        raise TypeError("the sample's times are not numbers")
    return sample


class RunStore:
    """One run directory. ``warn`` receives one line per damaged sample line it skips."""

    def __init__(self, root: Path, shard: tuple[int, int] = (0, 1),
                 warn: Warn = warn_on_stderr) -> None:
        self.root = root
        self.shard = shard
        self.samples_path = root / samples_filename(shard)
        self.artifacts = root / "artifacts"
        self.warn = warn

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Create the directory if needed and hold it as its one writer (``runlock``). A
        directory created here that holds nothing but the lock when the writer leaves (the run
        was refused when it was planned) is removed again."""
        if self.root.exists() and not self.root.is_dir():
            raise KernelError(f"cannot use {self.root} as a run directory: it is not a directory")
        created = not self.root.exists()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise KernelError(f"cannot create run directory {self.root}: "
                              f"{exc.strerror or exc}") from None
        try:
            with runlock.hold(self.root, self.shard):
                yield
        finally:
            if created:
                with contextlib.suppress(OSError):
                    if all(p.name.startswith(runlock.LOCK_NAME) for p in self.root.iterdir()):
                        for lock in self.root.iterdir():
                            lock.unlink()
                        self.root.rmdir()

    # -- run.yaml ---------------------------------------------------------------------------

    @property
    def run_file(self) -> Path:
        return self.root / "run.yaml"

    def exists(self) -> bool:
        return self.run_file.is_file()

    def write_run_info(self, info: Mapping[str, Any]) -> None:
        with _writing(self.run_file):
            self.root.mkdir(parents=True, exist_ok=True)
            _atomic_write(self.run_file, dump_yaml(info))

    def read_run_info(self) -> dict[str, Any]:
        if not self.exists():
            raise KernelError(f"{self.root} is not a run directory (no run.yaml)")
        try:
            text = self.run_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise KernelError(f"cannot read {self.run_file}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise KernelError(f"{self.run_file}: not UTF-8 text (byte {exc.start})") from None
        data = plain(load_yaml(text, str(self.run_file)))
        if not isinstance(data, dict):
            raise KernelError(f"{self.run_file}: not a mapping")
        return data

    # -- samples ----------------------------------------------------------------------------

    def load_samples(self) -> list[Sample]:
        """Every finished sample of every shard, sorted by key."""
        samples: dict[SampleKey, Sample] = {}
        for path in sorted(self.root.glob(SAMPLES_GLOB)):
            for s in read_samples(path, self.warn):
                samples[s.key] = s
        return [samples[k] for k in sorted(samples)]

    def prepare_resume(self) -> set[SampleKey]:
        """Compact this shard's file for resuming and return the keys that are finished.

        Drops a torn last line, damaged lines, duplicate keys and samples that ended in
        ``error`` (an infrastructure failure, to be run again), so that after the resumed run
        every sample appears exactly once.
        """
        if not self.samples_path.exists():
            return set()
        kept = {s.key: s for s in read_samples(self.samples_path, self.warn)
                if s.status is not Status.ERROR}
        text = "".join(_line(s) for s in sorted(kept.values(), key=lambda s: s.key))
        with _writing(self.samples_path):
            _atomic_write(self.samples_path, text)
        return set(kept)

    def replace_samples(self, samples: list[Sample]) -> None:
        """Rewrite every sample file as one ``samples.jsonl`` (``kernel rescore``)."""
        target = self.root / samples_filename((0, 1))
        with _writing(target):
            _atomic_write(target, "".join(_line(s) for s in samples))
            for path in self.root.glob(SAMPLES_GLOB):
                if path != target:
                    path.unlink()

    def write_artifacts(self, sample: Sample) -> list[Path]:
        """Write the candidate's files into ``artifacts/<id>/`` (``kernel artifacts``), for
        running a tool on them by hand; returns the paths written.

        The JSONL line stays the only record: a directory and a file per sample cost about a
        millisecond on an ordinary disk, which a run of thousands of samples should not pay.
        Paths are checked so a model cannot write outside the sample's folder.
        """
        if sample.candidate is None:
            return []
        folder = self.artifacts / sample.id
        written = []
        for name, text in sorted(sample.candidate.files.items()):
            if name.startswith("/") or ".." in Path(name).parts:
                continue
            target = folder / name
            with _writing(target):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8", errors="backslashreplace")
            written.append(target)
        return written

    def append_response(self, record: Mapping[str, Any]) -> None:
        """Record one model call in ``responses.jsonl`` (not fsync'd: a lost tail only costs a
        cache miss on replay)."""
        path = self.root / "responses.jsonl"
        with (_writing(path, self.root),
              path.open("a", encoding="utf-8", errors="backslashreplace") as fh):
            fh.write(_json_line(record))


def _json_line(value: Any) -> str:
    """One line of strict JSON with the kernel's secrets redacted (``secrets.py``). The fast
    path is plain ``json.dumps``; only a value that holds a non-finite number or a non-JSON
    object takes the slower ``strict_json`` walk.

    The text may hold lone surrogates (a model's ``"\\ud800"`` decoded by the provider's JSON
    parser); writers encode it with ``backslashreplace``, which turns each into its JSON escape,
    so the line reads back to the same string."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (ValueError, TypeError):
        text = json.dumps(strict_json(value), ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False)
    return redact(text) + "\n"


def _line(sample: Sample) -> str:
    """One sample's line."""
    return _json_line(to_json(sample))


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class SampleWriter:
    """Appends finished samples to a samples file with group commit.

    ``await write(sample)`` returns once the sample's line is on disk and fsync'd. Open it with
    ``async with open_writer(path) as writer``.

    A commit that fails sets ``failure``, releases every waiting sample (``write`` then raises
    it, ``submit``'s event is set with nothing saved) and calls ``on_failure`` once: the writer
    never dies silently under samples that wait for it.
    """

    def __init__(self, fd: int, path: Path, resume: Path,
                 on_failure: Callable[[], None] = lambda: None) -> None:
        send, receive = anyio.create_memory_object_stream[tuple[Sample, anyio.Event]](10_000)
        self._send: MemoryObjectSendStream[tuple[Sample, anyio.Event]] = send
        self._receive: MemoryObjectReceiveStream[tuple[Sample, anyio.Event]] = receive
        self._fd = fd
        self._path = path
        self._resume = resume
        self._on_failure = on_failure
        self.failure: StoreError | None = None

    async def submit(self, sample: Sample) -> anyio.Event:
        """Queue ``sample``; the returned event is set once its line is fsync'd, or once the
        writer has failed (``failure`` is then set)."""
        done = anyio.Event()
        if self.failure is not None:
            done.set()
            return done
        await self._send.send((sample, done))
        return done

    async def write(self, sample: Sample) -> None:
        """Queue ``sample`` and wait until it is durable; raises ``StoreError`` if it is not."""
        done = await self.submit(sample)
        with anyio.CancelScope(shield=True):
            await done.wait()
        if self.failure is not None:
            raise self.failure

    async def drain(self) -> None:
        """Commit batches until the writer is closed; shielded, so an interrupted run still
        records every sample that was handed over."""
        with anyio.CancelScope(shield=True):
            async for first in self._receive:
                batch = [first]
                while True:
                    try:
                        batch.append(self._receive.receive_nowait())
                    except (anyio.WouldBlock, anyio.EndOfStream):
                        break
                if self.failure is None:
                    try:
                        await anyio.to_thread.run_sync(self._commit, [s for s, _ in batch])
                    except StoreError as exc:
                        self.failure = exc
                        self._on_failure()
                for _, done in batch:
                    done.set()

    def close(self) -> None:
        self._send.close()

    def _commit(self, samples: list[Sample]) -> None:
        """Runs in a worker thread: encode, append, fsync, so the event loop never waits on the
        disk. On a failure the file is cut back to where the batch began, so that it still ends
        on a complete line (``O_APPEND`` writes go to the end: the size is where they began)."""
        data = "".join(_line(s) for s in samples).encode(errors="backslashreplace")
        view = memoryview(data)
        with _writing(self._path, self._resume):
            start = os.fstat(self._fd).st_size
            try:
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
                os.fsync(self._fd)
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, start)
                raise


@asynccontextmanager
async def open_writer(store: RunStore) -> AsyncIterator[SampleWriter]:
    """A ``SampleWriter`` appending to the store's samples file, its commit task running in the
    background. When a commit fails, the body is cancelled and the ``StoreError`` raised here."""
    with _writing(store.samples_path, store.root):
        store.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(store.samples_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                     0o644)
    try:
        async with anyio.create_task_group() as tg:
            writer = SampleWriter(fd, store.samples_path, store.root, tg.cancel_scope.cancel)
            tg.start_soon(writer.drain)
            try:
                yield writer
            finally:
                writer.close()
        if writer.failure is not None:
            raise writer.failure
    finally:
        os.close(fd)


_RUN_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def default_run_dir(benchmark: str, stamp: str) -> Path:
    """``runs/<time>-<benchmark>``."""
    return Path("runs") / f"{stamp}-{_RUN_NAME.sub('-', benchmark)}"
