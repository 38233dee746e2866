"""``rocq_ids.coqc``: verdicts with located diagnostics, never tracebacks; budgets end runaway
candidates (the issue's bad input)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import candidate, reference
from speckernel.model import Status, Task

from speckernel_rocq_ids.verifiers import CoqcVerifier

pytestmark = pytest.mark.anyio


async def test_reference_compiles(make_ctx: Callable[..., Any], tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    verdict = await CoqcVerifier().verify(candidate(**{"Impl.v": reference(task)}), task,
                                          make_ctx())
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert set(verdict.data["file_s"]) == {"KVStore.v", "Simulation.v", "RYW.v", "Impl.v",
                                           "RYW_Correct.v"}
    assert verdict.tool_version.startswith("8.")


async def test_broken_proof_is_located(make_ctx: Callable[..., Any],
                                       tasks: dict[str, Task]) -> None:
    task = tasks["ryw"]
    broken = reference(task).replace("- rewrite upd_neq by auto. apply H.", "- apply H.")
    verdict = await CoqcVerifier().verify(candidate(**{"Impl.v": broken}), task, make_ctx())
    assert verdict.status is Status.FAILURE
    error = verdict.diagnostics[0]
    assert error.file == "Impl.v" and error.line == broken.splitlines().index(
        "    - apply H.") + 1
    assert "In environment" in error.message and "Hk : k' <> k" in error.message


async def test_missing_implementation_fails(make_ctx: Callable[..., Any],
                                            tasks: dict[str, Task]) -> None:
    verdict = await CoqcVerifier().verify(candidate(**{"Other.v": "Check 1."}), tasks["ryw"],
                                          make_ctx())
    assert verdict.status is Status.FAILURE
    assert "no Impl.v" in verdict.summary()


async def test_looping_fixpoint_is_rejected(make_ctx: Callable[..., Any],
                                            tasks: dict[str, Task]) -> None:
    looping = "Fixpoint spin (n : nat) : nat := spin n.\n" + reference(tasks["ryw"])
    verdict = await CoqcVerifier().verify(candidate(**{"Impl.v": looping}), tasks["ryw"],
                                          make_ctx())
    assert verdict.status is Status.FAILURE
    assert "Recursive definition of spin is ill-formed" in verdict.summary()


async def test_huge_computation_times_out(make_ctx: Callable[..., Any],
                                          tasks: dict[str, Task]) -> None:
    huge = ("From Coq Require Import NArith.\n"
            "Eval vm_compute in N.iter 1000000000000%N negb true.\n" + reference(tasks["ryw"]))
    verdict = await CoqcVerifier().verify(candidate(**{"Impl.v": huge}), tasks["ryw"],
                                          make_ctx(wall_s=5.0))
    assert verdict.status is Status.TIMEOUT
    assert "wall budget" in verdict.summary()
    assert verdict.duration_s < 30
