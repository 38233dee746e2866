"""``verus.outcome`` and the report tables: success, time, cost, Verus runs per task (VeruSAGE
Tables 6-7), proof length against the ground truth, cheats caught."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from loop_context import MISSING_VERUS
from speckernel.model import (
    Candidate,
    Diagnostic,
    Provenance,
    Sample,
    SampleKey,
    Status,
    Task,
    Usage,
    Verdict,
)
from verus_fixtures import SHARED, parsed

from speckernel_verus.proofs import added_lines
from speckernel_verus.scoring import CHEATS_ONLY, OutcomeScorer
from speckernel_verus.tables import project_of, report_tables
from speckernel_verus.verifier import verdict_for

MBPP = SHARED / "Verus-Bench" / "MBPP"
needs_data = pytest.mark.skipif(not MBPP.is_dir(), reason=f"no Verus-Bench data at {MBPP}")

HONEST = Verdict("verus.cheats", Status.SUCCESS)
CHEAT = Verdict("verus.cheats", Status.FAILURE, (Diagnostic("assume( count changed"),))


def task(project: str = "MBPP", name: str = "task_id_105") -> Task:
    folder = MBPP if MBPP.is_dir() else Path("/nonexistent")
    original = (folder / "unverified" / f"{name}.rs").read_text()
    reference = (folder / "verified" / f"{name}.rs").read_text()
    return Task(f"{project}__{name}", "verus", files={"t.rs": original},
                metadata={"file": "t.rs"}, reference={"t.rs": reference})


def candidate(text: str, calls: int = 3, cost: float = 0.25, wall: float = 40.0) -> Candidate:
    return Candidate({"t.rs": text}, Provenance("verus-hands-on", "m", usage=Usage(
        cost_usd=cost), wall_time_s=wall, verifier_calls=calls))


@needs_data
def test_proof_length_of_the_ground_truth() -> None:
    t = task()
    assert added_lines(t.files["t.rs"], t.files["t.rs"]) == 0
    # fn main's tests (5 lines), the loop header with its invariants (6), two assertions
    assert added_lines(t.files["t.rs"], t.reference["t.rs"]) == 13  # type: ignore[index]


@needs_data
def test_a_verified_honest_candidate() -> None:
    t = task()
    score = OutcomeScorer().score(t, candidate(t.reference["t.rs"]),  # type: ignore[index]
                                  [HONEST, verdict_for(parsed("verified"), "t.rs")])
    assert score.values == {
        "verified": 1.0, "cheat_caught": 0.0, "time_s": 40.0, "cost_usd": 0.25,
        "verus_runs": 4.0, "proof_lines": 13.0, "reference_proof_lines": 13.0,
        "proof_length_ratio": 1.0}


@needs_data
def test_a_caught_cheat_is_not_verified_and_runs_no_verus() -> None:
    t = task()
    values = OutcomeScorer().score(t, candidate("assume(false)", calls=0), [CHEAT]).values
    assert values["verified"] == 0.0 and values["cheat_caught"] == 1.0
    assert values["verus_runs"] == 0.0 and values["proof_length_ratio"] is None


@needs_data
def test_without_verus_success_is_not_applicable() -> None:
    t = attrs.evolve(task(), metadata={"file": "t.rs", CHEATS_ONLY: True})
    for verdict in (HONEST, CHEAT):
        checked_only = OutcomeScorer().score(t, candidate(t.files["t.rs"], calls=0), [verdict])
        assert checked_only.values["verified"] is None
        assert checked_only.values["cheat_caught"] == float(verdict is CHEAT)
        # an honest candidate's proof is still compared with the ground truth's
        assert checked_only.values["proof_length_ratio"] == (0.0 if verdict is HONEST else None)
    missing = OutcomeScorer().score(t, candidate(t.files["t.rs"]), [HONEST, MISSING_VERUS])
    assert missing.values["verified"] is None and missing.values["verus_runs"] == 3.0


def sample(t: Task, agent: str, verdicts: list[Verdict], text: str, cost: float) -> Sample:
    c = candidate(text, cost=cost)
    score = OutcomeScorer().score(t, c, verdicts)
    return Sample(SampleKey(t.id, agent, "m", 0), Status.SUCCESS, c, tuple(verdicts), (score,))


@needs_data
def test_tables_per_project_and_overall() -> None:
    a, b = task("AL", "task_id_105"), task("IR", "task_id_105")
    good = [HONEST, verdict_for(parsed("verified"), "t.rs")]
    bad = [HONEST, verdict_for(parsed("loops"), "t.rs")]
    samples = [sample(a, "x", good, a.reference["t.rs"], 0.1),  # type: ignore[index]
               sample(b, "x", bad, b.files["t.rs"], 0.3),
               sample(b, "y", [CHEAT], "assume(false)", 0.2)]
    success, effort, proofs, cheats = report_tables(samples)
    assert success.columns == ("agent", "model", "AL", "IR", "overall")
    assert success.rows == (("x", "m", "1/1 (100.0%)", "0/1 (0.0%)", "1/2 (50.0%)"),
                            ("y", "m", "-", "0/1 (0.0%)", "0/1 (0.0%)"))
    overall = [r for r in effort.rows if r[:3] == ("x", "m", "overall")]
    assert overall == [("x", "m", "overall", 2, "1/2 (50.0%)", 40.0, 0.2, 4.0)]
    assert proofs.rows[0] == ("x", "m", 1, 13.0, 13.0, 1.0)
    assert cheats.rows == (("x", "m", 2, 0, 2), ("y", "m", 1, 1, 1))


def test_project_of_task_ids() -> None:
    assert project_of("verusage/NR__spec_t__mmu__lemma") == "NR"
    assert project_of("verus-bench/mbpp_task_id_105") == "MBPP"
    assert project_of("verus-bench/cloverbench_all_digits_strong") == "CloverBench"
    assert report_tables([]) == []
