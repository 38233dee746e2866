"""PGo's TraceLink logs: reading them, and the runs they make up. Pure: text in, data out.

A PGo system (SysMoBench's dqueue, locksvc, raftkvs; notes §1, §3) logs one file per process of
a run, one JSON object per line, one line per critical section the process committed:

    {"archetypeName": "AClient", "self": "1", "isAbort": false,
     "clock": [[["AServer", "0"], 18], [["AClient", "1"], 3]],
     "csElements": [{"name": {"name": ".pc", "prefix": "", "self": "1"}, "indices": [],
                     "tag": "read", "value": "\"AClient.criticalSection\""}, ...]}

Values (``self``, ``indices``, ``value``) are TLA+ expressions as PGo prints them (``1``,
``"key1"``, ``TRUE``, ``defaultInitValue``, ``(("type") :> ("put") @@ ...)``, ``<<...>>``). The
``clock`` is the section's vector clock: its own entry is the section's 1-based index in the
process's log, and the entry of another process says how many of that process's sections happened
before it. The logs of one run (a ``traces_found/<run>`` folder) make one behaviour only
together: any order of the sections that respects the clocks (PGo's ``tracegen`` checks them
the same way), which :mod:`speckernel_tla.pgo_validation` lets TLC choose.

Since the values become TLA+ text of the validation module, each one is checked against the
grammar of the values PGo prints (no operators that could change what the module means).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

import attrs

from speckernel_tla import json_lines

MAX_NESTING = 200
"""How deeply a logged value may nest (PGo's values are records of sequences of records)."""

_TOKEN = re.compile(
    r'[ \t\r\n]*(?:(?P<string>"(?:[ !#-\[\]-~]|\\[\\"ntrf])*")|(?P<number>[0-9]+)'
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op><<|>>|:>|@@|\|->|[-()\[\]{},]))")
"""A token of a value: a TLA+ string (printable ASCII and TLA+'s escapes: anything else SANY
rejects or reads otherwise), a number, a name, or an operator PGo prints."""
_STRING_START = re.compile(r'[ \t\r\n]*"')
_LABEL_VALUE = re.compile(r'"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?"')
"""What a ``.pc`` access holds: the string ``"Archetype.label"`` (or a bare label)."""
TLC_INT_MAX = 2**31 - 1
RESERVED = frozenset({
    "ACTION", "ASSUME", "ASSUMPTION", "AXIOM", "BY", "CASE", "CHOOSE", "CONSTANT", "CONSTANTS",
    "COROLLARY", "DEF", "DEFINE", "DEFS", "DOMAIN", "ELSE", "ENABLED", "EXCEPT", "EXTENDS",
    "HAVE", "HIDE", "IF", "IN", "INSTANCE", "LAMBDA", "LEMMA", "LET", "LOCAL", "MODULE", "NEW",
    "OBVIOUS", "OMITTED", "ONLY", "OTHER", "PICK", "PROOF", "PROPOSITION", "PROVE", "QED",
    "RECURSIVE", "STATE", "SUBSET", "SUFFICES", "TAKE", "TEMPORAL", "THEN", "THEOREM",
    "UNCHANGED", "UNION", "USE", "VARIABLE", "VARIABLES", "WITH", "WITNESS"})
"""TLA+'s reserved words: as a name in a value (or a record's field) the module would not
parse. Names starting ``WF_`` or ``SF_`` are fairness operators, reserved as well."""


class TraceLinkError(ValueError):
    """A log that cannot be read as TraceLink (the message names the file and line)."""


def check_value(text: str) -> str:
    """``text`` if it is a TLA+ value of the shape PGo prints: numbers, strings, TRUE/FALSE,
    model values (names), ``<<...>>``, ``{...}``, ``[f |-> v, ...]``, ``a :> b``, ``f @@ g``
    and parentheses; else ``ValueError``."""
    tokens = _tokens(text)
    position = _value(tokens, 0, 0)
    if position != len(tokens):
        raise ValueError(f"unexpected {tokens[position]!r}")
    return text.strip()


