"""The four SysMoBench metrics (§3.2) from verdicts, the solved rule and the report tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from speckernel.model import Sample, SampleKey, Score, Status, Task, Verdict

from speckernel_tla.benchmark import TlaBenchmark
from speckernel_tla.report import per_action_table, phase_cell, phase_table
from speckernel_tla.scoring import (
    ConformanceScorer,
    InvariantScorer,
    RuntimeScorer,
    SyntaxScorer,
)

TASK = Task("spinlock", "tla")


def verdict(verifier: str, status: Status = Status.SUCCESS, **data: Any) -> Verdict:
    return Verdict(verifier, status, data=data)


def values(*verdicts: Verdict) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for scorer in (SyntaxScorer(), RuntimeScorer(), ConformanceScorer(), InvariantScorer()):
        out |= scorer.score(TASK, None, verdicts).values
    return out


def test_whole_model_parse_is_full_syntax_credit() -> None:
    assert values(verdict("tla.sany", action_success_rate=0.5))["syntax"] == 1.0


def test_failed_parse_earns_half_the_action_rate() -> None:
    scored = values(verdict("tla.sany", Status.FAILURE, action_success_rate=0.75,
                            actions_passed=6, actions_total=8))
    assert scored["syntax"] == pytest.approx(0.375)
    assert scored["runtime"] is None and scored["conformance"] is None
    assert scored["invariants"] is None, "phases after a failed gate score None, not 0"
    assert values(verdict("tla.sany", Status.FAILURE))["syntax"] == 0.0


def test_a_broken_tool_scores_none() -> None:
    assert values(verdict("tla.sany", Status.ERROR))["syntax"] is None


def test_runtime_conformance_and_invariants_read_their_verdicts() -> None:
    scored = values(
        verdict("tla.sany"),
        verdict("tla.runtime", Status.FAILURE, m_r=0.6, error_actions=["Unlock"]),
    )
    assert scored["runtime"] == 0.6 and scored["invariants"] is None
    scored = values(
        verdict("tla.sany"), verdict("tla.runtime", m_r=1.0),
        verdict("tla.conformance", Status.FAILURE, m_c=0.5, m_ac=0.8, transition_score=0.9,
                per_action={}),
        verdict("tla.invariants", Status.FAILURE, m_i=4 / 6, holds=4, total=6),
    )
    assert scored == {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5,
                      "action_conformance": 0.8, "transition_score": 0.9,
                      "invariants": pytest.approx(4 / 6)}


def sample(task: str, metrics: Mapping[str, float | None], *verdicts: Verdict,
           index: int = 0) -> Sample:
    return Sample(SampleKey(task, "reference", "none", index), Status.SUCCESS,
                  verdicts=verdicts, scores=(Score("s", dict(metrics)),))


def test_solved_means_every_phase_at_full_marks() -> None:
    bench = TlaBenchmark()
    metrics = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariants": 1.0}
    assert bench.solved(sample("t", metrics))
    assert not bench.solved(sample("t", {**metrics, "invariants": 5 / 6}))
    assert not bench.solved(sample("t", {**metrics, "runtime": None}))


def test_phase_cells_mark_pass_fail_and_not_reached() -> None:
    assert phase_cell([1.0, 1.0]) == "100.0% ✓"
    assert phase_cell([1.0, 0.5]) == "75.0% ✗"
    assert phase_cell([1.0, None]) == "100.0% ✗"
    assert phase_cell([None, None]) == "✗"


def test_table_3_has_a_row_per_task_and_per_agent_model() -> None:
    samples = [
        sample("mutex", {"syntax": 0.25}, verdict("tla.sany", Status.FAILURE)),
        sample("spinlock", {"syntax": 1.0, "runtime": 1.0, "invariants": 1.0}),
    ]
    table = phase_table(samples)
    assert table.columns == ("task", "agent", "model", "samples", "syntax", "runtime",
                             "conformance", "invariants")
    assert table.rows == (
        ("mutex", "reference", "none", 1, "25.0% ✗", "✗", "✗", "✗"),
        ("spinlock", "reference", "none", 1, "100.0% ✓", "100.0% ✓", "✗", "100.0% ✓"),
        ("all", "reference", "none", 2, "62.5% ✗", "100.0% ✗", "✗", "100.0% ✗"),
    )


def test_table_3_says_when_candidates_concretised_the_templates_themselves() -> None:
    """An M_i from a candidate's own invariants.json is flagged under Table 3; one from the
    templates' examples is not."""
    metrics = {"syntax": 1.0, "runtime": 1.0, "invariants": 1.0}
    own = sample("spinlock", metrics, verdict("tla.invariants", m_i=1.0,
                                              concretised_by="candidate"))
    examples = sample("spinlock", metrics, verdict("tla.invariants", m_i=1.0,
                                                   concretised_by="examples"), index=1)
    assert "as the candidate wrote them" not in phase_table([examples]).note
    assert ("The invariants of 1 sample(s) are checked as the candidate wrote them"
            in phase_table([own, examples]).note)


def test_table_3_says_when_candidates_mapped_the_traces_themselves() -> None:
    """Conformance through a candidate's own mapping.yaml is flagged under Table 3; through the
    task's or the evaluator's it is not."""
    metrics = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0}
    own, task, evaluator = (sample("rwlock", metrics, verdict("tla.conformance", m_c=1.0,
                                                              mapped_by=by), index=i)
                            for i, by in enumerate(("candidate", "task", "evaluator")))
    assert "mapping.yaml" not in phase_table([task, evaluator]).note
    assert ("The traces of 1 sample(s) are read through the candidate's own mapping.yaml"
            in phase_table([own, task, evaluator]).note)


def test_table_3_says_when_the_traces_could_not_fix_the_scale() -> None:
    metrics = {"syntax": 1.0, "runtime": 1.0, "invariants": 1.0}
    unbound, bound = (sample("spinlock", metrics, verdict("tla.invariants", m_i=1.0,
                                                          constants_unbound=n), index=n)
                      for n in (1, 0))
    assert "could not fix" not in phase_table([bound]).note
    assert ("The invariants of 1 sample(s) are checked with constants the traces could not fix"
            in phase_table([unbound, bound]).note)


def test_per_action_table_combines_the_phases() -> None:
    sany = verdict("tla.sany", actions={"Init": {"ok": True}, "Acquire": {"ok": True},
                                        "Unlock": {"ok": True}})
    runtime = verdict("tla.runtime", Status.FAILURE, per_action={
        "Acquire": {"covered": True, "runtime_error": False},
        "Unlock": {"covered": False, "runtime_error": True}})
    good = verdict("tla.runtime", per_action={
        "Acquire": {"covered": True, "runtime_error": False},
        "Unlock": {"covered": True, "runtime_error": False}})
    conformance = verdict("tla.conformance", per_action={"Acquire": {"passed": 3, "total": 4},
                                                         "Unlock": 1.0})
    table = per_action_table([sample("spinlock", {}, sany, runtime),
                              sample("spinlock", {}, sany, good, conformance, index=1)])
    assert table.rows == (
        ("spinlock", "reference", "none", "Acquire", "2/2", "2/2", "75.0%"),
        ("spinlock", "reference", "none", "Unlock", "2/2", "1/2", "100.0%"),
    )
    unparsed = per_action_table([sample("mutex", {}, verdict(
        "tla.sany", Status.FAILURE, actions={"Init": {"ok": False}}))])
    assert unparsed.rows == (("mutex", "reference", "none", "Init", "0/1", "✗", "✗"),)
