"""The timeout sweep's demonstration machinery: team-written answers -> replay file -> a
``respec-prompt`` run on ``--model replay:`` -> the sweep table, with the real verifiers; and the
rocq verifier's ATP limit growing with the check's budget.

The long sweep on the hard candidates is ``benchmarks/respec_timeout_sweep.py``; here the
candidates are chosen so that the verdict at each (tiny or generous) timeout is certain.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import require
from speckernel.errors import KernelError
from speckernel.store import RunStore

from speckernel_respec.agents import extract_spec
from speckernel_respec.domains.rocq import scaled_atp_limit
from speckernel_respec.scoring import verdict_of

PLUGIN = Path(__file__).resolve().parents[1]
HARD = PLUGIN / "sweep" / "hard_candidates.yaml"


def tool(name: str) -> Mapping[str, Any]:
    return runpy.run_path(str(PLUGIN / "tools" / f"{name}.py"))


def answers_file(path: Path, *records: tuple[str, str, str]) -> Path:
    lines = ["answers:"]
    for task, spec, truth in records:
        lines += [f"  - task: {task}", f"    truth: {truth}", "    why: see the test",
                  "    answer: |", "      Here it is:", "", "      ```", f"      {spec}",
                  "      ```"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_hard_candidates_are_answers_to_bundled_tasks() -> None:
    replay = tool("answers_replay")
    answers = replay["load_answers"](HARD)
    tasks = replay["the_tasks"](answers)
    assert {a.domain for a in answers} == {"gsm", "fol", "regex", "sql", "rocq"}
    for answer in answers:
        assert answer.task in tasks
        assert extract_spec(answer.answer, answer.domain), answer.task


def test_an_answers_file_with_two_answers_for_one_task_is_refused(tmp_path: Path) -> None:
    path = answers_file(tmp_path / "a.yaml", ("regex/contains-dog", ".*dog.*", "equivalent"),
                        ("regex/contains-dog", "dog", "inequivalent"))
    with pytest.raises(KernelError, match="one answer per task"):
        tool("answers_replay")["load_answers"](path)


def test_an_answer_without_a_truth_is_refused(tmp_path: Path) -> None:
    path = answers_file(tmp_path / "a.yaml", ("regex/contains-dog", ".*dog.*", "maybe"))
    with pytest.raises(KernelError, match="truth must be one of"):
        tool("answers_replay")["load_answers"](path)


def test_the_sweep_turns_unknown_into_a_verdict_when_the_timeout_grows(
        kernel_cli: Callable[..., Any], tmp_path: Path) -> None:
    """A regex with a 300-fold counter of alternatives needs about a second to build its
    automaton: unknown ("time limit") at 0.1 s, equivalent at 30 s. A window function is
    outside the SQL fragment at every timeout; 'dog' is refuted at both."""
    require("regex")
    require("sql")
    big = "((a|b)(a|b)|(a|b)(a|b)(a|b)(a|b)){0,300}((a|b)(a|b))*"
    path = answers_file(
        tmp_path / "answers.yaml", ("regex/even-length-ab", big, "equivalent"),
        ("regex/contains-dog", "dog", "inequivalent"),
        ("sql/highest-paid", "SELECT name FROM (SELECT name, RANK() OVER (ORDER BY salary "
                             "DESC) AS r FROM emp WHERE salary IS NOT NULL) WHERE r = 1",
         "equivalent"))
    replay = tool("answers_replay")
    responses = tmp_path / "responses.jsonl"
    replay["write_replay"](replay["load_answers"](path), responses)
    source = tmp_path / "source"
    result = kernel_cli("run", "respec", "--agent", "respec-prompt", "--model",
                        f"replay:{responses}", "-t", "regex/even-length-ab", "-t",
                        "regex/contains-dog", "-t", "sql/highest-paid", "--output", source,
                        "--display", "none")
    assert result.exit_code == 0, result.stderr
    table = tool("timeout_sweep")["sweep"](source, [0.1, 30.0], tmp_path / "sw", None, None)
    verdicts = {(t, s.key.task_id): verdict_of(s.verdicts)
                for t in ("0.1", "30")
                for s in RunStore(tmp_path / "sw" / f"timeout-{t}").load_samples()}
    assert verdicts == {
        ("0.1", "regex/even-length-ab"): "unknown", ("30", "regex/even-length-ab"): "equivalent",
        ("0.1", "regex/contains-dog"): "refuted", ("30", "regex/contains-dog"): "refuted",
        ("0.1", "sql/highest-paid"): "unknown", ("30", "sql/highest-paid"): "unknown"}
    assert "| 0.1 | overall | 3 | 0 | 1 | 2 | 66.7% |" in table
    assert "| 30 | overall | 3 | 1 | 1 | 1 | 33.3% |" in table


def test_the_atp_limit_grows_with_the_hammer_stage_budget() -> None:
    limits = [scaled_atp_limit(wall, 3) for wall in (6.0, 46.0, 238.0)]
    assert limits == sorted(limits) and limits[0] == 1.0 and limits[-1] > 30
    for wall in (46.0, 238.0):
        # every proof shape runs to its Coq timeout (2 * atp + 2 s) within the stage's wall
        assert 3 * (2 * scaled_atp_limit(wall, 3) + 2) <= wall + 1e-9


def test_a_deadline_that_interrupts_sqlite_anywhere_is_a_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's progress handler interrupts SQLite once the deadline has passed; when that
    surfaces from a statement outside the engine's guarded calls (seen once in a sweep at 4 s:
    a verdict of error) the check still ends as unknown, timeout."""
    require("sql")
    import sqlite3

    from speckernel_respec.domains import sql, sql_search
    from speckernel_respec.tasks import load_tasks

    def interrupted(*_: Any) -> bool:
        raise sqlite3.OperationalError("interrupted")

    monkeypatch.setattr(sql_search.SqliteEngine, "load", interrupted)
    task = next(t for t in load_tasks({}, ["sql"]) if t.id == "sql/big-departments")
    result = sql.check(str(task.metadata["oracle"]), "SELECT dept_id FROM emp GROUP BY dept_id "
                       "HAVING COUNT(id) >= 3", task.metadata.get("facts"), 4.0)
    assert (result.verdict, result.reason) == ("unknown",
                                               "timeout after 4 s without a counterexample")
