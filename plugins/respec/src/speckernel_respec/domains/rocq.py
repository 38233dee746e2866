"""The Rocq domain: is the candidate Gallina definition the same function as the oracle's?

The task's facts give a ``preamble`` (shared ``Require``/``Definition`` text), the ``name`` the
candidate must define and its ``type``. The candidate (``spec.v``) must consist of definitions
only (:mod:`.gallina` refuses ``Admitted``, ``Axiom``, ``Unset Guard Checking``, ``Program``, ...
with the reason: **invalid**); it must then compile and have the task's type (else **invalid**
with Coq's error). The equivalence theorem is ``forall x1 .. xn, cand x1 .. xn = oracle x1 .. xn``
(``<->`` when the type ends in ``Prop``); the Coq file shape is in :mod:`.coq_session`.

Stages, each a ``coqtop`` process in the kernel sandbox, run while the check's budget lasts
(option ``timeout_s``, default 4 s, for the whole check):

1. **cheap** (one process; see :func:`check_batch_warm` for many checks in one process):
   refutation by computation over a few hundred inputs (every small input, then random larger
   ones), then proof by cheap tactics (``reflexivity``, ``lia``, ``congruence``, case analysis of
   ``Nat`` comparisons, CoqHammer's ``sauto``; directly, after induction or case analysis on each
   argument).
2. **hammer**: the same proof shapes closed by CoqHammer's ``hammer`` (E and CVC4 on Debian,
   ``/usr/libexec/coq-hammer`` on ``PATH``) under an ATP limit: option ``rocq_atp_limit_s``, else
   the task fact ``atp_limit_s``, else the stage's share of the budget split evenly over the
   proof shapes (:func:`scaled_atp_limit`), so a larger ``timeout_s`` gives the provers more time
   (the timeout sweep); always capped by what remains of the budget.
3. **quickchick**: random testing with QuickChick's derived generators (about 7 s on this machine,
   most of it compiling the extracted OCaml), for types in the testable fragment of
   :mod:`.coq_types`. A failing input is parsed back and **re-checked** by stage 1's computation
   in a fresh process.

Verdicts: **equivalent** only when the theorem is closed with ``Qed`` and ``Print Assumptions``
says "Closed under the global context"; **refuted** only when Coq proved ``cand x <> oracle x``
for a concrete ``x`` by ``vm_compute; discriminate`` (kernel-checked at ``Qed``); everything else
— budget exhausted, loops (bounded by Coq's ``Timeout`` and the sandbox's wall clock), proofs not
found, Prop results that computation cannot refute — is **unknown** with the reason.
"""

from __future__ import annotations

import math
import os
import time
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict

from speckernel_respec.domains import coq_session as coq
from speckernel_respec.domains import outcome
from speckernel_respec.domains.coq_types import (
    Unsupported,
    Value,
    inputs,
    parse_shown,
    signature,
)
from speckernel_respec.domains.gallina import Refused, defined_names, vet
from speckernel_respec.domains.outcome import Outcome
from speckernel_respec.toolchain import HAMMER_HELPERS, CoqToolchain

TOOLCHAINS = (CoqToolchain,)
"""The tools this domain runs (registered with it, see ``domains.load``)."""

SPEC_FILE = "spec.v"
PER_TACTIC_S = 1
"""Coq ``timeout`` of one cheap proof attempt."""
QUICKCHICK_RESERVE_S = 15.0
"""What stage 2 leaves of the budget for QuickChick when the type is testable (at most half)."""
SESSION_SLACK_S = 1.0
"""Wall-clock allowance of a batch session beyond its checks' budgets (start-up, libraries)."""


class TaskError(ValueError):
    """The task itself is broken: facts missing, or its oracle is not a plain definition."""


# --------------------------------------------------------------------------- requests


@attrs.frozen
class Request:
    """A check ready to run: the Coq side (:class:`coq_session.Check`) and its test inputs
    (empty when the type is outside the testable fragment or ends in ``Prop``)."""

    check: coq.Check
    inputs: tuple[tuple[Value, ...], ...]


