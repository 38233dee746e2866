"""The run store survives being killed at any byte: torn lines are dropped, errors re-run."""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --------------------------------------------------------------------------- damaged lines


def _written(tmp_path: Path, n: int = 5) -> tuple[RunStore, list[bytes]]:
    store = RunStore(tmp_path, warn=lambda message: None)
    anyio.run(write_all, store, [sample(f"t{i}") for i in range(n)])
    return store, store.samples_path.read_bytes().splitlines(keepends=True)


GOOD_KEY = '{"task_id": "x", "agent": "a", "model": "m", "index": 0}'


def _with_key(rest: str) -> bytes:
    return ('{"key": ' + GOOD_KEY + ", " + rest + "}").encode()


DAMAGED_LINES = [
    b"not json", b"{", b"}", b"[]", b"null", b"42", b'"text"', b"{}", b'{"key": 1}', b"NaN",
    b'{"key": {"task_id": "x"}}', b"\xff\xfe\x00\x01", b"\x00" * 64, b"[" * 100_000,
    b'{"key": ' + b"[" * 50_000, b"\x1b[2J\x1b]0;pwned\x07",
    _with_key('"status": "exploded"'),
    _with_key('"status": "success", "verdicts": {"a": 1}'),
    b'{"key": {"task_id": "x", "agent": "a", "model": "m", "index": "zero"}, '
    b'"status": "success"}',
    b'{"key": {"task_id": 1, "agent": "a", "model": "m", "index": 0}, "status": "success"}',
    _with_key('"status": "success", "duration_s": "long"'),
    _with_key('"status": "success", "candidate": 7'),
    _with_key('"status": "success", "scores": [{"scorer": "s"}]'),
]


@pytest.mark.parametrize("damage", DAMAGED_LINES, ids=[f"d{i}" for i in range(len(DAMAGED_LINES))])
@pytest.mark.parametrize("where", ["first", "middle", "last-complete"])
def test_a_damaged_line_is_skipped_with_a_warning_and_its_sample_reruns(
        tmp_path: Path, damage: bytes, where: str) -> None:
    store, lines = _written(tmp_path)
    at = {"first": 0, "middle": 2, "last-complete": 4}[where]
    lines[at] = damage + b"\n"
    store.samples_path.write_bytes(b"".join(lines))
    warnings: list[str] = []
    store.warn = warnings.append
    assert len(store.load_samples()) == 4
    assert len(warnings) == 1 and f"samples.jsonl:{at + 1}: damaged line skipped" in warnings[0]
    assert "\n" not in warnings[0]
    assert len(store.prepare_resume()) == 4  # the damaged sample is run again
    assert len(store.samples_path.read_text().splitlines()) == 4


@settings(max_examples=60, deadline=None)
@given(garbage=st.binary(max_size=300).filter(lambda b: b"\n" not in b),
       at=st.integers(0, 5))
def test_any_garbage_line_anywhere_loses_only_itself(tmp_path_factory: pytest.TempPathFactory,
                                                      garbage: bytes, at: int) -> None:
    store, lines = _written(tmp_path_factory.mktemp("run"))
    lines.insert(at, garbage + b"\n")
    store.samples_path.write_bytes(b"".join(lines))
    assert sorted(s.key.task_id for s in store.load_samples()) == [f"t{i}" for i in range(5)]


def test_report_and_resume_read_a_run_with_a_damaged_middle_line(kernel_cli, run_dir: Path,
                                                                 pyfunc: None) -> None:
    assert kernel_cli("run", "pyfunc", "--output", run_dir, "--display", "none").exit_code == 0
    lines = (run_dir / "samples.jsonl").read_bytes().splitlines(keepends=True)
    lines[1] = lines[1][:40] + b"\x00garbage\n"
    (run_dir / "samples.jsonl").write_bytes(b"".join(lines))
    report = kernel_cli("report", run_dir)
    assert report.exit_code == 0, report.stderr
    assert "samples.jsonl:2: damaged line skipped" in report.stderr
    resumed = kernel_cli("run", "--resume", run_dir, "--display", "none")
    assert resumed.exit_code == 0, resumed.stderr
    assert "1 samples finished (1 success), 1 solved; 2 already done" in resumed.stdout
    assert len(RunStore(run_dir).load_samples()) == 3


# --------------------------------------------------------------------------- strict JSON


def _strict(text: str) -> object:
    def refuse(word: str) -> object:
        raise ValueError(f"not strict JSON: {word}")

    return json.loads(text, parse_constant=refuse)


