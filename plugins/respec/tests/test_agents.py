"""respec-prompt: the spec is found in any reasonable answer; respec-replay: re-submission."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from speckernel.model import Message
from speckernel.store import RunStore

from speckernel_respec.agents import extract_spec


@pytest.mark.parametrize(("answer", "domain", "spec"), [
    ("Here it is:\n```\n.*dog.*\n```\nDone.", "regex", ".*dog.*"),
    ("```re spec.re\n[0-9]+\n```", "regex", "[0-9]+"),
    ("The lines with dog.\nAnswer: .*dog.*", "regex", ".*dog.*"),
    ("The regex `.*dog.*` matches lines containing dog.", "regex", ".*dog.*"),
    ("I think the formula is\n∀x (Cat(x) → Mammal(x))", "fol", "∀x (Cat(x) → Mammal(x))"),
    ("```sql\nSELECT a\nFROM t\n```", "sql", "SELECT a\nFROM t"),
    ("SELECT a FROM t", "sql", "SELECT a FROM t"),
    ("  \n", "regex", None),
])
def test_extraction(answer: str, domain: str, spec: str | None) -> None:
    assert extract_spec(answer, domain) == spec


def _run(kernel_cli: Callable[..., Any], *args: object) -> Any:
    result = kernel_cli("run", "respec", "--display", "none", *[str(a) for a in args])
    assert result.exit_code == 0, result.stdout + result.stderr
    return result


def test_prompt_agent_gets_the_spec_through_prose(kernel_cli: Callable[..., Any],
                                                  scripted_model: Callable[..., str],
                                                  regex_data: Path, run_dir: Path) -> None:
    def answer(messages: Sequence[Message]) -> str:
        nl = messages[-1].content.splitlines()[0]
        oracle = {"lines containing the word 'dog'": ".*dog.*", "lines made only of digits":
                  "[0-9][0-9]*", "lines that do not contain the letter 'e'": "[^e]*"}[nl]
        return f"Sure. The regex is\n```\n{oracle}\n```\nIt works."

    model = scripted_model(answer)
    _run(kernel_cli, "-o", "team=false", "-o", f"deepregex={regex_data}", "-o",
         "domains=[regex]", "--agent", "respec-prompt", "--model", model, "--output", run_dir)
    statuses = {s.key.task_id: s.status.value for s in RunStore(run_dir).load_samples()}
    assert statuses == {"regex/tiny-00001": "success", "regex/tiny-00002": "success",
                        "regex/tiny-00003": "success"}


def test_a_repair_round_feeds_the_counterexample_back(kernel_cli: Callable[..., Any],
                                                      scripted_model: Callable[..., str],
                                                      regex_data: Path, run_dir: Path) -> None:
    seen: list[str] = []

    def answer(messages: Sequence[Message]) -> str:
        seen.append(messages[-1].content)
        return "```\n.*dog.*\n```" if len(messages) > 2 else "```\ndog\n```"

    model = scripted_model(answer)
    _run(kernel_cli, "-o", "team=false", "-o", f"deepregex={regex_data}", "--task",
         "regex/tiny-00001", "--agent", "respec-prompt", "--agent-option", "rounds=1",
         "--model", model, "--output", run_dir)
    [sample] = RunStore(run_dir).load_samples()
    assert sample.status.value == "success"
    assert "refuted" in seen[1] and "Counterexample" in seen[1]


def test_replay_resubmits_an_earlier_runs_candidates(kernel_cli: Callable[..., Any],
                                                     regex_data: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    options = ["-o", "team=false", "-o", f"deepregex={regex_data}"]
    _run(kernel_cli, *options, "--output", first)
    _run(kernel_cli, *options, "-o", "timeout_s=16", "--agent", "respec-replay",
         "--agent-option", f"run={first}", "--output", second)
    before = {s.key.task_id: s.candidate for s in RunStore(first).load_samples()}
    after = {s.key.task_id: s.candidate for s in RunStore(second).load_samples()}
    assert {k: c.files for k, c in before.items() if c} == \
        {k: c.files for k, c in after.items() if c}


def test_replay_without_a_run_is_an_error_sample(kernel_cli: Callable[..., Any],
                                                 regex_data: Path, run_dir: Path) -> None:
    _run(kernel_cli, "-o", "team=false", "-o", f"deepregex={regex_data}", "--agent",
         "respec-replay", "--output", run_dir, "--allow-errors")  # the errors are the point
    errors = {s.error for s in RunStore(run_dir).load_samples()}
    assert errors == {"agent respec-replay: KernelError: agent respec-replay needs "
                      "--agent-option run=DIR"}
