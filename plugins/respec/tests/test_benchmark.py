"""The ``respec`` benchmark end to end, the dispatching verifier and the options."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from speckernel.errors import KernelError
from speckernel.model import Candidate, Provenance, Status, Task
from speckernel.store import RunStore

from speckernel_respec import plugin
from speckernel_respec.benchmark import CHECK, RespecBenchmark, dispatcher
from speckernel_respec.domains import DOMAINS
from speckernel_respec.tasks import team_entries


def _assert_reference_run(run_dir: Path) -> None:
    """A sound verifier never refutes the oracle itself, nor breaks on it."""
    samples = RunStore(run_dir).load_samples()
    assert samples
    for sample in samples:
        assert sample.status in (Status.SUCCESS, Status.UNKNOWN), (sample.id, sample.verdicts)
        assert sample.verdicts[0].verifier == f"respec.{sample.key.task_id.split('/')[0]}"


def test_reference_run_on_the_team_tasks(kernel_cli: Callable[..., Any],
                                         present: tuple[str, ...], run_dir: Path) -> None:
    with_tasks = [d for d in present if team_entries(d)]
    if not with_tasks:
        pytest.skip("no installed domain has its team task file yet")
    result = kernel_cli("run", "respec", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stdout + result.stderr
    _assert_reference_run(run_dir)
    assert {s.key.task_id.split("/")[0] for s in RunStore(run_dir).load_samples()} == \
        set(with_tasks)
    assert kernel_cli("report", run_dir).exit_code == 0
    assert "RESpecBench: success per domain" in (run_dir / "report.md").read_text()


def test_reference_run_on_upstream_data(kernel_cli: Callable[..., Any], shared_data: Path,
                                        present: tuple[str, ...], run_dir: Path) -> None:
    if not {"fol", "regex"} & set(present):
        pytest.skip("neither fol nor regex is installed")
    result = kernel_cli("run", "respec", "-o", "team=false", "-o",
                        f"folio={shared_data / 'folio'}", "-o",
                        f"deepregex={shared_data / 'deepregex'}", "-o", "per_domain=40",
                        "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stdout + result.stderr
    _assert_reference_run(run_dir)


def test_default_domains_are_the_installed_ones(present: tuple[str, ...]) -> None:
    bench = RespecBenchmark(plugin.loaded())
    assert bench.domains({"domains": None}) == list(present)
    with pytest.raises(KernelError, match="unknown domain 'lisp'"):
        bench.domains({"domains": ["lisp"]})
    for domain in set(DOMAINS) - set(present):
        with pytest.raises(KernelError, match=f"domain '{domain}' is not available"):
            bench.domains({"domains": [domain]})


def test_timeout_must_be_positive() -> None:
    bench = RespecBenchmark(plugin.loaded())
    with pytest.raises(KernelError, match="timeout_s"):
        list(bench.tasks({**bench.options, "timeout_s": 0}))


def test_dispatcher_covers_the_versions_and_tools_of_its_domains() -> None:
    verifiers = plugin.loaded().verifiers
    check = dispatcher(verifiers)
    assert check.name == CHECK
    for domain, verifier in verifiers.items():
        assert f"{domain}={verifier.version}" in check.version
        assert set(verifier.tools) <= set(check.tools)
        assert check.limits.wall_s >= verifier.limits.wall_s


@pytest.mark.anyio
async def test_a_task_of_an_uninstalled_domain_is_an_error_verdict(
        make_ctx: Callable[..., Any]) -> None:
    task = Task("cobol/x", "respec", metadata={"domain": "cobol"})
    verdict = await dispatcher({}).verify(Candidate({}, Provenance("a", "m")), task, make_ctx())
    assert verdict.status is Status.ERROR
    assert "no verifier for domain 'cobol'" in verdict.diagnostics[0].message


def test_timeout_sweep_tool_prints_the_sweep(kernel_cli: Callable[..., Any], regex_data: Path,
                                             tmp_path: Path) -> None:
    import runpy
    import sys

    source = tmp_path / "source"
    result = kernel_cli("run", "respec", "-o", "team=false", "-o", f"deepregex={regex_data}",
                        "--output", source, "--display", "none")
    assert result.exit_code == 0
    tool = Path(__file__).parents[1] / "tools" / "timeout_sweep.py"
    argv = sys.argv
    sys.argv = [str(tool), str(source), "--timeouts", "1,2", "--output", str(tmp_path / "sw")]
    try:
        runpy.run_path(str(tool), run_name="__main__")
    finally:
        sys.argv = argv
    assert (tmp_path / "sw" / "sweep.md").read_text().count("| overall |") == 2
