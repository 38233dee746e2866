"""The GSM-Symbolic+ domain: a candidate answer expression is equivalent to the oracle iff the
two are equal for every assignment of the task's variables that satisfies its public
constraints (RESpecBench's GSM-Symbolic+ track; the notes' "encode the template's variable
domains/conditions and the answer expression symbolically").

Both expressions (:mod:`gsm_lang`) are compiled to Z3 together with their *definedness*
conditions (no division by zero on the evaluated path). With ``C`` the constraints, ``o``/``c``
the answers and ``D(e)`` definedness::

    equivalent  ⇔  C ∧ D(o) ∧ ¬(D(c) ∧ o = c)  is unsat

A model of that formula is read back as an exact assignment and both answers are evaluated on
it in Python; only if they differ there (or the candidate divides by zero) is the candidate
``refuted``. Z3 ``unknown`` (the per-check timeout, or nonlinear integer arithmetic beyond its
reach) is ``unknown``. An oracle that can divide by zero under the constraints is a broken task
and yields ``unknown``; so do constraints that are unsatisfiable.

Each thread keeps one Z3 context and reuses it; parsed oracles and constraints are cached.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import attrs
import z3
from speckernel.components import Verifier, VerifyContext
from speckernel.model import JSON, Candidate, Task, Verdict

from speckernel_respec.domains import outcome
from speckernel_respec.domains.gsm_lang import (
    TYPES,
    Arith,
    BoolLit,
    Call,
    Compare,
    Expr,
    GsmSyntaxError,
    GsmTypeError,
    Ite,
    Logic,
    Neg,
    Not,
    Num,
    Type,
    Undefined,
    Value,
    Var,
    evaluate,
    parse,
    type_of,
)
from speckernel_respec.domains.outcome import Outcome

SPEC_FILE = "spec.gsm"


@attrs.frozen(eq=False)
class Problem:
    """A task's variables (name → type) and public constraints, parsed and type-checked.
    Compared by identity: :func:`problem_of` returns one object per distinct facts."""

    variables: Mapping[str, Type]
    constraints: tuple[Expr, ...]


class _Z3:
    """One thread's Z3 context, compiler and per-task solvers.

    Definedness conditions are Z3 booleans, or None for "always defined" (most answers divide
    by constants, so this keeps the formulas small).
    """

    def __init__(self) -> None:
        self.ctx = z3.Context()
        self._vars: dict[tuple[str, Type], Any] = {}
        self._tasks: OrderedDict[tuple[str, Problem], _TaskState] = OrderedDict()

    def var(self, name: str, typ: Type) -> Any:
        key = (name, typ)
        if key not in self._vars:
            make = {"int": z3.Int, "real": z3.Real, "bool": z3.Bool}[typ]
            self._vars[key] = make(name, self.ctx)
        return self._vars[key]

    def compile(self, node: Expr, problem: Problem) -> tuple[Any, Any]:
        """``(value, defined)``: the Z3 term of ``node`` and the condition under which its
        evaluation divides by nothing that is zero (None: always)."""
        match node:
            case Num(value, typ):
                if typ == "int":
                    return z3.IntVal(int(value), self.ctx), None
                return z3.RealVal(value, self.ctx), None
            case BoolLit(value):
                return z3.BoolVal(value, self.ctx), None
            case Var(name):
                return self.var(name, problem.variables[name]), None
            case Neg(arg):
                value, defined = self.compile(arg, problem)
                return -value, defined
            case Arith(op, left, right):
                return self._arith(op, left, right, problem)
            case Compare(op, left, right):
                (a, da), (b, db) = self.compile(left, problem), self.compile(right, problem)
                a, b = _unify(a, b)
                ops = {"==": a == b, "!=": a != b}
                value = ops[op] if op in ops else {"<": a < b, "<=": a <= b, ">": a > b,
                                                   ">=": a >= b}[op]
                return value, _conj(da, db)
            case Logic(op, left, right):
                (a, da), (b, db) = self.compile(left, problem), self.compile(right, problem)
                guard = a if op == "and" else z3.Not(a)
                lazy = None if db is None else z3.Implies(guard, db)
                return (z3.And(a, b) if op == "and" else z3.Or(a, b)), _conj(da, lazy)
            case Not(arg):
                value, defined = self.compile(arg, problem)
                return z3.Not(value), defined
            case Ite(cond, then, other):
                (c, dc), (t, dt), (e, de) = (self.compile(x, problem)
                                             for x in (cond, then, other))
                t, e = _unify(t, e)
                branches = None if dt is None and de is None else z3.If(
                    c, _true(self.ctx, dt), _true(self.ctx, de))
                return z3.If(c, t, e), _conj(dc, branches)
            case Call(fn, args):
                return self._call(fn, args, problem)
        raise TypeError(f"not an expression: {node!r}")

    def _arith(self, op: str, left: Expr, right: Expr, problem: Problem) -> tuple[Any, Any]:
        (a, da), (b, db) = self.compile(left, problem), self.compile(right, problem)
        if op in ("+", "-", "*"):
            a, b = _unify(a, b)
            return {"+": a + b, "-": a - b, "*": a * b}[op], _conj(da, db)
        nonzero = None if z3.is_rational_value(b) and b.as_fraction() != 0 else b != 0
        defined = _conj(da, db, nonzero)
        if op == "/":
            return _real(a) / _real(b), defined
        a, b = _unify(a, b)
        if a.is_int():
            # SMT-LIB div is floor division for a positive divisor; floor(a/b) = floor(-a/-b).
            if z3.is_int_value(b):
                quotient = a / b if b.as_long() > 0 else (-a) / (-b)
            else:
                quotient = z3.If(b > 0, a / b, (-a) / (-b))
        else:
            quotient = z3.ToReal(z3.ToInt(a / b))
        return (quotient if op == "//" else a - b * quotient), defined

    def _call(self, fn: str, args: Sequence[Expr], problem: Problem) -> tuple[Any, Any]:
        compiled = [self.compile(a, problem) for a in args]
        defined = _conj(*(d for _, d in compiled))
        values = [v for v, _ in compiled]
        if fn == "abs":
            x = values[0]
            return z3.If(x < 0, -x, x), defined
        if fn in ("floor", "ceil"):
            x = values[0]
            if x.is_int():
                return x, defined
            return (z3.ToInt(x) if fn == "floor" else -z3.ToInt(-x)), defined
        result = values[0]
        for x in values[1:]:
            result, x = _unify(result, x)
            pick_new = x < result if fn == "min" else x > result
            result = z3.If(pick_new, x, result)
        return result, defined

    def task(self, oracle: str, node: Expr, problem: Problem, seconds: float) -> _TaskState:
        """The solver for one (oracle, facts) pair: constraints and the oracle's definedness
        asserted, after checking that the task is not itself broken. Cached when decided."""
        key = (oracle, problem)
        state = self._tasks.get(key)
        if state is not None:
            self._tasks.move_to_end(key)
            return state
        solver = z3.Solver(ctx=self.ctx)
        solver.set("timeout", max(1, int(seconds * 1000)))
        for c in problem.constraints:
            value, defined = self.compile(c, problem)
            solver.add(value, *([] if defined is None else [defined]))
        value, defined = self.compile(node, problem)
        defect = _defect(solver, defined, problem)
        if defect is None and defined is not None:
            solver.add(defined)
        state = _TaskState(solver, value, defect)
        if not defect or not defect.startswith("z3 cannot"):
            self._tasks[key] = state
            if len(self._tasks) > 256:
                self._tasks.popitem(last=False)
        return state


@attrs.frozen
class _TaskState:
    solver: Any
    oracle: Any
    defect: str | None


def _defect(solver: Any, oracle_defined: Any, problem: Problem) -> str | None:
    """Why a task is broken — constraints without a solution, or an oracle that can divide by
    zero under them — or None."""
    status = solver.check()
    if status == z3.unsat:
        return "the task's constraints have no solution"
    if status == z3.sat and oracle_defined is not None:
        solver.push()
        solver.add(z3.Not(oracle_defined))
        status = solver.check()
        model = solver.model() if status == z3.sat else None
        solver.pop()
        if model is not None:
            return ("the oracle divides by zero under the constraints (at "
                    f"{_assignment(model, problem)})")
    if status == z3.unknown:
        return f"z3 cannot check the task itself: {solver.reason_unknown()}"
    return None


def _conj(*conditions: Any) -> Any:
    """The conjunction of the conditions that are not None (None if there are none)."""
    present = [c for c in conditions if c is not None]
    if not present:
        return None
    return present[0] if len(present) == 1 else z3.And(*present)


def _true(ctx: Any, condition: Any) -> Any:
    return z3.BoolVal(True, ctx) if condition is None else condition


def _real(x: Any) -> Any:
    return z3.ToReal(x) if x.is_int() else x


def _unify(a: Any, b: Any) -> tuple[Any, Any]:
    """Promote an int operand to real when the other one is real."""
    if z3.is_arith(a) and z3.is_arith(b) and a.is_int() != b.is_int():
        return _real(a), _real(b)
    return a, b


_local = threading.local()


def _session() -> _Z3:
    session: _Z3 | None = getattr(_local, "session", None)
    if session is None:
        session = _local.session = _Z3()
    return session


@lru_cache(maxsize=1024)
def _problem(variables: tuple[tuple[str, str], ...], constraints: tuple[str, ...]) -> Problem:
    """Parse and type-check a task's facts (GsmSyntaxError/GsmTypeError if malformed)."""
    types: dict[str, Type] = {}
    for name, typ in variables:
        known = next((t for t in TYPES if t == typ), None)
        if known is None:
            raise GsmTypeError(f"variable {name!r} has unknown type {typ!r}")
        types[name] = known
    parsed = tuple(parse(c) for c in constraints)
    for c in parsed:
        if type_of(c, types) != "bool":
            raise GsmTypeError("a constraint is not a condition")
    return Problem(types, parsed)


