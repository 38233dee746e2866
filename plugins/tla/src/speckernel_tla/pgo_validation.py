"""The TLA+ module that checks a PGo system's run (its TraceLink logs, :mod:`tracelink`) against
a PGo-compiled model, with the event-to-action mapping derived from the model itself
(:mod:`pgo_model`). Pure: text in, text out; :mod:`speckernel_tla.conformance` runs it with TLC.

SysMoBench (notes §3) has PGo's ``tracegen`` generate a ``<M>Validate.tla`` that replays the logs
and checks the model under test as a refinement of the replay. The module built here replays the
logs on the model directly, which is what that refinement check amounts to for the model PGo
compiled (the gold one): it EXTENDS the model and adds

* ``sk_run``: which of the task's runs the behaviour replays (all runs are checked in one TLC
  run, as separate initial states);
* ``sk_pos[i]``: how many sections of process ``i`` the behaviour has taken;
* a step takes the next section of some process ``i`` whose clock is satisfied (every section of
  another process it depends on is taken: any order the clocks allow, as ``tracegen`` does),
  as a step of the section's label action ``l(self)`` whose pre-state agrees with what the
  section read first and whose post-state agrees with what it wrote last (``pc[self]`` included),
  for the locals and the plain ``ref`` globals; an aborted section changes nothing;
* marker states reporting facts, once each (``VIEW`` folds a marker to its fact, an
  ``INVARIANT`` prints each new one), each for its run: ``at i k`` (some behaviour has taken
  ``k`` sections of process ``i``), ``ready i k`` (section ``k`` of ``i`` was next with its clock
  satisfied), and ``done`` (some behaviour took every section: the run validates).

A section that is ``ready`` in some reached state but never taken is where the model and the
system part: no behaviour matching everything that happened before it can take its step.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from speckernel_tla import fact_tags
from speckernel_tla.pgo_model import NotPGo, PGoModel, Role, read_pgo_model, with_channels_of
from speckernel_tla.tlc_config import sections
from speckernel_tla.trace_validation import read_config
from speckernel_tla.tracelink import Process, Record, Run, TraceLinkError, build_run, group_runs

MODULE_PREFIX = "SpeckernelPGo"
_CFG_CONSTANT = re.compile(r"\s*([A-Za-z_]\w*)")

Location = tuple[str, tuple[str, ...]]
Check = tuple[str, tuple[str, ...], str]


class _Written:
    """The locations a section has written so far, as a trie of paths per variable: whether a
    location overlaps one of them (one path a prefix of the other) in the length of its path."""

    def __init__(self) -> None:
        self._roots: dict[str, _WrittenNode] = {}

    def add(self, where: Location) -> None:
        node = self._roots.setdefault(where[0], _WrittenNode())
        for step in where[1]:
            node.below = True
            node = node.children.setdefault(step, _WrittenNode())
        node.written = True

    def overlaps(self, where: Location) -> bool:
        node = self._roots.get(where[0])
        for step in where[1]:
            if node is None:
                return False
            if node.written:
                return True
            node = node.children.get(step)
        return node is not None and (node.written or node.below)


class _WrittenNode:
    __slots__ = ("below", "children", "written")

    def __init__(self) -> None:
        self.children: dict[str, _WrittenNode] = {}
        self.written = False
        self.below = False


class _LastWrites:
    """The last write of each location that no later write overlaps, in the order written: a
    write drops the entries on its path and the whole subtree under it (pruned, so each entry
    is dropped once: a long section stays linear)."""

    def __init__(self) -> None:
        self._roots: dict[str, _PostNode] = {}
        self._order: dict[int, Check] = {}
        self._tickets = itertools.count()

    def write(self, where: Location, value: str) -> None:
        node = self._roots.setdefault(where[0], _PostNode())
        for step in where[1]:
            self._drop(node)
            node = node.children.setdefault(step, _PostNode())
        self._drop(node)
        pending = list(node.children.values())
        while pending:
            below = pending.pop()
            self._drop(below)
            pending.extend(below.children.values())
        node.children = {}
        node.ticket = next(self._tickets)
        self._order[node.ticket] = (where[0], where[1], value)

    def _drop(self, node: _PostNode) -> None:
        if node.ticket is not None:
            del self._order[node.ticket]
            node.ticket = None

    def checks(self) -> list[Check]:
        return list(self._order.values())


class _PostNode:
    __slots__ = ("children", "ticket")

    def __init__(self) -> None:
        self.children: dict[str, _PostNode] = {}
        self.ticket: int | None = None


def section_checks(role: Role, process: Process, record: Record) -> tuple[list[Check], list[Check]]:
    """What the section says about the state before it (the first read of a location that no
    earlier write of the section overlaps) and after it (the writes no later write overlaps),
    as (variable, indices, value) in the model's terms.

    A write of ``v`` followed by one of ``v[1]`` keeps only the latter for the post-state (their
    combination is not a value the section logged), but ``v[2]`` read after both was written
    by the section: what it read says nothing of the state before it."""
    pre: dict[Location, str] = {}
    written = _Written()
    post = _LastWrites()
    for element in record.elements:
        if element.name == ".pc":
            if not element.write:
                continue
            label = element.value.strip('"').rpartition(".")[2]
            target = role.label(label) or label
            where: Location = ("pc", (process.identity,))
            value = f'"{target}"'
        elif (local := role.local(element.name)) is not None:
            where = (local, ((process.identity,) if role.indexed else ()) + element.indices)
            value = element.value
        elif (ref := role.ref(element.name)) is not None and ref.variable is not None:
            where = (ref.variable, element.indices)
            value = element.value
        else:  # a parameter reached through a mapping macro, or a value parameter
            continue
        if element.write:
            written.add(where)
            post.write(where, value)
        elif where not in pre and not written.overlaps(where):
            pre[where] = value
    return [(v, p, x) for (v, p), x in pre.items()], post.checks()


def _alternatives(model: PGoModel, process: Process,
                  record: Record) -> list[tuple[str, list[Check], list[Check]]]:
    """The steps the model could take for a section: one per process of the model that runs
    its archetype and has its label (action text, pre checks, post checks)."""
    label = (record.label or "").rpartition(".")[2]
    out = []
    for role in model.roles_of(process.archetype):
        action = role.label(label)
        if action is None:
            continue
        pre, post = section_checks(role, process, record)
        out.append((f"{action}({process.identity})" if role.indexed else action, pre, post))
    return out


def _action_name(model: PGoModel, process: Process, record: Record) -> str:
    """The model's action a section is a step of (its label when there is none)."""
    alternatives = _alternatives(model, process, record)
    return alternatives[0][0].split("(")[0] if alternatives else (record.label or "")


