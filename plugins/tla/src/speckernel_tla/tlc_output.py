"""Reading TLC's ``-tool`` output into structured data. Pure: no process, no files.

In ``-tool`` mode TLC frames every message as ``@!@!@STARTMSG code:severity @!@!@`` ...
``@!@!@ENDMSG code @!@!@`` (messages may nest); the codes are ``tlc2.output.EC``'s. SysMoBench
(notes §2) greps plain-text lines and trusts exit codes, which differ between TLC builds (an
evaluation error exits 75 on TLC 2.15 and 255 on 2.18), so the outcome here comes from the
message codes alone.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator

import attrs
from speckernel.lines import split_lines

_START = re.compile(r"@!@!@STARTMSG (\d+):(\d+) @!@!@$")
_END = re.compile(r"^@!@!@ENDMSG (\d+) @!@!@$")
_ACTION = re.compile(
    r"<(?P<name>[^\s<>]+) line (?P<line>\d+), col (?P<col>\d+) to line (?P<end>\d+), col \d+ "
    r"of module (?P<module>[^\s>()]+)"
    r"(?: \((?P<body>\d+ \d+ \d+ \d+)\))?>(?:: (?P<distinct>-?\d+):(?P<total>-?\d+))?")
"""An action as TLC names it in coverage (2772) and behaviour (2217) lines: its name (``Lib!A``
for an action of a named instance), where its definition's name stands, and, when the body is a
``LET`` or ``\\E``, the body's span in parentheses (``<A line 8, col 1 to line 8, col 4 of module
M (10 5 12 18)>: 2:4``, TLC 2.15 and 2.18 alike)."""
_STATE_HEADER = re.compile(r"^(?P<index>\d+): (?P<label>.*)$")
_STATS = re.compile(
    r"(?<![\d,])(?P<generated>[\d,]+) states generated.*?(?P<distinct>-?[\d,]+) distinct states"
    r" found(?:.*?(?P<queue>-?[\d,]+) states left on queue)?")
"""TLC's counts; a count starts where a run of digits and commas does (matched from anywhere in
a run, a long one took quadratic time)."""
_DEPTH = re.compile(r"depth of the complete state graph search is (\d+)")
_POSITION = re.compile(r"Line (\d+), column (\d+) to line \d+, column \d+ in (\S+)")
_VIOLATED_NAME = re.compile(r"^(?:Invariant|Action property|[Pp]roperty) (.+?) is violated",
                            re.MULTILINE)
"""What TLC names as violated, at the start of a line of its violation message: an invariant's
or property's name, or, for a conjunct of a property it checks on states or steps (``[]P``,
``[][A]_v``, an initial predicate), where the conjunct stands (``line 4, col 9 to line 4, col
17 of module M``). Read only from a violation: another error's message may quote the model's
strings, and unanchored, each "property" in a long one made the lazy scan quadratic."""

# Message codes of tlc2.output.EC that this module interprets.
VERSION = 2262
FINISHED = 2186
SUCCESS = 2193
STATS = (2199, 2200, 2209, 2210)
DEPTH = 2194
TEMPORAL_CHECK = 2192
COVERAGE_START, COVERAGE_END = 2201, 2202
COVERAGE_INIT, COVERAGE_ACTION = 2773, 2772
STATE = 2217
BACK_TO_STATE = 2122
TRACE_HEADERS = frozenset({2121, 2264})
NESTED_EXPRESSION = 2103
INVARIANT_CODES = frozenset({2107, 2110})
PROPERTY_CODES = frozenset({2108, 2112, 2116})
DEADLOCK = 2114
ASSUMPTION_CODES = frozenset({2104, 2105})
PARSE_CODES = frozenset({2171, 3002})
CONFIG_CODES = frozenset({*range(2222, 2246), 2280, 2281, *range(5001, 5007)})
RESOURCE_CODES = frozenset({1001, 1002, 1003, 1005})
GENERAL = 1000
SEVERITY_ERROR = 1


class Outcome(enum.StrEnum):
    """How a TLC run ended, most specific first."""

    OK = "ok"
    INVARIANT_VIOLATED = "invariant_violated"
    PROPERTY_VIOLATED = "property_violated"
    DEADLOCK = "deadlock"
    ASSUMPTION_FAILED = "assumption_failed"
    EVALUATION_ERROR = "evaluation_error"
    PARSE_ERROR = "parse_error"
    CONFIG_ERROR = "config_error"
    RESOURCE_LIMIT = "resource_limit"
    TIMEOUT = "timeout"
    CRASH = "crash"


VIOLATIONS = frozenset({Outcome.INVARIANT_VIOLATED, Outcome.PROPERTY_VIOLATED})
"""The outcomes whose message names what TLC found violated."""


@attrs.frozen
class Message:
    """One framed TLC message, with the messages framed inside it."""

    code: int
    severity: int
    text: str
    nested: tuple[Message, ...] = ()

    @property
    def detail(self) -> str:
        """What the message says: for TLC's general wrapper (code 1000), the wrapped message."""
        if self.code == GENERAL and self.nested:
            return "\n".join(n.text for n in self.nested)
        return self.text


