"""The reference solution: the ground truth's proof transplanted into its task's own text."""

from __future__ import annotations

from pathlib import Path

import pytest
from speckernel.errors import KernelError
from speckernel.model import Task
from test_cheats import HONEST, TASK

from speckernel_verus.cheats import CheatPair, check, transplant_pairs
from speckernel_verus.tasks import load_tasks, transplant_references
from speckernel_verus.toolchain import CHEATCHECK_ENV

pytestmark = pytest.mark.usefixtures("helper")

TRUSTED_STUB = """\
#[verifier::external_body]
proof fn lemma_trusted(n: nat)
    ensures sum_to(n) >= n,
{
    unimplemented!()
}"""

TRUSTED_PROVED = """\
proof fn lemma_trusted(m: nat)
    ensures sum_to(m) >= m,
    decreases m,
{
    assume(sum_to(m) >= m);
}"""
"""How upstream's ground truths carry context: the real body (here an assumption) under a
renamed parameter, where the task has a trusted stub."""

TASK_TARGET = """\
proof fn lemma_target(n: nat)
    requires n > 0,
    ensures sum_to(n) >= 1,
{
}"""

HONEST_TARGET = HONEST[HONEST.index("#[verifier::rlimit(50)]"):HONEST.index("\n\nfn count")]
HELPERS = HONEST[HONEST.index("proof fn lemma_helper"):HONEST.index("\n\n#[verifier::rlimit")]
TRUTH = HONEST.replace(TRUSTED_STUB, TRUSTED_PROVED) + "\nfn extra() {}\n"


def transplant(task: str, truth: str, target: str | None) -> str:
    result = transplant_pairs([CheatPair(task, truth, target)])[0]
    assert result.text is not None, result.error
    return result.text


def test_the_target_and_the_new_proof_items_move_everything_else_stays():
    moved = transplant(TASK, TRUTH, "lemma_target")
    expected = (TASK
                .replace("verus! {\n", "verus! {\nuse vstd::arithmetic::mul::*;\n")
                .replace(TRUSTED_STUB, f"{TRUSTED_STUB}\n\n{HELPERS}")
                .replace(TASK_TARGET, HONEST_TARGET))
    assert moved == expected
    assert not check(TASK, TRUTH, "lemma_target").safe
    assert check(TASK, moved, "lemma_target").safe


def test_without_a_named_target_every_provable_function_moves():
    moved = transplant(TASK, TRUTH, None)
    assert "decreases v.len() - i," in moved and "lemma_trusted(n);" in moved
    assert TRUSTED_STUB in moved and "fn extra" not in moved
    assert check(TASK, moved).safe


def test_a_function_moves_only_within_its_own_impl():
    task = ("verus! {\nimpl A {\n    proof fn f() {\n    }\n}\n"
            "impl B {\n    proof fn f() {\n    }\n}\n}\n")
    truth = task.replace("impl B {\n    proof fn f() {\n", "impl B {\n    proof fn f() {\n"
                         "        assert(true);\n")
    assert transplant(task, truth, "f") == truth


def test_a_target_changing_code_stays_a_deviation():
    truth = HONEST.replace("r = r + 1;", "r = r + 2;")
    moved = transplant(TASK, truth, "count")
    assert {v.rule for v in check(TASK, moved, "count").violations} == {"target-body"}


def test_an_unreadable_ground_truth_is_an_error_not_a_crash():
    result = transplant_pairs([CheatPair(TASK, "verus! { fn (", "lemma_target")])[0]
    assert result.text is None and "ground truth" in result.error


def task_with(truth: str) -> Task:
    return Task(id="t", benchmark="verus", prompt="", files={"t.rs": TASK},
                metadata={"file": "t.rs", "target": "lemma_target"}, reference={"t.rs": truth})


def test_a_reference_is_the_transplant_and_the_raw_truth_stays_in_metadata():
    [task] = transplant_references([task_with(TRUTH)])
    assert task.reference == {"t.rs": transplant(TASK, TRUTH, "lemma_target")}
    assert task.metadata["ground_truth_text"] == TRUTH
    assert task.metadata["reference"] == "transplanted"


def test_an_unreadable_ground_truth_leaves_the_raw_truth_as_reference():
    [task] = transplant_references([task_with("verus! { fn (")])
    assert task.reference == {"t.rs": "verus! { fn ("}
    assert task.metadata["reference"].startswith("raw ground truth (the ground truth")


def test_without_the_helper_loading_names_the_install(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path):
    monkeypatch.setenv(CHEATCHECK_ENV, str(tmp_path / "absent"))
    (tmp_path / "tasks.jsonl").write_text('{"task_id": "a", "task": "x", "ground_truth": "y"}\n')
    with pytest.raises(KernelError, match="kernel tools install verus"):
        list(load_tasks(tmp_path))


def test_the_target_keeps_the_tasks_attributes_and_gains_the_truths_tuning():
    task = TASK.replace("proof fn lemma_target", "#[verifier::opaque]\nproof fn lemma_target")
    truth = HONEST  # its target has `#[verifier::rlimit(50)]` and lacks `#[verifier::opaque]`
    moved = transplant(task, truth, "lemma_target")
    assert "#[verifier::opaque]\n#[verifier::rlimit(50)]\nproof fn lemma_target" in moved
    assert check(task, moved, "lemma_target").safe


def test_a_new_use_of_a_name_the_task_defines_is_left_out():
    truth = HONEST.replace("use vstd::arithmetic::mul::*;",
                           "use vstd::arithmetic::mul::*;\nuse vstd::prelude::sum_to;")
    moved = transplant(TASK, truth, "lemma_target")
    assert "use vstd::arithmetic::mul::*;" in moved and "sum_to;" not in moved
