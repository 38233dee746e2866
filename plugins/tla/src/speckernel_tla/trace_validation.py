"""The TLA+ module that checks NDJSON traces against a model, built from a ``mapping.yaml``.
Pure: text in, text out; :mod:`speckernel_tla.conformance` runs it with TLC.

SysMoBench validates traces (§3.2; notes §3) with ``TraceSpec.tla``, which reads the trace with
the CommunityModules' ``Json`` module and accepts it through a ``POSTCONDITION``; the TLC here has
neither (notes §7). So, as notes §8 tried, the module built here EXTENDS the model and embeds the
traces as TLA+ sequences of records. It reports what TLC finds as ``PrintT`` facts, printed once
each and as soon as found, so that a run stopped by its budget still tells how far it got.

Mapping (format: ``artifacts/README.md``). ``constants`` are expressions over ``TraceFirst`` (the
first line) and ``SetOf(seq)``; ``init.fields`` are state expressions equal to the first line's
fields in the initial state; ``events.<E>.action`` is the model action a line of event ``E`` is a
step of, and its ``fields`` and ``checks`` are action-level expressions (primed: post-state) over
the line ``e``. A line's *logged fields* are its ``fields`` equalities and its ``checks``. Model
variables that no field mentions are free: TLC searches over them.

The module checks a *group* of traces that share their first line (and so the constants). Let
``Init`` and ``Next`` be the model's and ``L`` the length of the group's longest trace. TLC
explores four kinds of states, told apart by ``sk_mode``:

* ``"trace"`` (SysMoBench's whole-trace validation): trace ``sk_a`` with lines ``1..sk_b``
  matched. Initial: an ``Init`` state satisfying line 1's init fields; a step matches line ``b+1``
  when it is a step of the line's action satisfying its logged fields. Fact ``line t b``.
* ``"free"``: the model itself, from ``Init`` by ``Next``, expanded up to level ``L - 2``.
* ``"pre"``: a window's pre-state ``s'`` with the set ``sk_a`` of records it is a pre-state for:
  record 1 (the first line) when ``s'`` is an ``Init`` state satisfying the init fields; record
  ``p`` when ``s -> s'`` is a ``Next`` step from a free state ``s`` that satisfies ``p``'s logged
  fields, and ``s'`` is no deeper than the last line ``p`` stands for that has a line after it.
* ``"win"``: a step from a pre-state of record ``p`` that matches record ``q``, which passes the
  window of ``q`` after ``p``. Fact ``win p q n``, ``n`` the level of the pre-state.

TLC's BFS reaches every state first at its smallest level (the length of the shortest behaviour to
it, ``Init`` states at level 1), and each fact is printed when first found: so ``n`` is the least
level of a pre-state of ``p`` from which ``q`` can be taken, and the window of line ``i`` passes
iff ``n <= i - 1``: some behaviour of at most ``i`` states ends with a step matching line ``i``
after a step agreeing with line ``i - 1``'s logged fields.

Records are the lines reduced to ``event`` and the fields the mapping reads, and deduplicated,
so a window is a pair of records. ``VIEW`` folds the marker modes ``line`` and ``win`` to their
fact, and an ``INVARIANT`` prints each new marker state: each fact is printed once. The model
must define ``vars`` (the tuple of its variables), as SysMoBench's ``TraceSpec`` requires.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Mapping, Sequence

import attrs
from speckernel.lines import split_lines

from speckernel_tla import fact_tags, json_lines
from speckernel_tla.cfg_tampering import module_names
from speckernel_tla.tlc_config import assignments, sections

MODULE_PREFIX = "SpeckernelTrace"
TRACE_SEARCH = "SkTraceSearch"
"""The trace module's predicate of the whole-trace search's states (modes ``trace`` and ``line``),
which the state budget spares: the traces bound that search, the budget is for the windows'."""
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TLC_INT = range(-(2**31), 2**31)
_FIRST_FIELD = re.compile(r"\bTraceFirst\.([A-Za-z_]\w*)")
_SANY_LOCATION = re.compile(r"line (\d+), col \d+ to line \d+, col \d+ of module (\S+)")
_SANY_NOISE = re.compile(r"Parsing file |Semantic processing of module |\[[\d.]+s\]\[")
_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f"}


class InputError(ValueError):
    """A mapping or a trace that cannot be turned into a TLA+ module (the message says why)."""


