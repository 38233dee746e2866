"""``rocq_ids.cluster``: the extracted store runs as replica processes with client workers, and
the harness reports throughput, pooled p99 latency and peak RSS per sweep point (medians over
repeats, the ratio to the expert with its spread) and which network carried the messages; a
store whose gets are never served ends in a timeout error naming the waiting workers, one whose
gets answer what the spec forbids in an error naming the get, and a worker report that cannot be
true is refused. Test hosts in network namespaces: ``test_testhosts.py``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from conftest import candidate, reference
from speckernel.errors import KernelError
from speckernel.model import Task

from speckernel_rocq_ids.cluster import (
    ClusterHarness,
    Sweep,
    cluster_result,
    measurements,
    network_line,
    noise_line,
)

RUNTIME = Path(__file__).parents[1] / "src" / "speckernel_rocq_ids" / "runtime"

SMALL = {"cluster_replicas": 2, "cluster_workers": 2, "cluster_put_rates": [0.2, 0.8],
         "cluster_ops_per_worker": [200]}
LOOPBACK = {"network": "loopback", "reason": None, "addresses": {}, "link_delay_ms": 0.0,
            "link_delay": "none", "traffic": {}}


def point(rate: float, ops: int, throughput: float, repeat: int = 0) -> dict[str, Any]:
    return {"put_rate": rate, "ops_per_worker": ops, "operations": 2 * ops, "elapsed_s": 1.0,
            "throughput_ops_s": throughput, "p50_ms": 0.1, "p99_ms": 0.9,
            "peak_rss_mb": [5.0, 6.5], "replica_cpu_s": 0.002 * ops, "repeat": repeat}


def test_sweep_covers_every_rate_and_size() -> None:
    sweep = Sweep.of({})
    assert sweep.points == ((0.1, 2000), (0.5, 2000), (0.9, 2000))
    assert sweep.headline == (0.5, 2000) and sweep.repeats == 3 and sweep.keys == 1000
    assert Sweep.of(SMALL).headline == (0.2, 200)
    for bad in (0, 51, 1.5, True, "3"):
        with pytest.raises(KernelError, match=r"^cluster_repeats must be a whole number"):
            Sweep.of({"cluster_repeats": bad})


def test_repeats_give_medians_and_the_spread_of_the_ratio() -> None:
    result = {"network": LOOPBACK, "stores": {
        "candidate": {"points": [point(0.5, 500, t, r) for r, t in enumerate((90, 100, 300))],
                      "error": None},
        "expert": {"points": [point(0.5, 500, t, r) for r, t in enumerate((100, 50, 100))],
                   "error": None}}}
    found = measurements(result, (0.5, 500))
    assert found["throughput_ops_s"] == 100.0 and found["expert_throughput_ops_s"] == 100.0
    assert (found["x_expert_min"], found["x_expert"], found["x_expert_max"]) == (0.9, 2.0, 3.0)
    assert found["x_expert_cpu"] == found["x_expert_cpu_min"] == 1.0
    assert noise_line(found, 3) == (
        "x_expert 2.00 (min 0.90, max 3.00 over 3 repeats): within noise: the range holds 1; "
        "x_expert_cpu 1.00 (min 1.00, max 1.00 over 3 repeats): within noise: the range holds 1")


def test_measurements_pick_the_headline_and_compare_with_the_expert() -> None:
    result = {"network": LOOPBACK, "stores": {
        "candidate": {"points": [point(0.1, 500, 300.0), point(0.5, 500, 200.0)], "error": None},
        "expert": {"points": [point(0.1, 500, 100.0), point(0.5, 500, 100.0)], "error": None}}}
    found = measurements(result, (0.5, 500))
    assert found["throughput_ops_s"] == 200.0 and found["x_expert"] == 2.0
    assert found["cluster_netns"] == 0.0 and found["cluster_link_delay_ms"] == 0.0
    assert found["x_expert@put0.1/ops500"] == 3.0
    assert found["p99_latency_ms"] == 0.9 and found["peak_rss_mb"] == 6.5
    assert found["expert_throughput_ops_s"] == 100.0
    assert found["replica_cpu_us_per_op"] == pytest.approx(1000.0)


def test_a_failed_run_is_an_error_with_its_reason() -> None:
    result = {"network": LOOPBACK, "stores": {"candidate": {
        "points": [], "error": "put rate 0.5, 500 ops: replica 1 exited with code 2: Fatal error"}}}
    with pytest.raises(KernelError, match="replica 1 exited with code 2"):
        measurements(result, (0.5, 500))
    with pytest.raises(KernelError, match="printed no result"):
        cluster_result("Traceback (most recent call last):\n", "n0nce")


def test_only_the_line_after_the_nonce_is_the_result() -> None:
    forged = '{"network": {}, "stores": {}}\nabc {"stores": {}}\n'
    with pytest.raises(KernelError, match="printed no result"):
        cluster_result(forged, "n0nce")
    assert cluster_result(forged + 'n0nce {"stores": {"x": 1}}\n', "n0nce") == {
        "stores": {"x": 1}}


def test_the_network_is_an_option_checked_up_front() -> None:
    assert Sweep.of({}).network == "auto"
    assert Sweep.of({"cluster_network": "netns", "cluster_link_delay_ms": 2}).link_delay_ms == 2
    with pytest.raises(KernelError, match=r"^cluster_network must be one of loopback, netns, "
                                          r"auto, not 'ethernet'$"):
        Sweep.of({"cluster_network": "ethernet"})
    for bad in (-1, "fast", None):
        with pytest.raises(KernelError, match=r"^cluster_link_delay_ms must be a number >= 0"):
            Sweep.of({"cluster_link_delay_ms": bad})


def test_a_bad_network_stops_the_run_before_any_sample(kernel_cli: Any, run_dir: Any) -> None:
    result = kernel_cli("run", "rocq_ids", "--cluster-network", "ethernet", "--output", run_dir,
                        "--display", "none")
    assert result.exit_code == 2
    assert result.stderr.strip() == ("error: cluster_network must be one of loopback, netns, "
                                      "auto, not 'ethernet'")


def test_test_hosts_that_cannot_be_created_are_a_one_line_error() -> None:
    with pytest.raises(KernelError, match=r"^cluster_network netns: cannot create test hosts: "
                                          r"unshare.CLONE_NEWNET.: Operation not permitted$"):
        cluster_result('n0nce {"error": "cannot create test hosts: unshare(CLONE_NEWNET): '
                       'Operation not permitted"}\n', "n0nce")


def test_the_log_names_the_network_and_why_auto_fell_back() -> None:
    fell_back = {**LOOPBACK, "reason": "test hosts unavailable: unshare(CLONE_NEWNET): "
                 "Operation not permitted"}
    assert network_line({"network": fell_back}) == (
        "cluster network: loopback 127.0.0.1 (test hosts unavailable: unshare(CLONE_NEWNET): "
        "Operation not permitted); link delay: none")
    hosts = {"network": "netns", "reason": None, "bridge": "idsbr0a1b2c",
             "addresses": {"clients": "10.77.0.1", "replica0": "10.77.0.2"},
             "link_delay_ms": 0.0, "link_delay": "skipped: tc netem: Error: Specified qdisc "
             "kind is unknown.", "traffic": {}}
    assert network_line({"network": hosts}) == (
        "cluster network: test hosts in network namespaces (bridge idsbr0a1b2c): clients "
        "10.77.0.1, replica0 10.77.0.2; link delay: skipped: tc netem: Error: Specified qdisc "
        "kind is unknown.")


@pytest.fixture
def launcher(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``runtime/cluster_run.py`` imported as the sandbox imports it (next to its modules)."""
    monkeypatch.syspath_prepend(str(RUNTIME))
    import cluster_run

    yield cluster_run
    for name in ("cluster_run", "histories", "testhosts"):
        sys.modules.pop(name, None)