NON_FINITE = [math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
def test_every_line_is_strict_json(tmp_path: Path, bad: float) -> None:
    from speckernel.model import Score, Verdict

    odd = Sample(SampleKey("t", "a", "m", 0), "success",
                 verdicts=(Verdict("v", "success", data={"ratio": bad, "nested": [bad, {1, 2}],
                                                         "path": tmp_path}),),
                 scores=(Score("s", {"x": bad}),), measurements={"speed": bad},
                 duration_s=bad)
    store = RunStore(tmp_path)
    anyio.run(write_all, store, [odd])
    [line] = store.samples_path.read_text().splitlines()
    record = _strict(line)
    assert isinstance(record, dict)
    assert record["scores"][0]["values"]["x"] is None
    assert record["verdicts"][0]["data"]["ratio"] is None
    assert record["measurements"]["speed"] is None
    assert record["verdicts"][0]["data"]["path"] == str(tmp_path)


def test_a_lone_surrogate_from_a_model_round_trips(tmp_path: Path) -> None:
    from speckernel.model import Candidate, Provenance

    text = "x\ud800y\udcffz\\\ud83d"
    odd = Sample(SampleKey("t", "a", "m", 0), "success",
                 Candidate({"a.txt": text}, Provenance("a", "m")))
    store = RunStore(tmp_path)
    anyio.run(write_all, store, [odd])
    [back] = store.load_samples()
    assert back.candidate is not None and back.candidate.files["a.txt"] == text


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
def test_a_non_finite_score_is_recorded_as_null_with_a_note(kernel_cli, kernel_plugins,
                                                           run_dir: Path, bad: float) -> None:
    from speckernel import hookimpl
    from speckernel.model import Score
    from test_containment import TrapPlugin, TrapScorer

    class OddScorer(TrapScorer):
        def score(self, task, candidate, verdicts):
            return Score(self.name, {"ok": bad, "fine": 0.5})

    class Plugin(TrapPlugin):
        @hookimpl
        def register_scorers(self, register):
            register(OddScorer())

    kernel_plugins(Plugin())
    assert kernel_cli("run", "trap", "--output", run_dir, "--display", "none").exit_code == 0
    for line in (run_dir / "samples.jsonl").read_text().splitlines():
        record = _strict(line)
        assert isinstance(record, dict) and record["status"] == "success"
        [score] = record["scores"]
        assert score["values"] == {"ok": None, "fine": 0.5}
        assert f"ok was {bad!r}, recorded as null" in score["explanation"]
    assert kernel_cli("report", run_dir).exit_code == 0
    _strict((run_dir / "report.json").read_text())


# --------------------------------------------------------------------------- one writer


def test_a_second_writer_is_refused_naming_the_holder(tmp_path: Path) -> None:
    from speckernel import runlock

    with (runlock.hold(tmp_path), pytest.raises(runlock.RunDirectoryBusy) as refused,
          runlock.hold(tmp_path)):
        pass
    assert f"pid {os.getpid()} on {socket.gethostname()}" in str(refused.value)
    with runlock.hold(tmp_path):  # released on exit
        pass


def test_shards_write_side_by_side_but_not_beside_a_whole_run_writer(tmp_path: Path) -> None:
    from speckernel import runlock

    with runlock.hold(tmp_path, (0, 2)):
        with runlock.hold(tmp_path, (1, 2)):
            pass
        with pytest.raises(runlock.RunDirectoryBusy, match=f"pid {os.getpid()}"):
            runlock.hold(tmp_path, (0, 2)).__enter__()
        with pytest.raises(runlock.RunDirectoryBusy, match=f"pid {os.getpid()}"):
            runlock.hold(tmp_path).__enter__()
    with runlock.hold(tmp_path), pytest.raises(runlock.RunDirectoryBusy):
        runlock.hold(tmp_path, (1, 2)).__enter__()


HOLD = """
import sys, time
from pathlib import Path
from speckernel import runlock
with runlock.hold(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(600)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Callable[[Path], subprocess.Popen[str]]]:
    """Another process holding a run directory's lock."""
    procs: list[subprocess.Popen[str]] = []

    def hold(root: Path) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-c", HOLD, str(root)], text=True,
                                stdout=subprocess.PIPE)
        procs.append(proc)
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        return proc

    yield hold
    for proc in procs:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("how", ["resume", "new run", "rescore"])
def test_a_run_directory_in_use_by_another_process_is_refused(kernel_cli, pyfunc, holder,
                                                              run_dir: Path, how: str) -> None:
    assert kernel_cli("run", "pyfunc", "-t", "gcd", "--output", run_dir,
                      "--display", "none").exit_code == 0
    before = (run_dir / "samples.jsonl").read_bytes()
    other = holder(run_dir)
    args = {"resume": ("run", "--resume", run_dir), "rescore": ("rescore", run_dir),
            "new run": ("run", "pyfunc", "-t", "gcd", "--output", run_dir)}[how]
    result = kernel_cli(*args, "--display", "none")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {run_dir} is in use by pid {other.pid} on ")
    assert (run_dir / "samples.jsonl").read_bytes() == before
    other.kill()
    other.wait()  # the lock dies with its holder, SIGKILL included
    assert kernel_cli(*args, "--display", "none").exit_code == 0


# --------------------------------------------------------------------------- write errors


def _error_lines(stderr: str) -> list[str]:
    """The error lines, the only lines but for the warnings a loaded machine may add (the loop
    watchdog's)."""
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if not line.startswith("warning: ")]
    assert all(line.startswith("error: ") for line in lines), stderr
    return lines


