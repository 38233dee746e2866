"""``cluster_network``: the cluster on test hosts, each a network namespace with its own address
joined by veth links to a bridge, made by the launcher inside the kernel's sandbox (a user
namespace of its own: no capability outside it). Messages really cross the links, the
namespaces and links are gone after a run, after a replica crash and after the sandbox is
killed, the store's processes have no capability and cannot be traced or read through
``/proc``, and where test hosts cannot be created ``auto`` falls back to loopback with the
reason while ``netns`` is a one-line error."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from conftest import candidate, reference
from speckernel.components import VerifyContext
from speckernel.errors import KernelError
from speckernel.model import Task
from speckernel.sandbox.base import Limits
from speckernel.sandbox.local import LocalSandbox
from speckernel.testing import verify_context

from speckernel_rocq_ids.cluster import ClusterHarness
from speckernel_rocq_ids.storebuild import OcamlToolchain, runtime_source
from speckernel_rocq_ids.toolchain import CoqIdsToolchain

NETNS = {"cluster_replicas": 2, "cluster_workers": 2, "cluster_put_rates": [0.5],
         "cluster_ops_per_worker": [100], "cluster_network": "netns",
         "cluster_link_delay_ms": 1, "cluster_expert": False, "cluster_repeats": 1}


def hosts_program(snippet: str) -> list[str]:
    """The kernel's Python running ``runtime/testhosts.py`` and then ``snippet``."""
    return [sys.executable, "-c", runtime_source("testhosts.py") + "\nimport json, time\n" +
            snippet]


async def in_sandbox(snippet: str, env: dict[str, str] | None = None,
                     nested: bool = True) -> tuple[int | None, str]:
    """``snippet`` after ``testhosts.py`` in one call of the local sandbox (allowed to make
    namespaces of its own when ``nested``, as the harness asks): exit status and output."""
    done = await LocalSandbox().run(hosts_program(snippet), env=env,
                                    limits=Limits(wall_s=60, nested_namespaces=nested))
    return done.returncode, done.output


def unavailable() -> str | None:
    """Why test hosts cannot be created in the sandbox here, or None if they can."""
    code, output = anyio.run(in_sandbox, "TestHosts(['a']).close()")
    return None if code == 0 else (output.strip().splitlines() or ["no output"])[-1]


WHY_NOT = unavailable()
needs_netns = pytest.mark.skipif(WHY_NOT is not None,
                                 reason=f"cannot create test hosts in the sandbox: {WHY_NOT}")


def namespaces() -> dict[str, str]:
    """Every network namespace a process holds, as a member or by an open descriptor, and every
    one mounted (``ip netns add``): its identity -> a path that enters it."""
    found: dict[str, str] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            paths = [proc / "ns" / "net", *(proc / "fd").iterdir()]
        except OSError:
            continue
        for path in paths:
            try:
                target = os.readlink(path)
            except OSError:
                continue
            if target.startswith("net:["):
                found.setdefault(target, str(path))
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if fields[fields.index("-") + 1] == "nsfs":
            found.setdefault(fields[4], fields[4])
    return found


def links_named(tag: str) -> list[str]:
    """The interfaces with ``tag`` in their name in any network namespace of this machine."""
    found = []
    for path in namespaces().values():
        links = subprocess.run(["nsenter", f"--net={path}", "ip", "-o", "link", "show"],
                               capture_output=True, text=True, timeout=30)
        found += [line for line in links.stdout.splitlines() if tag in line]
    return found


def gone(tag: str, within_s: float = 10.0) -> bool:
    """Whether the links named ``tag`` disappear within ``within_s``: a killed process's
    children die of their parent-death signal a moment later."""
    deadline = time.monotonic() + within_s
    while links_named(tag):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def bridge_of(lines: list[str]) -> str:
    (line,) = lines
    found = re.search(r"\(bridge (idsbr[0-9a-f]{6})\)", line)
    assert found is not None, line
    return found[1]


