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

The Python side of the rounds (cutting the model, the guesses, reading SANY's reports, recovery)
runs in a kernel worker (``ctx.run_sync``) through :func:`first_round` and :func:`next_round`,
which take and return plain data, and is linear in the model's size: a model of 16,000
definitions neither freezes the event loop nor takes quadratic time (issue 20).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from speckernel.components import VerifyContext
from speckernel.lines import LINE_END, split_lines
from speckernel.sandbox.base import Limits

from speckernel_tla.artifact import Deadline
from speckernel_tla.sany import SanyResult, parse_sany_output, run_batch

UNIT_EXTENDS = "TLC, Sequences, Bags, FiniteSets, Integers, Naturals"
"""What SysMoBench's unit modules extend (no SequencesExt: calls into it are stubbed)."""

MAX_RECOVERY_ROUNDS = 5

_DEFINITION = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\)\s*)?==(?!=)")
"""``Name ==`` or ``Name(p, q) ==``. The space after the parameters sits inside their optional
group: two adjacent ``\\s*`` (with the group skipped) split a run of spaces every way, quadratic
in a line of them."""
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
_FAIRNESS = ("WF_", "SF_")
"""What makes ``v(A)`` in ``WF_v(A)`` a subscript and its action, not a call of ``v``."""
_TOKEN = re.compile(rf"{_IDENTIFIER.pattern}|[()\[\]{{}}]")
_FIELD_AFTER = re.compile(r"\s*(?:\|->|:)")
_NAME = re.compile(r"(?<![\w!])[A-Za-z_]\w*")
_LEXEME = re.compile(r'\(\*|\*\)|\\\*|"')
_STRING_END = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)
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
    for line in split_lines(text):
        at_margin = bool(line) and not line[0].isspace()
        if at_margin and (match := _DEFINITION.match(line)):
            current = units[match.group("name")] = [line]
        elif at_margin and _TOP_LEVEL.match(line):
            current = None
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in units.items()}


@attrs.frozen
class Usage:
    """How a definition's body uses names: the argument count of each name's first call (as
    SysMoBench counts it for a stub: top-level commas plus one, 0 for empty parentheses) and the
    names it uses other than as a call."""

    arities: Mapping[str, int]
    values: frozenset[str]


@functools.lru_cache(maxsize=4096)
def body_usage(body: str) -> Usage:
    """The :class:`Usage` of ``body`` (comments and strings aside), in one pass over it: a name
    followed by ``(`` opens a call whose arguments run to the matching closing bracket. Whether a
    call is its name's first is a set lookup, not a scan of the open brackets (which made
    ``f0(f1(f2(...`` quadratic)."""
    text = without_comments(body)
    arities: dict[str, int] = {}
    values: set[str] = set()
    stack: list[list[Any]] = []  # open brackets: [first call of this name or None, commas, seen]
    called: set[str] = set()  # the names whose first call has opened: later calls are not it
    pending: str | None = None
    position, length = 0, len(text)
    while position < length:
        char = text[position]
        if char.isspace():
            position += 1
            continue
        if (word := _NAME.match(text, position)) is not None:
            if stack:
                stack[-1][2] = True
            name, position = word.group(), word.end()
            if _CALL.match(text, position):
                pending = name
            else:
                values.add(name)
            continue
        if stack and char not in ")]}":
            stack[-1][2] = True
        if char in "([{":
            first = pending if char == "(" and pending is not None and pending not in called \
                else None
            stack.append([first, 0, False])
            if first is not None:
                called.add(first)
        elif char in ")]}" and stack:
            first, commas, seen = stack.pop()
            if first is not None:
                arities[first] = commas + 1 if seen else 0
        elif char == "," and stack:
            stack[-1][1] += 1
        pending = None
        position += 1
    for first, commas, seen in stack:  # calls left open at the end of the body
        if first is not None:
            arities.setdefault(first, commas + 1 if seen else 0)
    return Usage(arities, frozenset(values))


def call_arity(body: str, name: str) -> int | None:
    """How many arguments the first call ``name(...)`` in ``body`` passes, or None if ``name``
    is never called."""
    return body_usage(body).arities.get(name)


def used_as_value(body: str, name: str) -> bool:
    """Whether ``name`` occurs in ``body`` other than as a call."""
    return name in body_usage(body).values


def recover(unit: Unit, result: SanyResult) -> Unit:
    """The unit with declarations for what SANY could not resolve (unchanged if nothing new)."""
    return declare(unit, result.unknown_operators, result.arities)