@lru_cache(maxsize=1024)
def _typed(text: str, problem: Problem) -> tuple[Expr, Type]:
    node = parse(text)
    return node, type_of(node, problem.variables)


def problem_of(facts: Mapping[str, Any]) -> Problem:
    """The Problem of a task's ``facts`` ({"variables": {name: type}, "constraints": [...]})."""
    variables = facts.get("variables", {})
    constraints = facts.get("constraints", [])
    return _problem(tuple(sorted((str(k), str(v)) for k, v in variables.items())),
                    tuple(str(c) for c in constraints))


def check(oracle: str, candidate: str, problem: Problem, seconds: float) -> Outcome:
    """The verdict on ``candidate`` against ``oracle`` under ``problem``."""
    try:
        oracle_node, oracle_type = _typed(oracle, problem)
    except (GsmSyntaxError, GsmTypeError) as exc:
        return outcome.unknown(f"the oracle is malformed: {exc}")
    try:
        cand_node, cand_type = _typed(candidate, problem)
    except (GsmSyntaxError, GsmTypeError) as exc:
        return outcome.invalid(f"gsm answer: {exc}")
    if (oracle_type == "bool") != (cand_type == "bool"):
        return outcome.invalid(f"the answer is a {cand_type}, the oracle a {oracle_type}")
    z = _session()
    state = z.task(oracle, oracle_node, problem, seconds)
    if state.defect is not None:
        return outcome.unknown(state.defect)
    c, c_defined = z.compile(cand_node, problem)
    o, c = _unify(state.oracle, c)
    differ = z3.Not(o == c) if c_defined is None else z3.Not(z3.And(c_defined, o == c))
    solver = state.solver
    solver.set("timeout", max(1, int(seconds * 1000)))
    solver.push()
    try:
        solver.add(differ)
        status = solver.check()
        if status == z3.unsat:
            return outcome.equivalent("equal on every assignment satisfying the constraints")
        if status == z3.unknown:
            return outcome.unknown(f"z3: {solver.reason_unknown()}")
        model = solver.model()
    finally:
        solver.pop()
    return _refutation(model, problem, oracle_node, cand_node)


