"""The LLM judges: their decision rules, and FAR/FRR/inflation against the sound verifier."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from speckernel.model import Candidate, Message, Provenance, Status, Task
from speckernel.store import RunStore

from speckernel_respec.judge import (
    CANDIDATE_FIRST,
    FORMALIZATION_FILE,
    ORACLE_FIRST,
    EquivalenceAnswer,
    JudgeVerifier,
    equivalence_accepts,
    formalization_accepts,
    parse_equivalence,
    parse_score,
)


@pytest.mark.parametrize(("text", "score"), [
    ("Looks right.\nScore: 3", 3), ("**Score:** 2", 2), ("Score: 1\nOn reflection\nScore: 0", 0),
    ("Score: 5", None), ("Score: 10", None), ("Score: 2.5", None), ("I'd give it a 3.", None)])
def test_score_lines(text: str, score: int | None) -> None:
    assert parse_score(text) == score


def test_formalization_accepts_at_two() -> None:
    assert [formalization_accepts(s) for s in (0, 1, 2, 3, None)] == [
        False, False, True, True, None]


def test_equivalence_answers_need_verdict_and_score() -> None:
    assert parse_equivalence("Verdict: NOT EQUIVALENT\nScore: 1") == EquivalenceAnswer(False, 1)
    assert parse_equivalence("Verdict: equivalent\nScore: 3") == EquivalenceAnswer(True, 3)
    assert parse_equivalence("Verdict: EQUIVALENT") is None
    assert parse_equivalence("Score: 3") is None


YES3, YES2, NO1, NO0 = (EquivalenceAnswer(True, 3), EquivalenceAnswer(True, 2),
                        EquivalenceAnswer(False, 1), EquivalenceAnswer(False, 0))


@pytest.mark.parametrize(("first", "second", "accept"), [
    (YES2, YES2, True), (NO1, NO1, False),   # agreement decides
    (YES3, NO1, True), (NO1, YES3, True),    # disagreement: 3 + 1 >= 4
    (YES2, NO1, False), (YES3, NO0, False),  # 2 + 1 < 4, 3 + 0 < 4
    (YES3, None, None), (None, NO1, None),   # malformed: unknown
])
def test_equivalence_decision(first: EquivalenceAnswer | None, second: EquivalenceAnswer | None,
                              accept: bool | None) -> None:
    assert equivalence_accepts(first, second) == accept


@pytest.mark.anyio
@pytest.mark.parametrize(("files", "status"), [
    ({FORMALIZATION_FILE: "Score: 2"}, Status.SUCCESS),
    ({FORMALIZATION_FILE: "Score: 1"}, Status.FAILURE),
    ({FORMALIZATION_FILE: "no idea"}, Status.UNKNOWN),
    ({ORACLE_FIRST: "Verdict: EQUIVALENT\nScore: 3",
      CANDIDATE_FIRST: "Verdict: NOT EQUIVALENT\nScore: 1"}, Status.SUCCESS),
    ({}, Status.UNKNOWN),
])
async def test_judge_verifier_reads_the_decision(files: dict[str, str], status: Status,
                                                 make_ctx: Callable[..., Any]) -> None:
    candidate = Candidate(files, Provenance("respec-judge-formalization", "m"))
    verdict = await JudgeVerifier().verify(candidate, Task("t", "respec-judge"), make_ctx())
    assert verdict.status is status


def _run(kernel_cli: Callable[..., Any], *args: object) -> None:
    result = kernel_cli("run", *[str(a) for a in args], "--display", "none")
    assert result.exit_code == 0, result.stdout + result.stderr


@pytest.fixture
def candidates_run(kernel_cli: Callable[..., Any], scripted_model: Callable[..., str],
                   regex_data: Path, tmp_path: Path) -> Path:
    """A respec run whose first task is answered right and the other two wrong."""
    def answer(messages: Sequence[Message]) -> str:
        return "```\n.*dog.*\n```"

    root = tmp_path / "candidates"
    _run(kernel_cli, "respec", "-o", "team=false", "-o", f"deepregex={regex_data}",
         "--agent", "respec-prompt", "--model", scripted_model(answer), "--output", root)
    return root


def _metrics(root: Path) -> dict[str, list[float | None]]:
    samples = RunStore(root).load_samples()
    return {name: [s.metrics().get(name) for s in samples]
            for name in ("judge_accept", "false_accept", "false_reject", "inflation")}


def test_an_always_accepting_judge_has_far_one(kernel_cli: Callable[..., Any],
                                               scripted_model: Callable[..., str],
                                               candidates_run: Path, tmp_path: Path) -> None:
    model = scripted_model(lambda messages: "Faithful.\nScore: 3")
    root = tmp_path / "judge"
    _run(kernel_cli, "respec-judge", "-o", f"run={candidates_run}", "--model", model,
         "--output", root)
    metrics = _metrics(root)
    assert metrics["judge_accept"] == [1.0, 1.0, 1.0]
    assert sorted(metrics["false_accept"], key=str) == [1.0, 1.0, None]  # FAR = 2/2
    assert sorted(metrics["false_reject"], key=str) == [0.0, None, None]  # FRR = 0/1
    assert sum(v for v in metrics["inflation"] if v is not None) / 3 == pytest.approx(2 / 3)
    result = kernel_cli("report", str(root))
    assert result.exit_code == 0
    report = (root / "report.md").read_text(encoding="utf-8")
    assert "| respec-judge-formalization | " in report and "100.0% (2/2)" in report


def test_the_equivalence_judge_asks_both_orders(kernel_cli: Callable[..., Any],
                                                scripted_model: Callable[..., str],
                                                candidates_run: Path, tmp_path: Path) -> None:
    asked: list[str] = []

    def answer(messages: Sequence[Message]) -> str:
        asked.append(messages[-1].content)
        first = messages[-1].content.split("Specification A:\n```\n")[1].split("\n")[0]
        # A judge fooled by order: "equivalent" whenever the candidate comes first.
        return ("Verdict: EQUIVALENT\nScore: 2" if first == ".*dog.*"
                else "Verdict: NOT EQUIVALENT\nScore: 1")

    root = tmp_path / "judge"
    _run(kernel_cli, "respec-judge", "-o", f"run={candidates_run}", "--agent",
         "respec-judge-equivalence", "--model", scripted_model(answer), "--output", root)
    assert len(asked) == 6
    samples = {s.key.task_id.split("/")[1]: s for s in RunStore(root).load_samples()}
    decisions = {k: s.verdicts[0].data["accept"] for k, s in samples.items()}
    # tiny-00001: oracle .*dog.* is the candidate: both orders say equivalent. The others
    # disagree, and 2 + 1 < 4 rejects them.
    assert decisions == {"tiny-00001": True, "tiny-00002": False, "tiny-00003": False}
    assert json.dumps(samples["tiny-00002"].verdicts[0].data["equivalent"]) == "[false, true]"


def test_malformed_judge_answers_are_excluded(kernel_cli: Callable[..., Any],
                                              scripted_model: Callable[..., str],
                                              candidates_run: Path, tmp_path: Path) -> None:
    root = tmp_path / "judge"
    _run(kernel_cli, "respec-judge", "-o", f"run={candidates_run}", "--model",
         scripted_model(lambda messages: "It seems fine to me."), "--output", root)
    assert {s.status for s in RunStore(root).load_samples()} == {Status.UNKNOWN}
    assert set(_metrics(root)["false_accept"]) == {None}


def test_judging_needs_a_respec_run(kernel_cli: Callable[..., Any],
                                    scripted_model: Callable[..., str], tmp_path: Path) -> None:
    result = kernel_cli("run", "respec-judge", "--model", scripted_model(["x"]))
    assert result.exit_code != 0 and "option run=DIR" in result.stdout + result.stderr