def _tuple(items: Sequence[str]) -> str:
    return "<<" + ", ".join(items) + ">>"


def _check_text(check: Check, variables: Mapping[str, int]) -> str:
    name, path, value = check
    return _tuple([str(variables[name]), _tuple(path), value])


def constants(model_cfg: str, trace_cfg: str | None) -> list[str]:
    """The CONSTANTS entries of the validation cfg: the model's, with those the traced system
    ran with (PGo's ``<M>Validate.cfg``) in their place."""
    given = dict(read_config(model_cfg).constants)
    if trace_cfg:
        for keyword, body in sections(trace_cfg):
            if keyword.startswith("CONSTANT"):
                given.update(read_config(f"CONSTANTS\n{body}\n").constants)
    return [text for _, text in sorted(given.items())]


def validation_module(module: str, model: PGoModel, init: str, next_: str, runs: Sequence[Run],
                      tag: str, definitions: Sequence[str] = ()) -> tuple[str, str]:
    """The module checking ``runs`` against ``model`` (module ``module``) from the initial
    predicate ``init`` (which ``definitions`` may define): (name, TLA+). It prints its facts
    with ``tag`` (:mod:`speckernel_tla.fact_tags`).

    A section is replayed as a step of its label's action that is also a step of the model's
    next-state relation ``next_`` (or leaves the model's variables unchanged, as ``[Next]_vars``
    allows): the label's action alone would accept a model whose ``Next`` never takes it, or
    whose specification never moves (found by an attacker: M_c 1 for both)."""
    name = f"{MODULE_PREFIX}_{module}"
    variables = {v: n for n, v in enumerate(model.variables, 1)}
    actions: dict[str, int] = {}
    procs, lengths, deps, recs = [], [], [], []
    for run in runs:
        per_process = []
        for process in run.processes:
            rows = []
            for record in process.records:
                if record.abort:
                    rows.append("[abort |-> TRUE, alts |-> <<>>]")
                    continue
                alts = []
                for action, pre, post in _alternatives(model, process, record):
                    number = actions.setdefault(action.split("(")[0], len(actions) + 1)
                    alts.append(_tuple([str(number),
                                        _tuple([_check_text(c, variables) for c in pre]),
                                        _tuple([_check_text(c, variables) for c in post])]))
                rows.append(f"[abort |-> FALSE, alts |-> {_tuple(alts)}]")
            per_process.append(_tuple(rows))
        procs.append(_tuple([p.identity for p in run.processes]))
        lengths.append(_tuple([str(len(p.records)) for p in run.processes]))
        deps.append(_tuple([_tuple([_tuple([_tuple([str(j + 1), str(c)]) for j, c in row])
                                    for row in rows]) for rows in run.dependencies]))
        recs.append(_tuple(per_process))
    own = _tuple(list(model.variables))
    cases = " [] ".join(f"op = {n} -> {a}" + ("(self)" if a in model.indexed_actions else "")
                        for a, n in actions.items()) or "OTHER -> FALSE"
    now = " [] ".join(f"v = {n} -> {v}" for v, n in variables.items())
    nxt = " [] ".join(f"v = {n} -> {v}'" for v, n in variables.items())
    text = "\n".join([
        f"---- MODULE {name} ----",
        f"EXTENDS {module}, Integers, Sequences, TLC",
        "VARIABLES sk_mode, sk_run, sk_pos, sk_i, sk_k",
        "",
        f"SkProcsOf == {_tuple(procs)}",
        f"SkLenOf == {_tuple(lengths)}",
        "SkDepsOf == <<\n    " + ",\n    ".join(deps) + ">>",
        "SkRecsOf == <<\n    " + ",\n    ".join(recs) + ">>",
        *definitions,
        f"SkNow(v) == CASE {now}",
        f"SkNext(v) == CASE {nxt}",
        f"SkAct(op, self) == CASE {cases}",
        _TEMPLATE.format(init=init, next=next_, own=own,
                         report=fact_tags.report(tag, "sk_mode", "sk_run", "sk_i", "sk_k")),
    ])
    return name, text



