"""The escape suite: every file of ``tests/escapes/`` is an attempt to leave the local sandbox
(see its README). Each must run (print ``TRIED``), fail at everything it tries (never print
``ESCAPED``), leave nothing on the host, and, when the sandbox has to end it, be ended by the
limit its ``LIMIT`` line names. The same corpus also goes through ``kernel run`` with a plugin
whose verifier runs candidates as programs, so that every attempt ends as a recorded verdict.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from speckernel.sandbox import boundary, cgroups
from speckernel.sandbox.base import Limits
from speckernel.sandbox.local import LocalSandbox
from test_sandbox import processes_with

pytestmark = pytest.mark.anyio

CORPUS = Path(__file__).with_name("escapes")
ATTACKS = sorted(CORPUS.glob("*.py"))
LIMITS = Limits(wall_s=20, memory_mb=512, processes=64, disk_mb=64)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def boundary_available() -> None:
    problem = boundary.probe().problem
    if problem is not None:
        pytest.skip(f"the sandbox boundary is unavailable here: {problem}")


@attrs.frozen
class Host:
    """What the host offers for the attacks to reach, and the environment that tells them."""

    env: dict[str, str]
    canary: Path
    secret: str


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    secret = f"sk-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    canary = tmp_path / "canary"
    canary.mkdir(mode=0o777)
    os.chmod(canary, 0o777)
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    host_file = private / "key"
    host_file.write_text(secret)
    host_file.chmod(0o600)
    abstract = f"speckernel-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX) as unix, socket.socket(socket.AF_UNIX) as hidden, \
            socket.create_server(("127.0.0.1", 0)) as tcp:
        unix.bind(str(tmp_path / "host.sock"))
        unix.listen()
        os.chmod(tmp_path / "host.sock", 0o777)
        hidden.bind(b"\0" + abstract.encode())
        hidden.listen()
        yield Host({
            "KERNEL_PID": str(os.getpid()),
            "SECRET_REVERSED": secret[::-1],
            "MARKER": f"speckernel-escape-{uuid.uuid4().hex}",
            "HOST_SOCKET": str(tmp_path / "host.sock"),
            "ABSTRACT_SOCKET": abstract,
            "HOST_PORT": str(tcp.getsockname()[1]),
            "CANARY_DIR": str(canary),
            "HOST_FILE": str(host_file),
        }, canary, secret)


def expected_limit(attack: Path) -> set[str] | None:
    match = re.search(r'^LIMIT = "([^"]+)"', attack.read_text(), re.MULTILINE)
    return set(match.group(1).split("|")) if match else None


def written_on_host(marker: str) -> list[Path]:
    """Where on the host a file named ``marker`` exists (the directories an attack could
    reach if a mount leaked: system, home, temporary, Python and the kernel's tools)."""
    import sysconfig

    from speckernel.toolchains import tools_dir

    folders = {"/", "/etc", "/usr", "/usr/local/bin", "/opt", "/root", "/home", "/tmp",
               "/var/tmp", "/dev/shm", os.path.dirname(sys.executable),
               sysconfig.get_paths()["purelib"], str(tools_dir())}
    return [Path(f, marker) for f in folders if Path(f, marker).exists()]


def own_cgroups() -> list[Path]:
    bases = {base.path for base in cgroups.bases().values()}
    return [path for base in bases for path in base.glob(f"speckernel-{os.getpid()}-*")]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.stem for a in ATTACKS])
async def test_attack_is_contained(attack: Path, host: Host) -> None:
    sandbox = LocalSandbox()
    result = await sandbox.run([sys.executable, attack.name],
                               files={attack.name: attack.read_text()}, env=host.env,
                               limits=LIMITS)
    output = result.stdout + result.stderr
    assert "TRIED" in result.stdout, output[-2000:]
    assert "ESCAPED" not in output, output[-2000:]
    assert host.secret not in output
    assert list(host.canary.iterdir()) == []
    assert written_on_host(host.env["MARKER"]) == []
    limit = expected_limit(attack)
    if limit is not None:
        assert result.limit in limit, (result.limit, output[-500:])
    deadline = time.monotonic() + 3
    while processes_with("77.7317") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with("77.7317") == []
    assert own_cgroups() == []


def test_the_corpus_covers_the_issue() -> None:
    """Issue 20's escape suite: environ, nsenter, ptrace, host sockets, writing outside, raising
    limits, a fork bomb, filling the disk."""
    names = {a.stem for a in ATTACKS}
    assert {"read_kernel_environ", "nsenter_host", "ptrace_kernel", "host_sockets",
            "write_outside", "raise_limits", "limit_fork_bomb", "limit_fill_disk"} <= names


# --------------------------------------------------------------------------- through a run


class EscapeBench:
    """A benchmark whose tasks are the corpus: the reference agent submits each attack as the
    candidate, the verifier runs it as a program in the run's sandbox."""

    @staticmethod
    def plugin(env: dict[str, str]) -> object:
        from collections.abc import Callable, Iterable, Mapping
        from typing import Any

        from speckernel import hookimpl
        from speckernel.components import Benchmark, Phase, Verifier, VerifyContext
        from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict

        class Escapes(Benchmark):
            name = "escapes"
            phases = (Phase("run", ("escapes.run",)),)

            def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
                for attack in ATTACKS:
                    yield Task(attack.stem, self.name, "leave the sandbox",
                               reference={"attack.py": attack.read_text()})

        class RunAttack(Verifier):
            name = "escapes.run"
            limits = LIMITS

            async def verify(self, candidate: Candidate, task: Task,
                             ctx: VerifyContext) -> Verdict:
                result = await ctx.run([sys.executable, "attack.py"], files=candidate.files,
                                       env=env)
                escaped = "ESCAPED" in result.stdout + result.stderr
                return Verdict(self.name, Status.FAILURE if escaped else Status.SUCCESS,
                               (Diagnostic(result.stdout[-500:]),),
                               data={"limit": result.limit, "tried": "TRIED" in result.stdout})

        class Plugin:
            @hookimpl
            def register_benchmarks(self, register: Callable[[Benchmark], None]) -> None:
                register(Escapes())

            @hookimpl
            def register_verifiers(self, register: Callable[[Verifier], None]) -> None:
                register(RunAttack())

        return Plugin()


def test_every_attempt_is_a_recorded_verdict(kernel_cli, kernel_plugins, host: Host,
                                             run_dir: Path) -> None:
    import json

    kernel_plugins(EscapeBench.plugin(host.env))
    result = kernel_cli("run", "escapes", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert sorted(r["key"]["task_id"] for r in records) == [a.stem for a in ATTACKS]
    for record in records:
        [verdict] = record["verdicts"]
        assert verdict["status"] == "success" and verdict["data"]["tried"], record["key"]
        limit = expected_limit(CORPUS / f"{record['key']['task_id']}.py")
        if limit is not None:
            assert verdict["data"]["limit"] in limit
    assert host.secret not in (run_dir / "samples.jsonl").read_text()
    assert list(host.canary.iterdir()) == []
