"""Per-sample metrics of FormalBench: consistency, completeness, and the variant outcomes the
robustness figures are built from.

Consistency (§A2): success when the spec verifies, unknown when the verifier timed out or could
not decide, failure otherwise (a cheating or unreadable answer included); SR, FR and the unknown
rate are their means over the samples. An ``error`` verdict is infrastructure, not the model's
answer, and scores nothing. Completeness (§A4) is CR of a verified spec; unverified specs are
excluded (None). Robustness needs two samples — the original's and a variant's — so the flip
rate is computed over the run in :mod:`speckernel_jml.report`; per sample only the variant's
success is recorded here.
"""

from __future__ import annotations

from collections.abc import Sequence

from speckernel.components import Metric, Scorer
from speckernel.model import Candidate, Score, Status, Task, Verdict

from speckernel_jml.completeness import COMPLETENESS
from speckernel_jml.failures import Category
from speckernel_jml.verifiers import VERIFY


def _find(verdicts: Sequence[Verdict], name: str) -> Verdict | None:
    return next((v for v in verdicts if v.verifier == name), None)


def has_category(verdicts: Sequence[Verdict], category: Category) -> bool | None:
    """Whether the sample's consistency verdict carries ``category``; None when not judged."""
    verdict = _find(verdicts, VERIFY)
    if verdict is None or verdict.status is Status.ERROR:
        return None
    return category.value in (verdict.data.get("categories") or ())


def consistency_outcome(verdicts: Sequence[Verdict]) -> str | None:
    """``success``, ``failure`` or ``unknown`` for a sample, None when it was not judged."""
    verdict = _find(verdicts, VERIFY)
    if verdict is None or verdict.status is Status.ERROR:
        return None
    if verdict.status is Status.SUCCESS:
        return "success"
    if verdict.status in (Status.TIMEOUT, Status.UNKNOWN):
        return "unknown"
    return "failure"


class ConsistencyScorer(Scorer):
    """SR / FR / unknown rate (FormalBench ``eval_consistency``), and two shares FormalBench's
    OpenJML runs do not separate: specs refused as vacuous (a failure: they assume what they
    should prove), and programs KeY cannot read (an unknown: no spec could verify them)."""

    name = "jml.consistency"
    description = ("FormalBench consistency: the spec verifies, fails or is unknown (SR, FR, "
                   "unknown rate), with vacuous and KeY-unsupported shares")
    metrics = (
        Metric("success", "the spec verifies (SR when averaged)"),
        Metric("failure", "the spec is refuted, unreadable or changes the code (FR)",
               higher_is_better=False),
        Metric("unknown", "the verifier timed out or ran out of budget",
               higher_is_better=False),
        Metric("vacuous", "the spec was refused as vacuous (part of FR)",
               higher_is_better=False),
        Metric("unsupported", "KeY cannot read the program (part of the unknown rate)",
               higher_is_better=False),
    )

    def score(self, task: Task, candidate: Candidate | None,
              verdicts: Sequence[Verdict]) -> Score:
        outcome = consistency_outcome(verdicts)
        values: dict[str, float | None] = {
            name: (None if outcome is None else float(outcome == name))
            for name in ("success", "failure", "unknown")}
        for name, category in (("vacuous", Category.VACUOUS),
                               ("unsupported", Category.UNSUPPORTED_BY_KEY)):
            found = has_category(verdicts, category)
            values[name] = None if found is None else float(found)
        return Score(self.name, values, outcome or "not judged (verifier error)")


class CompletenessScorer(Scorer):
    """CR of a verified spec (FormalBench ``CoverageScore``); None for unverified specs."""

    name = "jml.completeness"
    description = ("FormalBench completeness CR: mutants the verified spec rejects / all "
                   "mutants (verified specs only)")
    metrics = (Metric("completeness", "share of mutants the verified spec rejects"),)

    def score(self, task: Task, candidate: Candidate | None,
              verdicts: Sequence[Verdict]) -> Score:
        verdict = _find(verdicts, COMPLETENESS)
        if consistency_outcome(verdicts) != "success" or verdict is None or \
                verdict.status is not Status.SUCCESS:
            return Score(self.name, {"completeness": None}, "excluded: spec not verified "
                         "or completeness not measured")
        value = float(verdict.data["completeness"])
        return Score(self.name, {"completeness": value},
                     f"{verdict.data['detected']}/{verdict.data['mutants']} mutants detected")


class RobustnessScorer(Scorer):
    """For a transformed variant, whether its spec verifies (the flip rate's numerator is the
    variants that fail although their original verified; see the report)."""

    name = "jml.robustness"
    description = ("FormalBench robustness: whether a transformed variant's spec verifies "
                   "(the report's flip rate)")
    metrics = (Metric("variant_success", "a transformed variant's spec verifies"),)

    def score(self, task: Task, candidate: Candidate | None,
              verdicts: Sequence[Verdict]) -> Score:
        if not task.metadata.get("base_task"):
            return Score(self.name, {"variant_success": None}, "not a variant")
        outcome = consistency_outcome(verdicts)
        return Score(self.name, {"variant_success": None if outcome is None
                                 else float(outcome == "success")},
                     f"variant by {task.metadata.get('rule')}: {outcome}")


SCORERS = (ConsistencyScorer, CompletenessScorer, RobustnessScorer)