_TEMPLATE = """\
RECURSIVE SkMatch(_, _, _)
SkMatch(f, path, v) ==
    IF path = <<>> THEN f = v
    ELSE path[1] \\in DOMAIN f /\\ SkMatch(f[path[1]], Tail(path), v)

SkPre(cs) == \\A n \\in 1..Len(cs) : SkMatch(SkNow(cs[n][1]), cs[n][2], cs[n][3])
SkPost(cs) == \\A n \\in 1..Len(cs) : SkMatch(SkNext(cs[n][1]), cs[n][2], cs[n][3])

SkProcs == SkProcsOf[sk_run]
SkLen == SkLenOf[sk_run]

SkTake(i, k) ==
    LET r == SkRecsOf[sk_run][i][k] IN
    IF r.abort THEN UNCHANGED {own}
    ELSE \\E a \\in 1..Len(r.alts) :
           /\\ SkPre(r.alts[a][2])
           /\\ SkAct(r.alts[a][1], SkProcs[i])
           /\\ SkPost(r.alts[a][3])

SkReady(i) ==
    /\\ sk_pos[i] < SkLen[i]
    /\\ LET d == SkDepsOf[sk_run][i][sk_pos[i] + 1] IN
       \\A n \\in 1..Len(d) : sk_pos[d[n][1]] >= d[n][2]

SkInit ==
    /\\ {init}
    /\\ sk_mode = "run" /\\ sk_run \\in 1..Len(SkProcsOf)
    /\\ sk_pos = [i \\in 1..Len(SkProcs) |-> 0] /\\ sk_i = 0 /\\ sk_k = 0

SkStep ==
    /\\ sk_mode = "run"
    /\\ \\E i \\in 1..Len(SkProcs) :
          /\\ SkReady(i)
          /\\ SkTake(i, sk_pos[i] + 1)
          /\\ sk_pos' = [sk_pos EXCEPT ![i] = @ + 1]
    /\\ \\/ UNCHANGED {own}
       \\/ {next}
    /\\ UNCHANGED <<sk_mode, sk_run, sk_i, sk_k>>

SkMark ==
    /\\ sk_mode = "run"
    /\\ \\/ \\E i \\in 1..Len(SkProcs) : sk_mode' = "at" /\\ sk_i' = i /\\ sk_k' = sk_pos[i]
       \\/ \\E i \\in 1..Len(SkProcs) :
             SkReady(i) /\\ sk_mode' = "ready" /\\ sk_i' = i /\\ sk_k' = sk_pos[i] + 1
       \\/ sk_pos = SkLen /\\ sk_mode' = "done" /\\ sk_i' = 0 /\\ sk_k' = 0
    /\\ UNCHANGED <<{own}, sk_run, sk_pos>>

SkNextStep == SkStep \\/ SkMark

SkView ==
    IF sk_mode = "run" THEN <<"run", sk_run, {own}, sk_pos>> ELSE <<sk_mode, sk_run, sk_i, sk_k>>

SkReport == sk_mode # "run" => {report}
====
"""


