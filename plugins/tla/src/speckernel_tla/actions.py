"""Per-action syntax credit: each top-level definition of a model checked alone by SANY.

SysMoBench's ``action_decomposition`` metric (notes §2; its syntax score is half compilation,
half this rate) cuts the model into its column-0 operator definitions, puts each in a module
``<Module>_<Name>`` extending the standard modules, and repairs what the definition needs from the
rest of the model: names SANY calls ``Unknown operator`` become ``VARIABLES`` when used as values
and ``Op(x1, ..., xn) == TRUE`` stubs when called, with SANY's ``requires N arguments`` correcting
an arity; up to five rounds, then a final verdict. Here every round parses all pending units in one
SanyBatch JVM, and beside each unit the declarations its next round will most likely need (the
model's own variables, constants and definitions that the unit names), so the usual two rounds
take one JVM. A guess only saves time: it is used when recovery from the unit's real SANY
messages asks for exactly those declarations, else the unit's next round runs as it would have.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
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
_DECLARATION = re.compile(r"^(?:CONSTANTS?|VARIABLES?)\b(?P<names>.*(?:\n[ \t]+.*)*)",
                          re.MULTILINE)
_IDENTIFIER = re.compile(r"(?<![A-Za-z0-9!])(?![WS]F_)[A-Za-z]\w*")
"""A name, also where it follows an underscore that is not its own (``[][Next]_vars``,
``WF_vars(Next)``)."""
_CALL = re.compile(r"\s*\(")
_TOKEN = re.compile(rf"{_IDENTIFIER.pattern}|[()\[\]{{}}]")
_COMMENT_OR_STRING = re.compile(r'\(\*.*?\*\)|\\\*[^\n]*|"(?:[^"\\]|\\.)*"', re.DOTALL)
GUESS_DIRECTORY = "guess"


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
    return declare(unit, result.unknown_operators, result.arities)


def declare(unit: Unit, unknown: Sequence[str], arities: Mapping[str, int]) -> Unit:
    """The unit with ``unknown`` names declared (a stub if the body only calls the name, else a
    variable) and the stubs or variables ``arities`` says take arguments made stubs of them."""
    variables = list(unit.variables)
    stubs = dict(unit.stubs)
    for name in unknown:
        if name in variables or name in stubs:
            continue
        arity = call_arity(unit.body, name)
        if arity is not None and not used_as_value(unit.body, name):
            stubs[name] = arity
        else:
            variables.append(name)
    for name, arity in arities.items():
        if name in variables:
            variables.remove(name)
            stubs[name] = arity
        elif name in stubs:
            stubs[name] = arity
    return attrs.evolve(unit, variables=tuple(variables), stubs=tuple(stubs.items()))


def model_names(texts: Iterable[str]) -> frozenset[str]:
    """The names the modules ``texts`` declare or define at top level: what SANY will call an
    ``Unknown operator`` when a unit of the model uses it."""
    names: set[str] = set()
    for text in texts:
        plain = without_comments(text)
        names.update(split_definitions(plain))
        for match in _DECLARATION.finditer(plain):
            names.update(_IDENTIFIER.findall(match.group("names")))
    return frozenset(names)


def guesses(unit: Unit, names: frozenset[str]) -> list[Unit]:
    """The units recovery will most likely make of ``unit``, round after round: the ``names``
    its body mentions (other than itself) declared in the order SANY reports them. SANY does not
    look into the arguments of an operator it does not know, so a name used only inside such a
    call is reported one round later, once the operator is declared."""
    body = without_comments(unit.body)
    unknown = names - {unit.name, *unit.variables, *(stub for stub, _ in unit.stubs)}
    found: dict[str, tuple[int, int]] = {}  # name -> (depth, position) where first reported
    enclosing: list[bool] = []  # open brackets: whether each is an unknown operator's arguments
    callee: str | None = None
    for token in _TOKEN.finditer(body):
        text = token.group(0)
        if text in "([{":
            enclosing.append(text == "(" and callee is not None)
        elif text in ")]}":
            if enclosing:
                enclosing.pop()
        elif text in unknown and not _is_field(body, token.start(), token.end()):
            depth = sum(enclosing)
            if depth < found.get(text, (depth + 1, 0))[0]:
                found[text] = (depth, token.start())
        callee = text if text in unknown and _CALL.match(body, token.end()) else None
    chain: list[Unit] = []
    current = unit
    for depth in sorted({d for d, _ in found.values()}):
        level = sorted((where, name) for name, (d, where) in found.items() if d == depth)
        current = declare(current, [name for _, name in level], {})
        chain.append(current)
    return chain


def without_comments(text: str) -> str:
    """``text`` without TLA+ comments and string literals (which name nothing), each replaced by
    a space."""
    return _COMMENT_OR_STRING.sub(" ", text)


def _is_field(body: str, start: int, end: int) -> bool:
    """Whether the identifier at ``body[start:end]`` is a record field: ``r.f``, or
    ``[f |-> v, g |-> w]`` (but not the domain of ``[t \\in S |-> v]``)."""
    before = body[:start].rstrip()
    return before.endswith(".") or (before.endswith(("[", ","))
                                    and body[end:].lstrip().startswith(("|->", ":")))


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
    known = model_names([text, *(extra_files or {}).values()])
    rounds = dict.fromkeys(units, 0)
    last: dict[str, SanyResult] = {}
    pending = list(units)
    extra_results: dict[str, SanyResult] = {}
    first = True
    while first or pending:  # the first JVM also parses ``extra``, units or not
        batch = dict(extra or {}) if first else {}
        speculated: dict[str, dict[Unit, str]] = {}
        for name in pending:
            batch[names[name]] = units[name].module_text(names[name])
            speculated[name] = {}
            for number, guessed in enumerate(guesses(units[name], known), start=1):
                key = f"{GUESS_DIRECTORY}{number}/{names[name]}"
                batch[key] = guessed.module_text(names[name])
                speculated[name][guessed] = key
        results = await parse_modules(sandbox, jar, batch, limits=limits,
                                      per_module_s=per_module_s, extra_files=extra_files)
        if first:
            extra_results, first = {name: results[name] for name in extra or {}}, False
        retry = []
        for name in pending:
            result = results[names[name]]
            while True:
                last[name], rounds[name] = result, rounds[name] + 1
                if result.ok or rounds[name] > MAX_RECOVERY_ROUNDS:
                    break
                repaired = recover(units[name], result)
                if repaired == units[name]:
                    break
                units[name] = repaired
                if repaired not in speculated[name]:
                    retry.append(name)
                    break
                result = results[speculated[name][repaired]]
        pending = retry
    return {
        name: ActionResult(
            name, last[name].ok, rounds[name], units[name].variables,
            tuple(stub for stub, _ in units[name].stubs),
            tuple(d.message for d in last[name].errors))
        for name in units
    }, extra_results