def declare(unit: Unit, unknown: Sequence[str], arities: Mapping[str, int]) -> Unit:
    """The unit with ``unknown`` names declared (a stub if the body only calls the name, else a
    variable) and the stubs or variables ``arities`` says take arguments made stubs of them."""
    usage = body_usage(unit.body)
    variables = dict.fromkeys(unit.variables)
    stubs = dict(unit.stubs)
    for name in unknown:
        if name in variables or name in stubs:
            continue
        arity = usage.arities.get(name)
        if arity is not None and name not in usage.values:
            stubs[name] = arity
        else:
            variables[name] = None
    for name, arity in arities.items():
        if name in variables:
            del variables[name]
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
    call is reported one round later, once the operator is declared.

    At most :data:`MAX_RECOVERY_ROUNDS` units: recovery makes no more of a unit (see
    :func:`next_round`), and each guess holds all the declarations of the ones before it, so a
    longer chain (one guess per level of ``f0(v0, f1(v1, ...))``) made the batch quadratic in the
    nesting. Linear in the body: the model's names are only looked up, and the depth of each
    name is a running count of the enclosing unknown operators' arguments."""
    body = without_comments(unit.body)
    own = {unit.name, *unit.variables, *(stub for stub, _ in unit.stubs)}
    found: dict[str, tuple[int, int]] = {}  # name -> (depth, position) where first reported
    enclosing: list[bool] = []  # open brackets: whether each is an unknown operator's arguments
    depth = 0  # how many of the open brackets are an unknown operator's arguments
    callee: str | None = None
    for token in _TOKEN.finditer(body):
        text = token.group(0)
        unknown = text in names and text not in own
        if text in "([{":
            arguments = text == "(" and callee is not None
            enclosing.append(arguments)
            depth += arguments
        elif text in ")]}":
            if enclosing:
                depth -= enclosing.pop()
        elif unknown and not _is_field(body, token.start(), token.end()) \
                and depth < found.get(text, (depth + 1, 0))[0]:
            found[text] = (depth, token.start())
        callee = text if unknown and _CALL.match(body, token.end()) and body[
            max(token.start() - 3, 0):token.start()] not in _FAIRNESS else None
    levels: dict[int, list[tuple[int, str]]] = {}  # depth -> (position, name) reported there
    for name, (level, where) in found.items():
        levels.setdefault(level, []).append((where, name))
    chain: list[Unit] = []
    current = unit
    for level in sorted(levels)[:MAX_RECOVERY_ROUNDS]:
        current = declare(current, [name for _, name in sorted(levels[level])], {})
        chain.append(current)
    return chain


def without_comments(text: str, *, keep_strings: bool = False) -> str:
    """``text`` without TLA+ comments (``(* *)``, which nest, and ``\\*`` to the end of the
    line, which a lone carriage return ends too) and string literals (which name nothing; kept
    with ``keep_strings``), each replaced by a space. One pass: an unclosed comment or string
    runs to the end, as SANY reads it."""
    out: list[str] = []
    position, length = 0, len(text)
    while position < length:
        lexeme = _LEXEME.search(text, position)
        if lexeme is None:
            out.append(text[position:])
            break
        out.append(text[position:lexeme.start()])
        kind, position = lexeme.group(), lexeme.end()
        if kind == "\\*":  # to the end of the line, where SANY ends lines: \n, \r\n or \r
            line_end = LINE_END.search(text, position)
            position = length if line_end is None else line_end.start()
        elif kind == '"':
            string = _STRING_END.match(text, position)
            start, position = lexeme.start(), string.end() if string else length
            if keep_strings:
                out.append(text[start:position])
                continue
        elif kind == "(*":
            depth = 1
            while depth and (inner := _LEXEME.search(text, position)) is not None:
                position = inner.end()
                depth += {"(*": 1, "*)": -1}.get(inner.group(), 0)
                if inner.group() == "\\*":  # a line comment inside: its text is inert
                    continue
            if depth:
                position = length
        else:  # a stray "*)"
            out.append(kind)
            continue
        out.append(" ")
    return "".join(out)


def _is_field(body: str, start: int, end: int) -> bool:
    """Whether the identifier at ``body[start:end]`` is a record field: ``r.f`` (but not the
    bound of a range ``1 .. N``), or ``[f |-> v, g |-> w]`` (but not the domain of
    ``[t \\in S |-> v]``)."""
    before = start - 1
    while before >= 0 and body[before].isspace():
        before -= 1
    mark = body[before] if before >= 0 else ""
    if mark == ".":
        return before == 0 or body[before - 1] != "."
    return mark in "[," and _FIELD_AFTER.match(body, end) is not None


# --------------------------------------------------------------------------- the rounds
#
# The state of the rounds is plain data, so that a kernel worker can hold the Python work:
# ``units`` maps a definition's name to [body, variables, stubs ([name, arity] pairs)], ``rounds``
# and ``last`` (ok, error messages) record each unit's SANY runs, ``pending`` the units whose
# next round needs a JVM, ``batch`` the modules that JVM parses, and ``speculated`` which module
# of the batch holds each guessed declaration set of a pending unit.


