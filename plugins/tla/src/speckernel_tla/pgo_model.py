"""What a PGo-compiled model says about the processes its traces come from. Pure: text in,
data out.

PGo compiles a Modular PlusCal algorithm (kept in a comment of the model, ``--mpcal <name> {
... }``) to PlusCal (``\\* BEGIN PLUSCAL TRANSLATION``, ``--algorithm <name> { ... }``) and
TLA+. Its TraceLink logs name what the compiled system did in MPCal's terms: the archetype, the
label a critical section ran (``"AClient.criticalSection"``), the archetype's local variables and
its ``ref`` parameters. This module relates them to the TLA+ model, the way PGo's own
``tracegen`` does for the model it compiled:

* each ``process (P \\in S) == instance A(args) mapping ...;`` of the MPCal block runs archetype
  ``A`` as PlusCal process ``P``;
* ``A``'s labels, in order, are ``P``'s labels in the PlusCal translation, in order; a label
  ``l`` of ``P`` is the action ``l(self)`` of the TLA+ translation (``l`` for ``P = e``), and
  ``pc[self]`` holds its name;
* ``A``'s local variables are ``P``'s process variables, by name (PlusCal may add a numeric
  suffix to tell two processes' variables apart), functions of ``self`` for ``P \\in S``;
* ``A``'s ``ref`` parameter at position ``i`` is the global variable given as argument ``i`` of
  the ``instance``, unless a ``mapping ... via M`` macro stands between them, whose effect on the
  global (a channel's queue, say) this module does not model: those accesses are not checked
  (what a section reads from a channel it writes to a local, which is).

A model without an MPCal block, or whose blocks do not line up this way, has no derivable
mapping (:class:`NotPGo` says why).
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence

import attrs

from speckernel_tla.actions import split_definitions, without_comments

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LABEL = re.compile(r"^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*:(?!=)", re.MULTILINE)
_ARCHETYPE = re.compile(r"\barchetype\s+([A-Za-z_]\w*)\s*\(")
_INSTANCE = re.compile(r"\s*==\s*instance\s+([A-Za-z_]\w*)\s*\(")
_PROCESS = re.compile(r"\bprocess\s*\(\s*([A-Za-z_]\w*)\s*(\\in|=)")
# One ``\s*`` on each side of the optional ``[_]``: two adjacent ones would split a run of
# blanks every way before ``via`` fails (quadratic in the run).
_MAPPING = re.compile(r"\bmapping\s+(@\d+|[A-Za-z_]\w*)\s*(?:\[_\]\s*)?via\s+[A-Za-z_]\w*")
_VARIABLES = re.compile(r"\s*variables?\b")
_BLANKS = re.compile(r"\s*")
_STRING_BODY = re.compile(r'(?:[^"\\\n]|\\.)*')
_VARIABLE_DECLARATION = re.compile(r"^VARIABLES?\b(?P<names>.*(?:\n[ \t]+.*)*)", re.MULTILINE)
_OPEN = {"(": ")", "[": "]", "{": "}", "<<": ">>"}


class NotPGo(ValueError):
    """The model is not one PGo compiled, or not one this module can read (says why)."""


@attrs.frozen
class Ref:
    """A ``ref`` parameter of an archetype as an instance binds it: the global variable passed
    (``target``), and whether a mapping macro stands between (then its accesses are not
    checked)."""

    parameter: str
    target: str
    through_macro: bool = False

    @property
    def variable(self) -> str | None:
        """The global variable the parameter's accesses are checked against (None: not
        checked)."""
        return None if self.through_macro else self.target


@attrs.frozen
class Role:
    """An archetype as one process of the model runs it."""

    archetype: str
    process: str
    indexed: bool
    """``process (P \\in S)``: locals are functions of ``self``; ``P = e``: plain variables."""
    labels: tuple[tuple[str, str], ...]
    """MPCal label -> PlusCal label (the action's name, and the value of ``pc[self]``)."""
    locals: tuple[tuple[str, str], ...]
    """MPCal local variable -> the model's variable."""
    refs: tuple[Ref, ...]

    def label(self, mpcal: str) -> str | None:
        return self._labels.get(mpcal)

    def local(self, name: str) -> str | None:
        return self._locals.get(name)

    def ref(self, name: str) -> Ref | None:
        return self._refs.get(name)

    @functools.cached_property
    def _labels(self) -> dict[str, str]:
        """The lookups a trace makes per event, built once (rebuilt per event, a long trace of
        a model of many labels, locals or refs took their product)."""
        return dict(self.labels)

    @functools.cached_property
    def _locals(self) -> dict[str, str]:
        return dict(self.locals)

    @functools.cached_property
    def _refs(self) -> dict[str, Ref]:
        found: dict[str, Ref] = {}
        for ref in self.refs:
            found.setdefault(ref.parameter, ref)
        return found



@attrs.frozen
class PGoModel:
    """The roles of a PGo-compiled model and its state variables."""

    roles: tuple[Role, ...]
    variables: tuple[str, ...]
    actions: frozenset[str]

    def roles_of(self, archetype: str) -> tuple[Role, ...]:
        return self._by_archetype.get(archetype, ())

    @functools.cached_property
    def indexed_actions(self) -> frozenset[str]:
        """The actions (PlusCal labels) of processes ``P \\in S``: they take ``self``."""
        return frozenset(action for role in self.roles if role.indexed
                         for _, action in role.labels)

    @functools.cached_property
    def _by_archetype(self) -> dict[str, tuple[Role, ...]]:
        found: dict[str, list[Role]] = {}
        for role in self.roles:
            found.setdefault(role.archetype, []).append(role)
        return {archetype: tuple(roles) for archetype, roles in found.items()}


def read_pgo_model(text: str) -> PGoModel:
    """The :class:`PGoModel` of a model's text; ``NotPGo`` if it has none."""
    start = text.find("--mpcal")
    if start < 0:
        raise NotPGo("the model has no --mpcal algorithm (it was not compiled by PGo)")
    translation = text.find("--algorithm", start)
    if translation < 0:
        raise NotPGo("the model has no PlusCal translation (--algorithm) after its --mpcal "
                     "algorithm")
    mpcal_text = without_comments(text[start:translation])
    mpcal = _block(mpcal_text, mpcal_text.find("{"))
    plus_raw = _block(text, text.find("{", translation))
    plus = without_comments(plus_raw)
    archetypes = dict(_archetypes(mpcal))
    processes = dict(_processes(plus))
    plain = without_comments(_after_comment(text, translation + len(plus_raw)))
    actions = frozenset(split_definitions(plain))
    variables = tuple(dict.fromkeys(
        name for m in _VARIABLE_DECLARATION.finditer(plain) for name in _IDENT.findall(
            m.group("names"))))
    roles = []
    # Only the refs depend on the instance: its process and archetype are lined up once, however
    # many instances repeat them (each again was quadratic: n instances of n locals).
    lined_up: dict[tuple[str, str], _LinedUp] = {}
    for name, indexed, archetype, args, mapped in _instances(mpcal):
        if archetype not in archetypes:
            raise NotPGo(f"process {name} instances archetype {archetype}, which the --mpcal "
                         "algorithm does not define")
        if name not in processes:
            raise NotPGo(f"process {name} is not in the PlusCal translation")
        if (name, archetype) not in lined_up:
            lined_up[name, archetype] = _line_up(name, archetype, archetypes[archetype],
                                                 processes[name], actions)
        labels, locals_ = lined_up[name, archetype]
        roles.append(Role(archetype, name, indexed, labels, locals_, tuple(_refs(
            archetype, archetypes[archetype][0], args, mapped))))
    if not roles:
        raise NotPGo("the --mpcal algorithm instances no archetype")
    if "pc" not in variables:
        raise NotPGo("the model has no variable pc")
    return PGoModel(tuple(roles), variables, actions)


_LinedUp = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]


