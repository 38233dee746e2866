"""The ``verus.outcome`` scorer: VeruSAGE-Bench's per-task figures (Tables 6 and 7).

- ``verified``: the candidate passed the cheat checker and Verus verified it (the paper's
  success); None in a ``check_only_cheats`` run or when Verus could not run.
- ``cheat_caught``: the cheat checker rejected the candidate.
- ``time_s`` and ``cost_usd``: the agent's wall time and model cost for the task.
- ``verus_runs``: Verus runs per task, the agent's ``ctx.verify`` calls plus the final check.
- ``proof_lines`` / ``reference_proof_lines``: lines the candidate and the ground truth add to
  the task file; ``proof_length_ratio`` their quotient for verified candidates (for honest
  ones when Verus did not run).
"""

from __future__ import annotations

from collections.abc import Sequence

from speckernel.components import Metric, Scorer
from speckernel.model import Candidate, Score, Status, Task, Verdict

from speckernel_verus.artifact import task_file
from speckernel_verus.feedback import CHEATS_VERIFIER
from speckernel_verus.proofs import added_lines
from speckernel_verus.verifier import VerusVerifier

CHEATS_ONLY = "check_only_cheats"
"""Task metadata the benchmark sets in a run without the Verus phase: nothing is verified."""


def _status(verdicts: Sequence[Verdict], name: str) -> Status | None:
    return next((v.status for v in verdicts if v.verifier == name), None)


class OutcomeScorer(Scorer):
    """Success, cost, effort and proof size of one sample (VeruSAGE §5, Tables 6-7)."""

    name = "verus.outcome"
    description = ("VeruSAGE-Bench per task (Tables 6-7): verified with no cheat, cheat "
                   "caught, time, cost, Verus runs and proof size")
    metrics = (
        Metric("verified", "no cheat and Verus verified the file", "bool"),
        Metric("cheat_caught", "the cheat checker rejected the candidate", "bool",
               higher_is_better=False),
        Metric("time_s", "agent wall time per task", "seconds", higher_is_better=False),
        Metric("cost_usd", "model cost per task", "usd", higher_is_better=False),
        Metric("verus_runs", "Verus runs per task (agent's + final)", "count",
               higher_is_better=False),
        Metric("proof_lines", "lines the candidate adds to the task file", "count",
               higher_is_better=False),
        Metric("reference_proof_lines", "lines the ground truth adds", "count",
               higher_is_better=False),
        Metric("proof_length_ratio", "proof lines / ground-truth proof lines (verified ones)",
               "ratio", higher_is_better=False),
    )

    def score(self, task: Task, candidate: Candidate | None, verdicts: Sequence[Verdict]) -> Score:
        cheats = _status(verdicts, CHEATS_VERIFIER)
        verus = _status(verdicts, VerusVerifier.name)
        values: dict[str, float | None] = dict.fromkeys(m.name for m in self.metrics)
        values["cheat_caught"] = float(cheats is Status.FAILURE) if cheats else None
        verus_ran = verus is not None and verus is not Status.ERROR
        if not task.metadata.get(CHEATS_ONLY) and (cheats is Status.FAILURE or verus_ran):
            values["verified"] = float(verus is Status.SUCCESS and cheats is Status.SUCCESS)
        file = task_file(task)
        original = task.files.get(file, "")
        if task.reference and file in task.reference:
            values["reference_proof_lines"] = float(added_lines(original, task.reference[file]))
        if candidate is not None:
            provenance = candidate.provenance
            values["time_s"] = provenance.wall_time_s
            values["cost_usd"] = provenance.usage.cost_usd
            values["verus_runs"] = float(provenance.verifier_calls + verus_ran)
            proof_lines = float(added_lines(original, candidate.files.get(file, "")))
            values["proof_lines"] = proof_lines
            reference = values["reference_proof_lines"]
            checked = values["verified"] == 1.0 or (
                values["verified"] is None and cheats is Status.SUCCESS)
            if checked and reference:
                values["proof_length_ratio"] = proof_lines / reference
        explanation = f"cheats: {cheats.value if cheats else 'not run'}; " \
                      f"verus: {verus.value if verus else 'not run'}"
        return Score(self.name, values, explanation)


SCORERS = (OutcomeScorer,)
