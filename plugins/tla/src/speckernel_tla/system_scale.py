"""The model checked at the scale its system ran at.

The runtime and invariant phases run TLC on the candidate's own cfg, as SysMoBench does (notes
§4), and a cfg can shrink what it checks: with ``Threads = {"t1"}`` a spinlock whose lock lets
two threads in holds ``MutualExclusion``, since one thread is never two. The system's traces
say what it ran with: the mapping the conformance phase reads them through binds each of the
model's constants to the first record of a trace (``Threads: "SetOf(TraceFirst.threads)"``).
Those constants are given those values here, whatever the cfg says, so the model is checked
with as many threads, clients or transactions as the system had. The gold models' cfgs give
the same values, so their verdicts do not change.

A binding is used where the cfg can hold the value (a number, a string, a boolean, or a set of
them: ``TraceFirst.f`` or ``SetOf(TraceFirst.f)``) and the model declares the constant. Not
bound: PGo systems' constants (their validation constants are for replaying a run, not for
model checking), and a model in names of its own whose mapping binds nothing (its conformance
then says how far it is from the system's).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

import attrs
from speckernel.model import Candidate, Task

from speckernel_tla.artifact import ModelUnderTest
from speckernel_tla.cfg_tampering import declared_names
from speckernel_tla.conformance import load_mapping, task_mapping, trace_keys
from speckernel_tla.tasks import TRACELINK
from speckernel_tla.tlc_config import replaced_names, with_constants
from speckernel_tla.trace_validation import (
    InputError,
    TraceMapping,
    parse_trace,
    tla_value,
)

_BINDING = re.compile(r"\s*(SetOf\s*\(\s*)?TraceFirst\s*\.\s*([A-Za-z_]\w*)\s*(?(1)\))\s*")


def system_constants(candidate: Candidate, task: Task, model: ModelUnderTest) -> dict[str, str]:
    """The cfg values of the model's constants the system's traces fix (see the module
    docstring); empty where none can be bound."""
    return _system_scale(candidate, task, model)[0]


def _system_scale(candidate: Candidate, task: Task,
                  model: ModelUnderTest) -> tuple[dict[str, str], int]:
    """The model's constants the traces fix, through the mapping the conformance phase uses,
    and how many the task's own mapping fixes for the gold model's names (as many as a model
    should have bound); the first record of the task's first trace is read once for both."""
    keys = trace_keys(task)
    if keys is None or task.metadata.get("trace_format") == TRACELINK:
        return {}, 0
    try:
        first = parse_trace(keys[0], task.files[keys[0]]).records[0]
    except InputError:
        return {}, 0
    try:
        mapping = load_mapping(candidate, task)
    except InputError:
        mapping = None
    return (_bindings(mapping, first, declared_names(model.module_texts)),
            len(_bindings(task_mapping(task), first, None)))


def _bindings(mapping: TraceMapping | None, first: Mapping[str, object],
              declared: Collection[str] | None) -> dict[str, str]:
    """The cfg values ``mapping`` gives its constants (those ``declared``, if given) from the
    trace's ``first`` record, where a cfg can hold them."""
    values: dict[str, str] = {}
    for constant, expression in mapping.constants if mapping is not None else ():
        binding = _BINDING.fullmatch(expression)
        if (declared is not None and constant not in declared) or binding is None \
                or binding.group(2) not in first:
            continue
        value = _cfg_value(first[binding.group(2)], as_set=binding.group(1) is not None)
        if value is not None:
            values[constant] = value
    return values


@attrs.frozen
class Scale:
    """What :func:`at_system_scale` bound: the constants given the system's values, and how many
    of those the task's own mapping fixes were left at the candidate's (a model in names of
    its own that no mapping binds; a constant its cfg leaves out)."""

    bound: dict[str, str]
    unbound: int

    def to_json(self) -> dict[str, object]:
        return {"system_constants": dict(self.bound), "constants_unbound": self.unbound}


def at_system_scale(candidate: Candidate, task: Task,
                    model: ModelUnderTest) -> tuple[ModelUnderTest, Scale]:
    """``model`` with its cfg giving the constants the traces fix the system's values, and
    what was bound (nothing, and the model as it is, when nothing can be or the cfg's entries
    for them cannot be replaced alone). Only a value the cfg gives is replaced: a constant it
    leaves out stays a configuration error, as TLC reports it, not one this repairs."""
    given = replaced_names(model.cfg_text)
    found, expected = _system_scale(candidate, task, model)
    values = {name: value for name, value in found.items() if name in given}
    cfg = with_constants(model.cfg_text, values) if values else None
    if cfg is None:
        values = {}
    scale = Scale(values, max(expected - len(values), 0))
    if cfg is None:
        return model, scale
    return attrs.evolve(model, files={**model.files, model.config: cfg}), scale


def _cfg_value(value: object, *, as_set: bool) -> str | None:
    """``value`` as a cfg writes it, a list as a set when ``as_set``; None if a cfg cannot."""
    try:
        if as_set:
            if not isinstance(value, list) or any(isinstance(v, list | dict) for v in value):
                return None
            return "{" + ", ".join(tla_value(v, "trace") for v in value) + "}"
        return None if isinstance(value, list | dict) else tla_value(value, "trace")
    except InputError:
        return None
