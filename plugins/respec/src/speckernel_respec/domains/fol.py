"""The FOL domain (FOLIO style): is the candidate formula logically equivalent to the oracle?

Both formulas are parsed with :mod:`.fol_syntax` and must use only the task's facts (predicates
with their arities, constants). Equivalence is validity of ``oracle ↔ candidate``, decided by Z3
over an uninterpreted sort (:mod:`.fol_semantics`):

* ``¬(oracle ↔ candidate)`` unsat → **equivalent**;
* sat → **refuted**, with Z3's finite model as the counterexample, but only after evaluating both
  formulas on that model in Python gives different truth values;
* Z3 timeout or ``unknown`` (first-order validity is undecidable) → **unknown**;
* a candidate that does not parse, or uses a predicate or constant the facts do not declare, or a
  declared predicate with another arity → **invalid**, with the reason.

The check runs in a worker thread with that thread's Z3 context; Z3's own timeout (option
``timeout_s``, default 4 s) bounds it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from typing import Any

import z3
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Task, Verdict

from speckernel_respec.domains import outcome
from speckernel_respec.domains.fol_semantics import FiniteModel, TooLarge, evaluate, session
from speckernel_respec.domains.fol_syntax import Formula, ParseError, Signature, parse, signature
from speckernel_respec.domains.outcome import Outcome, TaskError

SPEC_FILE = "spec.fol"


@functools.lru_cache(maxsize=4096)
def parsed(text: str) -> tuple[Formula, Signature]:
    """``text`` parsed, with its signature (cached: oracles are checked again and again)."""
    formula = parse(text)
    return formula, signature(formula)


def declared(facts: Mapping[str, Any]) -> Signature:
    """The task's facts ``{"predicates": {name: arity}, "constants": [names]}`` as a signature."""
    predicates = facts.get("predicates", {})
    constants = facts.get("constants", [])
    if not isinstance(predicates, Mapping) or not isinstance(constants, list | tuple):
        raise TaskError("fol facts need 'predicates' {name: arity} and 'constants' [names]")
    return Signature({str(k): int(v) for k, v in predicates.items()},
                     frozenset(str(c) for c in constants))


def mismatch(used: Signature, facts: Signature) -> str | None:
    """Why a formula with signature ``used`` does not fit the facts, or None if it does."""
    for name, arity in sorted(used.predicates.items()):
        if name not in facts.predicates:
            known = ", ".join(f"{p}/{n}" for p, n in sorted(facts.predicates.items()))
            return f"unknown predicate {name}/{arity} (the task declares {known or 'none'})"
        if facts.predicates[name] != arity:
            return (f"predicate {name} is applied to {arity} argument(s) but has arity "
                    f"{facts.predicates[name]}")
    extra = sorted(used.constants - facts.constants)
    if extra:
        known = ", ".join(sorted(facts.constants)) or "none"
        return (f"unknown constant {extra[0]!r} (a free variable? the task declares constants: "
                f"{known})")
    return None


def check(oracle: str, candidate: str, facts: Mapping[str, Any] | None,
          timeout_s: float) -> Outcome:
    """Decide whether ``candidate`` is equivalent to ``oracle`` under the task's ``facts``
    (without them, or without declared predicates, the oracle's own signature); ``TaskError``
    if the oracle does not parse or contradicts the facts."""
    try:
        gold, gold_sig = parsed(oracle)
    except ParseError as exc:
        raise TaskError(f"the oracle does not parse: {exc}") from exc
    sig = declared(facts) if facts and "predicates" in facts else gold_sig
    problem = mismatch(gold_sig, sig)
    if problem:
        raise TaskError(f"the oracle does not fit the facts: {problem}")
    try:
        cand, cand_sig = parsed(candidate)
    except ParseError as exc:
        return outcome.invalid(f"not a FOLIO formula: {exc}")
    problem = mismatch(cand_sig, sig)
    if problem:
        return outcome.invalid(problem)
    if cand == gold:
        return outcome.equivalent("the formulas are syntactically identical")
    return decide(gold, cand, gold_sig.union(cand_sig), timeout_s)


def decide(gold: Formula, cand: Formula, sig: Signature, timeout_s: float) -> Outcome:
    """Z3 on ``¬(gold ↔ cand)``, with the re-check of a countermodel described above.

    The two closed formulas differ iff ``gold ∧ ¬cand`` or ``¬gold ∧ cand`` is satisfiable; Z3 is
    asked each separately, which keeps every quantifier in one polarity so that it can be
    Skolemised (asked as one ``Xor``, Z3 times out on ``∀x ∃y R(x, y)`` vs ``∃y ∀x R(x, y)``).
    """
    z = session()
    a, b = z.compile(gold), z.compile(cand)
    deadline = time.monotonic() + timeout_s
    solver = z3.Solver(ctx=z.context)
    for direction in (z3.And(a, z3.Not(b)), z3.And(z3.Not(a), b)):
        remaining_ms = int((deadline - time.monotonic()) * 1000)
        if remaining_ms <= 0:
            return outcome.unknown(f"timeout after {timeout_s:g} s")
        solver.set("timeout", remaining_ms)
        solver.push()
        solver.add(direction)
        result = solver.check()
        if result == z3.sat:
            return recheck(gold, cand, lambda: z.read_model(solver.model(), sig))
        if result != z3.unsat:
            return outcome.unknown(f"Z3 gave up: {solver.reason_unknown()}")
        solver.pop()
    return outcome.equivalent("¬(oracle ↔ candidate) is unsatisfiable")


def recheck(gold: Formula, cand: Formula, read: Callable[[], FiniteModel]) -> Outcome:
    """Refuted if the two formulas evaluate differently on the model ``read`` returns; else
    unknown (also when the model is too large to read back or to evaluate on)."""
    try:
        model = read()
        values = evaluate(gold, model), evaluate(cand, model)
    except TooLarge as exc:
        return outcome.unknown(f"countermodel not re-checked: {exc}")
    if values[0] == values[1]:
        return outcome.unknown("Z3's countermodel did not re-check (both formulas agree on it)")
    return outcome.refuted(
        f"on a {len(model.domain)}-element model the oracle is {values[0]} and the candidate "
        f"{values[1]}",
        model.to_json() | {"oracle": values[0], "candidate": values[1]})


class FolVerifier(Verifier):
    """``respec.fol``: FOLIO formula equivalence by Z3 (see the module docstring)."""

    name = "respec.fol"
    version = "1"
    description = "FOLIO formula equivalence: validity of oracle ↔ candidate in Z3"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        return await outcome.verify(self.name, SPEC_FILE, check, candidate, task, ctx)
