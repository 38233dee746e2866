"""A read-only index of run directories, for ``kernel view`` and ``kernel compare``.

Both read only what a run directory holds (``run.yaml`` and ``samples*.jsonl``, in the format of
``store.py``), never a plugin, and never write to it: files are opened for reading only.

The index keeps one small ``Entry`` per sample (its outcome, metrics, cost and where its line
is) instead of the samples themselves, so a run of 10,000 samples with full transcripts costs
little memory; each line is read with msgspec's typed JSON decoder, which builds only the fields
an entry needs and skips the transcript and files (6x faster than ``json.loads`` on such lines:
``benchmarks/view_load.py``); a sample is decoded into the model classes only when it is shown
(``RunIndex.sample``). ``refresh`` reads only the bytes
appended since the last call, which is how the viewer follows a run in progress; a file that was
replaced (``kernel run --resume`` compacts it, ``kernel rescore`` rewrites it) is read again from
the start. As in ``store.read_samples``, a torn last line is not read yet and the last line for a
sample wins.

*Solved* is the benchmark's own verdict (``Benchmark.solved``), which the runner records in each
sample's line (``Sample.solved``), so no plugin is needed to read it; for a sample recorded
before lines held it, the kernel's own judgement: the sample's status is ``success``, i.e. it has
verdicts and every one passed.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import msgspec

from speckernel.errors import KernelError
from speckernel.model import Sample, SampleKey, from_json
from speckernel.store import SAMPLES_GLOB, RunStore

SEARCH_DEPTH = 4
"""How many directory levels below a given directory are searched for runs."""


@attrs.frozen
class Entry:
    """One sample, summarised: a row of the viewer's sample list and a unit of a comparison.

    ``metrics`` holds the harness measurements and every scorer value (later scorers win, as in
    ``Sample.metrics``); ``tokens`` is input plus output tokens; ``unpriced_calls`` counts the
    model calls whose price was unknown (not in ``cost_usd``); ``error`` is the first line of
    the sample's error; ``solved`` is the benchmark's verdict (see the module docstring).
    ``path``, ``offset`` and ``length`` locate its line.
    """

    key: SampleKey
    sample_id: str
    status: str
    metrics: Mapping[str, float | None]
    tokens: int
    cost_usd: float
    duration_s: float
    started_at: float
    task_digest: str
    error: str | None
    path: str
    offset: int
    length: int
    solved: bool = False
    unpriced_calls: int = 0


class _Usage(msgspec.Struct, frozen=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0


class _Provenance(msgspec.Struct, frozen=True):
    usage: _Usage = _Usage()


class _Candidate(msgspec.Struct, frozen=True):
    provenance: _Provenance = _Provenance()


class _Score(msgspec.Struct, frozen=True):
    values: dict[str, float | None] = {}


class _Key(msgspec.Struct, frozen=True):
    task_id: str
    agent: str
    model: str
    index: int


class _Line(msgspec.Struct, frozen=True):
    """The fields of a sample line (``to_json`` of a ``Sample``) that an entry needs; the
    decoder skips the rest (files, transcript, verdicts, log) without building it."""

    key: _Key
    status: str
    candidate: _Candidate | None = None
    scores: tuple[_Score, ...] = ()
    measurements: dict[str, float | None] = {}
    error: str | None = None
    started_at: float = 0.0
    duration_s: float = 0.0
    task_digest: str = ""
    solved: bool | None = None


_DECODER = msgspec.json.Decoder(_Line)


def _number(value: float | None) -> float | None:
    """A metric value; ``None`` for a missing one and for NaN or an infinity (which Python's
    JSON writes but no mean or interval survives)."""
    return value if value is not None and math.isfinite(value) else None


def decode_entry(raw: bytes | memoryview, path: str, offset: int, length: int) -> Entry:
    """The entry of one sample line; ``ValueError`` when it is not one.

    The typed decoder reads only the fields above; a line it refuses is read again with
    ``json`` (which, like the store, accepts ``NaN`` and ``Infinity``) and converted with the
    same types, so both ways give the same entry or the same refusal."""
    try:
        line = _DECODER.decode(raw)
    except msgspec.DecodeError:
        try:
            line = msgspec.convert(json.loads(bytes(raw)), _Line)
        except msgspec.ValidationError as exc:
            raise ValueError(str(exc)) from exc
    key = SampleKey(line.key.task_id, line.key.agent, line.key.model, line.key.index)
    metrics = {name: _number(v) for name, v in line.measurements.items()}
    for score in line.scores:
        metrics.update((name, _number(v)) for name, v in score.values.items())
    usage = line.candidate.provenance.usage if line.candidate else _Usage()
    return Entry(
        key=key,
        sample_id=key.id,
        status=line.status,
        metrics=metrics,
        tokens=usage.input_tokens + usage.output_tokens,
        cost_usd=usage.cost_usd,
        duration_s=line.duration_s,
        started_at=line.started_at,
        task_digest=line.task_digest,
        error=(line.error.strip().splitlines() or [""])[0] if line.error else None,
        path=path,
        offset=offset,
        length=length,
        solved=line.status == "success" if line.solved is None else line.solved,
        unpriced_calls=usage.unpriced_calls,
    )


@attrs.define
class _FileState:
    identity: tuple[int, int]
    offset: int = 0
    lines: int = 0


class RunIndex:
    """The samples of one run directory, kept up to date by ``refresh``; safe to share between
    threads."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.RLock()
        self._files: dict[str, _FileState] = {}
        self._entries: dict[str, Entry] = {}
        self._sorted: list[Entry] | None = None
        self._problems: list[str] = []
        self._info: dict[str, Any] = {}
        self._info_stamp: tuple[int, int] | None = None
        self._stamp = ""

    # -- reading ----------------------------------------------------------------------------

    def refresh(self) -> str:
        """Read what changed since the last call; returns the run's stamp, which changes
        whenever its samples or ``run.yaml`` do."""
        with self._lock:
            self._refresh_info()
            paths = sorted(self.root.glob(SAMPLES_GLOB))
            stats = {p.name: p.stat() for p in paths if p.is_file()}
            gone = set(self._files) - set(stats)
            rewritten = [name for name, st in stats.items() if name in self._files and (
                self._files[name].identity != (st.st_dev, st.st_ino)
                or st.st_size < self._files[name].offset)]
            if gone or rewritten:
                self._files.clear()
                self._entries.clear()
                self._problems = [p for p in self._problems if p.startswith("run.yaml")]
            for name, st in sorted(stats.items()):
                state = self._files.setdefault(name, _FileState((st.st_dev, st.st_ino)))
                if st.st_size > state.offset:
                    self._read_from(name, state)
            self._stamp = ";".join(
                [f"{n}:{s.offset}" for n, s in sorted(self._files.items())]
                + [f"run.yaml:{self._info_stamp}"])
            return self._stamp

    def _read_from(self, name: str, state: _FileState) -> None:
        with (self.root / name).open("rb") as fh:
            fh.seek(state.offset)
            data = fh.read()
        view = memoryview(data)  # lines as views: no copy of ~100 MB per 10,000 samples
        start = 0
        while (end := data.find(b"\n", start) + 1) > 0:  # a torn tail waits for its newline
            state.lines += 1
            try:
                entry = decode_entry(view[start:end], name, state.offset + start, end - start)
            except ValueError as exc:
                self._problems.append(f"{name}:{state.lines}: not a sample record ({exc})")
            else:
                self._entries[entry.sample_id] = entry
            start = end
        state.offset += start
        self._sorted = None

    def _refresh_info(self) -> None:
        path = self.root / "run.yaml"
        try:
            st = path.stat()
        except OSError:
            self._info, self._info_stamp = {}, None
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._info_stamp:
            return
        self._info_stamp = stamp
        self._problems = [p for p in self._problems if not p.startswith("run.yaml")]
        try:
            self._info = RunStore(self.root).read_run_info()
        except KernelError as exc:
            self._info = {}
            self._problems.append(f"run.yaml: {exc}")

    # -- what it holds ----------------------------------------------------------------------

    @property
    def stamp(self) -> str:
        return self._stamp

    @property
    def info(self) -> dict[str, Any]:
        """``run.yaml`` as data (empty when it cannot be read: see ``problems``)."""
        return self._info

    @property
    def problems(self) -> tuple[str, ...]:
        """Lines that could not be read, as ``file:line: reason``."""
        return tuple(self._problems)

    @property
    def entries(self) -> list[Entry]:
        """Every sample, in key order (task, agent, model, attempt)."""
        with self._lock:
            if self._sorted is None:
                self._sorted = sorted(self._entries.values(), key=lambda e: e.key)
            return self._sorted

    def entry(self, sample_id: str) -> Entry | None:
        return self._entries.get(sample_id)

    def sample(self, sample_id: str) -> Sample | None:
        """The full sample, decoded from its line; ``None`` when the run has no such sample."""
        with self._lock:
            entry = self._entries.get(sample_id)
            if entry is None:
                return None
            with (self.root / entry.path).open("rb") as fh:
                fh.seek(entry.offset)
                line = fh.read(entry.length)
        try:
            return from_json(Sample, json.loads(line))
        except (ValueError, KeyError, TypeError) as exc:
            raise KernelError(f"{self.root / entry.path}: sample {sample_id} cannot be read "
                              f"({exc})") from exc

    # -- run.yaml fields --------------------------------------------------------------------

    @property
    def benchmark(self) -> str:
        """``name version`` of the run's benchmark, as ``run.yaml`` records it."""
        bench = self._info.get("benchmark")
        if isinstance(bench, Mapping):
            return " ".join(str(bench[k]) for k in ("name", "version") if bench.get(k))
        return str(bench or "")

    @property
    def benchmark_name(self) -> str:
        bench = self._info.get("benchmark")
        return str(bench.get("name", "")) if isinstance(bench, Mapping) else str(bench or "")


