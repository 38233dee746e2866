"""The read-only run index behind ``kernel view`` and ``kernel compare``: it agrees with the store,
follows appended lines, survives torn and rewritten files, and never writes."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runbuilder import append, kernel_repair_run, sample, write_run
from speckernel.errors import KernelError
from speckernel.model import (
    Candidate,
    Provenance,
    Sample,
    SampleKey,
    Score,
    Status,
    Usage,
    to_json,
)
from speckernel.runindex import RunIndex, decode_entry, find_runs, load_entries
from speckernel.store import RunStore


def snapshot(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file under ``root`` with its size, modification time and content."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            st = path.stat()
            out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns, path.read_bytes())
    return out


def test_index_agrees_with_the_store_on_a_kernel_run(kernel_cli, scripted_model, run_dir,
                                                     pyfunc) -> None:
    kernel_repair_run(kernel_cli, scripted_model, run_dir)
    index = RunIndex(run_dir)
    index.refresh()
    stored = RunStore(run_dir).load_samples()
    assert [e.sample_id for e in index.entries] == [s.id for s in stored]
    entry, full = index.entries[0], stored[0]
    assert entry.status == full.status.value == "failure" and not entry.solved
    assert entry.metrics == {"passed": 0.0, "check_rate": 0.0}
    usage = full.candidate.provenance.usage
    assert entry.tokens == usage.input_tokens + usage.output_tokens
    assert index.sample(entry.sample_id) == full
    assert index.benchmark == "pyfunc 1" and index.benchmark_name == "pyfunc"
    assert index.problems == ()


def test_refresh_reads_only_what_was_appended(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run", [sample("a"), sample("b", solved=False)])
    index = RunIndex(root)
    first = index.refresh()
    assert [e.key.task_id for e in index.entries] == ["a", "b"]
    assert index.refresh() == first  # nothing changed
    append(root, [sample("c"), sample("a", solved=False)])  # a's newer line wins
    assert index.refresh() != first
    assert [(e.key.task_id, e.solved) for e in index.entries] == [
        ("a", False), ("b", False), ("c", True)]


def test_a_torn_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run", [sample("a")])
    path = root / "samples.jsonl"
    line = path.read_bytes().replace(b'"task_id":"a"', b'"task_id":"z"')
    with path.open("ab") as fh:
        fh.write(line[:40])
    index = RunIndex(root)
    index.refresh()
    assert len(index.entries) == 1 and index.problems == ()
    with path.open("ab") as fh:  # the writer finishes the line
        fh.write(line[40:])
    index.refresh()
    assert [e.key.task_id for e in index.entries] == ["a", "z"]


def test_a_rewritten_file_is_read_again(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run", [sample("a"), sample("b"),
                                        sample("c", error="provider down")])
    index = RunIndex(root)
    index.refresh()
    assert len(index.entries) == 3
    RunStore(root).prepare_resume()  # compacts: the error sample goes, the file is replaced
    index.refresh()
    assert [e.key.task_id for e in index.entries] == ["a", "b"]


def test_shards_are_merged(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run", [sample("a")])
    (root / "samples.jsonl").rename(root / "samples-0of2.jsonl")
    other = write_run(tmp_path / "other", [sample("b")])
    (other / "samples.jsonl").rename(root / "samples-1of2.jsonl")
    index = RunIndex(root)
    index.refresh()
    assert [e.key.task_id for e in index.entries] == ["a", "b"]
    assert index.sample(index.entries[1].sample_id).key.task_id == "b"


def test_bad_lines_are_problems_not_crashes(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run", [sample("a")])
    with (root / "samples.jsonl").open("a") as fh:
        fh.write('{"not": "a sample"}\n[1, 2]\nnot json\n{"key": {"task_id": "x"}}\n')
        fh.write('{"key": {"task_id": "t", "agent": "a", "model": "m", "index": 0}, '
                 '"status": "success", "scores": [{"values": {"m": "high"}}]}\n')
    append(root, [sample("b")])
    index = RunIndex(root)
    index.refresh()
    assert [e.key.task_id for e in index.entries] == ["a", "b"]
    assert len(index.problems) == 5
    assert all(p.startswith("samples.jsonl:") and "not a sample record" in p
               for p in index.problems)
    with pytest.raises(KernelError, match=r"samples\.jsonl:2"):
        load_entries(root)


def test_non_finite_metrics_are_missing(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run", [sample("a", metrics={"x": float("nan"),
                                                             "y": float("inf"), "z": 0.5})])
    index = RunIndex(root)
    index.refresh()
    assert index.entries[0].metrics == {"x": None, "y": None, "z": 0.5}


def test_unreadable_run_yaml_is_a_problem(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run", [sample("a")])
    (root / "run.yaml").write_text("benchmark: [unclosed\n")
    index = RunIndex(root)
    index.refresh()
    assert index.info == {} and len(index.entries) == 1
    assert index.problems[0].startswith("run.yaml:")


def test_find_runs(tmp_path: Path) -> None:
    for rel in ("runs/a", "runs/nested/b", "runs/.hidden/c", "runs/a/artifacts/x/d",
                "deep/1/2/3/4/5/e"):
        write_run(tmp_path / rel, [])
    (tmp_path / "runs" / "empty").mkdir()
    found = find_runs([tmp_path / "runs", tmp_path / "deep"])
    assert found == [tmp_path / "runs/a", tmp_path / "runs/nested/b"]
    assert find_runs([tmp_path / "runs/a"]) == [tmp_path / "runs/a"]
    with pytest.raises(KernelError, match="no such directory"):
        find_runs([tmp_path / "missing"])


def test_reading_never_writes(tmp_path: Path) -> None:
    root = write_run(tmp_path / "run", [sample("a"), sample("b", status=Status.TIMEOUT,
                                                            solved=False)])
    before = snapshot(root)
    index = load_entries(root)
    for e in index.entries:
        index.sample(e.sample_id)
    index.refresh()
    assert snapshot(root) == before


def _reference_id(key: SampleKey) -> str:
    """``SampleKey.id`` as first defined (a loop over characters): the regex that replaced it
    must give every existing run's sample the id it had."""
    raw = f"{key.task_id}__{key.agent}__{key.model}__{key.index}"
    safe = "".join(c if c.isalnum() or c in "-_.+" else "-" for c in raw)
    if safe != raw:
        safe += "-" + hashlib.sha256(raw.encode()).hexdigest()[:8]
    return safe