def request(task: Task, candidate_text: str) -> Request | Outcome:
    """The check of ``candidate_text`` against the task's oracle, or an ``invalid`` outcome."""
    facts = task.metadata.get("facts")
    if not isinstance(facts, Mapping) or not {"name", "type"} <= facts.keys():
        raise TaskError(f"{task.id}: rocq facts need 'name' and 'type' (and 'preamble')")
    name, type_text = str(facts["name"]), str(facts["type"])
    try:
        preamble = vet(str(facts.get("preamble") or "")) if facts.get("preamble") else []
        oracle = vet(str(task.metadata.get("oracle", "")))
        sig = signature(type_text)
    except (Refused, Unsupported) as exc:
        raise TaskError(f"{task.id}: {exc}") from exc
    try:
        candidate = vet(candidate_text)
    except Refused as exc:
        return outcome.invalid(f"refused: {exc}")
    if name not in defined_names(candidate):
        return outcome.invalid(f"the text does not define {name}")
    check = coq.Check(coq.new_key(), name, type_text, sig, tuple(preamble), tuple(oracle),
                      tuple(candidate))
    tests: list[tuple[Value, ...]] = []
    if sig.testable and not sig.is_prop:
        arg_types = [t for t in sig.arg_types if t is not None]
        tests = inputs(arg_types, seed=zlib.crc32(task.id.encode()))
    return Request(check, tuple(tests))



# --------------------------------------------------------------------------- sessions


@attrs.frozen
class Session:
    """What one ``coqtop`` process printed, and the sandbox limit that ended it (if any)."""

    transcript: coq.Transcript
    limit: str | None


async def run_session(ctx: VerifyContext, script: str, wall_s: float) -> Session:
    """Pipe ``script`` into ``coqtop -q`` in the sandbox, within ``wall_s`` seconds."""
    limits = attrs.evolve(ctx.limits, wall_s=max(0.5, min(wall_s, ctx.limits.wall_s)))
    env = {"PATH": HAMMER_HELPERS + os.pathsep + os.environ.get("PATH", os.defpath)}
    result = await ctx.run(["/bin/sh", "-c", "exec coqtop -q 2>&1"], stdin=script,
                           limits=limits, env=env)
    limit = result.limit or ("wall" if result.timed_out else None)
    return Session(coq.Transcript(result.stdout + result.stderr), limit)


def _seconds(value: float) -> int:
    """A Coq ``Timeout``/``timeout`` argument: whole seconds, at least one."""
    return max(1, math.floor(value))


def cheap_script(req: Request, timeout_s: float) -> str:
    """Stage 1 of one check (the session's prelude not included)."""
    check = req.check
    script = coq.load(check, _seconds(min(2.0, timeout_s / 4)))
    if req.inputs:
        script += coq.refute(check, req.inputs, _seconds(timeout_s / 3))
    script += coq.prove(check, coq.tactics(check, "respec_close", "sauto"), PER_TACTIC_S,
                        refuting=bool(req.inputs))
    return script + coq.close(check)


async def check_batch_warm(ctx: VerifyContext, requests: Sequence[Request],
                           timeout_s: float) -> list[Outcome | None]:
    """Stage 1 of several checks in ONE warm ``coqtop`` (libraries loaded once, each check in
    its own module). ``None`` for a check the stage leaves undecided."""
    script = coq.PRELUDE + "".join(cheap_script(r, timeout_s) for r in requests)
    session = await run_session(ctx, script, timeout_s * len(requests) + SESSION_SLACK_S)
    return [cheap_outcome(r, session) for r in requests]


async def check_one_cold(ctx: VerifyContext, req: Request, timeout_s: float) -> Outcome | None:
    """Stage 1 of one check in a ``coqtop`` of its own: the per-check baseline that
    ``benchmarks/respec_throughput.py`` compares :func:`check_batch_warm` with."""
    script = coq.PRELUDE + cheap_script(req, timeout_s)
    return cheap_outcome(req, await run_session(ctx, script, timeout_s))


