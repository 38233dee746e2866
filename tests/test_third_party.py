"""A stranger's plugin: built from fixture files, installed into a fresh virtual environment,
used by ``kernel plugins`` and ``kernel run``, gone after uninstalling. The same environment
then proves that a run killed with SIGKILL at random points resumes to the uninterrupted result.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "pyfunc"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def plugin_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture plugin copied out of the tree, so building it leaves no metadata behind."""
    source = tmp_path_factory.mktemp("source") / "speckernel-pyfunc"
    shutil.copytree(FIXTURE, source, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    return source


@pytest.fixture(scope="module")
def plugin_env(fresh_venv: Path, plugin_source: Path) -> Iterator[Path]:
    """A fresh venv with speckernel (from this checkout) and the fixture plugin installed."""
    subprocess.run([str(fresh_venv / "bin" / "python"), "-m", "pip", "install", "-q",
                    "--disable-pip-version-check", str(plugin_source)], check=True, timeout=300)
    yield fresh_venv


def kernel(env_dir: Path, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNEL_")}
    env["KERNEL_CACHE_DIR"] = str(cwd / "cache")
    return subprocess.run([str(env_dir / "bin" / "kernel"), *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_installed_plugin_appears_runs_and_disappears(plugin_env: Path, plugin_source: Path,
                                                     tmp_path: Path) -> None:
    listed = kernel(plugin_env, "plugins", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "speckernel-pyfunc" in listed.stdout and "1.2.3" in listed.stdout
    ran = kernel(plugin_env, "run", "pyfunc", "--output", tmp_path / "run", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "3 samples finished (3 success)" in ran.stdout
    subprocess.run([str(plugin_env / "bin" / "python"), "-m", "pip", "uninstall", "-y", "-q",
                    "speckernel-pyfunc"], check=True, timeout=120)
    try:
        assert "pyfunc" not in kernel(plugin_env, "plugins", cwd=tmp_path).stdout
        gone = kernel(plugin_env, "run", "pyfunc", cwd=tmp_path)
        assert gone.returncode == 2 and "unknown benchmark 'pyfunc'" in gone.stderr
    finally:
        subprocess.run([str(plugin_env / "bin" / "python"), "-m", "pip", "install", "-q",
                        str(plugin_source)], check=True, timeout=300)


NOISY = ("duration", "wall", "created", "time")
"""Report fields that legitimately differ between two runs of the same samples."""


def _without_times(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if not any(n in k for n in NOISY)}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def _report(env_dir: Path, run: Path, cwd: Path) -> object:
    assert kernel(env_dir, "report", run, cwd=cwd).returncode == 0
    return _without_times(json.loads((run / "report.json").read_text()))


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_sigkill_at_random_points_then_resume(plugin_env: Path, tmp_path: Path) -> None:
    """Five SIGKILLs, each after a random number of further samples, then a final resume."""
    total = 75
    args = ("run", "pyfunc", "-n", "25", "--display", "plain", "--no-cache")
    reference = tmp_path / "uninterrupted"
    assert kernel(plugin_env, *args, "--output", reference, cwd=tmp_path).returncode == 0

    run = tmp_path / "killed"
    samples = run / "samples.jsonl"
    rng = random.Random(7)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNEL_")}
    env["KERNEL_CACHE_DIR"] = str(tmp_path / "cache")
    for attempt in range(5):
        cmd = [str(plugin_env / "bin" / "kernel"),
               *(("run", "--resume", str(run)) if attempt else (*args, "--output", str(run)))]
        target = _lines(samples) + rng.randint(1, 10)
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 120
        while _lines(samples) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(rng.uniform(0.0, 0.05))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert 0 < _lines(samples) < total, "the kills must land while the run is in progress"
    final = kernel(plugin_env, "run", "--resume", run, cwd=tmp_path)
    assert final.returncode == 0, final.stderr

    keys = [tuple(json.loads(x)["key"].values()) for x in samples.read_text().splitlines()]
    assert len(keys) == len(set(keys)) == total
    assert _report(plugin_env, run, tmp_path) == _report(plugin_env, reference, tmp_path)


def test_ctrl_c_leaves_a_consistent_store_and_resumes(plugin_env: Path, tmp_path: Path) -> None:
    run = tmp_path / "interrupted"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNEL_")}
    env["KERNEL_CACHE_DIR"] = str(tmp_path / "cache")
    proc = subprocess.Popen([str(plugin_env / "bin" / "kernel"), "run", "pyfunc", "-n", "20",
                             "--output", str(run), "--display", "plain"],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120  # Ctrl-C while samples are being written, as a user would
    while _lines(run / "samples.jsonl") < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == (  # the run directory itself (issue 17 I)
        f"interrupted: finished samples are saved; continue with kernel run --resume {run}")
    finished = len((run / "samples.jsonl").read_text().splitlines())
    assert 0 < finished < 60
    resumed = kernel(plugin_env, "run", "--resume", run, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{finished} already done" in resumed.stdout
    assert len((run / "samples.jsonl").read_text().splitlines()) == 60
