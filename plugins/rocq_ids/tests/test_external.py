"""Spec files from a user-given path (benchmark option ``spec_path``): a framework spec becomes
a task judged like the bundled ones; anything else is one line naming the file and the fault."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import candidate
from speckernel.errors import KernelError
from speckernel.model import Status
from test_specs import relaxed_candidate

from speckernel_rocq_ids import plugin
from speckernel_rocq_ids.benchmark import IdsBenchmark
from speckernel_rocq_ids.external import load_spec, obligation_text
from speckernel_rocq_ids.sources import coq_source, sha256
from speckernel_rocq_ids.tasks import Obligation
from speckernel_rocq_ids.verifiers import CoqcVerifier

STICKY = coq_source("specs", "Relaxed.v").replace("Relaxed", "Sticky_Spec")


def test_bundled_obligations_have_the_generated_shape() -> None:
    assert obligation_text("RYW", "RYW_Spec", "RYW", "ryw_impl_refines_spec") == \
        coq_source("specs", "RYW_Correct.v")


def test_a_framework_spec_becomes_a_task(tmp_path: Path) -> None:
    path = tmp_path / "Sticky.v"
    path.write_text(STICKY)
    task = load_spec(str(path))
    obligation = Obligation.of(task)
    assert task.id == "ext-sticky" and task.reference is None
    assert (obligation.spec_module, obligation.impl_module) == ("Sticky_Spec", "Sticky_Impl")
    assert obligation.build_order == ("KVStore.v", "Sticky.v", "Impl.v", "Sticky_Correct.v")
    assert obligation.pinned["Sticky.v"] == sha256(STICKY)
    assert "Module Sticky_Refinement <: Refinement Sticky_Impl Sticky_Spec" in task.prompt
    ids = [t.id for t in IdsBenchmark().tasks({"suite": "reference", "spec_path": str(path)})]
    assert ids == ["ryw", "mw", "ext-sticky"]


@pytest.mark.anyio
async def test_the_generated_obligation_compiles(tmp_path: Path,
                                                 make_ctx: Callable[..., Any]) -> None:
    path = tmp_path / "Sticky.v"
    path.write_text(STICKY)
    task = load_spec(str(path))
    impl = relaxed_candidate(task)
    verdict = await CoqcVerifier().verify(candidate(**{"Impl.v": impl}), task, make_ctx())
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert "Sticky_Correct.v" in verdict.data["file_s"]


CHAPAR_STYLE = """Require Import Coq.Lists.List.
Module Type AlgDef.
  Parameter State : Type -> Type.
End AlgDef.
"""


@pytest.mark.parametrize(("name", "content", "fault"), [
    ("Missing.v", None, "does not exist"),
    ("Spec.txt", STICKY, "is not a Coq file (.v)"),
    ("Latin.v", b"(* caf\xe9 *)", "is not UTF-8 text"),
    ("KVStore.v", STICKY, "the name must be a Coq identifier"),
    ("Chapar.v", CHAPAR_STYLE, "does not import the framework"),
    ("Empty.v", "From IDS Require Import KVStore.\n", "found none"),
    ("Two.v", STICKY + STICKY.replace("Sticky_Spec", "Other_Spec"), "found 2 (Sticky_Spec, "),
])
def test_bad_spec_files_are_one_line_errors(tmp_path: Path, name: str,
                                            content: str | bytes | None, fault: str) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(KernelError) as error:
        load_spec(str(path))
    message = str(error.value)
    assert fault in message and str(path) in message and "\n" not in message


def test_a_directory_is_not_a_spec(tmp_path: Path) -> None:
    with pytest.raises(KernelError, match="is not a regular file"):
        load_spec(str(tmp_path))


def test_bad_path_through_the_cli(kernel_cli: Callable[..., Any],
                                  kernel_plugins: Callable[..., None], run_dir: Path) -> None:
    kernel_plugins(plugin)
    result = kernel_cli("run", "rocq_ids", "-o", "spec_path=/nonexistent/CC.v",
                        "--output", run_dir)
    assert result.exit_code != 0
    assert "IDS spec file /nonexistent/CC.v does not exist" in result.stderr + result.stdout
    assert "Traceback" not in result.stderr + result.stdout