def cheap_outcome(req: Request, session: Session) -> Outcome | None:
    """Invalid, refuted or equivalent as far as stage 1 got; ``None`` when it did not decide."""
    check = req.check
    steps = session.transcript.steps(check.key)
    bind = steps.get("bind")
    if bind is None:
        return outcome.unknown(f"{_stopped(session)} while loading the definitions")
    if f"{check.key}_orac is defined" not in bind:
        error = coq.first_error(steps.get("oracle", "") + bind)
        raise TaskError(f"the oracle does not compile: {error}")
    if f"{check.key}_cand is defined" not in bind:
        error = coq.first_error(steps.get("candidate", "") + bind) or "no error message"
        if "Timeout!" in error:
            return outcome.unknown("timeout while Coq elaborated the candidate")
        return outcome.invalid(f"does not compile as {check.name} : {check.type_text}: {error}")
    refutation = refutation_in(req, steps)
    if refutation is not None:
        return refutation
    if coq.CLOSED in steps.get("prove_assumptions", ""):
        return outcome.equivalent("proved with Qed by cheap tactics; Print Assumptions: "
                                  + coq.CLOSED)
    return None


def _stopped(session: Session) -> str:
    return f"stopped by the {session.limit} limit" if session.limit else "Coq stopped"


def refutation_in(req: Request, steps: Mapping[str, str]) -> Outcome | None:
    """A refutation when the session proved ``cand x <> oracle x`` for a found input ``x``."""
    index = coq.printed_nat(steps.get("index", ""))
    if not index or coq.CLOSED not in steps.get("assumptions", ""):
        return None
    check = req.check
    values = req.inputs[index - 1]
    types = [t for t in check.signature.arg_types if t is not None]
    shown = [t.show(v) for t, v in zip(types, values, strict=True)]
    cand = coq.printed_value(steps.get("cand_value", ""))
    orac = coq.printed_value(steps.get("orac_value", ""))
    call = " ".join([check.name, *(_argument(s) for s in shown)])
    return outcome.refuted(
        f"{call} is {cand} but the oracle gives {orac} (Coq proved they differ by vm_compute)",
        {"inputs": shown, "candidate": cand, "oracle": orac})


def _argument(shown: str) -> str:
    return f"({shown})" if " " in shown and not shown.startswith(("[", "(")) else shown


# --------------------------------------------------------------------------- stages 2 and 3


async def hammer_stage(ctx: VerifyContext, req: Request, atp_s: float,
                       wall_s: float) -> Outcome | None:
    """Stage 2: the proof shapes of stage 1, each closed by ``hammer`` under ATP limit
    ``atp_s``."""
    check = req.check
    atp = _seconds(atp_s)
    script = (coq.PRELUDE + coq.HAMMER_PRELUDE.format(atp=atp) + coq.load(check, 2)
              + coq.prove(check, coq.tactics(check, "hammer"), 2 * atp + 2, step="hammer")
              + coq.close(check))
    session = await run_session(ctx, script, wall_s)
    if coq.CLOSED in session.transcript.steps(check.key).get("hammer_assumptions", ""):
        return outcome.equivalent(f"proved with Qed by CoqHammer (ATP limit {atp} s); "
                                  f"Print Assumptions: {coq.CLOSED}")
    return None


async def quickchick_stage(ctx: VerifyContext, req: Request, deadline: float) -> Outcome | None:
    """Stage 3: QuickChick; a failing input is re-checked by computation in a fresh session."""
    check = req.check
    script = coq.QUICKCHICK_PRELUDE + coq.load(check, 2) + coq.quickchick(check) + \
        coq.close(check)
    session = await run_session(ctx, script, deadline - time.monotonic())
    shown = coq.counterexample_lines(session.transcript.steps(check.key).get("quickchick", ""),
                                     check.arity)
    if shown is None:
        return None
    types = [t for t in check.signature.arg_types if t is not None]
    try:
        values = tuple(parse_shown(t, s) for t, s in zip(types, shown, strict=True))
    except (Unsupported, ValueError):
        return None
    found = Request(check, (values,))
    left = deadline - time.monotonic()
    script = coq.PRELUDE + coq.load(check, 2) + coq.refute(check, found.inputs, _seconds(left))
    recheck = await run_session(ctx, script + coq.close(check), left)
    return refutation_in(found, recheck.transcript.steps(check.key))


