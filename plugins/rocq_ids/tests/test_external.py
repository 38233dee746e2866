"""Spec files from a user-given path (benchmark option ``spec_path``): a framework spec becomes
a task judged like the bundled ones, a Chapar algorithm becomes the task of its port
(ChaparPort.v); anything else is one line naming the file and the fault."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import candidate
from speckernel.errors import KernelError
from speckernel.model import Status
from test_specs import relaxed_candidate

from speckernel_rocq_ids import plugin, scan
from speckernel_rocq_ids.audit import AuditVerifier
from speckernel_rocq_ids.benchmark import IdsBenchmark
from speckernel_rocq_ids.coqbuild import compile_step, run_build
from speckernel_rocq_ids.external import load_spec, obligation_text
from speckernel_rocq_ids.probes import PROBES
from speckernel_rocq_ids.sources import coq_source, sha256
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation
from speckernel_rocq_ids.verifiers import CoqcVerifier

STICKY = coq_source("specs", "Relaxed.v").replace("Relaxed", "Sticky_Spec")
FIXTURES = Path(__file__).parent / "fixtures"
CAUSAL = (FIXTURES / "CausalVC.v").read_text()


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
    order = Obligation.of(task).build_order
    files = {**task.files, CANDIDATE_FILE: relaxed_candidate(task)}  # proofs admitted
    build = await run_build(make_ctx(), files, [compile_step(f) for f in order])
    assert build.succeeded(order) and order[-1] == "Sticky_Correct.v", build.failed()


def test_a_chapar_algorithm_becomes_the_task_of_its_port() -> None:
    task = load_spec(str(FIXTURES / "CausalVC.v"))
    obligation = Obligation.of(task)
    assert task.id == "ext-causalvc" and task.reference is None
    assert obligation.build_order == ("KVStore.v", "ChaparPort.v", "CausalVC.v",
                                      "CausalVC_Port.v", "Impl.v", "CausalVC_Correct.v")
    assert obligation.spec_module == "CausalVC_Spec"
    assert "Module CausalVC_Spec := Port CausalVC." in task.files["CausalVC_Port.v"]
    assert "From IDS Require KVStore CausalVC_Port Impl." in task.files["CausalVC_Correct.v"]
    assert "IDS.CausalVC_Port.CausalVC_Spec" in task.files["CausalVC_Correct.v"]
    assert obligation.pinned == {name: sha256(text) for name, text in task.files.items()}
    assert obligation.pinned["ChaparPort.v"] == sha256(coq_source("framework", "ChaparPort.v"))
    assert "Refinement CausalVC_Impl CausalVC_Spec" in task.prompt and "ChaparAlg" in task.prompt
    ids = [t.id for t in IdsBenchmark().tasks({"spec_path": str(FIXTURES / "CausalVC.v")})]
    assert ids == ["ryw", "mw", "ext-causalvc"]


def test_the_pins_cover_the_port() -> None:
    """A candidate that brings its own ChaparPort.v (a weaker port) fails spec integrity."""
    task = load_spec(str(FIXTURES / "CausalVC.v"))
    weaker = task.files["ChaparPort.v"].replace("A.guard_method n s k v u", "true")
    assert weaker != task.files["ChaparPort.v"]
    found = scan.spec_integrity(Obligation.of(task).pinned, {**task.files, "ChaparPort.v": weaker})
    assert [d.file for d in found] == ["ChaparPort.v"]


@pytest.mark.anyio
async def test_the_port_runs_the_chapar_methods(make_ctx: Callable[..., Any]) -> None:
    """The ported spec computes what CausalVC.v says along executions of the IDS world: own
    writes, delivered and undelivered updates, and a dependent update applied after its cause
    (CausalVC_Examples.v)."""
    task = load_spec(str(FIXTURES / "CausalVC.v"))
    files = {**task.files, "Examples.v": (FIXTURES / "CausalVC_Examples.v").read_text()}
    order = (*Obligation.of(task).build_order[:4], "Examples.v")
    build = await run_build(make_ctx(), files, [compile_step(f) for f in order])
    assert build.succeeded(order), build.failed()


@pytest.mark.anyio
async def test_a_real_store_compiles_against_the_ported_obligation(
        make_ctx: Callable[..., Any]) -> None:
    """The compact store type-checks against the generated obligation (its simulation admitted,
    which the allow-list refuses: the test builds it directly)."""
    task = load_spec(str(FIXTURES / "CausalVC.v"))
    order = Obligation.of(task).build_order
    files = {**task.files, CANDIDATE_FILE: (FIXTURES / "CausalVC_Candidate.v").read_text()}
    build = await run_build(make_ctx(), files, [compile_step(f) for f in order])
    assert build.succeeded(order), build.failed()
    verdict = await CoqcVerifier().verify(candidate(**{CANDIDATE_FILE: files[CANDIDATE_FILE]}),
                                          task, make_ctx())
    assert verdict.status is Status.FAILURE and "'Admitted' is not allowed" in verdict.summary()


@pytest.mark.anyio
async def test_a_store_that_never_propagates_fails_only_its_probe(
        make_ctx: Callable[..., Any]) -> None:
    """The own-writes store (replicas keep v0, each client reads its own last writes) refines
    the port with a closed proof — trace inclusion allows a put to stay in flight forever — and
    passes every other check; ``put_propagates`` is what rejects it."""
    task = load_spec(str(FIXTURES / "CausalVC.v"))
    impl = (FIXTURES / "CausalVC_OwnWrites.v").read_text()
    verdict = await AuditVerifier().verify(candidate(**{CANDIDATE_FILE: impl}), task,
                                           make_ctx(wall_s=300.0))
    assert verdict.status is Status.FAILURE
    checks = verdict.data["checks"]
    assert {name for name, passed in checks.items() if not passed} == {"probe:put_propagates"}
    assert set(checks) >= {"spec_integrity", "clean_build", "assumptions", "probe:put_visible"}


@pytest.mark.anyio
async def test_the_port_itself_passes_its_probes(make_ctx: Callable[..., Any]) -> None:
    """The probes ask nothing Chapar's algorithm does not do: the ported spec, as the store,
    computes each of them to true."""
    task = load_spec(str(FIXTURES / "CausalVC.v"))
    obligation = Obligation.of(task)
    files = dict(task.files)
    steps = [compile_step(f) for f in obligation.build_order[:4]]
    for probe in obligation.probes:
        files[f"P_{probe}.v"] = PROBES[probe].source(obligation).replace(" Impl.\n", ".\n").replace(
            f"Module I := IDS.Impl.{obligation.impl_module}.",
            f"Module I := IDS.CausalVC_Port.{obligation.spec_module}.")
        steps.append(compile_step(f"P_{probe}.v"))
    build = await run_build(make_ctx(), files, steps)
    for probe in obligation.probes:
        step = build.steps[f"P_{probe}.v"]
        assert step.ok, (probe, step.output)


def without(member: str) -> str:
    """CAUSAL with the definition of ``member`` (up to its closing period) removed."""
    start = CAUSAL.index(f"  Definition {member} ")
    return CAUSAL[:start] + CAUSAL[CAUSAL.index(".\n", start) + 2:]


@pytest.mark.parametrize(("content", "fault"), [
    (without("update_method"), "CausalVC does not define update_method of Chapar's interface"),
    (without("dummy_update").replace("Definition State ", "Definition Stat "),
     "does not define State, dummy_update"),
    (CAUSAL.replace("get_method (_ : NId) (s : State Val)", "get_method (s : State Val)"),
     "CausalVC.get_method takes 2 arguments, Chapar's interface gives it 3"),
    (CAUSAL.replace("Definition Update (V : Type) : Type :=", "Definition Update : Type :="),
     "CausalVC.Update takes 0 arguments, Chapar's interface gives it 1"),
    (CAUSAL.replace("KVStore ChaparPort.", "KVStore."),
     "does not import the framework and the port"),
    (CAUSAL + CAUSAL.replace("CausalVC", "Other"), "found 2 (CausalVC, Other)"),
    (CAUSAL + STICKY.replace("From IDS", "From Coq"), "declares both AlgDef and ChaparAlg"),
    (CAUSAL.replace("Module CausalVC ", "Module Causal_Spec ").replace("End CausalVC.",
                                                                       "End Causal_Spec."),
     "the module name Causal_Spec is the task's"),
    (CAUSAL.replace("End CausalVC.", ""), "module CausalVC has no 'End CausalVC.'"),
])
def test_malformed_chapar_files_are_one_line_errors(tmp_path: Path, content: str,
                                                    fault: str) -> None:
    path = tmp_path / "Causal.v"
    path.write_text(content)
    with pytest.raises(KernelError) as error:
        load_spec(str(path))
    message = str(error.value)
    assert fault in message and str(path) in message and "\n" not in message


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
    ("ChaparPort.v", CAUSAL, "the name must be a Coq identifier"),
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
