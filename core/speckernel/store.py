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
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from speckernel.errors import KernelError
from speckernel.model import Sample, SampleKey, Status, from_json, to_json
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


def read_samples(path: Path) -> list[Sample]:
    """Samples of one file; the last line for a key wins; unreadable lines are errors."""
    by_key: dict[SampleKey, Sample] = {}
    for number, (_, line) in enumerate(_complete_lines(path), 1):
        try:
            sample = from_json(Sample, json.loads(line))
        except (ValueError, KeyError, TypeError) as exc:
            raise KernelError(f"{path}:{number}: not a sample record ({exc})") from exc
        by_key[sample.key] = sample
    return list(by_key.values())


class RunStore:
    """One run directory."""

    def __init__(self, root: Path, shard: tuple[int, int] = (0, 1)) -> None:
        self.root = root
        self.shard = shard
        self.samples_path = root / samples_filename(shard)
        self.artifacts = root / "artifacts"

    # -- run.yaml ---------------------------------------------------------------------------

    @property
    def run_file(self) -> Path:
        return self.root / "run.yaml"

    def exists(self) -> bool:
        return self.run_file.is_file()

    def write_run_info(self, info: Mapping[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        _atomic_write(self.run_file, dump_yaml(info))

    def read_run_info(self) -> dict[str, Any]:
        if not self.exists():
            raise KernelError(f"{self.root} is not a run directory (no run.yaml)")
        data = plain(load_yaml(self.run_file.read_text(encoding="utf-8"), str(self.run_file)))
        if not isinstance(data, dict):
            raise KernelError(f"{self.run_file}: not a mapping")
        return data

    # -- samples ----------------------------------------------------------------------------

    def load_samples(self) -> list[Sample]:
        """Every finished sample of every shard, sorted by key."""
        samples: dict[SampleKey, Sample] = {}
        for path in sorted(self.root.glob(SAMPLES_GLOB)):
            for s in read_samples(path):
                samples[s.key] = s
        return [samples[k] for k in sorted(samples)]

    def prepare_resume(self) -> set[SampleKey]:
        """Compact this shard's file for resuming and return the keys that are finished.

        Drops a torn last line, duplicate keys and samples that ended in ``error`` (an
        infrastructure failure, to be run again), so that after the resumed run every sample
        appears exactly once.
        """
        if not self.samples_path.exists():
            return set()
        kept = {s.key: s for s in read_samples(self.samples_path) if s.status is not Status.ERROR}
        text = "".join(_line(s) for s in sorted(kept.values(), key=lambda s: s.key))
        _atomic_write(self.samples_path, text)
        return set(kept)

    def replace_samples(self, samples: list[Sample]) -> None:
        """Rewrite every sample file as one ``samples.jsonl`` (``kernel rescore``)."""
        for path in self.root.glob(SAMPLES_GLOB):
            path.unlink()
        _atomic_write(self.root / samples_filename((0, 1)), "".join(_line(s) for s in samples))

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
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            written.append(target)
        return written

    def append_response(self, record: Mapping[str, Any]) -> None:
        """Record one model call in ``responses.jsonl`` (not fsync'd: a lost tail only costs a
        cache miss on replay)."""
        line = redact(json.dumps(record, ensure_ascii=False)) + "\n"
        with (self.root / "responses.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(line)


def _line(sample: Sample) -> str:
    """One sample's line, with the kernel's secrets redacted (``secrets.py``)."""
    return redact(json.dumps(to_json(sample), ensure_ascii=False, separators=(",", ":"))) + "\n"


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class SampleWriter:
    """Appends finished samples to a samples file with group commit.

    ``await write(sample)`` returns once the sample's line is on disk and fsync'd. Open it with
    ``async with open_writer(path) as writer``.
    """

    def __init__(self, fd: int) -> None:
        send, receive = anyio.create_memory_object_stream[tuple[Sample, anyio.Event]](10_000)
        self._send: MemoryObjectSendStream[tuple[Sample, anyio.Event]] = send
        self._receive: MemoryObjectReceiveStream[tuple[Sample, anyio.Event]] = receive
        self._fd = fd

    async def submit(self, sample: Sample) -> anyio.Event:
        """Queue ``sample``; the returned event is set once its line is fsync'd."""
        done = anyio.Event()
        await self._send.send((sample, done))
        return done

    async def write(self, sample: Sample) -> None:
        """Queue ``sample`` and wait until it is durable."""
        done = await self.submit(sample)
        with anyio.CancelScope(shield=True):
            await done.wait()

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
                await anyio.to_thread.run_sync(self._commit, [s for s, _ in batch])
                for _, done in batch:
                    done.set()

    def close(self) -> None:
        self._send.close()

    def _commit(self, samples: list[Sample]) -> None:
        """Runs in a worker thread: encode, append, fsync, so the event loop never waits on the
        disk."""
        view = memoryview("".join(_line(s) for s in samples).encode())
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)


@asynccontextmanager
async def open_writer(store: RunStore) -> AsyncIterator[SampleWriter]:
    """A ``SampleWriter`` appending to the store's samples file, its commit task running in the
    background."""
    store.root.mkdir(parents=True, exist_ok=True)
    fd = os.open(store.samples_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        writer = SampleWriter(fd)
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer.drain)
            try:
                yield writer
            finally:
                writer.close()
    finally:
        os.close(fd)


_RUN_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def default_run_dir(benchmark: str, stamp: str) -> Path:
    """``runs/<time>-<benchmark>``."""
    return Path("runs") / f"{stamp}-{_RUN_NAME.sub('-', benchmark)}"