def _tokens(text: str) -> list[str]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            if _STRING_START.match(text, position):
                raise ValueError(f"{text[position:position + 20].strip()!r}... has characters "
                                 "or escapes a TLA+ string cannot hold")
            raise ValueError(f"unexpected {text[position:position + 20]!r}")
        token = match.group(match.lastgroup or 0)
        if match.lastgroup == "name" and (token in RESERVED or token[:3] in ("WF_", "SF_")):
            raise ValueError(f"reserved word {token!r} as a name")
        if match.lastgroup == "number" and int(token[:11]) > TLC_INT_MAX + 1:
            raise ValueError(f"{token} is beyond TLC's integers")
        tokens.append(token)
        position = match.end()
    if not tokens:
        raise ValueError("empty value")
    return tokens


def _value(tokens: Sequence[str], at: int, depth: int) -> int:
    """Accept ``term (@@ term)*``, a term being ``operand [:> operand]``, from
    ``tokens[at]``; the index after it (``:>`` does not chain: SANY needs parentheses)."""
    at = _term(tokens, at, depth)
    while at < len(tokens) and tokens[at] == "@@":
        at = _term(tokens, at + 1, depth)
    return at


def _term(tokens: Sequence[str], at: int, depth: int) -> int:
    at = _operand(tokens, at, depth)
    if at < len(tokens) and tokens[at] == ":>":
        at = _operand(tokens, at + 1, depth)
        if at < len(tokens) and tokens[at] == ":>":
            raise ValueError("unexpected ':>' (a chain of :> needs parentheses)")
    return at


def _operand(tokens: Sequence[str], at: int, depth: int) -> int:
    if depth > MAX_NESTING:
        raise ValueError("nested too deeply")
    if at >= len(tokens):
        raise ValueError("value ends early")
    token = tokens[at]
    if token == "-" and at + 1 < len(tokens) and tokens[at + 1].isdigit():
        return at + 2
    if token[0].isdigit() and int(token[:11]) > TLC_INT_MAX:
        raise ValueError(f"{token} is beyond TLC's integers")
    if token[0] in '"0123456789' or token[0].isalpha() or token[0] == "_":
        return at + 1
    closer = {"(": ")", "<<": ">>", "{": "}", "[": "]"}.get(token)
    if closer is None:
        raise ValueError(f"unexpected {token!r}")
    at += 1
    if token == "(":
        at = _value(tokens, at, depth + 1)
    elif token == "[" or (at < len(tokens) and tokens[at] != closer):
        while True:
            if token == "[":
                if at + 1 >= len(tokens) or not tokens[at][0].isalpha() or tokens[at + 1] != "|->":
                    raise ValueError("a record field must be 'name |-> value'")
                at += 2
            at = _value(tokens, at, depth + 1)
            if at < len(tokens) and tokens[at] == ",":
                at += 1
                continue
            break
    if at >= len(tokens) or tokens[at] != closer:
        raise ValueError(f"expected {closer!r}")
    return at + 1


@attrs.frozen
class Element:
    """One access of a critical section: a read or write of ``name`` (``.pc``, a local of the
    archetype, or one of its ``ref`` parameters) at ``indices``, with the value read or
    written."""

    name: str
    indices: tuple[str, ...]
    write: bool
    value: str


@attrs.frozen
class Record:
    """One committed (or aborted) critical section of a process."""

    file: str
    line: int
    index: int
    elements: tuple[Element, ...]
    clock: Mapping[tuple[str, str], int]
    abort: bool

    @property
    def label(self) -> str | None:
        """The label the section ran, ``Archetype.label`` (its first read of ``.pc``)."""
        return next((e.value.strip('"') for e in self.elements
                     if e.name == ".pc" and not e.write), None)


@attrs.frozen
class Process:
    """The sections one process of a run logged, in order."""

    archetype: str
    identity: str
    file: str
    records: tuple[Record, ...]

    @property
    def key(self) -> tuple[str, str]:
        """(archetype, its ``self`` value), as clocks name the process."""
        return (self.archetype, self.identity)


@attrs.frozen
class Run:
    """One distributed run: its processes, each with its log. ``dependencies[p][k]`` lists, for
    section ``k`` of process ``p`` (0-based), the (process index, count) pairs its clock adds
    to the previous section's: the sections of other processes that must come first."""

    key: str
    processes: tuple[Process, ...]
    dependencies: tuple[tuple[tuple[tuple[int, int], ...], ...], ...]

    @property
    def records(self) -> int:
        return sum(len(p.records) for p in self.processes)


