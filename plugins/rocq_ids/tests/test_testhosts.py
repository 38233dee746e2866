"""``cluster_network``: the cluster on test hosts, each a network namespace with its own address
joined by veth links to a bridge. Messages really cross the links (the hosts' ``eth0`` counters
move), the namespaces and links are gone after a run, after a replica crash and after the
launcher is killed, and where namespaces cannot be created ``auto`` falls back to loopback with
the reason while ``netns`` is a one-line error."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
from conftest import Context, candidate, reference
from speckernel.errors import KernelError
from speckernel.model import Task

from speckernel_rocq_ids.cluster import ClusterHarness
from speckernel_rocq_ids.storebuild import runtime_source

NETNS = {"cluster_replicas": 2, "cluster_workers": 2, "cluster_put_rates": [0.5],
         "cluster_ops_per_worker": [100], "cluster_network": "netns",
         "cluster_link_delay_ms": 1, "cluster_expert": False}
NOBODY = 65534


def hosts_program(snippet: str) -> list[str]:
    """``python3 -c`` running ``runtime/testhosts.py`` and then ``snippet``."""
    return [sys.executable, "-c", runtime_source("testhosts.py") + "\nimport json, time\n" +
            snippet]


def unavailable() -> str | None:
    """Why test hosts cannot be created here, or None if they can."""
    probe = subprocess.run(hosts_program("TestHosts(['a']).close()"), capture_output=True,
                           text=True, timeout=60)
    return None if probe.returncode == 0 else probe.stderr.strip().splitlines()[-1]


WHY_NOT = unavailable()
needs_netns = pytest.mark.skipif(WHY_NOT is not None,
                                 reason=f"cannot create network namespaces here: {WHY_NOT}")


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


@attrs.define
class LoggingContext(Context):
    """A harness context whose sample log the test reads."""

    lines: list[str] = attrs.field(factory=list)

    def log(self, message: str) -> None:
        self.lines.append(message)


def bridge_of(lines: list[str]) -> str:
    (line,) = lines
    found = re.search(r"\(bridge (idsbr[0-9a-f]{6})\)", line)
    assert found is not None, line
    return found[1]


@pytest.fixture
def hosts_ctx(make_ctx: Callable[..., Context]) -> LoggingContext:
    ctx = make_ctx(wall_s=300.0)
    return LoggingContext(ctx.sandbox, ctx.tools, ctx.limits, NETNS)


@needs_netns
@pytest.mark.anyio
async def test_reference_store_on_test_hosts(hosts_ctx: LoggingContext,
                                             tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    found = await ClusterHarness().measure(candidate(**{"Impl.v": reference(task)}), task,
                                           hosts_ctx)
    assert found["cluster_netns"] == 1.0
    assert found["throughput_ops_s"] > 0 and 0 < found["p99_latency_ms"] < 1000
    assert 0 < found["peak_rss_mb"] < 512 and found["replica_cpu_us_per_op"] > 0
    (line,) = hosts_ctx.lines
    addresses = re.findall(r"(clients|replica\d) (10\.77\.0\.\d+)", line)
    assert [host for host, _ in addresses] == ["clients", "replica0", "replica1"]
    assert len({a for _, a in addresses}) == 3
    assert all(ipaddress.ip_address(a) in ipaddress.ip_network("10.77.0.0/24")
               for _, a in addresses)
    # netem where the kernel has it, else skipped and said so (this machine's kernel has none)
    assert (found["cluster_link_delay_ms"] == 1.0) == ("link delay: netem 1 ms" in line)
    assert found["cluster_link_delay_ms"] == 1.0 or "link delay: skipped: tc" in line
    assert gone(bridge_of(hosts_ctx.lines), within_s=0)


@needs_netns
@pytest.mark.anyio
async def test_a_replica_crash_leaves_no_hosts_behind(hosts_ctx: LoggingContext,
                                                      tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    store = reference(task).split("Module RYW_Local")[0]
    deep = store.replace(
        "Module RYW_Impl <: AlgDef.",
        "Fixpoint depth (n : nat) : nat := match n with 0 => 0 | S m => S (depth m) end.\n"
        "Module RYW_Impl <: AlgDef.").replace("NatMap.add k (v,", "NatMap.add k (depth (v * 9),")
    assert deep.count("depth (v * 9)") == 1
    with pytest.raises(KernelError, match=r"exited with code \d+"):
        await ClusterHarness().measure(candidate(**{"Impl.v": deep}), task, hosts_ctx)
    assert gone(bridge_of(hosts_ctx.lines), within_s=0)


@needs_netns
def test_a_killed_launcher_leaves_no_hosts_behind() -> None:
    """SIGKILL runs no cleanup: the namespaces must go with the launcher's descriptors and its
    children, which the parent-death signal ends."""
    launcher = subprocess.Popen(hosts_program(
        "net = TestHosts(['clients', 'replica0'])\n"
        "child = net.popen('replica0', ['sleep', '600'])\n"
        "print(net.description['bridge'], flush=True)\n"
        "time.sleep(600)\n"), stdout=subprocess.PIPE, text=True)
    try:
        assert launcher.stdout is not None
        bridge = launcher.stdout.readline().strip()
        assert len(links_named(bridge)) == 3  # the bridge and both hosts' ports: found while up
    finally:
        launcher.send_signal(signal.SIGKILL)
        launcher.wait()
    assert gone(bridge)


def run_unprivileged(snippet: str) -> subprocess.CompletedProcess[str]:
    """``snippet`` after ``testhosts.py`` as a user who may not create namespaces."""
    demote = (["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
              if os.geteuid() == 0 else [])
    return subprocess.run([*demote, *hosts_program(snippet)], capture_output=True, text=True,
                          timeout=60, cwd="/")


def test_auto_falls_back_to_loopback_with_the_reason() -> None:
    done = run_unprivileged("print(json.dumps(open_network('auto', ['clients', 'replica0'], "
                            "2).description))")
    assert done.returncode == 0, done.stderr
    description = json.loads(done.stdout)
    assert description["network"] == "loopback"
    assert description["reason"] == ("test hosts unavailable: unshare(CLONE_NEWNET): "
                                     "Operation not permitted")
    assert description["link_delay"] == "skipped: loopback has no links to delay"


def test_netns_that_cannot_be_had_is_one_line() -> None:
    done = run_unprivileged("try:\n    open_network('netns', ['clients'])\n"
                            "except HostError as exc:\n    print(exc)\n")
    assert done.stdout == ("cannot create test hosts: unshare(CLONE_NEWNET): Operation not "
                           "permitted\n")