def test_worker_reports_that_cannot_be_true_are_refused(launcher: Any) -> None:
    """An operation before the launcher's go or after the last done, or overlapping the
    worker's previous one, is not a measurement."""
    ok = b"p 3 1000001 110 120\ng 3 1000001 130 150\ndone\n"
    ops, latencies = launcher.records([ok], 100, 200)
    assert latencies == [10, 20] and ops[1] == (1, 1, "g", 3, 1000001, 130, 150)
    for bad in (b"p 3 1000001 90 120\ndone\n", b"p 3 1000001 110 250\ndone\n",
                b"p 3 1000001 110 140\ng 3 1000001 130 150\ndone\n"):
        with pytest.raises(launcher.RunError, match="outside its turn"):
            launcher.records([bad], 100, 200)


@pytest.mark.anyio
async def test_reference_store_on_a_loopback_cluster(make_ctx: Callable[..., Any],
                                                     tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    ctx = attrs.evolve(make_ctx(wall_s=300.0), options={**SMALL, "cluster_network": "loopback",
                                                        "cluster_repeats": 2})
    found = await ClusterHarness().measure(candidate(**{"Impl.v": reference(task)}), task, ctx)
    for key in ("put0.2/ops200", "put0.8/ops200"):
        assert found[f"throughput_ops_s@{key}"] > 0
        assert 0 < found[f"p99_latency_ms@{key}"] < 1000
        assert 0 < found[f"peak_rss_mb@{key}"] < 512
        assert 0 < found[f"x_expert_min@{key}"] <= found[f"x_expert@{key}"] \
            <= found[f"x_expert_max@{key}"]
    assert found["throughput_ops_s"] == found["throughput_ops_s@put0.2/ops200"]
    assert found["cluster_netns"] == 0.0


@pytest.mark.anyio
async def test_a_store_answering_what_the_spec_forbids_fails(make_ctx: Callable[..., Any],
                                                             tasks: dict[str, Task]) -> None:
    """Unproved, a store whose get answers 0 for every key but 3: the history check names a get
    that returned the initial value after the client's own put."""
    task = tasks["ryw"]
    wrong = reference(task).replace(
        "    : Val * GetResPayload * RState := (fst (cell rs k), tt, rs).",
        "    : Val * GetResPayload * RState :=\n"
        "    (if Nat.eqb k 3 then fst (cell rs k) else 0, tt, rs).").split("Module RYW_Local")[0]
    harness = ClusterHarness()
    harness.proved = False
    ctx = attrs.evolve(make_ctx(wall_s=300.0),
                       options={**SMALL, "cluster_expert": False, "cluster_keys": 4,
                                "cluster_repeats": 1, "cluster_network": "loopback"})
    with pytest.raises(KernelError, match=r"operations break ryw: client \d operation \d+: get "
                                          r"key [0-24-9] -> 0 .*returned the initial value"):
        await harness.measure(candidate(**{"Impl.v": wrong}), task, ctx)


@pytest.mark.anyio
async def test_gets_that_are_never_served_time_out(make_ctx: Callable[..., Any],
                                                   tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    stuck = reference(task).replace(
        "(rs : RState) : bool := p <=? count (snd (cell rs k)) c.",
        "(rs : RState) : bool := false.").split("Module RYW_Local")[0]
    ctx = attrs.evolve(make_ctx(wall_s=300.0),
                       options={**SMALL, "cluster_put_rates": [0.0], "cluster_expert": False,
                                "cluster_run_timeout_s": 2, "cluster_repeats": 1})
    harness = ClusterHarness()
    harness.proved = False
    with pytest.raises(KernelError, match="timeout: 2 of 2 client workers still waiting"):
        await harness.measure(candidate(**{"Impl.v": stuck}), task, ctx)
