"""A real Dask cluster on loopback for the cluster tests: a ``dask scheduler`` and ``dask
worker`` processes started here, with the fixture plugin importable on every worker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest

distributed = pytest.importorskip("distributed",
                                  reason="the cluster tests need speckernel[cluster]")

FIXTURE_SRC = Path(__file__).resolve().parent.parent / "fixtures" / "pyfunc" / "src"


@attrs.define
class Cluster:
    """A scheduler and its workers, all child processes of the test."""

    address: str
    scheduler_file: Path
    scheduler: subprocess.Popen[bytes]
    workers: dict[str, subprocess.Popen[bytes]] = attrs.field(factory=dict)

    def add_worker(self, name: str, env: dict[str, str] | None = None,
                   resources: str | None = None) -> subprocess.Popen[bytes]:
        argv = [sys.executable, "-m", "dask", "worker", "--scheduler-file",
                str(self.scheduler_file), "--nthreads", "1", "--name", name, "--no-nanny",
                "--no-dashboard", "--host", "127.0.0.1"]
        if resources:
            argv += ["--resources", resources]
        environment = {**os.environ, "PYTHONPATH": str(FIXTURE_SRC), **(env or {})}
        self.workers[name] = subprocess.Popen(argv, env=environment, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL)
        return self.workers[name]

    def wait_for(self, count: int, timeout: float = 60) -> None:
        with distributed.Client(self.address, timeout=30) as client:
            client.wait_for_workers(count, timeout=timeout)

    def kill(self, name: str) -> None:
        self.workers[name].send_signal(signal.SIGKILL)
        self.workers[name].wait()

    def close(self) -> None:
        for process in [*self.workers.values(), self.scheduler]:
            if process.poll() is None:
                process.kill()
                process.wait()


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[Callable[[int], Cluster]]:
    """``dask_cluster(n)``: a scheduler on 127.0.0.1 with ``n`` plain workers joined."""
    made: list[Cluster] = []

    def make(workers: int) -> Cluster:
        scheduler_file = tmp_path / f"scheduler-{len(made)}.json"
        scheduler = subprocess.Popen(
            [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", str(scheduler_file)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline, "the scheduler never wrote its address"
            assert scheduler.poll() is None, "the scheduler exited"
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        cluster = Cluster(address, scheduler_file, scheduler)
        made.append(cluster)
        for i in range(workers):
            cluster.add_worker(f"w{i + 1}")
        if workers:
            cluster.wait_for(workers)
        return cluster

    yield make
    for cluster in made:
        cluster.close()