def _refutation(model: Any, problem: Problem, oracle: Expr, candidate: Expr) -> Outcome:
    """Re-check Z3's model by exact evaluation; refuted only if the answers differ there."""
    env = _environment(model, problem)
    if env is None:
        return outcome.unknown("z3's counterexample is not rational, cannot re-check it")
    if not all(evaluate(c, env) for c in problem.constraints):
        return outcome.unknown("internal error: z3's counterexample violates the constraints")
    try:
        expected = evaluate(oracle, env)
    except Undefined:
        return outcome.unknown("internal error: the oracle is undefined at z3's counterexample")
    try:
        got: Value | None = evaluate(candidate, env)
    except Undefined:
        got = None
    if got is not None and got == expected:
        return outcome.unknown("internal error: z3's counterexample did not re-check")
    assignment = {name: _json(v) for name, v in env.items()}
    shown = "undefined (division by zero)" if got is None else _json(got)
    return outcome.refuted(
        f"at {assignment} the oracle is {_json(expected)} and the answer is {shown}",
        {"assignment": assignment, "oracle": _json(expected), "candidate": shown})


def _environment(model: Any, problem: Problem) -> dict[str, Value] | None:
    z = _session()
    env: dict[str, Value] = {}
    for name, typ in problem.variables.items():
        value = model.eval(z.var(name, typ), model_completion=True)
        if typ == "bool":
            env[name] = z3.is_true(value)
        elif typ == "int":
            env[name] = value.as_long()
        elif z3.is_rational_value(value):
            env[name] = Fraction(value.numerator_as_long(), value.denominator_as_long())
        else:
            return None
    return env


def _assignment(model: Any, problem: Problem) -> dict[str, JSON]:
    env = _environment(model, problem) or {}
    return {name: _json(v) for name, v in env.items()}


def _json(value: Value) -> JSON:
    """Ints and bools as themselves, fractions as ``"p/q"`` (exact)."""
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else str(value)
    return value


class GsmVerifier(Verifier):
    """``respec.gsm``: Z3 equivalence of answer expressions under the task's constraints."""

    name = "respec.gsm"
    version = "1"
    description = ("GSM-Symbolic+ answers: equal under the public constraints (Z3), refutations "
                   "re-checked by exact evaluation")

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        return await outcome.verify(self.name, SPEC_FILE, check_task, candidate, task, ctx)


def check_task(oracle: str, candidate: str, facts: Any, seconds: float) -> Outcome:
    if not isinstance(facts, Mapping):
        return outcome.unknown("the task has no gsm facts")
    try:
        problem = problem_of(facts)
    except (GsmSyntaxError, GsmTypeError) as exc:
        return outcome.unknown(f"the task's facts are malformed: {exc}")
    return check(oracle, candidate, problem, seconds)