# --------------------------------------------------------------------------- mapping


@attrs.frozen
class EventMap:
    """How the lines of one trace event map onto the model: the action they are steps of,
    trace field -> action-level expression, and extra action-level predicates."""

    event: str
    action: str
    fields: tuple[tuple[str, str], ...] = ()
    checks: tuple[str, ...] = ()

    @property
    def reads(self) -> frozenset[str]:
        """The fields of a line that the mapping reads (``e.<f>`` anywhere, or a mapped field)."""
        texts = (self.action, *(expr for _, expr in self.fields), *self.checks)
        return frozenset({"event", *(f for f, _ in self.fields),
                          *(f for t in texts for f in _field_reads(t))})


@attrs.frozen
class TraceMapping:
    """A parsed ``mapping.yaml``: constants, the first line's event and fields, the events."""

    constants: tuple[tuple[str, str], ...]
    init_event: str
    init_fields: tuple[tuple[str, str], ...]
    events: tuple[EventMap, ...]

    def event(self, name: str) -> EventMap | None:
        return next((e for e in self.events if e.event == name), None)

    @property
    def first_reads(self) -> frozenset[str]:
        """The fields of the first line that the mapping reads (init fields, ``TraceFirst.f``)."""
        refs = (m.group(1) for _, expr in self.constants for m in _FIRST_FIELD.finditer(expr))
        return frozenset({"event", *(f for f, _ in self.init_fields), *refs})

    def reads(self, record: Mapping[str, object], first: bool) -> frozenset[str]:
        if first:
            return self.first_reads
        mapped = self.event(str(record.get("event")))
        return mapped.reads if mapped else frozenset({"event"})


