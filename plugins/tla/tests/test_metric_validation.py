"""Metric validation, as SysMoBench did with its gold models (issue 2): every candidate below is
judged by ``kernel run tla`` with the real verifiers, and its four scores (§3.2) must be exactly
what the metrics' definitions predict.

* The gold model and five variants of it score 100 % on all four metrics. The variants
  (``data/variants/<artifact>/<variant>/``) rename the variables, the actions or both, merge two
  actions into one (coarser granularity) or split one by cases (finer granularity); each brings
  its own ``mapping.yaml``, and ``invariants.json`` with the templates concretised for renamed
  variables.
* Four seeded faults, each a one-place edit of the gold model, score as defined:

  - a syntax error (``:=`` for ``=``) in one definition: SANY rejects the model, and the syntax
    score is the partial credit 50 % x n_c / n_t, where n_t counts the model's top-level
    definitions and all but the broken one parse alone; the later phases do not run;
  - a type error reached at run time: M_r = actions covered without a runtime error / all
    actions (those in TLC's coverage), < 100 %; conformance and invariants do not run;
  - a wrong transition: M_c = code actions (trace events) covered without a conformance error /
    all code actions, where the wrong one fails the first of its lines in each trace the fault
    shows in, and only lines before it are covered; syntax, runtime and invariants stay 100 %;
  - a broken invariant: M_i = templates that hold / all templates; the other metrics stay 100 %.

One kernel run per artifact judges its gold model (the ``reference`` agent) and the nine other
candidates, each returned by an agent of its own, two verifier calls at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from speckernel import hookimpl
from speckernel.components import Agent, AgentContext
from speckernel.model import Files, Task
from speckernel.store import RunStore
from tla_testdata import DATA

VARIANTS = ("renamed_variables", "renamed_actions", "renamed_both", "coarser", "finer")
FAULT_NAMES = ("syntax_error", "runtime_type_error", "wrong_transition", "broken_invariant")
METRICS = ("syntax", "runtime", "conformance", "invariants")
FULL_MARKS = (1.0, 1.0, 1.0, 1.0)


@attrs.frozen
class Fault:
    """The gold model with ``old`` (which occurs exactly once) replaced by ``new``, and the scores
    (syntax, runtime, conformance, invariants) the definitions give it."""

    name: str
    old: str
    new: str
    scores: tuple[float | None, ...]

    def apply(self, gold: str) -> str:
        assert gold.count(self.old) == 1, f"{self.name}: the edit must match exactly once"
        return gold.replace(self.old, self.new)


FAULTS = {
    "spinlock": (
        # 17 definitions; Unlock no longer parses.
        Fault("syntax_error", "lock_state' = FALSE", "lock_state' := FALSE",
              (0.5 * 16 / 17, None, None, None)),
        # TryLockFail, enabled only while the lock is held, adds to the boolean lock flag. TLC's
        # breadth-first search takes LockRequest and TryLockSuccess from the initial state, then
        # Acquire in the first state it expands (t1 spinning), and Unlock(t1) before
        # TryLockFail(t2) in the next (t1 holding, after TryLockSuccess): M_r = 4/5.
        Fault("runtime_type_error", "/\\ lock_state = TRUE\n    /\\ UNCHANGED vars",
              "/\\ lock_state = TRUE\n    /\\ lock_state' = lock_state + 1\n"
              "    /\\ UNCHANGED <<pc, call_type>>",
              (1.0, 4 / 5, None, None)),
        # A failed spin_try_lock() leaves the call kind "try_lock" behind, so the first
        # TryLockFail line of each trace (all four have one) does not conform. Of the 5 events,
        # the other 4 occur before that line in some trace: M_c = 4/5.
        Fault("wrong_transition", "/\\ lock_state = TRUE\n    /\\ UNCHANGED vars",
              "/\\ lock_state = TRUE\n"
              "    /\\ call_type' = [call_type EXCEPT ![t] = \"try_lock\"]\n"
              "    /\\ UNCHANGED <<lock_state, pc>>",
              (1.0, 1.0, 4 / 5, 1.0)),
        # Acquire without the "lock is free" guard: two holders break MutualExclusion, and the
        # flag is clear while the second still holds (LockConsistency); 4 of 6 templates hold.
        Fault("broken_invariant", "/\\ pc[t] = \"spinning\"\n    /\\ lock_state = FALSE\n",
              "/\\ pc[t] = \"spinning\"\n",
              (1.0, 1.0, 1.0, 4 / 6)),
    ),
    "mutex": (
        # 26 definitions; Enqueue no longer parses.
        Fault("syntax_error", "queue' = Append(queue, t)", "queue' := Append(queue, t)",
              (0.5 * 25 / 26, None, None, None)),
        # Wakeup adds to the boolean woken flag. It is enabled first in a state 6 steps deep
        # (Acquire, AcquireFail, Enqueue, Sleep, Unlock, WakeOne), every other action within 4:
        # breadth-first search has taken all 9 before it meets the error. M_r = 9/10.
        Fault("runtime_type_error", "/\\ woken[t]\n    /\\ woken' = [woken EXCEPT ![t] = FALSE]",
              "/\\ woken[t]\n    /\\ woken' = [woken EXCEPT ![t] = @ + 1]",
              (1.0, 9 / 10, None, None)),
        # Only one waiter at a time (Enqueue waits for an empty queue): each trace fails at its
        # first Enqueue line that makes a second waiter. The other 9 events occur before it in
        # some trace: M_c = 9/10.
        Fault("wrong_transition", "/\\ pc[t] = \"enqueue\"\n",
              "/\\ pc[t] = \"enqueue\"\n    /\\ queue = <<>>\n",
              (1.0, 1.0, 9 / 10, 1.0)),
        # Sleep without the re-check: a thread can fall asleep in the queue while the lock is
        # free and nobody is left to wake it, breaking DeadlockFreedom (it is still woken in the
        # end, as weak fairness makes idle threads take the lock); 6 of 7 hold.
        Fault("broken_invariant", "/\\ pc[t] = \"recheck\"\n    /\\ locked\n",
              "/\\ pc[t] = \"recheck\"\n",
              (1.0, 1.0, 1.0, 6 / 7)),
    ),
    "rwlock": (
        # 22 definitions; AcquireRead no longer parses.
        Fault("syntax_error", "readers' = readers + 1", "readers' := readers + 1",
              (0.5 * 21 / 22, None, None, None)),
        # ReadWait, enabled only while a writer holds or waits, adds the writer flag to the
        # reader count. Breadth-first search takes AcquireRead and AcquireWrite from the initial
        # state, ReleaseRead and WriteWait in the first state it expands (g1 reading), and
        # ReleaseWrite(g1) before ReadWait(g2) in the next (g1 writing): M_r = 5/6.
        Fault("runtime_type_error", "/\\ UNCHANGED <<readers, writer, waiting_writers>>",
              "/\\ readers' = readers + writer\n    /\\ UNCHANGED <<writer, waiting_writers>>",
              (1.0, 5 / 6, None, None)),
        # Only one reader at a time: the first AcquireRead line that makes a second reader fails
        # (in three traces; the fourth conforms). The other 5 events occur before it in some
        # trace: M_c = 5/6.
        Fault("wrong_transition", "/\\ ~ReadBlocked\n", "/\\ ~ReadBlocked\n    /\\ readers = 0\n",
              (1.0, 1.0, 5 / 6, 1.0)),
        # ReadWait without its guard: a reader may wait on a free lock with nobody left to
        # broadcast, breaking NoLostWakeup; 6 of 7 hold.
        Fault("broken_invariant", "/\\ ReadBlocked\n", "",
              (1.0, 1.0, 1.0, 6 / 7)),
    ),
    "locksrv": (
        # 17 definitions; RecvGrant no longer parses.
        Fault("syntax_error", "s2c' = [s2c EXCEPT ![c] = Tail(@)]",
              "s2c' := [s2c EXCEPT ![c] = Tail(@)]",
              (0.5 * 16 / 17, None, None, None)),
        # RecvRelease takes a RELEASE off the connection by subtracting 1 from a sequence. It is
        # enabled only after a client asked (SendAcquire), was granted (RecvAcquire), received
        # the grant (RecvGrant) and released (SendRelease): M_r = 4/5.
        Fault("runtime_type_error",
              "/\\ Head(c2s[c]) = \"release\"\n    /\\ c2s' = [c2s EXCEPT ![c] = Tail(@)]",
              "/\\ Head(c2s[c]) = \"release\"\n    /\\ c2s' = [c2s EXCEPT ![c] = @ - 1]",
              (1.0, 4 / 5, None, None)),
        # A client may ask only while nobody is queued: each trace fails at its first
        # SendAcquire line with a client queued. The other 4 events occur before it: M_c = 4/5.
        Fault("wrong_transition", "/\\ pc[c] = \"idle\"\n",
              "/\\ pc[c] = \"idle\"\n    /\\ queue = <<>>\n",
              (1.0, 1.0, 4 / 5, 1.0)),
        # No fairness for the delivery of GRANT: a granted client may wait forever, breaking
        # ProgressOK; 5 of 6 hold.
        Fault("broken_invariant", "/\\ WF_vars(RecvGrant(c)) /\\ WF_vars(SendRelease(c))",
              "/\\ WF_vars(SendRelease(c))",
              (1.0, 1.0, 1.0, 5 / 6)),
    ),
    "twophase": (
        # 21 definitions; Complete no longer parses.
        Fault("syntax_error", "tmTx' = tmTx + 1", "tmTx' := tmTx + 1",
              (0.5 * 20 / 21, None, None, None)),
        # Complete adds 1 to the coordinator's phase, a string. It is enabled only once every
        # other protocol action has run; Finished, only after it: M_r = 6/8.
        Fault("runtime_type_error", "tmTx' = tmTx + 1", "tmTx' = tmState + 1",
              (1.0, 6 / 8, None, None)),
        # A participant that votes no is recorded as prepared: each trace with a no vote fails
        # at its first one. The other 6 events occur before it or in the trace without a no
        # vote: M_c = 6/7.
        Fault("wrong_transition",
              "IF v = \"yes\" THEN \"prepared\" ELSE \"refused\"", "\"prepared\"",
              (1.0, 1.0, 6 / 7, 1.0)),
        # The coordinator decides without waiting for every vote, committing unless a no has
        # arrived: a commit with votes missing breaks CoordinatorValidity, and a late no vote
        # meets that commit (CommitValidity, NoVoteNoCommit); 3 of 6 hold.
        Fault("broken_invariant",
              "/\\ \\A r \\in RMs : tmVotes[r] # \"none\"\n"
              "    /\\ LET d == IF \\A r \\in RMs : tmVotes[r] = \"yes\"",
              "/\\ LET d == IF \\A r \\in RMs : tmVotes[r] # \"no\"",
              (1.0, 1.0, 1.0, 3 / 6)),
    ),
}


class CandidateAgent(Agent):
    """Returns one metric-validation candidate of each task: a stored variant or a fault."""

    needs_model = False

    def __init__(self, name: str, solve: Callable[[Task], Files]) -> None:
        self.name = name
        self._solve = solve

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        return self._solve(task)


def variant(name: str) -> Callable[[Task], Files]:
    def files(task: Task) -> Files:
        folder = DATA / "variants" / task.id / name
        return {path.name: path.read_text() for path in sorted(folder.iterdir())}

    return files


def faulty(name: str) -> Callable[[Task], Files]:
    def files(task: Task) -> Files:
        assert task.reference is not None
        fault = next(f for f in FAULTS[task.id] if f.name == name)
        model = f"{task.metadata['module']}.tla"
        return {**task.reference, model: fault.apply(task.reference[model])}

    return files


class CandidatesPlugin:
    @hookimpl
    def register_agents(self, register: Callable[[Agent], None]) -> None:
        for name in VARIANTS:
            register(CandidateAgent(name, variant(name)))
        for name in FAULT_NAMES:
            register(CandidateAgent(name, faulty(name)))


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("artifact", sorted(FAULTS))
def test_candidates_score_as_the_metrics_define(
        artifact: str, jar: Path, kernel_cli: Callable[..., Any],
        kernel_plugins: Callable[..., None], run_dir: Path) -> None:
    kernel_plugins(CandidatesPlugin())
    agents = ["reference", *VARIANTS, *FAULT_NAMES]
    result = kernel_cli("run", "tla", "--task", artifact,
                        *(arg for agent in agents for arg in ("--agent", agent)),
                        "--verifier-concurrency", "2", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    samples = {s.key.agent: s for s in RunStore(run_dir).load_samples()}
    expected = {"reference": FULL_MARKS, **dict.fromkeys(VARIANTS, FULL_MARKS),
                **{f.name: f.scores for f in FAULTS[artifact]}}
    scored = {agent: tuple(samples[agent].metrics()[m] for m in METRICS) for agent in agents}
    report = "\n".join(v.summary() for agent in agents if scored[agent] != expected[agent]
                       for v in samples[agent].verdicts)
    assert scored == expected, report
