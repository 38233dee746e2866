"""The ``verus`` benchmark: options, phases, and what a run without Verus does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from speckernel.errors import KernelError
from verus_fixtures import SHARED

from speckernel_verus.benchmark import CHEATS, VERIFY, VerusBenchmark

VERUS_BENCH = SHARED / "Verus-Bench"
needs_data = pytest.mark.skipif(not VERUS_BENCH.is_dir(), reason=f"no data at {VERUS_BENCH}")
OPTIONS = dict(VerusBenchmark.options)


@pytest.fixture
def no_verus(monkeypatch: pytest.MonkeyPatch, tools_with_helper: Path) -> None:
    """No Verus anywhere; the cheat checker's helper (which reads the tasks) in the tools."""
    monkeypatch.delenv("VERUS", raising=False)
    monkeypatch.setenv("PATH", str(Path(__file__).parent / "no-such-dir"))


def test_phases_cheats_then_verus() -> None:
    bench = VerusBenchmark()
    assert bench.pipeline(OPTIONS) == (CHEATS, VERIFY) and CHEATS.gate
    assert bench.pipeline({**OPTIONS, "check_only_cheats": True}) == (CHEATS,)


@pytest.mark.usefixtures("no_verus")
def test_without_verus_only_the_reference_may_check_cheats() -> None:
    bench = VerusBenchmark()
    bench.preflight({**OPTIONS, "check_only_cheats": True}, ("reference",))
    for options, agents in [(OPTIONS, ("reference",)),
                            ({**OPTIONS, "check_only_cheats": True}, ("reference",
                                                                      "verus-hands-on"))]:
        with pytest.raises(KernelError, match="kernel tools install verus") as caught:
            bench.preflight(options, agents)
        assert "\n" not in str(caught.value) and "--check-only-cheats" in str(caught.value)


def test_data_is_required() -> None:
    with pytest.raises(KernelError, match="-o data=PATH"):
        list(VerusBenchmark().tasks(OPTIONS))


@needs_data
def test_projects_select_task_groups() -> None:
    bench = VerusBenchmark()
    every = list(bench.tasks({**OPTIONS, "data": str(VERUS_BENCH)}))
    some = list(bench.tasks({**OPTIONS, "data": str(VERUS_BENCH), "projects": "MBPP, Misc"}))
    assert len(every) == 150 and len(some) == 78 + 23
    assert {t.metadata["project"] for t in some} == {"MBPP", "Misc"}
    listed = list(bench.tasks({**OPTIONS, "data": str(VERUS_BENCH), "projects": ["Diffy"],
                               "check_only_cheats": True}))
    assert len(listed) == 38 and all(t.metadata["check_only_cheats"] for t in listed)
    assert "check_only_cheats" not in some[0].metadata


@needs_data
@pytest.mark.usefixtures("no_verus")
def test_a_run_without_verus_stops_in_one_line(
        kernel_cli: Callable[..., object], kernel_plugins: Callable[..., None],
        run_dir: Path) -> None:
    from speckernel_verus import plugin

    kernel_plugins(plugin)
    result = kernel_cli("run", "verus", "--agent", "reference", "-o", f"data={VERUS_BENCH}",
                        "--output", run_dir)
    assert result.exit_code != 0  # type: ignore[attr-defined]
    (line,) = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert line.startswith("error: Verus is not installed") and "kernel tools install verus" in line
