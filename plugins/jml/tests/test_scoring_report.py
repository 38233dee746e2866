"""Consistency, completeness and robustness as FormalBench defines them, and the report tables
built from them (Table 1, Table 2 with the flip rate, the category histogram, Figure 5)."""

from __future__ import annotations

from speckernel.model import Sample, SampleKey, Status, Task, Verdict

from speckernel_jml.completeness import coverage, evenly_spaced
from speckernel_jml.report import (
    category_histogram,
    flip_rate,
    repair_rounds,
    split_variant,
    table1,
    table2,
)
from speckernel_jml.scoring import SCORERS, CompletenessScorer, ConsistencyScorer

BASE = Task(id="b/A", benchmark="jml")
VARIANT = Task(id="b/A--rule_3", benchmark="jml", metadata={"base_task": "b/A",
                                                           "rule": "rule_3"})


def verify(status: str, categories: tuple[str, ...] = ()) -> Verdict:
    return Verdict("jml.verify", Status(status), data={"categories": list(categories)})


def mutants(detected: int, total: int) -> Verdict:
    return Verdict("jml.completeness", Status.SUCCESS,
                   data={"completeness": coverage(detected, total), "detected": detected,
                         "mutants": total})


def sample(task: Task, verdicts: list[Verdict], agent: str = "jml-prompt",
           log: tuple[str, ...] = ("jml-style zero_shot",)) -> Sample:
    scores = tuple(s().score(task, None, verdicts) for s in SCORERS)
    return Sample(SampleKey(task.id, agent, "m", 0), Status.SUCCESS, verdicts=tuple(verdicts),
                  scores=scores, log=log)


def test_consistency_outcomes() -> None:
    scorer = ConsistencyScorer()
    assert scorer.score(BASE, None, [verify("success")]).values == {
        "success": 1.0, "failure": 0.0, "unknown": 0.0, "vacuous": 0.0, "unsupported": 0.0}
    assert scorer.score(BASE, None, [verify("failure")]).values["failure"] == 1.0
    assert scorer.score(BASE, None, [verify("timeout")]).values["unknown"] == 1.0
    assert scorer.score(BASE, None, [verify("unknown")]).values["unknown"] == 1.0
    assert scorer.score(BASE, None, [verify("error")]).values == {
        "success": None, "failure": None, "unknown": None, "vacuous": None,
        "unsupported": None}
    vacuous = scorer.score(BASE, None, [verify("failure", ("VacuousSpecification",))])
    assert vacuous.values["failure"] == vacuous.values["vacuous"] == 1.0
    unreadable = scorer.score(BASE, None, [verify("unknown", ("UnsupportedByKeY",))])
    assert unreadable.values["unknown"] == unreadable.values["unsupported"] == 1.0


def test_completeness_is_detected_over_mutants_and_excludes_unverified() -> None:
    scorer = CompletenessScorer()
    assert scorer.score(BASE, None, [verify("success"), mutants(3, 4)]).values == {
        "completeness": 0.75}
    assert scorer.score(BASE, None, [verify("success"), mutants(0, 0)]).values == {
        "completeness": 1.0}
    assert scorer.score(BASE, None, [verify("failure")]).values == {"completeness": None}


def test_mutant_subsets_are_spread_and_stable() -> None:
    assert evenly_spaced(list(range(10)), 4) == [0, 2, 5, 7]
    assert evenly_spaced([1, 2], 5) == [1, 2]
    assert evenly_spaced([1, 2, 3], 0) == [1, 2, 3]


def test_variant_ids_name_their_base_and_rule() -> None:
    assert split_variant("formalbench/A--rule_1--A_llm_0") == ("formalbench/A", "rule_1")
    assert split_variant("loops/A--for-to-while") == ("loops/A", "for-to-while")
    assert split_variant("loops/A") == ("loops/A", None)


def _run() -> list[Sample]:
    other = Task(id="b/B", benchmark="jml")
    return [
        sample(BASE, [verify("success"), mutants(1, 2)]),
        sample(VARIANT, [verify("failure", ("LoopInvariantFailure",))]),
        sample(Task(id="b/A--rule_5", benchmark="jml"), [verify("success"), mutants(2, 2)]),
        sample(other, [verify("failure", ("ArithmeticOperationRange",
                                          "LoopInvariantFailure"))]),
        sample(Task(id="b/B--rule_3", benchmark="jml"), [verify("success"), mutants(1, 1)]),
    ]


def test_flip_rate_counts_only_variants_of_verified_originals() -> None:
    # b/A verified: its variants fail 1 of 2; b/B failed, so its variant does not count.
    assert flip_rate(_run()) == 0.5


def test_table1_and_table2_shapes() -> None:
    samples = _run()
    [row] = table1(samples).rows
    assert row[:4] == ("jml-prompt", "m", "zero_shot", 2)
    assert row[4:] == ("50.0", "50.0", "0.0", "50.0", "0.0", "0.0")
    [row2] = table2(samples).rows
    columns = table2(samples).columns
    values = dict(zip(columns, row2, strict=True))
    assert values["flip rate"] == "50.0"
    assert values["diverse SR"] == "66.7"
    # per rule: rule_3 SR 1/2, rule_5 SR 1/1 -> normalised 75 %
    assert values["SR norm."] == "75.0"
    assert values["CR norm."] == "100.0"


def test_category_histogram() -> None:
    rows = category_histogram(_run()).rows
    assert rows[0][:2] == ("LoopInvariantFailure", 2)
    assert ("ArithmeticOperationRange", 1, "33.3") in rows


def test_repair_rounds_follow_figure_5() -> None:
    logs = [("jml-style zs_cot", "jml-round 0 failure X", "jml-round 1 success -"),
            ("jml-style zs_cot", "jml-round 0 failure X", "jml-round 1 failure X",
             "jml-round 2 failure X"),
            ("jml-style zs_cot", "jml-round 0 success -")]
    samples = [sample(Task(id=f"t{i}", benchmark="jml"), [verify("success")], "jml-repair", log)
               for i, log in enumerate(logs)]
    rows = repair_rounds(samples).rows
    assert [(r[3], r[5], r[6]) for r in rows] == [
        (0, "33.3", "66.7"), (1, "66.7", "33.3"), (2, "66.7", "33.3")]