def find_runs(dirs: Iterable[Path], depth: int = SEARCH_DEPTH) -> list[Path]:
    """The run directories (those holding a ``run.yaml``) at or below each of ``dirs``, at most
    ``depth`` levels down, in sorted order; hidden directories and ``artifacts`` are skipped and
    a run's own subdirectories are not searched."""
    found: set[Path] = set()

    def walk(folder: Path, level: int) -> None:
        if (folder / "run.yaml").is_file():
            found.add(folder)
            return
        if level >= depth:
            return
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir())
        except OSError:
            return
        for child in children:
            if not child.name.startswith(".") and child.name != "artifacts":
                walk(child, level + 1)

    for folder in dirs:
        if not folder.is_dir():
            raise KernelError(f"{folder}: no such directory")
        walk(folder, 0)
    return sorted(found)


def load_entries(root: Path) -> RunIndex:
    """Index one run for a one-shot reader (``kernel compare``), refusing a directory that is
    not a run or has unreadable lines, with the reason."""
    if not (root / "run.yaml").is_file():
        raise KernelError(f"{root} is not a run directory (no run.yaml)")
    index = RunIndex(root)
    index.refresh()
    if index.problems:
        raise KernelError(f"{root}: {index.problems[0]}")
    return index


def group_entries(entries: Sequence[Entry]) -> dict[tuple[str, str], list[Entry]]:
    """Entries by (agent, model), groups in sorted order."""
    out: dict[tuple[str, str], list[Entry]] = {}
    for e in entries:
        out.setdefault((e.key.agent, e.key.model), []).append(e)
    return dict(sorted(out.items()))