class Logged:
    """A harness context (``ctx``) whose sample log (``lines``) the test reads."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ctx: VerifyContext = verify_context(
            toolchains=[CoqIdsToolchain(), OcamlToolchain()],
            limits=Limits(wall_s=300.0, memory_mb=4096), options=NETNS, log=self.lines.append)


@pytest.fixture
def hosts() -> Logged:
    return Logged()


@needs_netns
@pytest.mark.anyio
async def test_reference_store_on_test_hosts(hosts: Logged, tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    found = await ClusterHarness().measure(candidate(**{"Impl.v": reference(task)}), task,
                                           hosts.ctx)
    assert found["cluster_netns"] == 1.0
    assert found["throughput_ops_s"] > 0 and 0 < found["p99_latency_ms"] < 1000
    assert 0 < found["peak_rss_mb"] < 512 and found["replica_cpu_us_per_op"] > 0
    (line,) = hosts.lines
    addresses = re.findall(r"(clients|replica\d) (10\.77\.0\.\d+)", line)
    assert [host for host, _ in addresses] == ["clients", "replica0", "replica1"]
    assert len({a for _, a in addresses}) == 3
    assert all(ipaddress.ip_address(a) in ipaddress.ip_network("10.77.0.0/24")
               for _, a in addresses)
    # netem where the kernel has it, else skipped and said so (this machine's kernel has none)
    assert (found["cluster_link_delay_ms"] == 1.0) == ("link delay: netem 1 ms" in line)
    assert found["cluster_link_delay_ms"] == 1.0 or "link delay: skipped: tc" in line
    assert gone(bridge_of(hosts.lines), within_s=0)


@needs_netns
@pytest.mark.anyio
async def test_a_replica_crash_leaves_no_hosts_behind(hosts: Logged,
                                                      tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    store = reference(task).split("Module RYW_Local")[0]
    deep = store.replace(
        "Module RYW_Impl <: AlgDef.",
        "Fixpoint depth (n : nat) : nat := match n with 0 => 0 | S m => S (depth m) end.\n"
        "Module RYW_Impl <: AlgDef.").replace("NatMap.add k (v,", "NatMap.add k (depth (v * 9),")
    assert deep.count("depth (v * 9)") == 1
    harness = ClusterHarness()
    harness.proved = False
    with pytest.raises(KernelError, match=r"replica \d exited with code \d+"):
        await harness.measure(candidate(**{"Impl.v": deep}), task, hosts.ctx)
    assert gone(bridge_of(hosts.lines), within_s=0)


@needs_netns
def test_a_killed_sandbox_leaves_no_hosts_behind() -> None:
    """Killing the sandbox runs no cleanup: the namespaces must go with the launcher's
    descriptors and its children, which the parent-death signal ends."""
    launcher = LocalSandbox().open(hosts_program(
        "net = TestHosts(['clients', 'replica0'])\n"
        "child = net.popen('replica0', ['sleep', '600'])\n"
        "print(net.description['bridge'], flush=True)\n"
        "time.sleep(600)\n"), limits=Limits(wall_s=120, nested_namespaces=True),
        stderr="devnull")
    try:
        assert launcher.stdout is not None
        bridge = launcher.stdout.readline().decode().strip()
        assert len(links_named(bridge)) == 3  # the bridge and both hosts' ports: found while up
    finally:
        launcher.close()
    assert gone(bridge)


@needs_netns
@pytest.mark.anyio
async def test_store_processes_have_no_capability_and_cannot_be_read() -> None:
    """Root in the launcher's user namespace, a started process still has no capability; one
    started from an execute-only file, and the launcher itself, are non-dumpable: a process of
    the same user cannot read their environment (nor trace them)."""
    code, output = await in_sandbox(
        "import os, shutil, subprocess\n"
        "net = TestHosts(['a'])\n"
        "caps = net.popen('a', ['grep', '^Cap', '/proc/self/status'], stdout=subprocess.PIPE)\n"
        "shutil.copy('/bin/sleep', 'sleep'); execute_only('sleep')\n"
        "store = net.popen('a', [os.path.abspath('sleep'), '30'])\n"
        "harden_self()\n"
        "def readable(pid):\n"
        "    peek = net.popen('a', ['cat', f'/proc/{pid}/environ'], stdout=subprocess.DEVNULL,\n"
        "                     stderr=subprocess.DEVNULL)\n"
        "    return peek.wait() == 0\n"
        "free = net.popen('a', ['sleep', '30'])\n"
        "print(json.dumps({'caps': caps.communicate()[0].decode(),\n"
        "                  'store': readable(store.pid), 'launcher': readable(os.getpid()),\n"
        "                  'plain': readable(free.pid)}))\n")
    assert code == 0, output
    found = json.loads(output.strip().splitlines()[-1])
    assert all(line.split()[1] == "0000000000000000" for line in found["caps"].splitlines())
    assert found == {**found, "store": False, "launcher": False, "plain": True}


@pytest.mark.anyio
async def test_without_nested_namespaces_auto_falls_back_with_the_reason() -> None:
    """A sandbox call that did not ask for nested namespaces cannot make test hosts."""
    code, output = await in_sandbox(
        "print(json.dumps(open_network('auto', ['clients'], 0).description))", nested=False)
    assert code == 0, output
    description = json.loads(output)
    assert description["network"] == "loopback"
    assert description["reason"].startswith("test hosts unavailable: unshare: ")


@pytest.mark.anyio
async def test_auto_falls_back_to_loopback_with_the_reason() -> None:
    code, output = await in_sandbox(
        "print(json.dumps(open_network('auto', ['clients', 'replica0'], 2).description))",
        env={"PATH": "/nonexistent"})
    assert code == 0, output
    description = json.loads(output)
    assert description["network"] == "loopback"
    assert description["reason"] == "test hosts unavailable: ip (iproute2) not found on PATH"
    assert description["link_delay"] == "skipped: loopback has no links to delay"


@pytest.mark.anyio
async def test_netns_that_cannot_be_had_is_one_line() -> None:
    code, output = await in_sandbox("try:\n    open_network('netns', ['clients'])\n"
                                    "except HostError as exc:\n    print(exc)\n",
                                    env={"PATH": "/nonexistent"})
    assert code == 0 and output == "cannot create test hosts: ip (iproute2) not found on PATH\n"

