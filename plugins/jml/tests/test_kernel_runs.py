"""The benchmark through the kernel: the reference agent, the prompt agent in each style, and
the repair agent's rounds, with the scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from speckernel.model import Message

from speckernel_jml.bundled import load_bundled
from speckernel_jml.prompting import STYLES

TASK = "branch/Clamp"
REFERENCE = next(t for t in load_bundled() if t.id == TASK)
FILE = str(REFERENCE.metadata["file"])
SPEC = REFERENCE.reference[FILE] if REFERENCE.reference else ""


def records(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]


def run(kernel_cli: Any, run_dir: Path, *args: str) -> list[dict[str, Any]]:
    result = kernel_cli("run", "jml", "-t", TASK, "--output", run_dir, "--display", "none",
                        *args)
    assert result.exit_code == 0, result.stderr
    return records(run_dir)


@pytest.mark.parametrize("style", STYLES)
def test_prompt_agent_records_prose_as_a_failure_with_its_reason(
        kernel_cli: Any, scripted_model: Any, run_dir: Path, style: str) -> None:
    seen: list[list[Message]] = []

    def answer(messages: list[Message]) -> str:
        seen.append(messages)
        return "The method clamps the value into [low, high]."

    model = scripted_model(answer)
    [record] = run(kernel_cli, run_dir, "--agent", "jml-prompt", "--model", model,
                   "--agent-option", f"style={style}")
    [verdict] = record["verdicts"]
    assert verdict["status"] == "failure"
    assert verdict["data"]["categories"] == ["CodeChanged"]
    assert "differs from the task's program" in verdict["diagnostics"][0]["message"]
    assert f"jml-style {style}" in record["log"]
    assert REFERENCE.files[FILE].strip() in seen[0][-1].content


@pytest.mark.slow
def test_reference_run_verifies_measures_completeness_and_reports(
        kernel_cli: Any, key_installed: None, run_dir: Path) -> None:
    [record] = run(kernel_cli, run_dir, "--agent", "reference", "-o", "max_mutants=1")
    verdicts = {v["verifier"]: v for v in record["verdicts"]}
    assert verdicts["jml.verify"]["status"] == "success", verdicts["jml.verify"]
    completeness = verdicts["jml.completeness"]["data"]
    assert completeness["mutants"] <= 1
    metrics = {k: v for s in record["scores"] for k, v in s["values"].items()}
    assert metrics["success"] == 1.0
    assert metrics["completeness"] == completeness["completeness"]
    report = kernel_cli("report", run_dir)
    assert report.exit_code == 0, report.stderr
    assert "FormalBench Table 1" in (run_dir / "report.md").read_text()


@pytest.mark.slow
def test_repair_agent_fixes_a_javadoc_answer_in_one_round(
        kernel_cli: Any, key_installed: None, scripted_model: Any, run_dir: Path) -> None:
    javadoc = REFERENCE.files[FILE].replace("    public", "    /** Clamps value. */\n    public")
    answers = iter([f"```java\n{javadoc}```", f"### FIXED SPECIFICATION\n```java\n{SPEC}```"])
    prompts: list[str] = []

    def answer(messages: list[Message]) -> str:
        prompts.append(messages[-1].content)
        return next(answers)

    model = scripted_model(answer)
    [record] = run(kernel_cli, run_dir, "--agent", "jml-repair", "--model", model,
                   "--agent-option", "rounds=2", "-o", "completeness=false")
    assert record["verdicts"][0]["status"] == "success"
    rounds = [line for line in record["log"] if line.startswith("jml-round")]
    assert rounds == ["jml-round 0 failure MissingSpecification", "jml-round 1 success -"]
    assert "Error Type: MissingSpecification" in prompts[1]


def test_the_openjml_backend_does_not_need_key(kernel_cli: Any, run_dir: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    """With ``--backend openjml`` on a machine without KeY and without OpenJML, the verdict names
    OpenJML's missing binary, not KeY's: a user of one prover never installs the other."""
    monkeypatch.setenv("KERNEL_TOOLS_DIR", str(tmp_path / "no-tools"))
    monkeypatch.setenv("OPENJML", str(tmp_path / "no-openjml"))
    result = kernel_cli("run", "jml", "-t", TASK, "--output", run_dir, "--display", "none",
                        "--agent", "reference", "--backend", "openjml", "--no-completeness")
    assert result.exit_code == 3, result.stderr  # the sample ended in error (kernel exit 3)
    [record] = records(run_dir)
    [verdict] = record["verdicts"]
    assert record["status"] == "error" and verdict["verifier"] == "jml.verify"
    assert "OpenJML is not installed" in verdict["diagnostics"][0]["message"]
    assert "key" not in (run_dir / "run.yaml").read_text().split("tools:")[1].split("config:")[0]
