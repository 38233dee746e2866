"""What SANY says a property formula is, and the safety properties among the "liveness" ones.

TLC checks a ``PROPERTY`` conjunct by conjunct (``tlc2.tool.impl.SpecProcessor``): a conjunct
of constant or state level is checked on the initial states, ``[]P`` with ``P`` a state
predicate on every reachable state ("Invariant P is violated"), ``[][A]_v`` on every step
("Action property ... is violated"), each named by its definition or location; anything else
goes to the tableau, whose violation TLC reports without a name ("Temporal properties were
violated") and, being a search over the product of the state graph and the tableau, only after
the whole state graph is built. A bounded ``\\A`` over a temporal formula is not split up
(``\\A k \\in S : [](x < k)`` is a tableau of ``|S|`` branches).

Some templates SysMoBench calls liveness are safety properties, violated by a finite prefix:
``\\A x \\in S : [](R(x))``, and ``[](P => []R)`` or ``[](P => ~<>Q)`` (locksvc's
NoPriorityInversion, a tableau of 30 branches on the gold model). This module finds them from
the structure SANY gave the formula (``java/SanyShapes.java``: operators, levels, locations;
state predicates are leaves whose text is copied from the module by location) as a list of
:class:`Obligation` ``\\A bounds : guards => [](pre => []post)``, and writes the TLA+ that
checks them as invariants: directly when no obligation has a ``pre`` (:func:`safety_invariant`),
otherwise in a model extended by a watching variable (:func:`monitor_module`) that may pick, at
any state where an obligation's ``pre`` holds for some bound values, those values, and is then
an invariant away from a violation. On every behaviour the model allows, the invariant fails
exactly where the formula's finite prefix does. TLC's tableau considers only fair behaviours:
the two agree when every finite behaviour extends to a fair one (machine closure, which holds
when each fairness condition's action is a disjunct of the next-state relation, Specifying
Systems §8.9.2; :attr:`SpecParts.machine_closed` checks that by the formula's text). Where it is
not so, only a pass can be taken from the invariant; the caller checks a violation the
tableau's way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

import attrs
from speckernel.lines import LINE_END

SHAPE_PREFIX = "SkShape_"
SHAPE_DEFINITION = f"{SHAPE_PREFIX}Def"
"""The definition a shape module gives SanyShapes to describe."""
WRAPPER_EXTENDS = "Naturals, FiniteSets, Sequences, TLC"
"""What a module wrapping the model adds to it: the standard modules templates use."""
IDENTIFIER_PREFIX = "SkMon"
WATCH = f"{IDENTIFIER_PREFIX}Watch"
"""The watching variable of :func:`monitor_module`: ``<<>>``, or ``<<k, t>>`` for obligation
``k`` at bound values ``t``."""

CONJUNCTION = frozenset({"\\land", "$ConjList"})
DISJUNCTION = frozenset({"\\lor", "$DisjList"})
ALWAYS, EVENTUALLY, NOT, IMPLIES, LEADS_TO = "[]", "<>", "\\lnot", "=>", "~>"
FORALL, EXISTS = "$BoundedForall", "$BoundedExists"
SQUARE_ACTION = "$SquareAct"
FAIRNESS = frozenset({"$WF", "$SF"})
AND = " /\\ "
STATE = 1
"""SANY's level of a state predicate (0 is constant, 2 action, 3 temporal)."""


@attrs.frozen
class Node:
    """One node of a formula as SANY analysed it: ``kind`` (``O`` built-in operator, ``U``
    user-defined, ``P`` bound parameter, ``D`` declared name, ``L`` LET, ``S`` substitution,
    ``B`` label, ``X`` other), level, where it stands (module, begin line and column, end line
    and column, 1-based, inclusive), the operator's name, and ``extra`` (a quantifier's bound
    names, a user-defined operator's arity)."""

    kind: str
    level: int
    module: str
    span: tuple[int, int, int, int]
    name: str = ""
    extra: str = ""
    children: tuple[Node, ...] = ()


