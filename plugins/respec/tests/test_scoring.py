"""Scorers and report tables, checked against their definitions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from speckernel.model import Sample, SampleKey, Status, Task, Verdict

from speckernel_respec.report import domain_table, sweep_table
from speckernel_respec.scoring import JudgeScorer, RespecScorer, judge_values, verdict_of

TASK = Task("regex/t", "respec")


def verdict(status: Status, **data: Any) -> Verdict:
    return Verdict("respec.regex", status, data=data)


def sample(task_id: str, status: Status, index: int = 0, **data: Any) -> Sample:
    verdicts = (verdict(status, **data),)
    return Sample(SampleKey(task_id, "reference", "none", index), status, None, verdicts,
                  (RespecScorer().score(TASK, None, verdicts),))


@pytest.mark.parametrize(("status", "data", "expected"), [
    (Status.SUCCESS, {"verdict": "equivalent"}, "equivalent"),
    (Status.FAILURE, {"verdict": "refuted"}, "refuted"),
    (Status.FAILURE, {"verdict": "invalid"}, "invalid"),
    (Status.UNKNOWN, {"verdict": "unknown"}, "unknown"),
    (Status.TIMEOUT, {}, "unknown"),
    (Status.ERROR, {}, None),
])
def test_three_way_verdict(status: Status, data: Mapping[str, Any], expected: str) -> None:
    assert verdict_of([verdict(status, **data)]) == expected


def test_invalid_counts_as_refuted_and_bounded_never_as_success() -> None:
    score = RespecScorer().score(TASK, None, [verdict(Status.FAILURE, verdict="invalid")])
    assert score.values == {"success": 0.0, "refuted": 1.0, "unknown": 0.0, "invalid": 1.0,
                            "bounded": 0.0}
    score = RespecScorer().score(TASK, None, [verdict(Status.UNKNOWN, verdict="bounded",
                                                      bounded=True, bound=2)])
    assert score.values == {"success": 0.0, "refuted": 0.0, "unknown": 0.0, "invalid": 0.0,
                            "bounded": 1.0}


def test_a_broken_verifier_scores_nothing() -> None:
    score = RespecScorer().score(TASK, None, [verdict(Status.ERROR)])
    assert set(score.values.values()) == {None}


@pytest.mark.parametrize(("accept", "verifier", "far", "frr", "inflation"), [
    (True, "refuted", 1.0, None, 1.0),     # a false acceptance
    (False, "refuted", 0.0, None, 0.0),
    (True, "invalid", 1.0, None, 1.0),     # unparseable is a sound rejection too
    (False, "equivalent", None, 1.0, -1.0),  # a false rejection
    (True, "equivalent", None, 0.0, 0.0),
])
def test_judge_terms(accept: bool, verifier: str, far: float | None, frr: float | None,
                     inflation: float) -> None:
    values = judge_values(accept, verifier)
    assert (values["false_accept"], values["false_reject"], values["inflation"]) == (
        far, frr, inflation)


@pytest.mark.parametrize(("accept", "verifier"), [(None, "refuted"), (True, "unknown"),
                                                  (True, "bounded")])
def test_unknowns_are_excluded_from_judge_metrics(accept: bool | None, verifier: str) -> None:
    assert set(judge_values(accept, verifier).values()) == {None}


def test_judge_scorer_reads_the_decision_and_the_task() -> None:
    task = Task("regex/t/a/m/0", "respec-judge", metadata={"verifier": "refuted"})
    score = JudgeScorer().score(task, None, [Verdict("respec.judge", Status.SUCCESS,
                                                     data={"accept": True})])
    assert score.values["false_accept"] == 1.0


def test_overall_success_is_the_mean_over_domains() -> None:
    samples = [sample("regex/a", Status.SUCCESS, verdict="equivalent"),
               sample("fol/a", Status.SUCCESS, verdict="equivalent"),
               sample("fol/b", Status.FAILURE, verdict="refuted"),
               sample("fol/c", Status.FAILURE, verdict="invalid"),
               sample("fol/d", Status.UNKNOWN, verdict="unknown"),
               sample("sql/a", Status.UNKNOWN, verdict="bounded", bounded=True)]
    rows = {row[2]: row for row in domain_table(samples).rows}
    assert rows["regex"][3] == "100.0%" and rows["fol"][3] == "25.0%"
    assert rows["sql"][3] == "0.0%"  # bounded is reported, never a success
    assert rows["overall"][3] == "41.7%"  # (100 + 25 + 0) / 3, not 2 of 6 samples
    # samples, equivalent, bounded, refuted, invalid, unknown, not checked
    assert rows["overall"][4:] == (6, 2, 1, 2, 1, 1, 0)


def test_sweep_rows_count_unknown_per_timeout() -> None:
    short = [sample("fol/a", Status.UNKNOWN, verdict="unknown")]
    long = [sample("fol/a", Status.SUCCESS, verdict="equivalent")]
    rows = sweep_table([(4.0, short), (16.0, long)]).rows
    assert [(r[0], r[1], r[5]) for r in rows] == [("4", "fol", 1), ("4", "overall", 1),
                                                  ("16", "fol", 0), ("16", "overall", 0)]