# --------------------------------------------------------------------------- verifier


def atp_limit(options: Mapping[str, Any], facts: Mapping[str, Any]) -> float | None:
    """Option ``rocq_atp_limit_s``, else the task's ``atp_limit_s``; ``None`` when neither is
    set (then :func:`scaled_atp_limit` decides from the budget)."""
    for value in (options.get("rocq_atp_limit_s"), facts.get("atp_limit_s")):
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value)
    return None


def scaled_atp_limit(wall_s: float, shapes: int) -> float:
    """The ATP limit that lets each of ``shapes`` proof shapes run to its Coq ``timeout``
    (``2 * atp + 2`` s, :func:`hammer_stage`) within the stage's ``wall_s``: a fixed limit
    would make a longer check timeout useless to the provers."""
    return max(1.0, (wall_s / max(1, shapes) - 2) / 2)


async def decide(ctx: VerifyContext, req: Request, timeout_s: float,
                 atp_s: float | None) -> Outcome:
    """Run the stages (module doc) until one decides or ``timeout_s`` is spent; ``atp_s`` is
    the ATP limit (None: scaled to the hammer stage's share of the budget)."""
    deadline = time.monotonic() + timeout_s
    decided = await check_one_cold(ctx, req, timeout_s)
    if decided is not None:
        return decided
    tried = [f"no counterexample among {len(req.inputs)} computed inputs" if req.inputs
             else "no computable counterexample search (type outside the testable fragment)",
             "no proof by cheap tactics"]
    if deadline - time.monotonic() >= 1.0:
        left = deadline - time.monotonic()
        wall = max(left - QUICKCHICK_RESERVE_S, left / 2) if req.inputs else left
        shapes = len(coq.tactics(req.check, "hammer"))
        atp = min(atp_s if atp_s is not None else scaled_atp_limit(wall, shapes), wall)
        decided = await hammer_stage(ctx, req, atp, wall)
        if decided is not None:
            return decided
        tried.append(f"no proof by CoqHammer (ATP limit {_seconds(atp)} s)")
    if req.inputs and deadline - time.monotonic() >= 1.0:
        decided = await quickchick_stage(ctx, req, deadline)
        if decided is not None:
            return decided
        tried.append("QuickChick found no re-checked counterexample")
    return outcome.unknown(f"undecided within {timeout_s:g} s: " + "; ".join(tried))


class RocqVerifier(Verifier):
    """``respec.rocq``: equivalence of Gallina definitions (module doc)."""

    name = "respec.rocq"
    version = "2"
    """2: CoqHammer's default ATP limit scales with the check's budget (was 5 s)."""
    description = "Gallina definition equivalence: QuickChick/computation refutes, CoqHammer proves"
    tools = ("coq",)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        start = time.monotonic()
        status = ctx.tools.status("coq")
        if not status.found:
            return Verdict(self.name, Status.ERROR,
                           (Diagnostic(f"the coq toolchain is missing: {status.detail}"),))
        text = candidate.files.get(SPEC_FILE)
        if text is None:
            result = outcome.invalid(f"the candidate has no {SPEC_FILE}")
        else:
            made = request(task, text)
            if isinstance(made, Outcome):
                result = made
            else:
                facts = task.metadata.get("facts")
                assert isinstance(facts, Mapping)
                timeout_s = float(ctx.options.get("timeout_s", 4.0))
                result = await decide(ctx, made, timeout_s, atp_limit(ctx.options, facts))
        return result.to_verdict(self.name, time.monotonic() - start)