@attrs.frozen
class ActionCoverage:
    """One ``2772`` line: how often an action produced states. TLC prints ``distinct:total``
    (notes §2: SysMoBench reads the pair the other way round)."""

    name: str
    module: str
    line: int
    column: int
    distinct: int
    total: int
    end_line: int = 0
    """The last line TLC attributes to the action: its body's, when TLC printed the body's span,
    else the line its name ends on."""

    @property
    def covered(self) -> bool:
        """The action was taken at least once (a step to an already seen state counts)."""
        return self.total > 0


@attrs.frozen
class TraceStep:
    """One state of a counterexample and the action that led to it: None for the initial state
    and stuttering. A liveness counterexample ends with a ``Back to state`` step whose action
    closes the loop and whose state is the earlier one it returns to (not repeated here)."""

    index: int
    label: str
    action: str | None
    state: str


@attrs.frozen
class Location:
    module: str
    line: int
    column: int


@attrs.frozen
class TlcResult:
    """What one TLC run reported. Counts are None when TLC never printed them (a run killed
    before its first progress report, or simulation's distinct count, which it does not track).
    ``complete`` means TLC finished its search on its own, with or without an error."""

    outcome: Outcome
    message: str = ""
    violated: str | None = None
    generated: int | None = None
    distinct: int | None = None
    queue: int | None = None
    depth: int | None = None
    coverage: tuple[ActionCoverage, ...] = ()
    init_coverage: tuple[ActionCoverage, ...] = ()
    trace: tuple[TraceStep, ...] = ()
    error_locations: tuple[Location, ...] = ()
    error_action: str | None = None
    version: str = ""
    complete: bool = False
    parse_output: str = ""
    space_complete: bool = False
    """TLC began checking temporal properties on the complete state space (2192): every
    reachable state within the budget was generated, and passed every invariant."""

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.OK

    @property
    def trace_actions(self) -> tuple[str, ...]:
        """The actions of the counterexample, in order (the initial state excluded)."""
        return tuple(step.action for step in self.trace if step.action)


def iter_messages(output: str) -> Iterator[Message | str]:
    """The top-level framed messages of ``output`` and, as plain strings, the lines outside any
    frame (SANY's report). A message may open mid-line inside another (TLC 2.15 nests the real
    error in its general-exception message); nested messages become the outer one's ``nested``.
    A run cut off mid-message keeps what it printed."""
    stack: list[tuple[int, int, list[str], list[Message]]] = []

    def close() -> Message:
        code, severity, body, nested = stack.pop()
        return Message(code, severity, "\n".join(body).strip(), tuple(nested))

    for line in split_lines(output):
        if start := _START.search(line):
            prefix = line[: start.start()]
            if prefix and stack:
                stack[-1][2].append(prefix)
            elif prefix:
                yield prefix
            stack.append((int(start.group(1)), int(start.group(2)), [], []))
        elif (end := _END.match(line)) and stack and stack[-1][0] == int(end.group(1)):
            message = close()
            if stack:
                stack[-1][3].append(message)
            else:
                yield message
        elif stack:
            stack[-1][2].append(line)
        else:
            yield line
    while stack:
        message = close()
        if stack:
            stack[-1][3].append(message)
        else:
            yield message


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    value = int(text.replace(",", ""))
    return None if value < 0 else value


def _coverage_line(text: str) -> ActionCoverage | None:
    match = _ACTION.fullmatch(text.strip())
    if not match or match.group("total") is None:
        return None
    body = match.group("body")
    end = int(body.split()[2]) if body else int(match.group("end"))
    return ActionCoverage(match.group("name"), match.group("module"), int(match.group("line")),
                          int(match.group("col")), int(match.group("distinct")),
                          int(match.group("total")), max(end, int(match.group("line"))))


def _trace_step(text: str) -> TraceStep | None:
    head, _, state = text.partition("\n")
    match = _STATE_HEADER.match(head.strip())
    if not match:
        return None
    label = match.group("label").strip()
    action = _ACTION.search(label)
    return TraceStep(int(match.group("index")), label, action.group("name") if action else None,
                     state.strip("\n"))


def _classify(message: Message) -> Outcome | None:
    code = message.code
    if code == GENERAL:
        inner = {n.code for n in message.nested}
        if inner & CONFIG_CODES or "ConfigFileException" in message.text:
            return Outcome.CONFIG_ERROR
        return Outcome.PARSE_ERROR if inner & PARSE_CODES else Outcome.EVALUATION_ERROR
    if code in INVARIANT_CODES:
        return Outcome.INVARIANT_VIOLATED
    if code in PROPERTY_CODES:
        return Outcome.PROPERTY_VIOLATED
    if code == DEADLOCK:
        return Outcome.DEADLOCK
    if code in ASSUMPTION_CODES:
        return Outcome.ASSUMPTION_FAILED
    if code in PARSE_CODES:
        return Outcome.PARSE_ERROR
    if code in CONFIG_CODES:
        return Outcome.CONFIG_ERROR
    if code in RESOURCE_CODES:
        return Outcome.RESOURCE_LIMIT
    if message.severity == SEVERITY_ERROR:
        return Outcome.EVALUATION_ERROR
    return None


