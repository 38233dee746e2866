"""IDS's pass criterion (IDS §4, Table 1): a solution counts when Rocq accepts it, the audit
finds nothing (it compiles with no holes and is not vacuous) and its extracted store runs with
bounded state (IDS's design rule, checked mechanically by ``rocq_ids.extract``)."""

from __future__ import annotations

from collections.abc import Sequence

from speckernel.components import Metric, Scorer
from speckernel.model import Candidate, Score, Status, Task, Verdict

from speckernel_rocq_ids.audit import AUDIT
from speckernel_rocq_ids.extraction import EXTRACT
from speckernel_rocq_ids.verifiers import COQC


def _status(verdicts: Sequence[Verdict], verifier: str) -> Status | None:
    found = next((v for v in reversed(verdicts) if v.verifier == verifier), None)
    return None if found is None else found.status


class PassScorer(Scorer):
    """``pass`` is 1 when ``rocq_ids.coqc``, ``rocq_ids.audit`` and ``rocq_ids.extract`` all
    succeed, 0 when one judged the candidate (failure or timeout) or did not run, None when a
    tool broke (an ``error`` verdict)."""

    name = "rocq_ids.pass"
    description = ("IDS pass (Table 1): coqc accepts the store, the audit finds nothing "
                   "and the extracted store runs bounded and consistent")
    metrics = (Metric("pass", "compiles with coqc, passes the audit, extracts and runs bounded, "
                      "live and consistent",
                      unit="bool"),)

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        coqc, audit = _status(verdicts, COQC), _status(verdicts, AUDIT)
        extract = _status(verdicts, EXTRACT)
        if Status.ERROR in (coqc, audit, extract):
            return Score(self.name, {"pass": None}, "a verifier broke")
        if coqc is not Status.SUCCESS:
            return Score(self.name, {"pass": 0.0}, f"coqc: {coqc.value if coqc else 'not run'}")
        if audit is not Status.SUCCESS:
            return Score(self.name, {"pass": 0.0},
                         f"audit: {audit.value if audit else 'not run'}")
        if extract is not Status.SUCCESS:
            return Score(self.name, {"pass": 0.0},
                         f"extract: {extract.value if extract else 'not run'}")
        return Score(self.name, {"pass": 1.0}, "verified, audited and bounded")
