"""Benchmark ``tla`` end to end through the kernel CLI: SysMoBench's gated phases (§3.2) on the
bundled tasks, with the reference agent and with a scripted model's broken answer."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from speckernel import cli
from speckernel.model import Sample
from speckernel.plugins import load_registry
from speckernel.store import RunStore

from speckernel_tla.tasks import bundled_root

DATA = Path(__file__).parent / "data"

BUNDLED = ("locksrv", "mutex", "rwlock", "spinlock", "twophase")
UNLOCK = "/\\ lock_state' = FALSE\n    /\\ pc' = [pc EXCEPT ![t] = \"idle\"]"
TYPE_ERROR = "/\\ lock_state' = lock_state + 1\n    /\\ pc' = [pc EXCEPT ![t] = \"idle\"]"


def conformance_registered() -> bool:
    return "tla.conformance" in load_registry({}).components["verifier"]


@pytest.fixture(scope="module")
def reference_run(jar: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Sample]]:
    """``kernel run tla`` with the default (reference) agent on every bundled task, once for the
    module: the expensive run the tests below share."""
    root = tmp_path_factory.mktemp("reference")
    with pytest.MonkeyPatch.context() as patch:
        for var in [v for v in os.environ if v.startswith("KERNEL_") and v != "KERNEL_TOOLS_DIR"]:
            patch.delenv(var)
        patch.setenv("KERNEL_CACHE_DIR", str(root / "cache"))
        patch.chdir(root)
        code = cli.guarded(lambda: cli.app(
            ["run", "tla", "--output", str(root / "run"), "--display", "none"],
            standalone_mode=False))
    assert code == 0
    yield RunStore(root / "run").load_samples()


def test_reference_models_score_full_marks(reference_run: list[Sample]) -> None:
    """The gold models pass every phase: syntax, runtime and invariants at 100 %, and
    conformance at 100 % wherever the conformance verifier is installed."""
    assert sorted(s.key.task_id for s in reference_run) == list(BUNDLED)
    expected_conformance = 1.0 if conformance_registered() else None
    for sample in reference_run:
        metrics = sample.metrics()
        why = "\n".join(v.summary() for v in sample.verdicts)
        assert (metrics["syntax"], metrics["runtime"], metrics["invariants"]) == (1.0, 1.0, 1.0), \
            why
        assert metrics.get("conformance") == expected_conformance, why


def test_reference_verdicts_record_the_evidence(reference_run: list[Sample]) -> None:
    for sample in reference_run:
        verdicts = {v.verifier: v for v in sample.verdicts}
        runtime, invariants = verdicts["tla.runtime"], verdicts["tla.invariants"]
        assert runtime.data["error_actions"] == []
        assert all(a["covered"] for a in runtime.data["per_action"].values())
        assert invariants.data["holds"] == invariants.data["total"] >= 6
        assert verdicts["tla.sany"].data["ok"] is True


def test_run_and_report_spinlock_through_the_cli(kernel_cli: Callable[..., Any],
                                                 run_dir: Path) -> None:
    result = kernel_cli("run", "tla", "-t", "spinlock", "--output", run_dir, "--display",
                        "plain")
    assert result.exit_code == 0, result.stderr
    assert "syntax=1 runtime=1" in result.stdout and "invariants=1" in result.stdout
    report = kernel_cli("report", run_dir)
    assert report.exit_code == 0, report.stderr
    text = (run_dir / "report.md").read_text()
    assert "## SysMoBench Table 3: phase scores" in text
    assert "| spinlock | reference | none | 1 | 100.0% ✓ | 100.0% ✓ |" in text
    assert "| spinlock | reference | none | Acquire | 1/1 | 1/1 |" in text


def test_an_evaluator_model_concretises_the_templates(kernel_cli: Callable[..., Any],
                                                     scripted_model: Callable[[Any], str],
                                                     run_dir: Path) -> None:
    """``--evaluator-model``: the benchmark asks it, once per sample, to concretise the
    templates for the candidate's model; the answer is the evaluator's file, and the invariant
    phase checks it (here the templates' own examples, which the gold model satisfies)."""
    templates = template_examples(bundled_root() / "spinlock")
    answer = json.dumps({"invariants": templates})
    evaluator = scripted_model([answer])
    result = kernel_cli("run", "tla", "-t", "spinlock", "--evaluator-model", evaluator,
                        "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    [sample] = RunStore(run_dir).load_samples()
    assert sample.candidate is not None
    assert json.loads(sample.candidate.files["evaluator/invariants.json"]) == {
        "invariants": templates}
    [invariants] = [v for v in sample.verdicts if v.verifier == "tla.invariants"]
    assert invariants.data["concretised_by"] == "evaluator" and invariants.data["m_i"] == 1.0
    assert sample.candidate.provenance.notes["evaluator"]["calls"] == 1


def test_an_evaluator_model_maps_the_traces_of_a_candidate_in_other_names(
        kernel_cli: Callable[..., Any], scripted_model: Callable[[Any], str],
        run_dir: Path) -> None:
    """A candidate bringing its own mapping.yaml (a faulty rwlock whose ``woken`` checks are
    kept but emptied) is judged through the evaluator's mapping, asked after the templates;
    the run's report no longer flags its traces as self-mapped."""
    variant = DATA / "variants" / "rwlock" / "renamed_variables"
    honest = (variant / "mapping.yaml").read_text()
    model = (variant / "rwlock.tla").read_text()
    wakes = ("IF nreaders = 1 THEN WakeAll([phase EXCEPT ![t] = \"idle\"])\n"
             "                            ELSE [phase EXCEPT ![t] = \"idle\"]")
    assert wakes in model
    emptied = "\n".join(
        '      - "SetOf(e.woken) = SetOf(e.woken)"' if "- \"SetOf(e.woken) = {" in line else line
        for line in honest.splitlines()) + "\n"
    answer = "".join(f"```{name}\n{text}```\n" for name, text in (
        ("rwlock.tla", model.replace(wakes, "WakeAll([phase EXCEPT ![t] = \"idle\"])")),
        ("rwlock.cfg", (variant / "rwlock.cfg").read_text()), ("mapping.yaml", emptied)))
    templates = template_examples(bundled_root() / "rwlock")
    evaluator = scripted_model([json.dumps({"invariants": templates}),
                                f"```mapping.yaml\n{honest}```"])
    result = kernel_cli("run", "tla", "-t", "rwlock", "--agent", "prompt",
                        "--model", scripted_model([answer]), "--evaluator-model", evaluator,
                        "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    [sample] = RunStore(run_dir).load_samples()
    assert sample.candidate is not None
    assert sample.candidate.files["mapping.yaml"] == emptied
    assert sample.candidate.files["evaluator/mapping.yaml"] == honest
    assert sample.candidate.provenance.notes["evaluator"]["calls"] == 2
    [conformance] = [v for v in sample.verdicts if v.verifier == "tla.conformance"]
    assert conformance.data["mapped_by"] == "evaluator" and conformance.data["m_ac"] < 1.0
    assert kernel_cli("report", run_dir).exit_code == 0
    assert "candidate's own mapping.yaml" not in (run_dir / "report.md").read_text()


def template_examples(system: Path) -> list[str]:
    """The examples of a bundled system's invariant templates, as ``Name == expr``."""
    from speckernel_tla.tasks import Budgets, bundled_task

    task = bundled_task(system, Budgets())
    return [t["tla_example"].strip() for t in task.metadata["invariants"]]


def test_runtime_error_stops_the_pipeline(kernel_cli: Callable[..., Any],
                                          scripted_model: Callable[[Any], str],
                                          run_dir: Path) -> None:
    """A seeded type error: the model parses, TLC finds the error in Unlock, M_r < 100 %, and
    neither conformance nor invariants run (scored None, shown as ✗)."""
    gold = bundled_root() / "spinlock" / "gold"
    model = (gold / "spinlock.tla").read_text().replace(UNLOCK, TYPE_ERROR)
    answer = (f"```spinlock.tla\n{model}```\n\n"
              f"```spinlock.cfg\n{(gold / 'spinlock.cfg').read_text()}```\n")
    result = kernel_cli("run", "tla", "-t", "spinlock", "--agent", "prompt", "--model",
                        scripted_model([answer]), "--output", run_dir)
    assert result.exit_code == 0, result.stderr
    [sample] = RunStore(run_dir).load_samples()
    assert [v.verifier for v in sample.verdicts] == ["tla.sany", "tla.runtime"]
    metrics = sample.metrics()
    assert metrics["syntax"] == 1.0 and metrics["runtime"] is not None
    assert metrics["runtime"] < 1.0
    assert metrics["invariants"] is None and metrics["conformance"] is None
    assert kernel_cli("report", run_dir).exit_code == 0
    assert "| spinlock | prompt |" in (run_dir / "report.md").read_text()
    assert "100.0% ✓ | 60.0% ✗ | ✗ | ✗ |" in (run_dir / "report.md").read_text()
