"""The read-only run index behind ``kernel view`` and ``kernel compare``: it agrees with the store,
follows appended lines, survives torn and rewritten files, and never writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from runbuilder import append, kernel_repair_run, sample, write_run

from speckernel.errors import KernelError
from speckernel.model import Status
from speckernel.runindex import RunIndex, find_runs, load_entries
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
    with pytest.raises(KernelError, match="samples.jsonl:2"):
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
    os.chmod(root, 0o555)  # a read-only directory: any attempt to create a file would fail
    try:
        index = load_entries(root)
        for e in index.entries:
            index.sample(e.sample_id)
        index.refresh()
    finally:
        os.chmod(root, 0o755)
    assert snapshot(root) == before
