"""The sandboxes, exercised with real processes: every limit is checked by running something
that breaks it (always bounded: nothing here can hurt the machine if a limit fails)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from speckernel.errors import KernelError
from speckernel.sandbox import boundary, cgroups
from speckernel.sandbox.base import Limits
from speckernel.sandbox.docker import DockerSandbox
from speckernel.sandbox.local import LocalSandbox

pytestmark = pytest.mark.anyio

# A detached grandchild that sleeps for a duration no other process on the machine uses, so a
# test can find it from the host by its command line (the sandbox hides host pids from it).
def become_sleep(marker: str) -> str:
    return f"( setsid sleep {marker} & )"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def sandbox() -> LocalSandbox:
    return LocalSandbox()


def active(sandbox: LocalSandbox, feature: str) -> bool:
    return sandbox.describe()[feature].startswith("active")


@pytest.fixture(autouse=True)
def boundary_available() -> None:
    problem = boundary.probe().problem
    if problem is not None:
        pytest.skip(f"the sandbox boundary is unavailable here: {problem}")


def memory_cgroup(sandbox: LocalSandbox) -> bool:
    return sandbox.describe()["memory"].startswith("cgroup")


def own_cgroups() -> list[Path]:
    """The cgroups this test process's sandboxes made that still exist, in every hierarchy."""
    bases = {base.path for base in cgroups.bases().values()}
    return [path for base in bases for path in base.glob(f"speckernel-{os.getpid()}-*")]


@pytest.fixture(scope="module", autouse=True)
def no_cgroup_is_left_behind() -> Iterator[None]:
    """After every test here (timeouts, cancellations and OOM kills included), the sandboxes'
    cgroups are all gone."""
    yield
    assert own_cgroups() == []


def all_gone(marker: str, within_s: float = 2.0) -> bool:
    """Whether no process with ``marker`` in its command line is left, waiting up to
    ``within_s``."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not processes_with(marker):
            return True
        time.sleep(0.02)
    return False


def wait_for(marker: str, within_s: float = 5.0) -> None:
    deadline = time.monotonic() + within_s
    while not processes_with(marker):
        assert time.monotonic() < deadline, f"no process with {marker} ever started"
        time.sleep(0.02)


def processes_with(marker: str) -> list[int]:
    """Pids whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_text():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


# --------------------------------------------------------------------------- basics