def parse_log(file: str, text: str) -> Process:
    """One process's log; ``TraceLinkError`` for a line that is not a TraceLink record, a
    value that is not a TLA+ value, a log mixing processes, or a clock out of step (its own
    entry not the section's index, or another's going back)."""
    records: list[Record] = []
    key: tuple[str, str] | None = None
    for number, line in json_lines.lines(text):
        where = f"{file}:{number}"
        try:
            owner, record = _record(file, number, len(records) + 1, json_lines.decode(line))
        except (ValueError, KeyError, TypeError) as exc:
            raise TraceLinkError(f"{where}: not a TraceLink record ({exc})") from None
        if key is not None and owner != key:
            raise TraceLinkError(f"{where}: the log mixes processes {key} and {owner}")
        key = owner
        if record.clock.get(owner) != record.index:
            raise TraceLinkError(f"{where}: the clock's own entry is {record.clock.get(owner)}, "
                                 f"not the section's index {record.index}")
        if records:
            for other, count in records[-1].clock.items():
                if record.clock.get(other, 0) < count:
                    raise TraceLinkError(
                        f"{where}: the clock's entry of {other[0]}({other[1]}) goes back from "
                        f"{count} to {record.clock.get(other, 0)}")
        records.append(record)
    if key is None:
        raise TraceLinkError(f"{file}: the log is empty")
    return Process(key[0], key[1], file, tuple(records))


def _typed(data: Mapping[str, object], name: str, kind: type, what: str) -> Any:
    """``data[name]``, which must be a ``kind`` (``what`` says so in the error)."""
    value = data[name]
    if not isinstance(value, kind):
        raise ValueError(f"{name} must be {what}")
    return value


def _strings(data: Mapping[str, object], name: str) -> list[str]:
    value = _typed(data, name, list, "a list of strings")
    if not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name} must be a list of strings")
    return [str(v) for v in value]


def _clock(entries: list[object]) -> dict[tuple[str, str], int]:
    """A clock's ``[[archetype, self], count]`` entries as a mapping; each process once."""
    clock: dict[tuple[str, str], int] = {}
    for entry in entries:
        if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], list)
                or len(entry[0]) != 2 or not all(isinstance(p, str) for p in entry[0])):
            raise ValueError(f"clock entry {entry!r} is not [[archetype, self], count]")
        (other, identity), count = entry
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"clock entry {count!r} is not a count")
        owner = (other, check_value(identity))
        if owner in clock:
            raise ValueError(f"the clock names {other}({identity}) twice")
        clock[owner] = count
    return clock


def _record(file: str, line: int, index: int,
            data: object) -> tuple[tuple[str, str], Record]:
    """(the process that logged it, the record) of one decoded line; each field of the type
    PGo writes (a number where a string belongs, a string where a list does, would read as
    another value or path)."""
    if not isinstance(data, dict):
        raise ValueError("not an object")
    archetype = _typed(data, "archetypeName", str, "a string")
    owner = (archetype, check_value(_typed(data, "self", str, "a string")))
    clock = _clock(_typed(data, "clock", list, "a list"))
    elements = []
    for element in _typed(data, "csElements", list, "a list"):
        if not isinstance(element, dict):
            raise ValueError("an element is not an object")
        name = _typed(element, "name", dict, "an object")
        tag = element["tag"]
        if tag not in ("read", "write"):
            raise ValueError(f"element tag {tag!r}")
        prefix = _typed(name, "prefix", str, "a string")
        if prefix not in ("", archetype):
            raise ValueError(f"element of archetype {prefix!r} in a section of {archetype!r}")
        elements.append(Element(_typed(name, "name", str, "a string"),
                                tuple(check_value(i) for i in _strings(element, "indices")),
                                tag == "write",
                                check_value(_typed(element, "value", str, "a string"))))
    if not elements or elements[0].name != ".pc" or elements[0].write:
        raise ValueError("the section does not open with a read of .pc (its label)")
    for element in elements:
        if element.name == ".pc" and not _LABEL_VALUE.fullmatch(element.value):
            raise ValueError(f".pc value {element.value[:40]} is not a label")
    abort = data.get("isAbort", False)
    if not isinstance(abort, bool):
        raise ValueError("isAbort is not a boolean")
    return owner, Record(file, line, index, tuple(elements), clock, abort)