def validation_cfg(entries: Sequence[str]) -> str:
    return "\n".join(["INIT SkInit", "NEXT SkNextStep", "VIEW SkView", "INVARIANT SkReport",
                      *(["CONSTANTS", *(f"    {e}" for e in entries)] if entries else []), ""])


def plan(module: str, model_text: str, model_cfg: str, init: str, next_: str,
         trace_cfg: str | None, files: Mapping[str, str], gold_text: str | None = None,
         definitions: Sequence[str] = ()) -> dict[str, Any]:
    """Everything the PGo conformance check needs, as plain data (run in a kernel worker):
    ``{"error": why}`` when the model has no derivable mapping, else ``{"runs": [...],
    "name": ..., "text": ..., "tag": ..., "cfg": ...}``: per run its ``key``, ``error`` (a
    malformed run, left out of the module) and ``records`` (per process, per section, ``[file,
    line, label, aborted, the model's action for it]``), the validation module of the
    well-formed runs, in that order, and the tag it prints its facts with. With the task's gold
    model ``gold_text``, which refs are channels is the gold's (:func:`with_channels_of`)."""
    try:
        model = read_pgo_model(model_text)
    except NotPGo as exc:
        return {"error": str(exc)}
    if gold_text is not None:
        with contextlib.suppress(NotPGo):  # a gold that is not PGo's says nothing of channels
            model = with_channels_of(model, read_pgo_model(gold_text))
    runs: list[dict[str, Any]] = []
    good: list[Run] = []
    for key, logs in group_runs(files):
        try:
            run = build_run(key, logs)
        except TraceLinkError as exc:
            runs.append({"key": key, "error": str(exc)})
            continue
        good.append(run)
        runs.append({"key": key, "error": None,
                     "records": [[[r.file, r.line, r.label or "", r.abort,
                                   _action_name(model, p, r)] for r in p.records]
                                 for p in run.processes]})
    if not good:
        return {"runs": runs}
    tag = fact_tags.new_tag()
    name, text = validation_module(module, model, init, next_, good, tag, definitions)
    return {"runs": runs, "name": name, "text": text, "tag": tag,
            "cfg": validation_cfg(constants(model_cfg, trace_cfg))}


def read_facts(output: str, tag: str) -> dict[int, dict[str, Any]]:
    """The facts a run printed, per replayed run (1-based, the module's order): ``done``, per
    process (1-based) the most sections some behaviour took (``at``) and the sections found
    ready (``ready``)."""
    facts: dict[int, dict[str, Any]] = {}
    for kind, run, i, k in fact_tags.read(output, tag, ("at", "ready", "done")):
        mine = facts.setdefault(run, {"done": False, "at": {}, "ready": {}})
        if kind == "done":
            mine["done"] = True
        elif kind == "at":
            mine["at"][i] = max(k, mine["at"].get(i, 0))
        else:
            mine["ready"].setdefault(i, set()).add(k)
    return facts