MAX_DEPTH = 200
"""The deepest formula described (temporal and action levels only: state predicates are
leaves); one deeper is malformed to the caller, which checks it its own way, and every walk
over a tree stays far below Python's recursion limit (real models nest a few tens deep)."""


_LOCAL = re.compile(r"\bLOCAL\b")


def has_local(texts: Iterable[str]) -> bool:
    """Whether some text has LOCAL definitions: then no text of the model's is copied into a
    module extending it, where it could name something else (a ``LOCAL N`` of an extended
    module is not inherited, and the copied ``N`` named the model's own ``N``)."""
    return any(_LOCAL.search(text) for text in texts)


def shape_module(name: str, model: str, body: str) -> str:
    """A module defining ``SkShape_Def`` as ``body`` over the model, as a module wrapping it
    would, for SanyShapes to describe."""
    return (f"---- MODULE {name} ----\nEXTENDS {model}, {WRAPPER_EXTENDS}\n"
            f"{SHAPE_DEFINITION} =={body}\n====\n")


def described(text: str | None) -> Node | None:
    """The tree of ``SkShape_Def`` in a SanyShapes description; None without one."""
    if text is None:
        return None
    try:
        return parse_shapes(text).get(SHAPE_DEFINITION)
    except ValueError:
        return None


def parse_shapes(text: str) -> dict[str, Node]:
    """The definitions SanyShapes described, by name. Raises ValueError on malformed output,
    and on a formula nested past :data:`MAX_DEPTH`."""
    rows: list[tuple[int, Node]] = []
    names: list[tuple[str, int]] = []
    for line in text.removesuffix("\n").split("\n") if text else ():
        fields = line.split("\t")
        if fields[0] == "DEF":
            names.append((fields[1], len(rows)))
            continue
        if len(fields) != 10:
            raise ValueError(f"malformed shape line: {line[:200]!r}")
        depth, kind, level, module, *span, name, extra = fields
        if int(depth) > MAX_DEPTH:
            raise ValueError(f"a formula nested deeper than {MAX_DEPTH} levels")
        rows.append((int(depth), Node(kind, int(level), module,
                                      (int(span[0]), int(span[1]), int(span[2]), int(span[3])),
                                      name, extra)))
    ends = [start for _, start in names[1:]] + [len(rows)]
    found: dict[str, Node] = {}
    for (name, start), end in zip(names, ends, strict=True):
        tree, used = _tree(rows, start, end)
        if used != end:
            raise ValueError(f"definition {name}: more than one root")
        found[name] = tree
    return found


def _tree(rows: Sequence[tuple[int, Node]], start: int, end: int) -> tuple[Node, int]:
    """The node at ``rows[start]`` with its children (the following rows one level deeper),
    and the index after them."""
    if start >= end:
        raise ValueError("a definition without a body")
    depth, node = rows[start]
    children: list[Node] = []
    index = start + 1
    while index < end and rows[index][0] > depth:
        if rows[index][0] != depth + 1:
            raise ValueError("a node more than one level below its parent")
        child, index = _tree(rows, index, end)
        children.append(child)
    return attrs.evolve(node, children=tuple(children)), index


def node_text(texts: Mapping[str, str], node: Node) -> str | None:
    """The source of ``node`` as a block that parses as it did in place: its lines, the first
    one's text before the node blanked (tabs kept), so every junction list keeps its columns.
    Lines end as SANY's reader ends them (``\\r\\n``, ``\\r``, ``\\n``) and its columns are
    read as it counts them (a tab moves on to the column after the next multiple of 8). None
    when the module's text is unknown, the span does not fit it, or a character outside the
    16-bit range could make SANY's columns differ from Python's."""
    text = texts.get(node.module)
    first_line, first_column, last_line, last_column = node.span
    if text is None:
        return None
    lines = _lines(text)
    if not 1 <= first_line <= last_line <= len(lines):
        return None
    block = list(lines[first_line - 1:last_line])
    if any(ord(char) > 0xFFFF for line in block for char in line):
        return None
    start, end = _index(block[0], first_column), _index(block[-1], last_column)
    if start is None or end is None or (first_line == last_line and start > end):
        return None
    block[-1] = block[-1][:end + 1]
    head = block[0]
    block[0] = "".join("\t" if c == "\t" else " " for c in head[:start]) + head[start:]
    return "\n".join(block)


