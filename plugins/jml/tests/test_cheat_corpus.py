"""The adversarial corpus (``tests/data/cheats/*.yaml``; adding a cheat is adding a file): each
answer tries to pass without specifying the program — code hidden by Unicode escapes, assumed
facts, preconditions nothing satisfies, KeY's non-null default. The cheating check refuses what
the text shows; KeY, with FormalBench's semantics and the vacuity probes, refuses the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from speckernel.model import Status, Task

from speckernel_jml.bundled import make_task
from speckernel_jml.javasource import top_level_class
from speckernel_jml.testinputs import Call, calls_as_metadata
from speckernel_jml.verifiers import cheating_reason, check_file

CHEATS = sorted((Path(__file__).parent / "data" / "cheats").glob("*.yaml"))


def load(path: Path) -> dict[str, Any]:
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert {"why", "program", "answer", "expect"} <= set(case), path
    return case


def task_of(case: dict[str, Any]) -> Task:
    name = top_level_class(case["program"])
    assert name is not None
    calls = [Call(method, tuple(args)) for method, args in case.get("calls", [])]
    return make_task(f"cheat/{name}", name, case["program"], "", {
        "category": "sequential", "test_calls": calls_as_metadata(calls)})


@pytest.mark.parametrize("path", [p for p in CHEATS if not load(p).get("prover")],
                         ids=lambda p: p.stem)
def test_the_cheating_check_refuses_what_the_text_shows(path: Path) -> None:
    case = load(path)
    found = cheating_reason(case["program"], case["answer"])
    if case["expect"] is None:
        assert found is None, found
    else:
        assert found is not None, f"{path.stem} passed the check"
        assert found[0] == case["expect"], found
        assert "\n" not in found[1]


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize("path", [p for p in CHEATS if load(p).get("prover")],
                         ids=lambda p: p.stem)
async def test_key_refuses_what_only_a_prover_can_see(path: Path, key_installed: None,
                                                      make_ctx: Any) -> None:
    case = load(path)
    assert cheating_reason(case["program"], case["answer"]) is None
    task = task_of(case)
    outcome = await check_file(task, {str(task.metadata["file"]): case["answer"]},
                               make_ctx(timeout_s=300.0))
    assert outcome.status is Status.FAILURE, (outcome.status, outcome.diagnostics)
    assert case["expect"] in outcome.categories, outcome.diagnostics