@given(st.text(), st.text(), st.text(), st.integers(0, 10**6))
def test_sample_ids_are_unchanged(task: str, agent: str, model: str, index: int) -> None:
    key = SampleKey(task, agent, model, index)
    assert key.id == _reference_id(key)


numbers = st.one_of(st.none(), st.floats(), st.integers(-10**6, 10**6).map(float))


@settings(max_examples=200, deadline=None)
@given(task=st.text(min_size=1), status=st.sampled_from(list(Status)),
       measurements=st.dictionaries(st.text(max_size=5), st.floats()),
       scores=st.lists(st.dictionaries(st.text(max_size=5), numbers), max_size=3),
       tokens=st.tuples(st.integers(0, 10**7), st.integers(0, 10**7)),
       cost=st.floats(0, 100), unpriced=st.integers(0, 10**6),
       error=st.one_of(st.none(), st.text()), with_candidate=st.booleans())
def test_an_entry_is_what_the_sample_says(task, status, measurements, scores, tokens, cost,
                                          unpriced, error, with_candidate) -> None:
    """Either way a line is decoded (the typed fast path, or ``json`` for the NaN and Infinity
    Python writes), the entry agrees with the model's own reading of the sample."""
    usage = Usage(*tokens, cost, 1, unpriced)
    candidate = Candidate({"f": "x"}, Provenance("a", "m", usage=usage)) if with_candidate else None
    s = Sample(SampleKey(task, "a", "m", 0), status, candidate,
               scores=tuple(Score(f"s{i}", v) for i, v in enumerate(scores)),
               measurements=measurements, error=error)
    line = json.dumps(to_json(s), ensure_ascii=False).encode() + b"\n"
    entry = decode_entry(line, "samples.jsonl", 0, len(line))
    expected = {k: (v if v is not None and math.isfinite(v) else None)
                for k, v in {**s.measurements, **s.metrics()}.items()}
    assert entry.metrics == expected
    assert (entry.key, entry.sample_id, entry.status) == (s.key, s.id, s.status.value)
    assert entry.tokens == (sum(tokens) if with_candidate else 0)
    assert entry.cost_usd == (cost if with_candidate else 0.0)
    assert entry.unpriced_calls == (unpriced if with_candidate else 0)
    assert entry.error == ((error.strip().splitlines() or [""])[0] if error else None)