TAB_STOP = 8
"""SANY's reader moves the character after a tab to the column after the next multiple of 8."""


@functools.lru_cache(maxsize=8)
def _lines(text: str) -> tuple[str, ...]:
    """``text`` split as SANY's reader splits lines, once per module text: a tree's every node
    is copied from the same few modules (split per node, a model of thousands of disjuncts took
    time in their count times the module's size)."""
    return tuple(LINE_END.split(text))


def _index(line: str, column: int) -> int | None:
    """The index in ``line`` of the character SANY numbers ``column`` (1-based); None if no
    character has that column."""
    if "\t" not in line:
        return column - 1 if 1 <= column <= len(line) else None
    at = 1
    for index, char in enumerate(line):
        if at == column:
            return index
        at = ((at - 1) // TAB_STOP + 1) * TAB_STOP + 1 if char == "\t" else at + 1
    return None


def normalised_text(texts: Mapping[str, str], node: Node) -> str | None:
    """``node``'s source with its whitespace runs made single spaces, to compare formulas."""
    text = node_text(texts, node)
    return None if text is None else " ".join(text.split())


def inlined(node: Node) -> Node:
    """``node`` through the names of action- or temporal-level definitions without parameters
    (SanyShapes gives their body as the only child)."""
    while node.kind == "U" and node.extra == "0" and node.level > STATE and len(
            node.children) == 1:
        node = node.children[0]
    return node


# --------------------------------------------------------------------------- classification


def tableau_free(node: Node) -> bool:
    """Whether TLC checks the property without its tableau, naming a violation: a conjunction
    of constant or state predicates (initial states), ``[]P`` and ``[][A]_v`` conjuncts."""
    node = inlined(node)
    if node.level <= STATE:
        return True
    if node.kind != "O":
        return False
    if node.name in CONJUNCTION:
        return all(tableau_free(child) for child in node.children)
    if node.name == ALWAYS and len(node.children) == 1:
        inner = inlined(node.children[0])
        return inner.level <= STATE or (inner.kind == "O" and inner.name == SQUARE_ACTION)
    return False


NAMED, SAFETY, WATCHED, OWN = "named", "safety", "watched", "own"


def classify(node: Node) -> str:
    """How a liveness template of formula ``node`` can be checked: ``named`` (TLC checks it
    without its tableau, naming a violation), ``safety`` (a safety property of obligations
    without ``pre``: an invariant), ``watched`` (a safety property needing a watch), or ``own``
    (the tableau's way)."""
    if tableau_free(node):
        return NAMED
    obligations = safety_obligations(node)
    if not obligations:
        return OWN
    return SAFETY if all(o.pre is None for o in obligations) else WATCHED


@attrs.frozen
class Obligation:
    """``\\A bounds : guards => [](pre => []post)`` (``~post`` when ``negate``; no ``pre``:
    ``[]post``): ``bounds`` are (name, constant set) pairs, outermost first, a set possibly
    naming the bounds before it; ``guards`` constant predicates of the bounds; ``pre`` and
    ``post`` state predicates."""

    bounds: tuple[tuple[str, Node], ...]
    guards: tuple[Node, ...]
    pre: Node | None
    post: Node
    negate: bool = False


def safety_obligations(node: Node) -> list[Obligation] | None:
    """The obligations that make up temporal formula ``node``, if it is a safety property of
    the shapes above (conjunctions, bounded ``\\A`` over constant sets and constant guards
    around ``[]`` of them); None for any other formula."""
    return _obligations(node, (), ())


Bounds = tuple[tuple[str, Node], ...]


def _obligations(node: Node, bounds: Bounds, guards: tuple[Node, ...]) -> list[Obligation] | None:
    node = inlined(node)
    if node.kind != "O" or node.level <= STATE:
        return None  # a state predicate among temporal conjuncts is checked initially only
    if node.name in CONJUNCTION:
        return _all(node.children, lambda child: _obligations(child, bounds, guards))
    if node.name == FORALL:
        return _quantified(node, bounds, lambda body, more: _obligations(body, more, guards))
    if node.name == IMPLIES and len(node.children) == 2 and node.children[0].level == 0:
        return _obligations(node.children[1], bounds, (*guards, node.children[0]))
    if node.name == ALWAYS and len(node.children) == 1:
        return _always(node.children[0], bounds, guards)
    return None


def _always(node: Node, bounds: Bounds, guards: tuple[Node, ...]) -> list[Obligation] | None:
    """The obligations of ``[]node``."""
    node = inlined(node)
    if node.level <= STATE:
        return [Obligation(bounds, guards, None, node)]
    if node.kind != "O":
        return None
    if node.name == ALWAYS and len(node.children) == 1:
        return _always(node.children[0], bounds, guards)
    if node.name in CONJUNCTION:
        return _all(node.children, lambda child: _always(child, bounds, guards))
    if node.name == FORALL:
        return _quantified(node, bounds, lambda body, more: _always(body, more, guards))
    if node.name == IMPLIES and len(node.children) == 2 and node.children[0].level <= STATE:
        henceforth = _henceforth(node.children[1])
        if henceforth is not None:
            post, negate = henceforth
            return [Obligation(bounds, guards, node.children[0], post, negate)]
    return None


def _henceforth(node: Node) -> tuple[Node, bool] | None:
    """``(R, False)`` for ``[]R``, ``(Q, True)`` for ``~<>Q`` (R, Q state predicates)."""
    node = inlined(node)
    if node.kind != "O" or len(node.children) != 1:
        return None
    inner = inlined(node.children[0])
    if node.name == ALWAYS:
        if inner.level <= STATE:
            return inner, False
        return _henceforth(inner) if inner.kind == "O" and inner.name == ALWAYS else None
    if node.name == NOT and inner.kind == "O" and inner.name == EVENTUALLY and len(
            inner.children) == 1:
        target = inlined(inner.children[0])
        return (target, True) if target.level <= STATE else None
    return None


def _all(children: Sequence[Node],
         each: Callable[[Node], list[Obligation] | None]) -> list[Obligation] | None:
    found: list[Obligation] = []
    for child in children:
        part = each(child)
        if part is None:
            return None
        found += part
    return found


MAX_BOUNDS = 32
"""The most bound names an obligation carries: each set a bound name ranges over becomes an
operator of the names bound before it, so the text written grows as their square."""


def _quantified(node: Node, bounds: Bounds,
                body: Callable[[Node, Bounds], list[Obligation] | None]) -> list[Obligation] | None:
    """A bounded ``\\A`` over constant sets, its names not bound already (no tuple binding)."""
    groups = node.extra.split(";") if node.extra else []
    if not groups or any(g.startswith("<") for g in groups) or len(node.children) != len(
            groups) + 1:
        return None
    more = list(bounds)
    names = {bound for bound, _ in more}
    for group, domain in zip(groups, node.children, strict=False):
        if domain.level != 0:
            return None
        for name in group.split(","):
            if name in names:
                return None
            names.add(name)
            more.append((name, domain))
    if len(more) > MAX_BOUNDS:
        return None
    return body(node.children[-1], tuple(more))


# --------------------------------------------------------------------------- the specification


@attrs.frozen
class SpecParts:
    """A specification ``Init /\\ [][Next]_v /\\ fairness`` as the texts of its initial
    predicate's conjuncts and of its next-state action, and whether every fairness condition
    is on a disjunct of the next-state action (so every finite behaviour extends to a fair
    one)."""

    init: tuple[str, ...]
    next: str
    machine_closed: bool


def spec_parts(texts: Mapping[str, str], node: Node) -> SpecParts | None:
    """The parts of specification formula ``node``; None if it has any other conjunct (a
    second ``[][A]_v``, a temporal formula that is not a fairness condition) or a part whose
    text cannot be copied."""
    init: list[str] = []
    steps: list[Node] = []
    fairness: list[tuple[Bounds, Node]] = []
    for conjunct in _conjuncts(node):
        if conjunct.level <= STATE:
            text = node_text(texts, conjunct)
            if text is None:
                return None
            init.append(text)
        elif conjunct.kind == "O" and conjunct.name == ALWAYS and len(conjunct.children) == 1 and (
                (square := inlined(conjunct.children[0])).kind == "O"
                and square.name == SQUARE_ACTION and len(square.children) == 2):
            steps.append(square.children[0])
        elif (fair := _fairness(conjunct, ())) is not None:
            fairness += fair
        else:
            return None
    if len(steps) != 1 or not init or (next_text := node_text(texts, steps[0])) is None:
        return None
    disjuncts = _disjuncts(texts, steps[0], ())
    closed = all(_bound_texts(texts, bounds) is not None and (
        _bound_texts(texts, bounds), normalised_text(texts, action)) in disjuncts
        for bounds, action in fairness)
    return SpecParts(tuple(init), next_text, closed)


def _conjuncts(node: Node) -> list[Node]:
    """The conjuncts of ``node``; a conjunction SANY described as a leaf (one of state level,
    ``Init /\\ x < 5``) is one conjunct, not none."""
    node = inlined(node)
    if node.kind == "O" and node.name in CONJUNCTION and node.children:
        return [part for child in node.children for part in _conjuncts(child)]
    return [node]


def _fairness(node: Node, bounds: Bounds) -> list[tuple[Bounds, Node]] | None:
    """``WF_v(A)``/``SF_v(A)`` conjuncts, possibly under bounded ``\\A``: (bounds, A)."""
    node = inlined(node)
    if node.kind != "O":
        return None
    if node.name in FAIRNESS and len(node.children) == 2:
        return [(bounds, node.children[1])]
    if node.name in CONJUNCTION:
        found: list[tuple[Bounds, Node]] = []
        for child in node.children:
            part = _fairness(child, bounds)
            if part is None:
                return None
            found += part
        return found
    if node.name == FORALL:
        groups = node.extra.split(";") if node.extra else []
        if not groups or any(g.startswith("<") for g in groups) or len(node.children) != len(
                groups) + 1:
            return None
        more = bounds + tuple((name, domain) for group, domain in zip(
            groups, node.children, strict=False) for name in group.split(","))
        return _fairness(node.children[-1], more)
    return None


BoundTexts = tuple[tuple[str, str], ...]


def _bound_texts(texts: Mapping[str, str], bounds: Bounds) -> BoundTexts | None:
    """Bounds as (name, set text) pairs, for constant sets whose text is known."""
    out = []
    for name, domain in bounds:
        text = normalised_text(texts, domain)
        if text is None or domain.level != 0:
            return None
        out.append((name, text))
    return tuple(out)


def _disjuncts(texts: Mapping[str, str], node: Node,
               bounds: Bounds) -> set[tuple[BoundTexts, str | None]]:
    """Every formula that is a disjunct of ``node`` (itself included), through ``\\/``,
    bounded ``\\E`` and definitions without parameters, with the ``\\E`` bounds around it."""
    key = _bound_texts(texts, bounds)
    found: set[tuple[BoundTexts, str | None]] = set()
    if key is not None:
        found.add((key, normalised_text(texts, node)))
    if node.kind == "U" and node.extra == "0" and len(node.children) == 1 and node.level > STATE:
        return found | _disjuncts(texts, node.children[0], bounds)
    if node.kind == "O" and node.name in DISJUNCTION:
        for child in node.children:
            found |= _disjuncts(texts, child, bounds)
    elif node.kind == "O" and node.name == EXISTS:
        groups = node.extra.split(";") if node.extra else []
        if groups and not any(g.startswith("<") for g in groups) and len(
                node.children) == len(groups) + 1:
            more = bounds + tuple((name, domain) for group, domain in zip(
                groups, node.children, strict=False) for name in group.split(","))
            found |= _disjuncts(texts, node.children[-1], more)
    return found


# --------------------------------------------------------------------------- the spec's fairness


MAX_COMPARISONS = 10_000
"""The most (property conjunct, fairness condition) pairs compared: past it every conjunct is
left (the template is checked whole), so a model of thousands of fairness conditions costs no
quadratic number of tree comparisons."""


def unimplied_conjuncts(texts: Mapping[str, str], spec: Node,
                        formula: Node) -> list[Node] | None:
    """The conjuncts of property ``formula`` that are not fairness conditions of specification
    ``spec`` (the same formula as SANY resolved both: :func:`same_formula`); None when every
    conjunct is left, or one left cannot be copied. A fairness conjunct of the specification
    holds on every behaviour TLC's tableau considers (it conjoins the specification's fairness
    to the negated property, and evaluates both copies alike on the same states and steps), so
    TLC's search for it finds nothing: the rest is what a run has to check."""
    fair = [c for c in _conjuncts(spec) if _fairness(c, ()) is not None]
    if len(fair) * len(_conjuncts(formula)) > MAX_COMPARISONS:
        return None
    rest = [c for c in _conjuncts(formula)
            if not any(same_formula(texts, c, f) for f in fair)]
    if len(rest) == len(_conjuncts(formula)) or any(node_text(texts, c) is None for c in rest):
        return None
    return rest


def searches_tableau(node: Node) -> bool:
    """Whether TLC surely checks property ``node`` with its liveness checker, which evaluates
    the specification's fairness on every state and step: a conjunct (through definitions
    without parameters) is ``P ~> Q``, ``<>F``, a fairness condition, or ``[]``, ``~`` or a
    bounded quantifier over a temporal formula. False for anything else, including what a
    description does not show through (an instance, a subexpression name): not known to."""
    return any(_searched(conjunct) for conjunct in _conjuncts(node))


def _searched(node: Node) -> bool:
    if node.kind != "O" or not node.children:
        return False
    if node.name in (LEADS_TO, EVENTUALLY) or node.name in FAIRNESS:
        return True
    return node.name in (ALWAYS, NOT, FORALL, EXISTS) and inlined(
        node.children[-1]).level > STATE + 1


def same_formula(texts: Mapping[str, str], a: Node, b: Node) -> bool:
    """Whether ``a`` and ``b`` (each outside any binder) are one formula: the same operators,
    bound names and user-defined names (which resolve alike in the model and in a module
    extending it), through definitions without parameters, down to state predicates with the
    same text at the same relative columns. Anything SANY resolves by context that a
    description does not show (LET, an instance's substitutions, a label) is never the same."""
    a, b = inlined(a), inlined(b)
    if a.level <= STATE or b.level <= STATE:
        block = _block(texts, a)
        return (a.kind, a.level) == (b.kind, b.level) and block is not None and (
            block == _block(texts, b))
    if a.kind not in "OUP" or (a.kind, a.level, a.name, a.extra, len(a.children)) != (
            b.kind, b.level, b.name, b.extra, len(b.children)):
        return False
    return all(same_formula(texts, x, y) for x, y in zip(a.children, b.children, strict=True))


def _block(texts: Mapping[str, str], node: Node) -> str | None:
    """``node``'s source from its first column on (junction lists parse by relative columns);
    None with a tab, or a line that starts left of that column."""
    text = node_text(texts, node)
    if text is None or "\t" in text:
        return None
    cut = node.span[1] - 1
    lines = text.split("\n")
    if any(line[:cut].strip() for line in lines[1:]):
        return None
    return "\n".join(line[cut:] for line in lines)


# --------------------------------------------------------------------------- TLA+ generation


def definition(name: str, params: Sequence[str], body: str) -> list[str]:
    """``name(params) ==`` then the body block on its own lines (its columns as copied)."""
    head = f"{name}({', '.join(params)}) ==" if params else f"{name} =="
    return [head, *body.split("\n")]


TUPLE, PICK = f"{IDENTIFIER_PREFIX}_t", f"{IDENTIFIER_PREFIX}_u"
"""Bound names of the generated definitions (prefixed: a model's own names cannot be bound)."""


def _call(name: str, count: int, tuple_name: str = TUPLE) -> str:
    """``name(t[1], ..., t[count])`` (``name`` alone without parameters)."""
    args = ", ".join(f"{tuple_name}[{i}]" for i in range(1, count + 1))
    return f"{name}({args})" if count else name


@attrs.frozen
class Written:
    """Definitions for one obligation: its domain (the tuples of bound values), the predicate
    that a tuple is guarded in (and, with a ``pre``, that ``pre`` holds for it), the
    predicate that ``post`` holds for it, and one that evaluates every guard, ``pre`` and
    ``post`` of a tuple, guarded or not, to a Boolean (an evaluation error otherwise)."""

    lines: tuple[str, ...]
    domain: str
    ready: str
    holds: str
    evaluates: str


def write_obligation(prefix: str, obligation: Obligation,
                     texts: Mapping[str, str]) -> Written | None:
    """The definitions ``<prefix>Set_g``, ``<prefix>Guard_g``, ``<prefix>Pre``,
    ``<prefix>Post`` (copied texts, the bound names as parameters), ``<prefix>Dom`` (the set of
    bound-value tuples), ``<prefix>Ready(t)`` and ``<prefix>Holds(t)``; None if a text cannot
    be copied."""
    names = [name for name, _ in obligation.bounds]
    lines: list[str] = []
    sets = []
    for index, (_, bound_set) in enumerate(obligation.bounds, start=1):
        text = node_text(texts, bound_set)
        if text is None:
            return None
        lines += definition(f"{prefix}Set_{index}", names[:index - 1], text)
        sets.append(f"{prefix}Set_{index}({', '.join(names[:index - 1])})" if index > 1
                    else f"{prefix}Set_{index}")
    parts = [(f"{prefix}Guard_{i}", guard) for i, guard in enumerate(obligation.guards, 1)]
    if obligation.pre is not None:
        parts.append((f"{prefix}Pre", obligation.pre))
    parts.append((f"{prefix}Post", obligation.post))
    for defined, node in parts:
        text = node_text(texts, node)
        if text is None:
            return None
        lines += definition(defined, names, text)
    domain = "{<<>>}"
    if names:
        domain = f"{{<<{', '.join(names)}>> : {names[-1]} \\in {sets[-1]}}}"
        for bound, given in zip(reversed(names[:-1]), reversed(sets[:-1]), strict=True):
            domain = f"UNION {{{domain} : {bound} \\in {given}}}"
    lines += [f"{prefix}Dom == {domain}"]
    count = len(names)
    ready = [_call(defined, count) for defined, _ in parts[:-1]] or ["TRUE"]
    lines += [f"{prefix}Ready({TUPLE}) == {AND.join(ready)}"]
    post = _call(f"{prefix}Post", count)
    lines += [f"{prefix}Holds({TUPLE}) == {'~' if obligation.negate else ''}{post}"]
    every = AND.join(f"({_call(defined, count)} \\/ TRUE)" for defined, _ in parts)
    lines += [f"{prefix}Evaluates({TUPLE}) == {every}"]
    return Written(tuple(lines), f"{prefix}Dom", f"{prefix}Ready", f"{prefix}Holds",
                   f"{prefix}Evaluates")


def _evaluated(written: Written) -> str:
    """Every tuple of bound values evaluates the obligation's predicates without an error, on
    every state, as TLC's tableau evaluates them on every state it generates: a template whose
    formula TLC cannot evaluate is never passed for holding, it fails the run instead (and is
    checked its own way)."""
    return f"(\\A {TUPLE} \\in {written.domain} : {written.evaluates}({TUPLE}))"


def _every(written: Written) -> str:
    """Every tuple of bound values evaluates, and every guarded one satisfies ``post``."""
    return (f"{_evaluated(written)} /\\ (\\A {TUPLE} \\in {written.domain} : "
            f"{written.ready}({TUPLE}) => {written.holds}({TUPLE}))")


def safety_invariant(operator: str, obligations: Sequence[Obligation],
                     texts: Mapping[str, str]) -> list[str] | None:
    """Definitions ending in invariant ``operator``, for obligations without ``pre``: every
    guarded tuple of bound values satisfies ``post``."""
    lines: list[str] = []
    conjuncts = []
    for index, obligation in enumerate(obligations, start=1):
        if obligation.pre is not None:
            return None
        written = write_obligation(f"{operator}_{index}_", obligation, texts)
        if written is None:
            return None
        lines += written.lines
        conjuncts.append(_every(written))
    return [*lines, f"{operator} == {AND.join(conjuncts) or 'TRUE'}"]


def conjunction(operator: str, conjuncts: Sequence[Node],
                texts: Mapping[str, str]) -> list[str] | None:
    """Definitions ending in ``operator``, the conjunction of ``conjuncts`` (each copied into a
    definition of its own, ``TRUE`` for none); None if a text cannot be copied."""
    lines: list[str] = []
    names = []
    for index, node in enumerate(conjuncts, start=1):
        text = node_text(texts, node)
        if text is None:
            return None
        names.append(f"{operator}_{index}")
        lines += definition(names[-1], (), text)
    return [*lines, f"{operator} == {AND.join(names) or 'TRUE'}"]


def monitor_module(name: str, extends: str, parts: SpecParts,
                   checks: Sequence[tuple[str, Sequence[Obligation]]],
                   texts: Mapping[str, str]) -> str | None:
    """Module ``name``: the model (``extends``) with variable :data:`WATCH`, its initial
    predicate ``SkMonInit`` and next-state action ``SkMonNext`` (the model's, the watch
    picking at most once, where an obligation's ``pre`` holds, an obligation and bound
    values), and per check (operator, obligations) an invariant ``operator`` that fails exactly
    where a behaviour of the model violates one of the check's obligations. None if a text
    cannot be copied."""
    lines = [f"---- MODULE {name} ----", f"EXTENDS {extends}", f"VARIABLE {WATCH}"]
    for index, text in enumerate(parts.init, start=1):
        lines += definition(f"{IDENTIFIER_PREFIX}InitPart_{index}", (), text)
    lines += definition(f"{IDENTIFIER_PREFIX}NextPart", (), parts.next)
    watched: list[str] = []
    invariants: list[str] = []
    number = 0
    for operator, obligations in checks:
        conjuncts = []
        for obligation in obligations:
            number += 1
            written = write_obligation(f"{IDENTIFIER_PREFIX}{number}_", obligation, texts)
            if written is None:
                return None
            lines += written.lines
            if obligation.pre is None:
                conjuncts.append(_every(written))
                continue
            watched.append(f"{{<<{number}, {PICK}>> : {PICK} \\in {{{TUPLE} \\in "
                           f"{written.domain} : {written.ready}({TUPLE})}}}}")
            conjuncts.append(_evaluated(written))
            conjuncts.append(f"({WATCH} # <<>> /\\ {WATCH}[1] = {number} => "
                             f"{written.holds}({WATCH}[2]))")
        invariants.append(f"{operator} == {AND.join(conjuncts) or 'TRUE'}")
    ready = " \\cup ".join(watched) or "{}"
    init = AND.join(f"{IDENTIFIER_PREFIX}InitPart_{i}"
                        for i in range(1, len(parts.init) + 1))
    lines += [
        f"{IDENTIFIER_PREFIX}Ready == {ready}",
        f"{IDENTIFIER_PREFIX}Init == {init} /\\ {WATCH} \\in {{<<>>}} \\cup "
        f"{IDENTIFIER_PREFIX}Ready",
        f"{IDENTIFIER_PREFIX}Next == {IDENTIFIER_PREFIX}NextPart /\\ {WATCH}' \\in "
        f"IF {WATCH} = <<>> THEN {{<<>>}} \\cup {IDENTIFIER_PREFIX}Ready' ELSE {{{WATCH}}}",
        *invariants, "===="]
    return "\n".join(lines) + "\n"
