"""Per-action syntax credit: each top-level definition of a model checked alone by SANY.

SysMoBench's ``action_decomposition`` metric (notes §2; its syntax score is half compilation,
half this rate) cuts the model into its column-0 operator definitions, puts each in a module
``<Module>_<Name>`` extending the standard modules, and repairs what the definition needs from the
rest of the model: names SANY calls ``Unknown operator`` become ``VARIABLES`` when used as values
and ``Op(x1, ..., xn) == TRUE`` stubs when called, with SANY's ``requires N arguments`` correcting
an arity; up to five rounds, then a final verdict. Here every round parses all pending units in one
SanyBatch JVM.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import attrs
from speckernel.sandbox.base import Limits, Sandbox

from speckernel_tla.sany import SanyResult, parse_modules

UNIT_EXTENDS = "TLC, Sequences, Bags, FiniteSets, Integers, Naturals"
"""What SysMoBench's unit modules extend (no SequencesExt: calls into it are stubbed)."""

MAX_RECOVERY_ROUNDS = 5

_DEFINITION = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*==(?!=)")
_TOP_LEVEL = re.compile(
    r"^(?:-{4,}|={4,}|(?:CONSTANTS?|VARIABLES?|ASSUME|ASSUMPTION|AXIOM|THEOREM|LEMMA|EXTENDS"
    r"|INSTANCE|LOCAL|RECURSIVE)\b)")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}


@attrs.frozen
class Unit:
    """One top-level definition, with what recovery declared around it."""

    name: str
    body: str
    variables: tuple[str, ...] = ()
    stubs: tuple[tuple[str, int], ...] = ()

    def module_text(self, module: str) -> str:
        lines = [f"---- MODULE {module} ----", f"EXTENDS {UNIT_EXTENDS}"]
        if self.variables:
            lines.append(f"VARIABLES {', '.join(self.variables)}")
        for name, arity in self.stubs:
            params = f"({', '.join(f'x{i}' for i in range(1, arity + 1))})" if arity else ""
            lines.append(f"{name}{params} == TRUE")
        return "\n".join([*lines, "", self.body, "", "===="]) + "\n"


@attrs.frozen
class ActionResult:
    """The final SANY verdict on one unit and the declarations its check needed."""

    name: str
    ok: bool
    rounds: int
    variables: tuple[str, ...]
    stubs: tuple[str, ...]
    errors: tuple[str, ...]


def split_definitions(text: str) -> dict[str, str]:
    """The model's top-level operator definitions, name -> text, in order.

    A definition starts at column 0 (``Name == ...`` or ``Name(p, q) == ...``) and runs until the
    next line at column 0 that starts another definition or a module-level construct; indented,
    blank and comment lines belong to it. A later definition of the same name replaces an earlier
    one, as in SysMoBench.
    """
    units: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        at_margin = bool(line) and not line[0].isspace()
        if at_margin and (match := _DEFINITION.match(line)):
            current = units[match.group("name")] = [line]
        elif at_margin and _TOP_LEVEL.match(line):
            current = None
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in units.items()}


def call_arity(body: str, name: str) -> int | None:
    """How many arguments the first call ``name(...)`` in ``body`` passes, or None if ``name``
    is never called."""
    match = re.search(rf"(?<![\w!]){re.escape(name)}\s*\(", body)
    if not match:
        return None
    depth, count, seen = 0, 1, False
    for char in body[match.end():]:
        if depth == 0 and char == ")":
            return count if seen else 0
        if char in _CLOSERS:
            depth += 1
        elif char in _CLOSERS.values():
            depth -= 1
        elif char == "," and depth == 0:
            count += 1
        if not char.isspace():
            seen = True
    return count if seen else 0


def used_as_value(body: str, name: str) -> bool:
    """Whether ``name`` occurs in ``body`` other than as a call."""
    return re.search(rf"(?<![\w!]){re.escape(name)}\b(?!\s*\()", body) is not None


def recover(unit: Unit, result: SanyResult) -> Unit:
    """The unit with declarations for what SANY could not resolve (unchanged if nothing new)."""
    variables = list(unit.variables)
    stubs = dict(unit.stubs)
    for name in result.unknown_operators:
        if name in variables or name in stubs:
            continue
        arity = call_arity(unit.body, name)
        if arity is not None and not used_as_value(unit.body, name):
            stubs[name] = arity
        else:
            variables.append(name)
    for name, arity in result.arities.items():
        if name in variables:
            variables.remove(name)
            stubs[name] = arity
        elif name in stubs:
            stubs[name] = arity
    return attrs.evolve(unit, variables=tuple(variables), stubs=tuple(stubs.items()))


async def check_actions(
    sandbox: Sandbox,
    jar: Path,
    module: str,
    text: str,
    *,
    limits: Limits,
    per_module_s: float = 30.0,
    extra: Mapping[str, str] | None = None,
    extra_files: Mapping[str, str] | None = None,
) -> tuple[dict[str, ActionResult], dict[str, SanyResult]]:
    """Check every definition of ``text`` alone, with recovery rounds.

    ``extra`` (module name -> text) is parsed in the first round's JVM too, so a caller checking
    the whole model pays no extra JVM start; its results come back as the second value.
    ``extra_files`` are placed beside every module (the model's other modules).
    """
    units = {name: Unit(name, body) for name, body in split_definitions(text).items()}
    names = {name: f"{module}_{name}" for name in units}
    rounds = dict.fromkeys(units, 0)
    last: dict[str, SanyResult] = {}
    pending = list(units)
    extra_results: dict[str, SanyResult] = {}
    for attempt in range(MAX_RECOVERY_ROUNDS + 1):
        batch = {names[n]: units[n].module_text(names[n]) for n in pending}
        results = await parse_modules(
            sandbox, jar, {**batch, **(extra or {})} if attempt == 0 else batch,
            limits=limits, per_module_s=per_module_s, extra_files=extra_files)
        if attempt == 0:
            extra_results = {name: results[name] for name in extra or {}}
        retry = []
        for name in pending:
            last[name] = results[names[name]]
            rounds[name] = attempt + 1
            if last[name].ok or attempt == MAX_RECOVERY_ROUNDS:
                continue
            repaired = recover(units[name], last[name])
            if repaired != units[name]:
                units[name] = repaired
                retry.append(name)
        pending = retry
        if not pending:
            break
    return {
        name: ActionResult(
            name, last[name].ok, rounds[name], units[name].variables,
            tuple(stub for stub, _ in units[name].stubs),
            tuple(d.message for d in last[name].errors))
        for name in units
    }, extra_results