def _line_up(name: str, archetype: str, units: tuple[list[str], list[str], list[str]],
             process: tuple[list[str], list[str]], actions: frozenset[str]) -> _LinedUp:
    """The labels and locals of process ``name`` as it runs ``archetype`` (its parameters,
    locals and labels in ``units``; its own labels and variables in ``process``)."""
    _, local_names, labels = units
    own_labels, own_variables = process
    if len(labels) != len(own_labels):
        raise NotPGo(f"archetype {archetype} has {len(labels)} labels but its process "
                     f"{name} has {len(own_labels)} in the PlusCal translation")
    missing = [label for label in own_labels if label not in actions]
    if missing:
        raise NotPGo(f"label {missing[0]} of process {name} is not an action of the model")
    return (tuple(zip(labels, own_labels, strict=True)),
            tuple(_locals(name, local_names, own_variables)))


def _after_comment(text: str, position: int) -> str:
    """The model's TLA+ after the comment holding its algorithms."""
    end = text.find("*)", position)
    return text[end + 2:] if end >= 0 else text[position:]


def _block(text: str, open_at: int) -> str:
    """``text`` from the brace at ``open_at`` to its match (strings skipped); ``NotPGo`` if
    there is no brace or no match."""
    if open_at < 0:
        raise NotPGo("an algorithm without a body")
    depth, position, unclosed_until = 0, open_at, open_at
    while position < len(text):
        char = text[position]
        if char == '"' and position >= unclosed_until:
            end = _skip(_STRING_BODY, text, position + 1)
            if text.startswith('"', end):
                position = end + 1
                continue
            # Not a string: a plain character. Every quote before ``end`` is an escaped one of
            # the same scan, whose own scan would stop at ``end`` too: they are plain as well
            # (rescanning each would be quadratic in a line of ``"\``).
            unclosed_until = end
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[open_at:position + 1]
        position += 1
    raise NotPGo("an algorithm whose braces do not close")