def blame_action(location: Location, actions: tuple[ActionCoverage, ...]) -> str | None:
    """The action TLC was evaluating when it failed at ``location`` (the outermost position it
    printed): among the actions of the failing module that start at or before it, one whose known
    extent (definition to body end) holds it, else the one starting last.

    SysMoBench blames the last action of the printed behaviour instead (notes §2, caveat), which
    is the action *before* the failing one.
    """
    before = [a for a in actions if a.module == location.module and a.line <= location.line]
    holding = [a for a in before if location.line <= a.end_line]
    chosen = holding or before
    return max(chosen, key=lambda a: (a.line, a.column)).name if chosen else None


def parse_tlc_output(output: str, *, timed_out: bool = False) -> TlcResult:
    """Interpret a TLC ``-tool`` run's merged stdout and stderr.

    ``timed_out`` says the run was killed at its wall budget: without an error found first, the
    outcome is ``timeout`` and the counts and coverage are the last ones TLC printed.
    """
    outcome: Outcome | None = None
    first_error: Message | None = None
    errors: list[str] = []
    version = ""
    finished = success = False
    counts: re.Match[str] | None = None
    depth: int | None = None
    coverage: list[ActionCoverage] = []
    init_coverage: list[ActionCoverage] = []
    block: tuple[list[ActionCoverage], list[ActionCoverage]] | None = None
    trace: list[TraceStep] = []
    positions: list[Location] = []
    plain: list[str] = []
    space_complete = False

    for item in iter_messages(output):
        if isinstance(item, str):
            plain.append(item)
            continue
        code = item.code
        if code == VERSION:
            version = item.text.strip().removeprefix("TLC2 Version ").strip()
        elif code == FINISHED:
            finished = True
        elif code == SUCCESS:
            success = True
        elif code in STATS and (match := _STATS.search(item.text)):
            counts = match
        elif code == DEPTH and (match := _DEPTH.search(item.text)):
            depth = int(match.group(1))
        elif code == TEMPORAL_CHECK:
            space_complete = space_complete or "complete state space" in item.text
        elif code == COVERAGE_START:
            block = ([], [])
        elif code == COVERAGE_END and block is not None:
            coverage, init_coverage, block = block[0], block[1], None
        elif code in (COVERAGE_ACTION, COVERAGE_INIT) and block is not None:
            if entry := _coverage_line(item.text):
                (block[0] if code == COVERAGE_ACTION else block[1]).append(entry)
        elif code == STATE and (step := _trace_step(item.text)):
            trace.append(step)
        elif code == BACK_TO_STATE:
            action = _ACTION.search(item.text)
            trace.append(TraceStep(len(trace) + 1, item.text.strip(),
                                   action.group("name") if action else None, ""))
        elif code in TRACE_HEADERS:
            continue
        elif code == NESTED_EXPRESSION:
            positions = [Location(m.group(3), int(m.group(1)), int(m.group(2)))
                         for m in _POSITION.finditer(item.text)]
        elif (kind := _classify(item)) is not None:
            errors.append(item.detail.strip())
            if outcome is None:
                outcome, first_error = kind, item
    if block is not None and timed_out:  # cut off mid-report: the partial block is the latest
        coverage, init_coverage = block

    message = "\n".join(errors)
    violated = None
    if first_error is not None and outcome in VIOLATIONS and (
            found := _VIOLATED_NAME.search(first_error.detail)):
        violated = found.group(1).rstrip(".")
    if outcome is None:
        if timed_out:
            outcome = Outcome.TIMEOUT
        elif finished and (success or not errors):
            outcome = Outcome.OK
        else:
            outcome, message = Outcome.CRASH, "\n".join(plain[-20:]).strip()
    actions = tuple(coverage)
    blamed = None
    if outcome is Outcome.EVALUATION_ERROR and positions:
        blamed = blame_action(positions[0], actions)
    return TlcResult(
        outcome=outcome,
        message=message,
        violated=violated,
        generated=_int(counts.group("generated")) if counts else None,
        distinct=_int(counts.group("distinct")) if counts else None,
        queue=_int(counts.group("queue")) if counts else None,
        depth=depth,
        coverage=actions,
        init_coverage=tuple(init_coverage),
        trace=tuple(trace),
        error_locations=tuple(positions),
        error_action=blamed,
        version=version,
        complete=finished and not timed_out,
        parse_output="\n".join(plain).strip() if outcome is Outcome.PARSE_ERROR else "",
        space_complete=space_complete,
    )
