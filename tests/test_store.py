"""The run store survives being killed at any byte: torn lines are dropped, errors re-run."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from speckernel.cache import Cache
from speckernel.model import Sample, SampleKey, Status
from speckernel.store import RunStore, open_writer


def sample(task: str, status: str = "success") -> Sample:
    return Sample(SampleKey(task, "reference", "none", 0), status)


async def write_all(store: RunStore, samples: list[Sample]) -> None:
    async with open_writer(store) as writer, anyio.create_task_group() as tg:
        for s in samples:
            tg.start_soon(writer.write, s)


@pytest.mark.anyio
async def test_writer_group_commits_every_sample_once(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    samples = [sample(f"t{i}") for i in range(500)]
    await write_all(store, samples)
    assert sorted(s.key for s in store.load_samples()) == sorted(s.key for s in samples)


def test_torn_last_line_and_errors_are_dropped_on_resume(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    anyio.run(write_all, store, [sample("a"), sample("b", "error"),
                                              sample("c", "failure")])
    with store.samples_path.open("ab") as fh:
        fh.write(b'{"key": {"task_id": "d"')  # killed mid-write
    done = store.prepare_resume()
    assert {k.task_id for k in done} == {"a", "c"}
    assert len(store.samples_path.read_text().splitlines()) == 2


def test_corrupt_complete_line_is_a_clear_error(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.samples_path.write_text("not json\n")
    with pytest.raises(Exception, match=r"samples.jsonl:1: not a sample record"):
        store.load_samples()


def test_shards_write_separate_files_and_load_together(tmp_path: Path) -> None:
    anyio.run(write_all, RunStore(tmp_path, (0, 2)), [sample("a")])
    anyio.run(write_all, RunStore(tmp_path, (1, 2)), [sample("b")])
    assert [s.key.task_id for s in RunStore(tmp_path).load_samples()] == ["a", "b"]


def test_artifacts_cannot_escape_the_sample_folder(tmp_path: Path) -> None:
    from speckernel.model import Candidate, Provenance

    store = RunStore(tmp_path)
    s = Sample(SampleKey("t", "a", "m", 0), Status.SUCCESS,
               Candidate({"../../evil.txt": "x", "ok/a.tla": "y"}, Provenance("a", "m")))
    store.write_artifacts(s)
    assert not (tmp_path / "evil.txt").exists()
    assert (store.artifacts / s.id / "ok" / "a.tla").read_text() == "y"


def test_cache_round_trip_stats_and_clear(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    key = {"verifier": "v", "candidate": "abc"}
    assert cache.get("verdict", key) is None
    cache.put("verdict", key, {"status": "success"})
    assert cache.get("verdict", key) == {"status": "success"}
    assert cache.get("verdict", {**key, "tools": {"tlc": "2.16"}}) is None
    assert [(s.namespace, s.entries) for s in cache.stats()] == [("verdict", 1)]
    assert cache.clear() == 1 and cache.stats() == []
    disabled = Cache(tmp_path, enabled=False)
    disabled.put("verdict", key, {"x": 1})
    assert disabled.get("verdict", key) is None