def _plain(unit: Unit) -> list[Any]:
    return [unit.body, list(unit.variables), [list(stub) for stub in unit.stubs]]


def _unit(name: str, plain: Sequence[Any]) -> Unit:
    body, variables, stubs = plain
    return Unit(name, body, tuple(variables), tuple((s, int(a)) for s, a in stubs))


def _with_batch(state: dict[str, Any], extra: Mapping[str, str]) -> dict[str, Any]:
    """``state`` with the batch of its pending units (and their guesses) and ``extra``."""
    module, known = state["module"], frozenset(state["known"])
    batch = dict(extra)
    speculated: dict[str, list[list[Any]]] = {}
    for name in state["pending"]:
        unit = _unit(name, state["units"][name])
        key = f"{module}_{name}"
        batch[key] = unit.module_text(key)
        speculated[name] = []
        for number, guessed in enumerate(guesses(unit, known), start=1):
            path = f"{GUESS_DIRECTORY}{number}/{key}"
            batch[path] = guessed.module_text(key)
            speculated[name].append([_plain(guessed), path])
    return {**state, "batch": batch, "speculated": speculated}


def first_round(module: str, text: str, others: Sequence[str],
                extra: Mapping[str, str]) -> dict[str, Any]:
    """The rounds' starting state for the model ``text`` of ``module`` (``others``: the texts
    of the candidate's other modules), its first batch parsing ``extra`` too (run in a worker)."""
    units = {name: _plain(Unit(name, body)) for name, body in split_definitions(text).items()}
    state = {"module": module, "units": units, "known": sorted(model_names([text, *others])),
             "rounds": dict.fromkeys(units, 0), "last": {}, "pending": list(units)}
    return _with_batch(state, extra)


def next_round(state: dict[str, Any], outputs: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """Read a batch's SANY outputs (``[output, exit code or None, timed out]`` per module),
    recover each pending unit as far as its guesses reach, and plan the next batch (run in a
    worker). The state's ``pending`` is empty when every unit has its verdict."""
    module = state["module"]
    units, rounds, last = dict(state["units"]), dict(state["rounds"]), dict(state["last"])
    retry = []
    for name in state["pending"]:
        unit = _unit(name, units[name])
        guessed = {tuple(map(_freeze, plain)): path for plain, path in state["speculated"][name]}
        key = f"{module}_{name}"
        result = _result(key, outputs[key])
        while True:
            rounds[name] += 1
            last[name] = [result.ok, [d.message for d in result.errors]]
            if result.ok or rounds[name] > MAX_RECOVERY_ROUNDS:
                break
            repaired = recover(unit, result)
            if repaired == unit:
                break
            unit = repaired
            path = guessed.get(tuple(map(_freeze, _plain(unit))))
            if path is None:
                retry.append(name)
                break
            result = _result(key, outputs[path])
        units[name] = _plain(unit)
    state = {**state, "units": units, "rounds": rounds, "last": last, "pending": retry}
    return _with_batch(state, {})


def _freeze(value: Any) -> Any:
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def _result(module: str, raw: Sequence[Any]) -> SanyResult:
    output, code, timed_out = raw
    return parse_sany_output(module.rpartition("/")[2], output, code, bool(timed_out))


def action_results(state: Mapping[str, Any]) -> dict[str, ActionResult]:
    """The verdicts of the finished rounds, per definition."""
    return {name: ActionResult(name, bool(state["last"][name][0]), state["rounds"][name],
                               tuple(plain[1]), tuple(stub for stub, _ in plain[2]),
                               tuple(state["last"][name][1]))
            for name, plain in state["units"].items()}


async def check_actions(
    ctx: VerifyContext,
    jar: Path,
    module: str,
    text: str,
    *,
    limits: Limits,
    deadline: Deadline,
    per_module_s: float = 30.0,
    extra: Mapping[str, str] | None = None,
    extra_files: Mapping[str, str] | None = None,
) -> tuple[dict[str, ActionResult], dict[str, SanyResult]]:
    """Check every definition of ``text`` alone, with recovery rounds, within ``deadline``.

    ``extra`` (module name -> text) is parsed in the first round's JVM too, so a caller checking
    the whole model pays no extra JVM start; its results come back as the second value.
    ``extra_files`` are placed beside every module (the model's other modules).
    """
    extra = dict(extra or {})
    state = await ctx.run_sync(first_round, module, text, list((extra_files or {}).values()),
                               extra)
    extra_results: dict[str, SanyResult] = {}
    while state["batch"]:
        outputs = await run_batch(ctx.sandbox, jar, state["batch"], limits=limits,
                                  deadline=deadline, per_module_s=per_module_s,
                                  extra_files=extra_files)
        if not extra_results and extra:
            extra_results = {name: _result(name, outputs[name]) for name in extra}
        if not state["pending"]:
            break
        state = await ctx.run_sync(next_round, state, outputs)
    return action_results(state), extra_results
