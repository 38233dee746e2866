"""The initial predicate and next-state action a trace is checked against, as TLC reads them.

Trace validation replays a trace through the model's ``Init`` and ``Next``. A cfg naming
``INIT`` and ``NEXT`` gives them by name. A cfg naming a ``SPECIFICATION`` gives a formula, and
reading its parts from the module's text disagreed with TLC where a candidate wanted it to: an
indented definition or one in another module was not found (the reader fell back on the
operators called ``Init`` and ``Next``), a decoy definition after the module's end replaced the
real one, and only the first conjunct of the initial predicate was kept (``Init /\\ tame =
TRUE /\\ [][Next]_vars`` lost ``tame = TRUE``). Each made a model that never leaves its initial
state conform to every trace while TLC checked that model in the other phases.

So the formula is read as SANY resolves it (one SanyShapes JVM): the text of every conjunct of
constant or state level, copied by the location SANY gives it, is the initial predicate, and the
one ``[][A]_v`` gives the action, each defined in the module checking the traces with its lines
and columns as written. Where that text could mean something else there, or TLC does not check
the formula as written, no trace is checked either: a cfg replacing the formula's operator
(``Spec <- Lazy``: TLC checks ``Lazy``), a model with ``LOCAL`` definitions (an extended module's
``LOCAL N``, copied as ``N``, named the model's own ``N``), a formula of another shape (two
``[][A]_v``, a temporal conjunct that is not fairness); the verdict says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import attrs
from speckernel.components import VerifyContext
from speckernel.model import Diagnostic

from speckernel_tla.artifact import Deadline, ModelUnderTest
from speckernel_tla.sany import run_batch
from speckernel_tla.shapes import (
    SHAPE_DEFINITION,
    SHAPE_PREFIX,
    definition,
    described,
    has_local,
    shape_module,
    spec_parts,
)
from speckernel_tla.tlc_config import first_name, replaced_names
from speckernel_tla.trace_validation import ModelConfig, read_config

SPEC_MODULE = f"{SHAPE_PREFIX}spec"
INIT_PART, NEXT_PART = f"{SHAPE_PREFIX}Init", f"{SHAPE_PREFIX}Next"
"""The definitions of the parts in the module checking the traces: each keeps its text's lines
and columns as SANY located them (made one line, ``/\\ IF c THEN A ELSE B`` over ``/\\ D``
read as ``IF c THEN A ELSE (B /\\ D)``, a weaker step when ``c`` holds)."""


async def trace_config(ctx: VerifyContext, jar: Path, model: ModelUnderTest,
                       deadline: Deadline, wall_s: float) -> ModelConfig | Diagnostic:
    """What the trace module takes from ``model``'s cfg, with the ``SPECIFICATION``'s parts as
    SANY reads them; a diagnostic when they cannot be read (no trace is checked then)."""
    config = read_config(model.cfg_text)
    spec = first_name(model.cfg_text, "SPECIFICATION")
    if spec is None or (first_name(model.cfg_text, "INIT") and first_name(model.cfg_text, "NEXT")):
        return config
    if spec in replaced_names(model.cfg_text):
        return _unread(spec, model, "the cfg replaces it")
    if has_local(model.files.values()):
        return _unread(spec, model, "the model has LOCAL definitions")
    limits = deadline.limits(ctx.limits, wall_s)
    if limits is None:
        return _unread(spec, model, "the verifier's wall budget ran out first")
    module = shape_module(SPEC_MODULE, model.module, f" {spec}")
    raw = await run_batch(ctx.sandbox, jar, {SPEC_MODULE: module}, limits=limits,
                          deadline=deadline, extra_files=model.files, describe=SHAPE_DEFINITION)
    tree = described(raw[SPEC_MODULE][3])
    if tree is None:
        return _unread(spec, model, "SANY cannot resolve it")
    texts: Mapping[str, str] = {PurePosixPath(p).stem: t for p, t in model.files.items()
                                if p.endswith(".tla")} | {SPEC_MODULE: module}
    parts = spec_parts(texts, tree)
    if parts is None:
        return _unread(spec, model, "it is not Init /\\ [][Next]_vars /\\ fairness")
    names = [f"{INIT_PART}{n}" for n in range(1, len(parts.init) + 1)]
    lines = [line for name, text in zip(names, parts.init, strict=True)
             for line in definition(name, (), text)]
    return attrs.evolve(config, init=" /\\ ".join(names), next=NEXT_PART,
                        definitions=(*lines, *definition(NEXT_PART, (), parts.next)))


def _unread(spec: str, model: ModelUnderTest, why: str) -> Diagnostic:
    return Diagnostic(f"the initial predicate and next-state action of SPECIFICATION {spec} "
                      f"cannot be read: {why}; no trace is checked", file=model.config,
                      code="specification-unread")
