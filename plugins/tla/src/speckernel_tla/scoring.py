"""SysMoBench's four metrics (§3.2), one scorer each, read from the verdicts of the phases.

The pipeline is gated (§3.2): a model goes on to runtime only with 100 % syntax and to
conformance and invariants only without runtime errors. A phase that did not run scores None,
not 0, which the report shows as ✗, as the paper's Table 3 marks phases a model never reached.
An ``error`` verdict (the tool broke, not the model) also scores None.
"""

from __future__ import annotations

from collections.abc import Sequence

from speckernel.components import Metric, Scorer
from speckernel.model import Candidate, Score, Status, Task, Verdict

SANY, RUNTIME, CONFORMANCE, INVARIANTS = (
    "tla.sany", "tla.runtime", "tla.conformance", "tla.invariants")

PHASE_METRICS = {SANY: "syntax", RUNTIME: "runtime", CONFORMANCE: "conformance",
                 INVARIANTS: "invariants"}
"""The headline metric of each phase's verifier (the columns of Table 3)."""


def verdict_of(verdicts: Sequence[Verdict], verifier: str) -> Verdict | None:
    """The verdict ``verifier`` gave, if it ran and did not break."""
    found = next((v for v in reversed(verdicts) if v.verifier == verifier), None)
    return None if found is None or found.status is Status.ERROR else found


def ratio(verdict: Verdict | None, key: str) -> float | None:
    """A ratio from a verdict's data, None when the verdict or the value is absent."""
    value = verdict.data.get(key) if verdict is not None else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class SyntaxScorer(Scorer):
    """Syntax correctness, SysMoBench §3.2.1: 100 % when SANY accepts the whole model; otherwise
    partial credit 50 % x n_c / n_t, where n_c of the model's n_t actions parse on their own
    (``tla.sany`` with option ``per_action``; without it the partial credit is 0)."""

    name = "tla.syntax"
    description = ("SysMoBench syntax (§3.2.1): 1 if SANY parses the model, else 0.5 x "
                   "actions that parse alone / all")
    metrics = (Metric("syntax", "SANY: 1 if the model parses, else 0.5 x passing actions / all"),)

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        verdict = verdict_of(verdicts, SANY)
        if verdict is None:
            return Score(self.name, {"syntax": None}, "SANY did not run")
        if verdict.passed:
            return Score(self.name, {"syntax": 1.0}, "the whole model parses")
        rate = ratio(verdict, "action_success_rate") or 0.0
        passed, total = verdict.data.get("actions_passed", 0), verdict.data.get("actions_total", 0)
        return Score(self.name, {"syntax": 0.5 * rate},
                     f"the model does not parse; {passed}/{total} actions parse alone")


class RuntimeScorer(Scorer):
    """Runtime correctness, SysMoBench §3.2.2: M_r = actions covered by TLC without a runtime
    error / all actions (computed by ``tla.runtime``)."""

    name = "tla.runtime"
    description = ("SysMoBench runtime M_r (§3.2.2): actions TLC covers without a runtime "
                   "error / all actions")
    metrics = (Metric("runtime", "M_r: actions covered without a runtime error / all actions"),)

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        verdict = verdict_of(verdicts, RUNTIME)
        value = ratio(verdict, "m_r")
        errors = verdict.data.get("error_actions") if verdict is not None else None
        return Score(self.name, {"runtime": value},
                     "runtime phase not reached" if verdict is None
                     else f"runtime errors in: {', '.join(errors)}" if errors else "")


class ConformanceScorer(Scorer):
    """Conformance to the system's traces, SysMoBench §3.2.3, as ``tla.conformance`` computes
    it: ``m_c`` (M_c: code actions covered without a conformance error / all code actions),
    ``m_ac`` (traces that validate / all traces) and ``transition_score`` (single steps the model
    reproduces / all steps)."""

    name = "tla.conformance"
    description = ("SysMoBench conformance (§3.2.3) from trace validation: M_c, M_ac and "
                   "the transition score")
    metrics = (
        Metric("conformance", "M_c: code actions covered without a conformance error / all"),
        Metric("action_conformance", "M_ac: traces that validate / all traces"),
        Metric("transition_score", "logged steps the model reproduces alone / all steps"),
    )

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        verdict = verdict_of(verdicts, CONFORMANCE)
        return Score(self.name, {"conformance": ratio(verdict, "m_c"),
                                 "action_conformance": ratio(verdict, "m_ac"),
                                 "transition_score": ratio(verdict, "transition_score")},
                     "conformance phase not reached" if verdict is None else "")


class InvariantScorer(Scorer):
    """Invariant correctness, SysMoBench §3.2.4: M_i = invariant templates that hold / all
    templates (computed by ``tla.invariants``)."""

    name = "tla.invariants"
    description = ("SysMoBench invariants M_i (§3.2.4): invariant templates TLC finds to "
                   "hold / all templates")
    metrics = (Metric("invariants", "M_i: invariant templates that hold / all templates"),)

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        verdict = verdict_of(verdicts, INVARIANTS)
        if verdict is None:
            return Score(self.name, {"invariants": None}, "invariant phase not reached")
        return Score(self.name, {"invariants": ratio(verdict, "m_i")},
                     f"{verdict.data.get('holds')}/{verdict.data.get('total')} hold")


SCORERS = (SyntaxScorer, RuntimeScorer, ConformanceScorer, InvariantScorer)
