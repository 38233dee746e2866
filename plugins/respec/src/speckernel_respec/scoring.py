"""Scorers: the sound verifier's three-way verdict, and the judge's agreement with it.

RESpecBench's verdict is three-way: *success* (proved equivalent), *refuted* (a re-checked
counterexample) and *unknown* (timeout, outside the decidable fragment). A candidate that does not
parse is a refutation whose ``data["verdict"]`` says ``invalid``; it is counted apart so reports
can tell wrong specifications from unreadable ones, and it is a refutation for the judge metrics.
An SQL candidate with no counterexample up to a bound is ``bounded``: not proved, so never a
success (issue 13); the judge metrics leave it out like ``unknown``.

Judge metrics (RESpecBench §3.1), over the candidates whose judge answer is well-formed (a
malformed answer is ``unknown`` and excluded) and whose verifier verdict is not ``unknown``:

* FAR, false acceptance rate = candidates the judge accepts / candidates the verifier refuted
  (``refuted`` or ``invalid``);
* FRR, false rejection rate = candidates the judge rejects / candidates the verifier proved
  equivalent;
* inflation = judge success rate - verifier success rate, both over the same candidates.

Each is the mean of a per-sample value (``false_accept`` is 1/0 on refuted candidates and
``None`` elsewhere, and so on), so the kernel's mean aggregation yields the rates exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from speckernel.components import Metric, Scorer
from speckernel.model import Candidate, Score, Status, Task, Verdict

SCORE = "respec.score"
JUDGE_SCORE = "respec.judge-score"

EQUIVALENT, REFUTED, UNKNOWN, INVALID, BOUNDED = (
    "equivalent", "refuted", "unknown", "invalid", "bounded")
VERDICTS = (EQUIVALENT, REFUTED, UNKNOWN, INVALID, BOUNDED)

_BY_STATUS = {Status.SUCCESS: EQUIVALENT, Status.FAILURE: REFUTED, Status.UNKNOWN: UNKNOWN,
              Status.TIMEOUT: UNKNOWN}


def verdict_of(verdicts: Sequence[Verdict]) -> str | None:
    """The three-way verdict (plus ``invalid``) of a sample's verdicts; None when the verifier
    did not run or broke (``error``: a harness failure says nothing about the candidate)."""
    if not verdicts or verdicts[-1].status is Status.ERROR:
        return None
    verdict = verdicts[-1]
    named = verdict.data.get("verdict")
    return named if named in VERDICTS else _BY_STATUS[verdict.status]


def rejected(verdict: str) -> bool:
    """Whether a verifier verdict soundly rejects the candidate."""
    return verdict in (REFUTED, INVALID)


def _flag(value: bool) -> float:
    return 1.0 if value else 0.0


class RespecScorer(Scorer):
    """Per sample: which of the verdicts the domain verifier gave; the means are the rates."""

    name = SCORE
    description = ("RESpecBench outcome of a candidate against the oracle: success, "
                   "refuted, unknown, invalid or bounded; their means are the rates")
    metrics = (
        Metric("success", "proved equivalent to the oracle", unit="bool"),
        Metric("refuted", "refuted with a re-checked counterexample (or unparseable)",
               unit="bool", higher_is_better=False),
        Metric("unknown", "timeout or outside the decidable fragment", unit="bool",
               higher_is_better=False),
        Metric("invalid", "the candidate does not parse (counted in refuted too)", unit="bool",
               higher_is_better=False),
        Metric("bounded", "no counterexample up to a recorded bound (SQL; not a success)",
               unit="bool"),
    )

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        verdict = verdict_of(verdicts)
        if verdict is None:
            return Score(self.name, dict.fromkeys(m.name for m in self.metrics),
                         "the verifier did not run")
        return Score(self.name, {
            "success": _flag(verdict == EQUIVALENT),
            "refuted": _flag(rejected(verdict)),
            "unknown": _flag(verdict == UNKNOWN),
            "invalid": _flag(verdict == INVALID),
            "bounded": _flag(verdict == BOUNDED),
        }, str(verdicts[-1].data.get("reason", "")))


def judge_values(accept: bool | None, verifier: str) -> Mapping[str, float | None]:
    """A sample's contribution to FAR, FRR and inflation (see the module docstring)."""
    if accept is None or verifier in (UNKNOWN, BOUNDED):
        return {"judge_accept": None, "verifier_success": None, "false_accept": None,
                "false_reject": None, "inflation": None}
    proved = verifier == EQUIVALENT
    return {
        "judge_accept": _flag(accept),
        "verifier_success": _flag(proved),
        "false_accept": None if proved else _flag(accept),
        "false_reject": _flag(not accept) if proved else None,
        "inflation": _flag(accept) - _flag(proved),
    }


class JudgeScorer(Scorer):
    """The judge's decision against the sound verifier's verdict, RESpecBench §3.1."""

    name = JUDGE_SCORE
    description = ("RESpecBench §3.1: the LLM judge's decision against the sound "
                   "verifier's: false accept and reject rates, success inflation")
    metrics = (
        Metric("judge_accept", "the judge accepts the candidate", unit="bool"),
        Metric("verifier_success", "the sound verifier proved the candidate", unit="bool"),
        Metric("false_accept", "FAR: judge accepts / candidates the verifier refuted",
               higher_is_better=False),
        Metric("false_reject", "FRR: judge rejects / candidates the verifier proved",
               higher_is_better=False),
        Metric("inflation", "judge success rate - verifier success rate",
               higher_is_better=False),
    )

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        accept = verdicts[-1].data.get("accept") if verdicts else None
        verifier = str(task.metadata.get("verifier", UNKNOWN))
        return Score(self.name, judge_values(accept if isinstance(accept, bool) else None,
                                             verifier),
                     f"judge {'unknown' if accept is None else 'accepts' if accept else 'rejects'}"
                     f", verifier {verifier}")
