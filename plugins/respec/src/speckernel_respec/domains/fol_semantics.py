"""Meaning of FOLIO formulas: Tarskian evaluation on finite models, and compilation to Z3.

Two formulas are equivalent iff their biconditional is valid, i.e. iff ``¬(a ↔ b)`` has no model
(RESpecBench §3.4; the notes' "Z3 check: spec equivalence via ``Not(a == b)`` unsat"). Formulas
are compiled over one uninterpreted sort, so every model Z3 returns has a finite universe; the
model is read back into a :class:`FiniteModel` on which :func:`evaluate` (plain Python, no Z3)
re-computes both formulas, and only a model on which they differ counts as a counterexample.

Z3 objects belong to a context that is not thread-safe, so each thread keeps one context of its
own (:func:`session`) and reuses it for every check it runs.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping

import attrs
import z3

from speckernel_respec.domains.fol_syntax import (
    Atom,
    Binary,
    Connective,
    Equals,
    Formula,
    Not,
    Quantified,
    Quantifier,
    Signature,
    Term,
    Var,
)

MAX_CELLS = 100_000
"""Most predicate applications read back from one Z3 model (sum of |domain|^arity)."""

MAX_STEPS = 2_000_000
"""Most sub-formula evaluations one re-check may take (nested quantifiers multiply)."""


class TooLarge(Exception):
    """A model or a re-check exceeds :data:`MAX_CELLS` or :data:`MAX_STEPS`."""


# --------------------------------------------------------------------------- finite models


@attrs.frozen
class FiniteModel:
    """A first-order structure: elements ``e0 … en``, the element each constant denotes, and
    each predicate's extension (the argument tuples it holds of; ``{()}`` for a true 0-ary one)."""

    domain: tuple[str, ...]
    constants: Mapping[str, str]
    predicates: Mapping[str, frozenset[tuple[str, ...]]]

    def to_json(self) -> dict[str, object]:
        return {
            "domain": list(self.domain),
            "constants": dict(sorted(self.constants.items())),
            "predicates": {name: sorted(list(t) for t in ext)
                           for name, ext in sorted(self.predicates.items())},
        }


def evaluate(formula: Formula, model: FiniteModel) -> bool:
    """The truth value of a closed formula in ``model``; ``TooLarge`` past :data:`MAX_STEPS`."""
    steps = 0

    def value(term: Term, env: Mapping[str, str]) -> str:
        return env[term.name] if isinstance(term, Var) else model.constants[term.name]

    def holds(f: Formula, env: dict[str, str]) -> bool:
        nonlocal steps
        steps += 1
        if steps > MAX_STEPS:
            raise TooLarge(f"re-checking the model took more than {MAX_STEPS} steps")
        match f:
            case Atom(predicate, args):
                return tuple(value(t, env) for t in args) in model.predicates[predicate]
            case Equals(left, right):
                return value(left, env) == value(right, env)
            case Not(body):
                return not holds(body, env)
            case Binary(op, left, right):
                a = holds(left, env)
                if op is Connective.AND:
                    return a and holds(right, env)
                if op is Connective.OR:
                    return a or holds(right, env)
                if op is Connective.IMPLIES:
                    return not a or holds(right, env)
                b = holds(right, env)
                return a != b if op is Connective.XOR else a == b
            case Quantified(quantifier, variable, body):
                test = all if quantifier is Quantifier.FORALL else any
                return test(holds(body, env | {variable: e}) for e in model.domain)
        raise TypeError(f"not a formula: {f!r}")

    return holds(formula, {})


# --------------------------------------------------------------------------- Z3


class Session:
    """One Z3 context with its uninterpreted sort and a cache of predicate declarations."""

    def __init__(self) -> None:
        self.context = z3.Context()
        self.sort = z3.DeclareSort("U", self.context)
        self._predicates: dict[tuple[str, int], z3.FuncDeclRef] = {}

    def predicate(self, name: str, arity: int) -> z3.FuncDeclRef:
        key = (name, arity)
        if key not in self._predicates:
            self._predicates[key] = z3.Function(
                name, *([self.sort] * arity), z3.BoolSort(self.context))
        return self._predicates[key]

    def term(self, term: Term) -> z3.ExprRef:
        return z3.Const(term.name, self.sort)

    def compile(self, formula: Formula) -> z3.BoolRef:
        """``formula`` as a Z3 Boolean term (variables and constants share the sort ``U``)."""
        match formula:
            case Atom(predicate, ()):
                return self.predicate(predicate, 0)()
            case Atom(predicate, args):
                return self.predicate(predicate, len(args))(*(self.term(t) for t in args))
            case Equals(left, right):
                return self.term(left) == self.term(right)
            case Not(body):
                return z3.Not(self.compile(body))
            case Binary(op, left, right):
                a, b = self.compile(left), self.compile(right)
                match op:
                    case Connective.AND:
                        return z3.And(a, b)
                    case Connective.OR:
                        return z3.Or(a, b)
                    case Connective.XOR:
                        return z3.Xor(a, b)
                    case Connective.IMPLIES:
                        return z3.Implies(a, b)
                    case Connective.IFF:
                        return a == b
            case Quantified(quantifier, variable, body):
                bound = z3.Const(variable, self.sort)
                make = z3.ForAll if quantifier is Quantifier.FORALL else z3.Exists
                return make([bound], self.compile(body))
        raise TypeError(f"not a formula: {formula!r}")

    def read_model(self, model: z3.ModelRef, sig: Signature) -> FiniteModel:
        """The part of a Z3 model that interprets ``sig``, as a :class:`FiniteModel`."""
        universe = list(model.get_universe(self.sort) or ())
        if not universe:  # no term of sort U occurs: any one-element domain will do
            universe = [z3.FreshConst(self.sort)]
        names = [f"e{i}" for i in range(len(universe))]

        def element(value: z3.ExprRef) -> str:
            evaluated = model.eval(value, model_completion=True)
            return next((n for n, u in zip(names, universe, strict=True) if evaluated.eq(u)),
                        names[0])

        cells = sum(len(universe) ** arity for arity in sig.predicates.values())
        if cells > MAX_CELLS:
            raise TooLarge(f"the model has {cells} predicate cells (limit {MAX_CELLS})")
        constants = {c: element(z3.Const(c, self.sort)) for c in sorted(sig.constants)}
        predicates: dict[str, frozenset[tuple[str, ...]]] = {}
        for name, arity in sig.predicates.items():
            decl = self.predicate(name, arity)
            predicates[name] = frozenset(
                tuple(element(u) for u in args)
                for args in itertools.product(universe, repeat=arity)
                if z3.is_true(model.eval(decl(*args), model_completion=True)))
        return FiniteModel(tuple(names), constants, predicates)


_local = threading.local()


def session() -> Session:
    """This thread's Z3 session, created on first use."""
    current: Session | None = getattr(_local, "session", None)
    if current is None:
        current = _local.session = Session()
    return current