ENOSPC_AFTER = """
import errno, os
real = os.write
count = [0]
def write(fd, data):
    if os.readlink(f"/proc/self/fd/{{fd}}").endswith("samples.jsonl"):
        count[0] += 1
        if count[0] > {ok}:
            half = real(fd, bytes(data)[: len(data) // 2])  # a torn batch, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real(fd, data)
os.write = write
"""


@pytest.mark.parametrize("ok", [0, 1, 3])
def test_a_full_disk_stops_the_run_with_one_line_and_it_resumes(kernel_process, kernel_cli,
                                                                 pyfunc, run_dir: Path,
                                                                 ok: int) -> None:
    proc = kernel_process("run", "pyfunc", "-n", "20", "--output", run_dir, "--display", "none",
                          "--verifier-concurrency", "1", prelude=ENOSPC_AFTER.format(ok=ok))
    _, err = proc.communicate(timeout=120)  # it used to wait forever
    assert proc.returncode == 2, err
    [line] = _error_lines(err)
    assert line.startswith(f"error: cannot write {run_dir / 'samples.jsonl'}: "
                           "No space left on device; finished samples are saved")
    text = (run_dir / "samples.jsonl").read_text()
    assert text == "" or text.endswith("\n")  # the torn batch was cut off again
    saved = len(text.splitlines())
    resumed = kernel_cli("run", "--resume", run_dir, "--display", "none")
    assert resumed.exit_code == 0, resumed.stderr
    assert f"{saved} already done" in resumed.stdout
    assert len(RunStore(run_dir).load_samples()) == 60


def test_a_real_full_disk_stops_the_run_and_resumes_once_there_is_room(
        kernel_process, kernel_cli, pyfunc, small_disk: Callable[[int], Path]) -> None:
    disk = small_disk(48)
    run = disk / "run"
    proc = kernel_process("run", "pyfunc", "-n", "40", "--output", run, "--display", "none",
                          "--no-cache")
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 2, (out, err)
    [line] = _error_lines(err)
    assert "No space left on device" in line and f"kernel run --resume {run}" in line
    assert RunStore(run).samples_path.read_text().endswith("\n")
    subprocess.run(["mount", "-o", "remount,size=8m", str(disk)], check=True)
    resumed = kernel_cli("run", "--resume", run, "--display", "none")
    assert resumed.exit_code == 0, resumed.stderr
    assert len(RunStore(run).load_samples()) == 120


@pytest.mark.parametrize("delay", [0.0, 0.5, 1.5])
def test_ctrl_c_works_while_the_disk_fails(kernel_process, pyfunc, run_dir: Path,
                                           delay: float) -> None:
    """Whether the Ctrl-C lands before the failure, during it or as the kernel exits, the
    kernel ends at once (it used to ignore Ctrl-C and wait forever)."""
    proc = kernel_process("run", "pyfunc", "-n", "30", "--output", run_dir, "--display", "none",
                          prelude=ENOSPC_AFTER.format(ok=2))
    deadline = time.monotonic() + 60
    while not (run_dir / "run.yaml").exists() and time.monotonic() < deadline:
        time.sleep(0.02)  # the run has started (not Python still importing)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (2, 130, -signal.SIGINT), err
    assert len(err.splitlines()) <= 1 and "Traceback" not in err


def test_a_read_only_run_directory_is_one_line(kernel_cli, pyfunc, run_dir: Path,
                                               read_only: Callable[[Path], None]) -> None:
    assert kernel_cli("run", "pyfunc", "-t", "gcd", "-n", "2", "--output", run_dir,
                      "--display", "none").exit_code == 0
    read_only(run_dir)
    for args in (("run", "--resume", run_dir, "--display", "none"),
                 ("run", "pyfunc", "--output", run_dir, "--display", "none"),
                 ("rescore", run_dir, "--display", "none"), ("report", run_dir),
                 ("artifacts", run_dir)):
        result = kernel_cli(*args)
        assert result.exit_code == 2, (args, result.stderr)
        [line] = result.stderr.splitlines()
        assert line.startswith("error: ") and "internal error" not in line, line
    report = kernel_cli("report", run_dir, "--output", run_dir.parent / "elsewhere")
    assert report.exit_code == 0, report.stderr


@pytest.mark.parametrize("output", ["/etc/hostname", "/etc/hostname/run", "/proc/version/run",
                                    "/proc/self/status"])
def test_an_unusable_output_path_is_one_line(kernel_cli, pyfunc, output: str) -> None:
    result = kernel_cli("run", "pyfunc", "--output", output, "--display", "none")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: ") and "internal error" not in line, line


def test_a_run_refused_at_planning_leaves_no_directory_behind(kernel_cli, pyfunc,
                                                               run_dir: Path) -> None:
    result = kernel_cli("run", "pyfunc", "--agent", "nosuch", "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 2 and not run_dir.exists()