def _table(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise InputError(f"{where} must be a mapping with string keys")
    return value


def _text(value: object, where: str) -> str:
    """A TLA+ expression of the mapping on one line (it is spliced into one-line definitions, so
    line breaks become spaces and a ``\\*`` comment would swallow the rest)."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where} must be a non-empty string of TLA+")
    return " ".join(value.split())


def _identifier(name: str, where: str) -> str:
    if not IDENTIFIER.fullmatch(name):
        raise InputError(f"{where}: {name!r} is not a TLA+ identifier")
    return name


def _expressions(value: object, where: str) -> tuple[tuple[str, str], ...]:
    table = _table({} if value is None else value, where)
    return tuple((_identifier(k, where), _text(v, f"{where}.{k}")) for k, v in table.items())


def _event_map(name: str, value: object) -> EventMap:
    where = f"events.{name}"
    spec = _table(value, where)
    checks = spec.get("checks") or []
    if not isinstance(checks, list):
        raise InputError(f"{where}.checks must be a list of TLA+ predicates")
    tla_string(name, where)
    return EventMap(name, _text(spec.get("action"), f"{where}.action"),
                    _expressions(spec.get("fields"), f"{where}.fields"),
                    tuple(_text(c, f"{where}.checks") for c in checks))


def parse_mapping(raw: object) -> TraceMapping:
    """Validate a loaded ``mapping.yaml``; ``InputError`` names the first problem. Only
    ``constants``, ``init`` and ``events`` are read: ``module`` (the model is the task's),
    ``variables`` and ``actor_field`` are documentation."""
    root = _table(raw, "the mapping")
    events = _table(root.get("events"), "events")
    if not events:
        raise InputError("events must map at least one trace event")
    init = _table(root.get("init") or {}, "init")
    init_event = init.get("event", "Init")
    if not isinstance(init_event, str):
        raise InputError("init.event must be a string")
    tla_string(init_event, "init.event")
    return TraceMapping(
        constants=_expressions(root.get("constants"), "constants"),
        init_event=init_event,
        init_fields=_expressions(init.get("fields"), "init.fields"),
        events=tuple(_event_map(name, spec) for name, spec in events.items()),
    )


def introduced_names(model: str, config: ModelConfig, mapping: TraceMapping,
                     group: Group) -> frozenset[str]:
    """The names the validation module of ``mapping`` defines, declares or makes variables:
    read from the module built with every expression of the mapping ``TRUE``, so a name a
    mapping's own ``LET`` defines is not among them."""
    def blank(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        return tuple((name, "TRUE") for name, _ in pairs)

    shape = attrs.evolve(mapping, constants=blank(mapping.constants),
                         init_fields=blank(mapping.init_fields),
                         events=tuple(attrs.evolve(e, action="TRUE", fields=blank(e.fields),
                                                   checks=("TRUE",) * len(e.checks))
                                      for e in mapping.events))
    return module_names(trace_module(model, config, shape, group, fact_tags.new_tag())[1])


def mapping_problem(own: TraceMapping, task: TraceMapping | None,
                    introduced: frozenset[str]) -> str | None:
    """Why a candidate's own mapping ``own`` cannot be used to judge it (None if it can), where
    ``task`` is the task's mapping and ``introduced`` the names the validation module defines.

    A mapping is verification criteria, and a candidate writing its own could write vacuous
    ones. So every expression of it must be one TLA+ expression (brackets balanced, no comment:
    ``TRUE) \\/ (TRUE`` made a field's comparison ``(TRUE) \\/ (TRUE) = e.f``) naming none of
    the validation module's definitions (``SetOf`` aside, and ``TraceFirst`` in constants); a
    field's expression may read of the line ``e`` only ``e.x`` for the fields ``x`` the task's
    expression for the same field reads (without a task mapping: any field but its own), so it
    cannot compare the line with itself; it maps every initial and event field the task's
    mapping maps; and each event reads, in its action, checks or fields, every field of the line
    the task's checks for that event read (a mapping leaving out rwlock's ``woken`` check left
    which threads a broadcast woke unchecked). (Actions and checks may read the line freely: a
    step must be one of the model's, and a check only narrows. A check may still be weaker
    than the task's: what it says is in the candidate's vocabulary, which this does not read.)"""
    helpers = frozenset({"SetOf"})
    texts = [(f"constants.{c}", t, helpers | {"TraceFirst"}) for c, t in own.constants]
    texts += [(_place(key), t, helpers) for key, t in _fields(own).items()]
    for event in own.events:
        texts += [(f"events.{event.event}.action", event.action, helpers)]
        texts += [(f"events.{event.event}.checks", t, helpers) for t in event.checks]
    for place, text, allowed in texts:
        if (why := _not_one_expression(text)) is not None:
            return f"{place}: {why}"
        named = sorted(set(IDENTIFIER.findall(re.sub(_TLA_STRING, '""', text)))
                       & (introduced - allowed))
        if named:
            return f"{place} names {named[0]}, a definition of the validation module"
    reference = {key: _field_reads(t) for key, t in _fields(task).items()} if task else None
    for key, text in _fields(own).items():
        readable = None if reference is None else reference.get(key, frozenset())
        for match in _E_USE.finditer(re.sub(_TLA_STRING, '""', text)):
            read = match.group(1)
            if read is None or (read == key[1] if readable is None else read not in readable):
                return (f"{_place(key)} reads {match.group()} of the trace line: a field is "
                        f"compared with the model, not with the line")
    missing = sorted(set(reference or ()) - set(_fields(own)), key=_place)
    if missing:
        return f"{_place(missing[0])} is missing: the task's mapping checks that field"
    for checked in task.events if task else ():
        mine = own.event(checked.event)
        wanted = frozenset().union(*map(_field_reads, checked.checks))
        if mine is None or not wanted:
            continue  # an event the mapping leaves out fails every line of it
        if lost := sorted(wanted - mine.reads):
            return (f"events.{checked.event} does not read e.{lost[0]}: the task's mapping "
                    f"checks that field of the line")
    return None


def _fields(mapping: TraceMapping) -> dict[tuple[str | None, str], str]:
    """The mapping's field expressions by (event, field), the initial ones under event None."""
    found: dict[tuple[str | None, str], str] = {(None, f): t for f, t in mapping.init_fields}
    for event in mapping.events:
        found |= {(event.event, f): t for f, t in event.fields}
    return found


def _place(key: tuple[str | None, str]) -> str:
    event, field = key
    return f"init.fields.{field}" if event is None else f"events.{event}.fields.{field}"


_TLA_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_E_USE = re.compile(r"(?<![\w.!])e\b(?:\s*\.\s*([A-Za-z_]\w*))?")
"""A use of the trace line ``e`` in an expression: ``e.x`` (group 1 the field), or ``e`` any
other way (``e["x"]``, ``LET r == e``, a bound ``e``), which could read any field."""
_COMMENT = re.compile(r"\(\*|\*\)|\\\*")
_OPENING, _CLOSING = "([{", ")]}"


def _field_reads(text: str) -> frozenset[str]:
    """The fields of the line ``e`` an expression reads as ``e.x``."""
    code = re.sub(_TLA_STRING, '""', text)
    return frozenset(m.group(1) for m in _E_USE.finditer(code) if m.group(1) is not None)


def _not_one_expression(text: str) -> str | None:
    """Why ``text`` is not one expression spliced between parentheses (None if it is): a
    string never closed, a comment, or brackets that do not balance."""
    if text.count('"') and re.sub(_TLA_STRING, "", text).count('"'):
        return "a string is never closed"
    code = re.sub(_TLA_STRING, '""', text)
    if _COMMENT.search(code):
        return "a comment in an expression"
    open_brackets: list[str] = []
    for char in code:
        if char in _OPENING:
            open_brackets.append(_CLOSING[_OPENING.index(char)])
        elif char in _CLOSING and (not open_brackets or open_brackets.pop() != char):
            return "brackets that do not balance"
    return "brackets that do not balance" if open_brackets else None


# --------------------------------------------------------------------------- traces


@attrs.frozen
class Trace:
    """An NDJSON trace: its records and, for each, its line number in the file (blank lines are
    skipped, so the two can differ)."""

    key: str
    records: tuple[Mapping[str, object], ...]
    lines: tuple[int, ...]

    def event(self, index: int) -> str:
        """The event of the record at 1-based ``index``."""
        return str(self.records[index - 1]["event"])


def parse_trace(key: str, text: str) -> Trace:
    """Read an NDJSON trace: one JSON object per line, each with a string ``event``."""
    records: list[Mapping[str, object]] = []
    lines: list[int] = []
    for number, line in json_lines.lines(text):
        try:
            record = json_lines.decode(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{key}:{number}: not JSON ({exc.msg})") from None
        except ValueError as exc:
            raise InputError(f"{key}:{number}: not JSON ({exc})") from None
        if not isinstance(record, dict) or not isinstance(record.get("event"), str):
            raise InputError(f"{key}:{number}: not a JSON object with a string `event`")
        records.append(record)
        lines.append(number)
    if not records:
        raise InputError(f"{key}: the trace is empty")
    return Trace(key, tuple(records), tuple(lines))


def project(trace: Trace, mapping: TraceMapping) -> tuple[str, ...]:
    """Each record of ``trace`` as a TLA+ record of ``event`` and the fields the mapping reads.
    ``InputError`` if a record lacks one of them or holds a value TLA+ cannot represent."""
    out = []
    for index, record in enumerate(trace.records):
        where = f"{trace.key}:{trace.lines[index]}"
        reads = mapping.reads(record, first=index == 0)
        missing = sorted(reads - set(record))
        if missing:
            raise InputError(f"{where}: the mapping reads field(s) {', '.join(missing)} of event "
                             f"{record['event']}, which the line lacks")
        out.append(tla_value({f: v for f, v in record.items() if f in reads}, where))
    return tuple(out)


def tla_string(text: str, where: str) -> str:
    """A TLA+ string literal; ``InputError`` for characters TLA+ strings cannot hold."""
    if any(not (" " <= c <= "~" or c in _STRING_ESCAPES) for c in text):
        raise InputError(f"{where}: {text!r} has characters a TLA+ string cannot hold")
    return '"' + "".join(_STRING_ESCAPES.get(c, c) for c in text) + '"'


def tla_value(value: object, where: str) -> str:
    """A JSON value as a TLA+ value: objects are records, arrays sequences, ``null`` is the
    string ``"null"`` (SysMoBench's ``TraceNil``); fractions and integers outside TLC's 32-bit
    range are ``InputError``."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int) and value in TLC_INT:
        return str(value)
    if isinstance(value, str):
        return tla_string(value, where)
    if value is None:
        return '"null"'
    if isinstance(value, list):
        return "<<" + ", ".join(tla_value(v, where) for v in value) + ">>"
    if isinstance(value, dict) and value:
        return "[" + ", ".join(f"{_identifier(k, where)} |-> {tla_value(v, where)}"
                               for k, v in value.items()) + "]"
    if isinstance(value, dict):
        return "[sk_none \\in {} |-> 0]"
    raise InputError(f"{where}: {value!r} has no TLA+ value here")


# --------------------------------------------------------------------------- model config

_CFG_NAME = re.compile(r"\s*([A-Za-z_]\w*)")


@attrs.frozen
class ModelConfig:
    """What the trace module takes from the model's TLC configuration: the initial predicate
    and the next-state relation (the operators ``INIT`` and ``NEXT`` name, else the parts of
    the ``SPECIFICATION`` formula, else ``Init`` and ``Next``) as TLA+ expressions, and the constant
    assignments, each as its cfg text (``N = 3``, ``Nil = Nil``, ``C <- Def``)."""

    init: str = "Init"
    next: str = "Next"
    constants: tuple[tuple[str, str], ...] = ()
    definitions: tuple[str, ...] = ()
    """Lines defining what ``init`` and ``next`` name, when they are the parts of a formula
    (:mod:`speckernel_tla.specification`), in the module that checks the traces."""


def read_config(text: str) -> ModelConfig:
    """The parts of a cfg the trace module keeps: the operators ``INIT`` and ``NEXT`` name (a
    ``SPECIFICATION``'s parts are read as SANY resolves the formula,
    :mod:`speckernel_tla.specification`) and the constant assignments; the cfg's invariants,
    properties, constraints and symmetry do not apply to trace validation."""
    names: dict[str, str] = {}
    constants: list[tuple[str, str]] = []
    for keyword, section in sections(text):
        if keyword in ("INIT", "NEXT") and (name := _CFG_NAME.match(section)):
            names[keyword] = name.group(1)
        elif keyword.startswith("CONSTANT"):
            constants.extend(assignments(section))
    return ModelConfig(names.get("INIT", "Init"), names.get("NEXT", "Next"), tuple(constants))


# --------------------------------------------------------------------------- groups


@attrs.frozen
class Group:
    """Traces checked in one TLC run: they share their first line. ``records`` are the distinct
    TLA+ records (index 0 is the shared first line, which never stands for a later line);
    ``ids[t][i]`` is the 1-based record id of line ``i + 1`` of trace ``t``."""

    traces: tuple[Trace, ...]
    records: tuple[str, ...]
    ids: tuple[tuple[int, ...], ...]

    @property
    def longest(self) -> int:
        return max(len(t) for t in self.ids)

    def window(self, trace: int, line: int) -> tuple[int, int]:
        """The (pre, step) record ids of the window of 1-based ``line`` (>= 2) of ``trace``."""
        ids = self.ids[trace]
        return ids[line - 2], ids[line - 1]

    def successors(self) -> list[list[int]]:
        """For each record id, the sorted ids of the records that follow it somewhere."""
        after: list[set[int]] = [set() for _ in self.records]
        for ids in self.ids:
            for p, q in itertools.pairwise(ids):
                after[p - 1].add(q)
        return [sorted(s) for s in after]

    def last_followed(self) -> list[int]:
        """For each record id, the last line that stands for it and has a line after it (0:
        none): its windows' pre-states lie no deeper than that level."""
        last = [0] * len(self.records)
        for ids in self.ids:
            for line, p in enumerate(ids[:-1], 1):
                last[p - 1] = max(last[p - 1], line)
        return last


def group_traces(traces: Sequence[Trace], mapping: TraceMapping) -> list[Group]:
    """Traces grouped by their first line (as the mapping reads it), in first-seen order."""
    projected: dict[str, list[tuple[Trace, tuple[str, ...]]]] = {}
    for trace in traces:
        values = project(trace, mapping)
        projected.setdefault(values[0], []).append((trace, values))
    return [_group(members) for members in projected.values()]


def _group(members: list[tuple[Trace, tuple[str, ...]]]) -> Group:
    first = members[0][1][0]
    index: dict[str, int] = {}
    records = [first]
    ids = []
    for _, values in members:
        row = [1]
        for value in values[1:]:
            if value not in index:
                records.append(value)
                index[value] = len(records)
            row.append(index[value])
        ids.append(tuple(row))
    return Group(tuple(t for t, _ in members), tuple(records), tuple(ids))


# --------------------------------------------------------------------------- module text


def _conjunction(parts: Sequence[str]) -> str:
    return " /\\ ".join(f"({p})" for p in parts) if parts else "TRUE"


def _disjunction(cases: Sequence[str]) -> str:
    return "\n".join(f"    \\/ {c}" for c in cases) if cases else "    FALSE"


def _logged(event: EventMap) -> list[str]:
    return [f"({expr}) = e.{field}" for field, expr in event.fields] + list(event.checks)


def _event_operators(mapping: TraceMapping, step: str) -> list[str]:
    """Per event, its logged fields and its step: the mapped action, which must also be a step
    of the model's next-state relation ``step`` (a mapping cannot make up transitions the model
    does not have: an action ``TRUE`` or ``x' = e.x`` only picks among the model's steps)."""
    defs = []
    for n, event in enumerate(mapping.events, 1):
        defs.append(f"SkLogged{n}(e) == {_conjunction(_logged(event))}")
        defs.append(f"SkStep{n}(e) == ({event.action}) /\\ ({step}) /\\ SkLogged{n}(e)")
    cases = [(tla_string(e.event, "event"), n) for n, e in enumerate(mapping.events, 1)]
    for kind in ("Logged", "Step"):
        body = _disjunction([f"(e.event = {name} /\\ Sk{kind}{n}(e))" for name, n in cases])
        defs.append(f"Sk{kind}(e) ==\n{body}")
    return defs


def _sequence(items: Sequence[str]) -> str:
    return "<<\n    " + ",\n    ".join(items) + ">>" if items else "<<>>"


def trace_module(model: str, config: ModelConfig, mapping: TraceMapping,
                 group: Group, tag: str) -> tuple[str, str, str]:
    """The trace-validation module for ``group`` against module ``model``: (name, TLA+, cfg).
    It prints its facts with ``tag`` (:mod:`speckernel_tla.fact_tags`)."""
    name = f"{MODULE_PREFIX}_{model}"
    init_event = tla_string(mapping.init_event, "init.event")
    init_logged = [f"e.event = {init_event}",
                   *(f"({expr}) = e.{field}" for field, expr in mapping.init_fields)]
    successors = ["{" + ", ".join(map(str, s)) + "}" for s in group.successors()]
    ids = ["<<" + ", ".join(map(str, row)) + ">>" for row in group.ids]
    last = ", ".join(map(str, group.last_followed()))
    text = "\n".join([
        f"---- MODULE {name} ----",
        f"EXTENDS {model}, Integers, Sequences, TLC",
        "VARIABLES sk_mode, sk_a, sk_b",
        "",
        f"TraceFirst == {group.records[0]}",
        "SetOf(s) == {s[k] : k \\in DOMAIN s}",
        f"SkRec == {_sequence(['TraceFirst', *group.records[1:]])}",
        f"SkTraces == {_sequence(ids)}",
        f"SkSucc == {_sequence(successors)}",
        f"SkLast == <<{last}>>",
        f"SkDepth == {group.longest - 1}",
        *(f"SkConst_{c} == {expr}" for c, expr in mapping.constants),
        *config.definitions,
        "",
        f"SkInitLogged(e) == {_conjunction(init_logged)}",
        *_event_operators(mapping, config.next),
        "",
        _TEMPLATE.format(init=config.init, next=config.next,
                         line=fact_tags.report(tag, '"line"', "sk_a", "sk_b", "0"),
                         win=fact_tags.report(tag, '"win"', "sk_a[1]", "sk_b", "sk_a[2]")),
    ])
    mapped = {c for c, _ in mapping.constants}
    constants = [f"    {c} <- SkConst_{c}" for c in sorted(mapped)]
    constants += [f"    {text}" for c, text in config.constants if c not in mapped]
    cfg = "\n".join(["INIT SkInit", "NEXT SkNext", "VIEW SkView", "INVARIANT SkReport",
                     *(["CONSTANTS", *constants] if constants else []), ""])
    return name, text, cfg


_TEMPLATE = """\
SkInit ==
    /\\ {init}
    /\\ \\/ /\\ SkInitLogged(TraceFirst)
          /\\ \\/ sk_mode = "trace" /\\ sk_a \\in 1..Len(SkTraces) /\\ sk_b = 1
             \\/ sk_mode = "pre" /\\ sk_a = {{1}} /\\ sk_b = 0
       \\/ sk_mode = "free" /\\ sk_a = 0 /\\ sk_b = 0

SkTrace ==
    /\\ sk_mode = "trace"
    /\\ sk_b < Len(SkTraces[sk_a])
    /\\ SkStep(SkRec[SkTraces[sk_a][sk_b + 1]])
    /\\ sk_b' = sk_b + 1
    /\\ UNCHANGED <<sk_mode, sk_a>>

SkReach ==
    /\\ sk_mode = "trace"
    /\\ sk_mode' = "line"
    /\\ UNCHANGED <<vars, sk_a, sk_b>>

SkArm(P) == P # {{}} /\\ sk_mode' = "pre" /\\ sk_a' = P /\\ sk_b' = 0

SkFree ==
    /\\ sk_mode = "free"
    /\\ TLCGet("level") < SkDepth
    /\\ {next}
    /\\ \\/ UNCHANGED <<sk_mode, sk_a, sk_b>>
       \\/ SkArm({{p \\in 2..Len(SkRec) :
                    TLCGet("level") < SkLast[p] /\\ SkLogged(SkRec[p])}})

SkWindow ==
    /\\ sk_mode = "pre"
    /\\ \\E p \\in sk_a : \\E q \\in SkSucc[p] :
          /\\ SkStep(SkRec[q])
          /\\ sk_a' = <<p, TLCGet("level")>>
          /\\ sk_b' = q
    /\\ sk_mode' = "win"

SkNext == SkTrace \\/ SkReach \\/ SkFree \\/ SkWindow

SkTraceSearch == sk_mode \\in {{"trace", "line"}}

SkView ==
    CASE sk_mode = "line" -> <<sk_mode, sk_a, sk_b>>
      [] sk_mode = "win" -> <<sk_mode, sk_a[1], sk_b>>
      [] OTHER -> <<vars, sk_mode, sk_a, sk_b>>

SkReport ==
    /\\ sk_mode = "line" => {line}
    /\\ sk_mode = "win" => {win}
====
"""


# --------------------------------------------------------------------------- facts


@attrs.frozen
class Facts:
    """What a run printed: the (trace, line) pairs the whole-trace validation reached (1-based
    trace index within the group) and, per (pre, step) record pair whose window passed, the
    least level of a pre-state it passed from."""

    lines: frozenset[tuple[int, int]] = frozenset()
    windows: Mapping[tuple[int, int], int] = attrs.field(factory=dict)

    def reached(self, trace: int) -> int:
        """The last line of trace ``trace`` (1-based) that a behaviour of the model matched,
        with all lines before it (0: not even the first)."""
        return self._reached.get(trace, 0)

    @functools.cached_property
    def _reached(self) -> dict[int, int]:
        """Per trace its last line reached, found in one pass (scanning every fact for each
        trace of a group was quadratic)."""
        last: dict[int, int] = {}
        for trace, line in self.lines:
            last[trace] = max(line, last.get(trace, 0))
        return last

    def window(self, pair: tuple[int, int], line: int) -> bool:
        """Whether the window of ``line`` (>= 2), a step between the records ``pair``, passed."""
        level = self.windows.get(pair)
        return level is not None and level <= line - 1


def read_facts(output: str, tag: str) -> Facts:
    """The facts a run's output prints with ``tag`` (``PrintT`` lines are printed outside TLC's
    message frames)."""
    lines: set[tuple[int, int]] = set()
    windows: dict[tuple[int, int], int] = {}
    for kind, a, b, level in fact_tags.read(output, tag, ("line", "win")):
        if kind == "line":
            lines.add((a, b))
        else:
            windows[a, b] = min(level, windows.get((a, b), level))
    return Facts(frozenset(lines), windows)


def parse_report(output: str, name: str, text: str) -> str:
    """SANY's report on the trace module ``name`` (source ``text``), without progress and JVM
    log lines or repeats, followed by the lines of the module it points at (built from the
    mapping, so the user has never seen them)."""
    kept = [line for line in split_lines(output)
            if line.strip() and not _SANY_NOISE.match(line)]
    source = split_lines(text)
    cited = sorted({int(m.group(1)) for m in _SANY_LOCATION.finditer(output)
                    if m.group(2) == name and int(m.group(1)) <= len(source)})
    return "\n".join([
        f"{name}, built from the mapping over the model (which must define vars and the cfg's "
        "Init and Next), does not parse:",
        *dict.fromkeys(kept), *(f"{name} line {n}: {source[n - 1].strip()}" for n in cited)])