async def test_echo_and_exit_codes(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(["bash", "-c", "echo out; echo err >&2; exit 3"])
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert not result.ok and not result.timed_out and result.signal is None
    assert result.argv == ("bash", "-c", "echo out; echo err >&2; exit 3")
    assert (await sandbox.run(["true"])).ok


async def test_stdin_is_fed(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(["tr", "a-z", "A-Z"], stdin="hello\n")
    assert result.stdout == "HELLO\n"


async def test_stdin_is_empty_when_not_given(sandbox: LocalSandbox) -> None:
    assert (await sandbox.run(["cat"])).stdout == ""


async def test_invalid_utf8_is_replaced(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(["printf", "a\\377b"])
    assert result.stdout == "a\ufffdb"


async def test_files_in_and_collected_out(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(
        ["bash", "-c", "cat src/in.txt > out.txt; mkdir -p gen; echo deep > gen/x.log"],
        files={"src/in.txt": "hello ünïcode\n"},
        collect=["*.txt", "gen/*.log", "missing*"],
    )
    assert result.ok, result.stderr
    assert result.files == {"out.txt": "hello ünïcode\n", "gen/x.log": "deep\n"}


async def test_collected_files_are_capped(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(
        ["bash", "-c", "head -c 5000 /dev/zero | tr '\\0' x > big.txt"],
        limits=Limits(output_bytes=100),
        collect=["big.txt"],
    )
    assert result.files["big.txt"] == "x" * 100 and result.truncated


async def test_collect_does_not_follow_symlinks_out(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(["ln", "-s", "/etc/passwd", "leak.txt"], collect=["*.txt"])
    assert result.ok and result.files == {}


@pytest.mark.parametrize("bad", ["../escape.txt", "/tmp/escape.txt", "a/../../escape.txt", ""])
async def test_path_traversal_is_refused(sandbox: LocalSandbox, bad: str) -> None:
    result = await sandbox.run(["true"], files={"ok.txt": "x", bad: "pwned"})
    assert result.returncode == 126 and "refusing path" in result.stderr
    assert not Path("/tmp/escape.txt").exists()


async def test_collect_outside_is_refused(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(["true"], collect=["../*"])
    assert result.returncode == 126 and "refusing path" in result.stderr


async def test_environment_is_scrubbed(
    sandbox: LocalSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECKERNEL_TEST_SECRET", "hunter2")
    result = await sandbox.run(["env"], env={"GIVEN": "yes"})
    assert "hunter2" not in result.stdout
    variables = dict(line.split("=", 1) for line in result.stdout.splitlines())
    assert variables["GIVEN"] == "yes" and variables["LC_ALL"] == "C.UTF-8"
    assert variables["HOME"] == variables["TMPDIR"] != os.environ.get("HOME")


async def test_work_directory_is_fresh_and_removed(sandbox: LocalSandbox) -> None:
    first = await sandbox.run(["bash", "-c", "pwd; ls -A"], files={"a.txt": "1"})
    second = await sandbox.run(["bash", "-c", "pwd; ls -A"])
    workdir = Path(first.stdout.splitlines()[0])
    assert first.stdout.splitlines()[1:] == ["a.txt"] and second.stdout.splitlines()[1:] == []
    assert not workdir.exists() and workdir != Path(second.stdout.splitlines()[0])


async def test_missing_executable_is_127(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(["no-such-tool-speckernel", "--version"])
    assert result.returncode == 127
    assert "no-such-tool-speckernel" in result.stderr and "\n" not in result.stderr.strip()
    assert (await sandbox.run(["./nope.sh"])).returncode == 127


async def test_describe_lists_every_layer(sandbox: LocalSandbox) -> None:
    features = sandbox.describe()
    for key in ("boundary", "user", "capabilities", "namespaces", "filesystem", "network",
                "environment", "lifetime", "pids cgroup", "memory", "rlimits", "disk"):
        assert features[key]
    assert ("address space" in features["rlimits"]) == (not memory_cgroup(sandbox))


async def test_concurrent_runs_are_independent(sandbox: LocalSandbox) -> None:
    results: list[str] = []

    async def one(i: int) -> None:
        result = await sandbox.run(["bash", "-c", "cat n; pwd"], files={"n": f"{i}\n"})
        results.append(result.stdout)

    async with anyio.create_task_group() as tasks:
        for i in range(6):
            tasks.start_soon(one, i)
    assert sorted(r.split()[0] for r in results) == [str(i) for i in range(6)]
    assert len({r.split()[1] for r in results}) == 6


ALLOC_JAVA = """
public class Alloc {
    public static void main(String[] args) {
        byte[] block = new byte[50 << 20];
        java.util.Arrays.fill(block, (byte) 1);
        System.out.println("touched " + (block.length >> 20) + " MB");
    }
}
"""


@pytest.mark.skipif(shutil.which("java") is None, reason="no java on PATH")
async def test_plain_java_runs_in_a_small_memory_budget(sandbox: LocalSandbox) -> None:
    """The memory cgroup counts what the JVM uses, not the gigabytes it reserves: no flags."""
    if not memory_cgroup(sandbox):
        pytest.skip(f"memory: {sandbox.describe()['memory']}")
    version = await sandbox.run(["java", "-version"], limits=Limits(memory_mb=512))
    assert version.ok and "version" in version.stderr
    alloc = await sandbox.run(
        ["java", "Alloc.java"], files={"Alloc.java": ALLOC_JAVA}, limits=Limits(memory_mb=512)
    )
    assert alloc.ok and alloc.stdout == "touched 50 MB\n", alloc.stderr
    assert alloc.limit is None and alloc.peak_memory_mb is not None
    assert 50 < alloc.peak_memory_mb < 512


async def test_without_bubblewrap_nothing_runs(
    sandbox: LocalSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No boundary, no tool: every call is refused with the reason, ``preflight`` says it in
    one line for the runner, and ``describe`` (``kernel doctor``) shows it."""
    missing = boundary.Boundary(None, "bubblewrap is not installed", False, (1, 1))
    monkeypatch.setattr(boundary, "probe", lambda: missing)
    result = await sandbox.run(["true"])
    assert result.returncode == 126 and "bubblewrap is not installed" in result.stderr
    assert "bubblewrap is not installed" in (sandbox.preflight() or "")
    assert sandbox.describe()["boundary"].startswith("UNAVAILABLE")
    with pytest.raises(KernelError, match="bubblewrap"):
        sandbox.open(["true"])


async def test_degrades_without_cgroups(
    sandbox: LocalSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine without writable cgroups still runs and times out tools, and caps memory by
    address space."""
    monkeypatch.setattr(cgroups, "bases", lambda: {})
    assert sandbox.describe()["memory"].startswith("rlimit address space")
    assert (await sandbox.run(["bash", "-c", "echo $(( 6 * 7 ))"])).stdout == "42\n"
    started = time.monotonic()
    result = await sandbox.run(["bash", "-c", "sleep 60 & sleep 60"], limits=Limits(wall_s=0.5))
    assert result.timed_out and time.monotonic() - started < 2.5 and result.limit == "wall"
    two_gb = [sys.executable, "-c", "b = bytearray(2 * 1024**3)"]
    capped = await sandbox.run(two_gb, limits=Limits(memory_mb=256))
    assert not capped.ok and "MemoryError" in capped.stderr
    assert capped.limit is None and capped.peak_memory_mb is None


# --------------------------------------------------------------------------- limits


async def test_wall_timeout(sandbox: LocalSandbox) -> None:
    started = time.monotonic()
    result = await sandbox.run(["sleep", "60"], limits=Limits(wall_s=0.5))
    assert time.monotonic() - started < 2.5
    assert result.timed_out and not result.ok and result.returncode is None
    assert result.signal == 9 and result.limit == "wall"
    assert own_cgroups() == []


async def test_timeout_kills_detached_grandchild(sandbox: LocalSandbox) -> None:
    marker = "61.0271"
    result = await sandbox.run(
        ["bash", "-c", f"{become_sleep(marker)}; sleep 60"], limits=Limits(wall_s=1)
    )
    assert result.timed_out
    assert all_gone(marker)


async def test_background_children_die_when_the_command_exits(sandbox: LocalSandbox) -> None:
    marker = "61.0272"
    started = time.monotonic()
    result = await sandbox.run(
        ["bash", "-c", f"{become_sleep(marker)}; until pgrep -f {marker} >/dev/null; "
         "do sleep 0.05; done; echo done"],
    )
    assert result.ok and result.stdout == "done\n" and time.monotonic() - started < 5
    assert all_gone(marker)


async def test_cancellation_kills_the_tree(sandbox: LocalSandbox) -> None:
    marker = "61.0273"
    with anyio.move_on_after(1) as scope:
        await sandbox.run(["bash", "-c", f"{become_sleep(marker)}; sleep 60"])
    assert scope.cancelled_caught
    assert all_gone(marker)
    assert own_cgroups() == []


async def test_huge_output_is_truncated_quickly(sandbox: LocalSandbox) -> None:
    started = time.monotonic()
    result = await sandbox.run(
        ["head", "-c", "100000000", "/dev/zero"], limits=Limits(output_bytes=10_000)
    )
    assert time.monotonic() - started < 10
    assert result.ok and result.truncated and len(result.stdout) == 10_000
    assert result.limit == "output"


async def test_fork_bomb_is_contained(sandbox: LocalSandbox) -> None:
    marker = "31.4159"  # a sleep length no other process on the machine uses
    bomb = f"for i in $(seq 5000); do sleep {marker} & done; wait"
    started = time.monotonic()
    result = await sandbox.run(
        ["bash", "-c", bomb], limits=Limits(wall_s=4, processes=64, memory_mb=None)
    )
    assert time.monotonic() - started < 8
    assert result.timed_out or not result.ok
    if active(sandbox, "pids cgroup"):
        assert "fork" in result.stderr and "Resource temporarily unavailable" in result.stderr
    assert processes_with(marker) == []


def touch_mb(mb: int) -> list[str]:
    """A python that allocates ``mb`` MiB and writes every page of it."""
    return [sys.executable, "-c", f"block = b'x' * ({mb} << 20)"]


async def test_memory_limit_is_resident(sandbox: LocalSandbox) -> None:
    if not memory_cgroup(sandbox):
        pytest.skip(f"memory: {sandbox.describe()['memory']}")
    reserved = [sys.executable, "-c", "import mmap; m = mmap.mmap(-1, 2 << 30)"]  # untouched
    assert (await sandbox.run(reserved, limits=Limits(memory_mb=256))).ok
    result = await sandbox.run(touch_mb(1024), limits=Limits(memory_mb=256))
    assert not result.ok and result.signal == signal.SIGKILL and result.limit == "memory"


async def test_peak_memory(sandbox: LocalSandbox) -> None:
    if not memory_cgroup(sandbox):
        pytest.skip(f"memory: {sandbox.describe()['memory']}")
    result = await sandbox.run(touch_mb(100), limits=Limits(memory_mb=None))
    assert result.ok and result.limit is None and result.peak_memory_mb is not None
    assert 90 < result.peak_memory_mb < 400


async def test_file_size_limit(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(
        ["bash", "-c", "head -c 3000000 /dev/zero > big.bin"], limits=Limits(file_size_mb=1)
    )
    assert not result.ok


async def test_file_size_limit_is_named(sandbox: LocalSandbox) -> None:
    """The tool is not its PID namespace's init (which would ignore SIGXFSZ): it dies of it."""
    dd = ["dd", "if=/dev/zero", "of=big.bin", "bs=1M", "count=3"]
    result = await sandbox.run(dd, limits=Limits(file_size_mb=1))
    assert result.signal == signal.SIGXFSZ and result.limit == "file_size"


async def test_process_limit_is_named(sandbox: LocalSandbox) -> None:
    if not active(sandbox, "pids cgroup"):
        pytest.skip(f"pids cgroup: {sandbox.describe()['pids cgroup']}")
    forks = "import os, time\nfor _ in range(100):\n    if os.fork() == 0: time.sleep(30)"
    result = await sandbox.run([sys.executable, "-c", forks], limits=Limits(processes=16))
    assert "BlockingIOError" in result.stderr and result.limit == "processes"


async def test_cpu_limit(sandbox: LocalSandbox) -> None:
    result = await sandbox.run(
        [sys.executable, "-c", "while True: pass"], limits=Limits(cpu_s=1, wall_s=20)
    )
    assert not result.timed_out and result.duration_s < 10
    assert result.signal in (signal.SIGXCPU, signal.SIGKILL) and result.limit == "cpu"


async def test_sigkill_by_the_kernel_is_reported_as_a_signal(sandbox: LocalSandbox) -> None:
    spin = "import signal; signal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True: pass"
    result = await sandbox.run([sys.executable, "-c", spin], limits=Limits(cpu_s=1, wall_s=20))
    assert (result.returncode, result.signal, result.stderr) == (None, signal.SIGKILL, "")
    assert result.limit == "cpu"


async def test_tool_gets_default_signal_dispositions(sandbox: LocalSandbox) -> None:
    """Whatever the kernel inherited (``nohup`` ignores SIGHUP, a shell's background job SIGINT
    and SIGQUIT, Python SIGPIPE and SIGXFSZ), the tool starts with every default."""
    ignored = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1)
    before = {s: signal.signal(s, signal.SIG_IGN) for s in ignored}
    try:
        result = await sandbox.run(["bash", "-c", "yes | head -n 1; grep -E 'Sig(Ign|Blk)' "
                                    "/proc/self/status"])
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    assert result.stdout == "y\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
    assert result.stderr == ""


@pytest.fixture
def loopback_server() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


CONNECT = "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 2)"


async def test_network_is_cut(sandbox: LocalSandbox, loopback_server: int) -> None:
    argv = [sys.executable, "-c", CONNECT, str(loopback_server)]
    cut = await sandbox.run(argv, limits=Limits(network=False))
    assert not cut.ok and "ConnectionRefusedError" in cut.stderr  # its own, empty loopback
    allowed = await sandbox.run(argv, limits=Limits(network=True))
    assert allowed.ok, allowed.stderr


async def test_concurrent_calls_get_their_own_cgroups(sandbox: LocalSandbox) -> None:
    """Twenty calls at once, every other one overrunning its memory: each counts only its own
    OOM kills (a cgroup of its own; the tool's cgroup namespace hides the names from it) and
    removes its cgroups."""
    if not cgroups.bases():
        pytest.skip("no cgroup is available here")
    results = {}

    async def one(i: int) -> None:
        results[i] = await sandbox.run(touch_mb(200 if i % 2 else 20),
                                       limits=Limits(memory_mb=128))

    async with anyio.create_task_group() as tasks:
        for i in range(20):
            tasks.start_soon(one, i)
    if memory_cgroup(sandbox):
        assert [results[i].limit for i in range(20)] == [None, "memory"] * 10
    assert own_cgroups() == []


# --------------------------------------------------------------------------- docker


def engine_problem() -> str | None:
    """Why the Docker tests cannot run here, or None."""
    try:
        import docker

        docker.from_env().ping()
    except Exception as exc:  # any failure to reach an engine means "skip"
        return f"no Docker engine answers: {exc}"
    return None


DOCKER_IMAGE = "busybox:latest"


@pytest.fixture(scope="module")
def docker_sandbox() -> DockerSandbox:
    problem = engine_problem()
    if problem is not None:
        pytest.skip(problem)
    import docker

    if not docker.from_env().images.list(name=DOCKER_IMAGE):
        pytest.skip(f"docker image {DOCKER_IMAGE} is not present")
    return DockerSandbox(DOCKER_IMAGE)


async def test_docker_without_engine_is_a_kernel_error() -> None:
    if engine_problem() is None:
        pytest.skip("a Docker engine answers here")
    with pytest.raises(KernelError, match="no Docker engine answers"):
        await DockerSandbox(DOCKER_IMAGE).run(["true"])


async def test_docker_refuses_traversal_before_contacting_the_engine() -> None:
    result = await DockerSandbox(DOCKER_IMAGE).run(["true"], files={"../x": ""})
    assert result.returncode == 126 and "refusing path" in result.stderr


async def test_docker_describe() -> None:
    assert DockerSandbox(DOCKER_IMAGE).describe()["network"].startswith("none")


async def test_docker_runs_files_stdin_and_collect(docker_sandbox: DockerSandbox) -> None:
    result = await docker_sandbox.run(
        ["sh", "-c", "cat in.txt > out.txt; cat; echo err >&2; exit 4"],
        files={"in.txt": "hello"},
        stdin="from stdin",
        collect=["*.txt"],
    )
    assert (result.returncode, result.stdout, result.stderr) == (4, "from stdin", "err\n")
    assert result.files == {"in.txt": "hello", "out.txt": "hello"}


async def test_docker_wall_timeout(docker_sandbox: DockerSandbox) -> None:
    result = await docker_sandbox.run(["sleep", "60"], limits=Limits(wall_s=1))
    assert result.timed_out and result.returncode is None


async def test_docker_output_is_capped(docker_sandbox: DockerSandbox) -> None:
    result = await docker_sandbox.run(
        ["head", "-c", "1000000", "/dev/zero"], limits=Limits(output_bytes=1000)
    )
    assert result.truncated and len(result.stdout) == 1000


async def test_docker_has_no_network(docker_sandbox: DockerSandbox) -> None:
    result = await docker_sandbox.run(["wget", "-T", "2", "-q", "-O-", "http://1.1.1.1"])
    assert not result.ok


# --------------------------------------------------------------------------- the kernel dies

KERNEL_SCRIPT = """
import sys, anyio
from speckernel.sandbox.local import LocalSandbox
from speckernel.sandbox.base import Limits
box = LocalSandbox()
if sys.argv[1] == "open":
    box.open(["sleep", sys.argv[2]], limits=Limits(wall_s=600), stdout="devnull")
    print("started", flush=True)
    sys.stdin.read()
else:
    anyio.run(lambda: box.run(["sleep", sys.argv[2]], limits=Limits(wall_s=600)))
"""


@pytest.mark.parametrize("how, marker", [("run", "88.1231"), ("open", "88.1232")])
async def test_tools_die_with_the_kernel(how: str, marker: str) -> None:
    """A kernel killed with SIGKILL (no cleanup runs) leaves no tool behind, whichever thread
    started it: the launcher sees its lifeline close."""
    kernel = await anyio.open_process([sys.executable, "-c", KERNEL_SCRIPT, how, marker])
    try:
        wait_for(marker, within_s=15)
    finally:
        kernel.kill()
        await kernel.wait()
        await kernel.aclose()
    assert all_gone(marker, within_s=5)


def test_the_sandboxed_tool_ends_when_its_supervisor_is_gone() -> None:
    """Bubblewrap sets its sandbox process's parent-death signal only after starting it, so a
    bubblewrap killed in between (its supervisor killing it as the kernel died) can leave the
    sandbox running unwatched (a CI run found one 20 minutes on). Inside, the launcher watches
    its guard, a pipe only the supervisor writes, and on end-of-file kills the tool and exits
    (taking bubblewrap's PID namespace with it). Here the guard's write end is the test's."""
    import subprocess

    from speckernel.sandbox import launcher

    marker = "88.1241"
    guard, guard_write = os.pipe()
    status, status_write = os.pipe()
    inner = subprocess.Popen(
        [sys.executable, "-I", "-S", launcher.__file__, "--report", str(status_write),
         str(guard), shutil.which("sleep") or "/bin/sleep", marker],
        pass_fds=(status_write, guard))
    os.close(guard)
    os.close(status_write)
    try:
        wait_for(marker)
        assert inner.poll() is None
        os.close(guard_write)
        assert inner.wait(timeout=10) == 128 + signal.SIGKILL
        assert all_gone(marker)
        assert os.read(status, 100) == b""  # nothing reported: nobody is left to read it
    finally:
        inner.kill()
        inner.wait()
        os.close(status)


@pytest.mark.parametrize("kernel_gone", [False, True])
def test_the_supervisor_leaves_no_straggler_in_its_group(tmp_path: Path,
                                                         kernel_gone: bool) -> None:
    """A bubblewrap killed while building its sandbox left the sandbox process behind, blocked
    on bubblewrap's setup eventfd, reparented to init, still in the supervisor's process group
    (found after two CI runs). After a kill the supervisor kills its whole group: here a
    background process of the killed command, in the same group, goes with it, whether the
    supervisor killed for the wall budget or because the kernel is gone (then its status line
    meets a broken pipe, which had ended it before its group kill)."""
    import marshal
    import subprocess

    from speckernel.sandbox import launcher

    marker = "77.2718"
    lifeline, lifeline_write = os.pipe()
    status, status_write = os.pipe()
    config = {"argv": ["/bin/sh", "-c", f"sleep {marker} & exec sleep 60"], "stage": [],
              "uid": None, "gid": None, "procs": [], "rlimits": {},
              "wall_s": 60.0 if kernel_gone else 0.5,
              "disk_bytes": None, "workdir": str(tmp_path), "lifeline": lifeline,
              "status": status_write}
    supervisor = subprocess.Popen(
        [sys.executable, "-I", "-S", launcher.__file__, marshal.dumps(config).hex()],
        start_new_session=True, pass_fds=(lifeline, status_write))
    os.close(lifeline)
    os.close(status_write)
    try:
        wait_for(marker)
        if kernel_gone:
            os.close(status)
            os.close(lifeline_write)
        assert supervisor.wait(timeout=10) == -signal.SIGKILL  # its own group kill, last
        if not kernel_gone:
            assert os.read(status, 100) == f"code {-signal.SIGKILL} wall\n".encode()
        assert all_gone(marker)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(supervisor.pid, signal.SIGKILL)
        supervisor.wait()
        if not kernel_gone:
            os.close(status)
            os.close(lifeline_write)


async def test_open_process_serves_and_ends(sandbox: LocalSandbox) -> None:
    """A long-lived process: files written into its work directory, a line protocol over its
    pipes, its work directory removed on close."""
    with sandbox.open(["bash", "-c", "while read -r name; do cat \"$name\"; done"],
                      limits=Limits(wall_s=30)) as process:
        folder = process.write_files({"a.txt": "alpha\n"}, under="job1")
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(f"{folder / 'a.txt'}\n".encode())
        process.stdin.flush()
        assert process.stdout.readline() == b"alpha\n"
        assert process.poll() is None
        workdir = process.workdir
    assert not workdir.exists()
    assert own_cgroups() == []


async def test_open_process_wall_budget(sandbox: LocalSandbox) -> None:
    process = sandbox.open(["sleep", "60"], limits=Limits(wall_s=0.5), stdin=False,
                           stdout="devnull", stderr="devnull")
    try:
        assert process.wait(timeout=10) < 0
        assert process.limit == "wall"
        with sandbox.open(["sleep", "5"], stdout="devnull") as sleeper, \
                pytest.raises(TimeoutError):
            sleeper.wait(timeout=0.2)
    finally:
        process.close()


async def test_closing_the_sandbox_ends_what_it_opened(sandbox: LocalSandbox) -> None:
    """The runner closes its sandbox when a run ends: warm servers end with it."""
    marker = "88.1239"
    process = sandbox.open(["sleep", marker], limits=Limits(wall_s=600), stdin=False,
                           stdout="devnull", stderr="devnull")
    wait_for(marker)
    sandbox.close()
    assert all_gone(marker) and process.poll() is not None
    assert not process.workdir.exists()
    assert own_cgroups() == []


async def test_cpu_time_of_the_whole_tree(sandbox: LocalSandbox) -> None:
    """CPU seconds of every process of the call, a forked child's included, for harnesses and
    benchmarks (the kernel's own rusage cannot attribute them to a call)."""
    burn = ("import os, time\n"
            "def spin():\n    t = time.process_time()\n"
            "    while time.process_time() - t < 0.4: pass\n"
            "if os.fork() == 0:\n    spin(); os._exit(0)\n"
            "spin(); os.wait()\n")
    result = await sandbox.run([sys.executable, "-c", burn])
    assert result.ok, result.stderr
    assert result.cpu_s is not None and 0.7 < result.cpu_s < 5
    with sandbox.open([sys.executable, "-c", burn], stdin=False, stdout="devnull") as process:
        assert process.cpu_s is None or process.poll() is not None
        process.wait(timeout=30)
        assert process.cpu_s is not None and 0.7 < process.cpu_s < 5


def test_detection_sees_bubblewrap_installed_after_a_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """``kernel tools install sandbox`` on a fresh machine: the sandbox was probed (and found
    missing) before apt-get installed bubblewrap; the detection after the install must see it."""
    from speckernel.sandbox.toolchain import SandboxToolchain

    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    boundary.probe.cache_clear()
    assert boundary.probe().bwrap is None
    monkeypatch.setattr(shutil, "which", real_which)
    status = SandboxToolchain().detect()
    assert status.found and status.path == real_which("bwrap")
    assert boundary.probe().bwrap is not None