def _skip(pattern: re.Pattern[str], text: str, at: int) -> int:
    """The index after the match of ``pattern`` at ``at``, which matches everywhere (it may
    match nothing)."""
    match = pattern.match(text, at)
    assert match is not None
    return match.end()


def _split(text: str, separators: str = ",") -> list[str]:
    """``text`` cut at the ``separators`` outside brackets (``<< >>`` included) and strings."""
    parts, depth, start, position = [], 0, 0, 0
    while position < len(text):
        pair = text[position:position + 2]
        char = text[position]
        if char == '"':
            end = re.compile(r'(?:[^"\\\n]|\\.)*"').match(text, position + 1)
            position = end.end() if end else len(text)
            continue
        if pair in ("<<", ">>"):
            depth += 1 if pair == "<<" else -1
            position += 2
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and char in separators:
            parts.append(text[start:position])
            start = position + 1
        position += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _parenthesised(text: str, open_at: int) -> tuple[str, int]:
    """The text inside the parenthesis at ``open_at`` and the index after its match."""
    depth = 0
    for position in range(open_at, len(text)):
        if text[position] == "(":
            depth += 1
        elif text[position] == ")":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:position], position + 1
    raise NotPGo("a parenthesis that does not close")


def _declarations(text: str, at: int) -> tuple[list[str], int]:
    """The variables declared at ``at`` (``variable(s) a, b = e;`` or, in PlusCal, ``a; b = e;``)
    and the index of the body's opening brace."""
    names: list[str] = []
    head = _VARIABLES.match(text, at)
    position = head.end() if head else at
    if head:
        end = position
        while True:
            end = _top_level_semicolon(text, end) + 1
            # skipped in place: a copy of the rest at each semicolon is quadratic
            following = _skip(_BLANKS, text, end)
            if following == len(text) or text.startswith("{", following):
                break
        for part in _split(text[position:end], ",;"):
            if match := _IDENT.match(part):
                names.append(match.group())
        position = end
    brace = text.find("{", position)
    if brace < 0:
        raise NotPGo("an archetype or process without a body")
    return names, brace


def _top_level_semicolon(text: str, start: int) -> int:
    depth = 0
    for position in range(start, len(text)):
        char = text[position]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == ";" and depth == 0:
            return position
    raise NotPGo("variable declarations that do not end")


def _archetypes(mpcal: str) -> Iterator[tuple[str, tuple[list[str], list[str], list[str]]]]:
    """Per archetype: its parameters (``ref x[_]`` kept as written), locals and labels.

    Archetypes are units of the MPCal block (PGo's ``mpcalBlock``), so the next one is looked
    for after the body of the last: a header inside another's parameters or body is not one
    (reading each such header again to its end was quadratic)."""
    match = _ARCHETYPE.search(mpcal)
    while match:
        inside, after = _parenthesised(mpcal, match.end() - 1)
        params = _split(inside)
        local_names, brace = _declarations(mpcal, after)
        body = _block(mpcal, brace)
        yield match.group(1), (params, local_names, _LABEL.findall(without_comments(body)))
        match = _ARCHETYPE.search(mpcal, brace + len(body))


def _processes(plus: str) -> Iterator[tuple[str, tuple[list[str], list[str]]]]:
    """Per PlusCal process: its labels and variables, in order. The next process is looked for
    after the body of the last, as in :func:`_archetypes`."""
    match = _PROCESS.search(plus)
    while match:
        _, after = _parenthesised(plus, plus.index("(", match.start()))
        variables, brace = _declarations(plus, after)
        body = _block(plus, brace)
        yield match.group(1), (_LABEL.findall(without_comments(body)), variables)
        match = _PROCESS.search(plus, brace + len(body))