def build_run(key: str, logs: Mapping[str, str]) -> Run:
    """The run made of ``logs`` (file -> text); ``TraceLinkError`` when two logs are of one
    process, a clock names a process that has no log (its sections could never come first),
    or the clocks order sections in a cycle (no order of the sections respects them)."""
    processes = sorted((parse_log(file, text) for file, text in logs.items()),
                       key=lambda p: p.key)
    index = {p.key: n for n, p in enumerate(processes)}
    if len(index) != len(processes):
        raise TraceLinkError(f"run {key}: two logs of one process")
    dependencies = []
    for process in processes:
        previous: dict[tuple[str, str], int] = {}
        rows = []
        for record in process.records:
            row = []
            for owner, count in record.clock.items():
                if owner == process.key or count <= previous.get(owner, 0):
                    continue
                if owner not in index:
                    raise TraceLinkError(f"{record.file}:{record.line}: the clock depends on "
                                         f"{owner[0]}({owner[1]}), which logged nothing in run "
                                         f"{key}")
                if count > len(processes[index[owner]].records):
                    raise TraceLinkError(f"{record.file}:{record.line}: the clock depends on "
                                         f"section {count} of {owner[0]}({owner[1]}), which "
                                         "logged fewer")
                row.append((index[owner], count))
                previous[owner] = count
            rows.append(tuple(sorted(row)))
        dependencies.append(tuple(rows))
    run = Run(key, tuple(processes), tuple(dependencies))
    _check_order(run)
    return run


def _check_order(run: Run) -> None:
    """``TraceLinkError`` unless some order of the sections respects the clocks: Kahn's
    algorithm over the sections, each after its predecessor in its log and after the sections
    its clock adds (linear in those edges). The error names a section left waiting and one
    it waits for."""
    waiting_on: list[list[int]] = []  # per process, per section: the edges still unmet
    released: dict[tuple[int, int], list[tuple[int, int]]] = {}
    ready: list[tuple[int, int]] = []
    for i, rows in enumerate(run.dependencies):
        counts = []
        for k, row in enumerate(rows, 1):
            counts.append(len(row) + (k > 1))
            for j, count in row:
                released.setdefault((j, count), []).append((i, k))
            if counts[-1] == 0:
                ready.append((i, k))
        waiting_on.append(counts)
    done = 0
    while ready:
        i, k = ready.pop()
        done += 1
        after = released.get((i, k), [])
        if k < len(waiting_on[i]):
            after = [*after, (i, k + 1)]
        for j, m in after:
            waiting_on[j][m - 1] -= 1
            if waiting_on[j][m - 1] == 0:
                ready.append((j, m))
    if done == run.records:
        return
    i, k = next((i, k) for i, counts in enumerate(waiting_on)
                for k, count in enumerate(counts, 1) if count > 0
                and (k == 1 or waiting_on[i][k - 2] == 0))
    j, m = next((j, m) for j, m in run.dependencies[i][k - 1] if waiting_on[j][m - 1] > 0)
    first, other = run.processes[i].records[k - 1], run.processes[j].records[m - 1]
    raise TraceLinkError(f"run {run.key}: the clocks order sections in a cycle "
                         f"({first.file}:{first.line} waits for {other.file}:{other.line}, "
                         "which can never come first): the logs cannot be one run")


def group_runs(files: Mapping[str, str]) -> Iterator[tuple[str, dict[str, str]]]:
    """The task's TraceLink files (``traces/<run>/<log>``) grouped by run, in name order; a
    run is its whole folder under ``traces/`` (two folders of one name are two runs)."""
    runs: dict[str, dict[str, str]] = {}
    for path in sorted(files):
        parts = PurePosixPath(path).parts
        folder = parts[1:-1] if parts[:1] == ("traces",) else parts[:-1]
        runs.setdefault("/".join(folder), {})[path] = files[path]
    yield from runs.items()
