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

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePosixPath

import attrs

MAX_NESTING = 200
"""How deeply a logged value may nest (PGo's values are records of sequences of records)."""

_TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<number>\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)'
    r"|(?P<op><<|>>|:>|@@|\|->|[-()\[\]{},]))")


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
            raise ValueError(f"unexpected {text[position:position + 20]!r}")
        tokens.append(match.group(match.lastgroup or 0))
        position = match.end()
    if not tokens:
        raise ValueError("empty value")
    return tokens


def _value(tokens: Sequence[str], at: int, depth: int) -> int:
    """Accept ``operand ((:> | @@) operand)*`` from ``tokens[at]``; the index after it."""
    at = _operand(tokens, at, depth)
    while at < len(tokens) and tokens[at] in (":>", "@@"):
        at = _operand(tokens, at + 1, depth)
    return at


def _operand(tokens: Sequence[str], at: int, depth: int) -> int:
    if depth > MAX_NESTING:
        raise ValueError("nested too deeply")
    if at >= len(tokens):
        raise ValueError("value ends early")
    token = tokens[at]
    if token == "-" and at + 1 < len(tokens) and tokens[at + 1].isdigit():
        return at + 2
    if token[0] in '"0123456789' or token[0].isalpha() or token[0] == "_":
        return at + 1
    closer = {"(": ")", "<<": ">>", "{": "}", "[": "]"}.get(token)
    if closer is None:
        raise ValueError(f"unexpected {token!r}")
    at += 1
    if token == "(":
        at = _value(tokens, at, depth + 1)
    elif at < len(tokens) and tokens[at] != closer:
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
    value that is not a TLA+ value, a log mixing processes, or a clock out of step."""
    records: list[Record] = []
    key: tuple[str, str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{file}:{number}"
        try:
            owner, record = _record(file, number, len(records) + 1, json.loads(line))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise TraceLinkError(f"{where}: not a TraceLink record ({exc})") from exc
        if key is not None and owner != key:
            raise TraceLinkError(f"{where}: the log mixes processes {key} and {owner}")
        key = owner
        if record.clock.get(owner) != record.index:
            raise TraceLinkError(f"{where}: the clock's own entry is {record.clock.get(owner)}, "
                                 f"not the section's index {record.index}")
        records.append(record)
    if key is None:
        raise TraceLinkError(f"{file}: the log is empty")
    return Process(key[0], key[1], file, tuple(records))


def _record(file: str, line: int, index: int,
            data: object) -> tuple[tuple[str, str], Record]:
    """(the process that logged it, the record) of one decoded line."""
    if not isinstance(data, dict):
        raise ValueError("not an object")
    archetype = str(data["archetypeName"])
    owner = (archetype, check_value(str(data["self"])))
    clock = {}
    for (other, identity), count in data["clock"]:  # type: ignore[union-attr]
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"clock entry {count!r} is not a count")
        clock[(str(other), check_value(str(identity)))] = count
    elements = []
    for element in data["csElements"]:  # type: ignore[union-attr]
        name = element["name"]
        tag = element["tag"]
        if tag not in ("read", "write"):
            raise ValueError(f"element tag {tag!r}")
        prefix = str(name["prefix"])
        if prefix not in ("", archetype):
            raise ValueError(f"element of archetype {prefix!r} in a section of {archetype!r}")
        elements.append(Element(str(name["name"]),
                                tuple(check_value(str(i)) for i in element["indices"]),
                                tag == "write", check_value(str(element["value"]))))
    abort = data.get("isAbort", False)
    if not isinstance(abort, bool):
        raise ValueError("isAbort is not a boolean")
    return owner, Record(file, line, index, tuple(elements), clock, abort)


def build_run(key: str, logs: Mapping[str, str]) -> Run:
    """The run made of ``logs`` (file -> text); ``TraceLinkError`` when two logs are of one
    process or a clock names a process that has no log (its sections could never come first)."""
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
    return Run(key, tuple(processes), tuple(dependencies))


def group_runs(files: Mapping[str, str]) -> Iterator[tuple[str, dict[str, str]]]:
    """The task's TraceLink files (``traces/<run>/<log>``) grouped by run, in name order."""
    runs: dict[str, dict[str, str]] = {}
    for path in sorted(files):
        parts = PurePosixPath(path).parts
        runs.setdefault(parts[-2] if len(parts) >= 2 else "", {})[path] = files[path]
    yield from runs.items()