def _instances(mpcal: str) -> Iterator[tuple[str, bool, str, list[str], set[str]]]:
    """Per ``process ... == instance A(args) mapping ...;``: process name, whether it is
    ``\\in``, archetype, arguments and the mapped arguments (names or ``@i``).

    The next process is looked for after the parentheses of the last (its header's, or its
    instance's arguments), and an instance's mappings end at its ``;`` (PGo's
    ``mpcalInstance``) or, if it has none, at the next process: reading each nested header to
    its end, or each instance to the end of the block, was quadratic."""
    match = _PROCESS.search(mpcal)
    while match:
        _, after = _parenthesised(mpcal, mpcal.index("(", match.start()))
        instance = _INSTANCE.match(mpcal, after)
        if instance is None:
            match = _PROCESS.search(mpcal, after)
            continue
        inside, after = _parenthesised(mpcal, instance.end() - 1)
        following = _PROCESS.search(mpcal, after)
        bound = following.start() if following else len(mpcal)
        end = mpcal.find(";", after, bound)
        mapped = set(_MAPPING.findall(mpcal[after:end if end >= 0 else bound]))
        yield match.group(1), match.group(2) == "\\in", instance.group(1), _split(inside), mapped
        match = following


def _locals(process: str, names: Sequence[str], variables: Sequence[str]) -> Iterator[
        tuple[str, str]]:
    """Each local with its variable: the one named alike, else the one named ``name`` and
    digits (PlusCal's renaming); ``NotPGo`` unless there is exactly one.

    ``v`` is ``name`` and digits exactly when both have the same stem (what is left without
    their trailing digits) and ``name``'s digits are a proper prefix of ``v``'s: the variables
    are grouped by stem, their digits sorted, and the range with that prefix is found by
    bisection, not by testing every variable against every local."""
    counts = Counter(variables)
    digits_by_stem: defaultdict[str, list[str]] = defaultdict(list)
    for variable in variables:
        stem, digits = _trailing_digits(variable)
        digits_by_stem[stem].append(digits)
    for suffixes in digits_by_stem.values():
        suffixes.sort()
    for name in names:
        if name in counts:
            if counts[name] != 1:
                raise NotPGo(f"local variable {name} has no unique variable in process {process}")
            yield name, name
            continue
        stem, digits = _trailing_digits(name)
        suffixes = digits_by_stem.get(stem, [])
        # every digit sorts below chr(0x10FFFF): the longer suffixes starting with ``digits``
        first = bisect_left(suffixes, digits)
        if bisect_left(suffixes, digits + chr(0x10FFFF)) - first != 1:
            raise NotPGo(f"local variable {name} has no unique variable in process {process}")
        yield name, stem + suffixes[first]


def with_channels_of(model: PGoModel, gold: PGoModel) -> PGoModel:
    """``model`` with a ref behind a mapping macro exactly where ``gold`` has one (same
    archetype, same parameter). Which of a system's accesses go through a channel is the
    system's, as the model PGo compiled it from says, not the candidate's to claim: its MPCal
    block is a comment, so ``mapping owner via Mailbox`` there changes nothing TLC runs, yet
    left the owner's every value unchecked (a run logging a wrong owner validated)."""
    channels = {(role.archetype, ref.parameter) for role in gold.roles for ref in role.refs
                if ref.through_macro}
    roles = tuple(attrs.evolve(role, refs=tuple(
        attrs.evolve(ref, through_macro=(role.archetype, ref.parameter) in channels)
        for ref in role.refs)) for role in model.roles)
    return attrs.evolve(model, roles=roles)


def _trailing_digits(name: str) -> tuple[str, str]:
    """``name`` cut before its trailing digits (``\\d``, which is ``str.isdecimal``)."""
    cut = len(name)
    while cut and name[cut - 1].isdecimal():
        cut -= 1
    return name[:cut], name[cut:]


def _refs(archetype: str, params: Sequence[str], args: Sequence[str],
          mapped: set[str]) -> Iterator[Ref]:
    if len(params) != len(args):
        raise NotPGo(f"archetype {archetype} takes {len(params)} parameters but its instance "
                     f"passes {len(args)}")
    for position, (param, arg) in enumerate(zip(params, args, strict=True), 1):
        if not param.startswith("ref "):
            continue
        name = _IDENT.match(param[4:].strip())
        target = _IDENT.match(arg[4:].strip()) if arg.startswith("ref ") else None
        if name is None or target is None:
            raise NotPGo(f"archetype {archetype}: ref parameter {param} is bound to {arg}")
        through_macro = target.group() in mapped or f"@{position}" in mapped
        yield Ref(name.group(), target.group(), through_macro)
