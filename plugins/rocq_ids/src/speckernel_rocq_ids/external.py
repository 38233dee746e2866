"""Tasks from spec files outside the package (benchmark option ``spec_path``).

A user brings a specification store in one of two shapes:

- a spec written against the IDS framework: it imports the framework and declares exactly one
  ``Module <Name> <: AlgDef``; it is the task's spec as it stands;
- a Chapar algorithm (Chapar's five methods, notes §1.6): it imports the framework and the port
  ``ChaparPort.v`` and declares exactly one ``Module <Name> <: ChaparAlg``. Its spec is
  ``<Stem>_Spec := Port <Name>``, generated in ``<Stem>_Port.v``: the port runs the algorithm's
  own methods in the IDS client/replica world (what it keeps is said in ``ChaparPort.v``).

Either way the obligation file is generated in the bundled shape (``RYW_Correct.v``) and every
file the candidate builds on (framework, port, the user's file, generated files) is pinned, so
the same verifiers and audit judge the task. A malformed file is a one-line error naming the
file and the fault, raised when the tasks are listed; Coq's type checking of the file itself
happens when a candidate is compiled against it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import attrs
from speckernel.errors import KernelError
from speckernel.model import Task

from speckernel_rocq_ids.coqlex import blank_comments
from speckernel_rocq_ids.sources import FRAMEWORK, LOGICAL_ROOT, coq_source, sha256
from speckernel_rocq_ids.tasks import BENCHMARK, CANDIDATE_FILE, PROMPT, Obligation

OBLIGATION = """\
(** * The {prefix} obligation: the candidate's [{prefix}_Impl] refines [{spec}].

    The candidate's file is required, never imported, and every name is written in full
    ([IDS.KVStore.obs_proj], [IDS.{stem}.{spec}]): nothing the candidate defines, no notation
    and no tactic of its file, can change what this statement says. *)

From IDS Require KVStore {stem} Impl.

Module {prefix}_TI := IDS.KVStore.TraceInclusion
  IDS.Impl.{prefix}_Impl IDS.{stem}.{spec} IDS.Impl.{prefix}_Refinement.

Theorem {theorem} : forall reps a v0 h wi,
  IDS.Impl.{prefix}_Refinement.WI.step_star
    (IDS.Impl.{prefix}_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws,
    IDS.Impl.{prefix}_Refinement.WS.step_star
      (IDS.Impl.{prefix}_Refinement.WS.initWorld reps a v0) hs ws /\\
    IDS.KVStore.obs_proj h = IDS.KVStore.obs_proj hs.
Proof. exact {prefix}_TI.trace_inclusion. Qed.
"""
"""The obligation of a spec ``{stem}.v`` defining ``{spec}``; ``RYW_Correct.v`` is this with
prefix RYW."""

PORT = "ChaparPort.v"
"""The team-written port of Chapar's interface (``ChaparAlg``, functor ``Port``)."""

PORTED = """\
(** * [{spec}]: the Chapar algorithm [{module}] of {source} run in the IDS world
    through [Port] (ChaparPort.v). *)

From IDS Require Import KVStore ChaparPort {source_stem}.

Module {spec} := Port {module}.
"""
"""The generated spec file of a Chapar algorithm."""

CHAPAR_MEMBERS = {"State": 1, "Update": 1, "dummy_update": 0, "init_method": 1,
                  "get_method": 3, "put_method": 4, "guard_method": 5, "update_method": 5}
"""Chapar's interface: each type constructor and method with its number of arguments."""

_IMPORTS = r"\bFrom\s+{root}\s+Require\s+(?:Import\s+|Export\s+)?[\w\s]*\b{name}\b"
_IMPORTS_FRAMEWORK = re.compile(_IMPORTS.format(root=LOGICAL_ROOT, name="KVStore"))
_IMPORTS_PORT = re.compile(_IMPORTS.format(root=LOGICAL_ROOT, name="ChaparPort"))
_SPEC_MODULE = re.compile(r"\bModule\s+(\w+)\s*<:\s*AlgDef\b")
_CHAPAR_MODULE = re.compile(r"\bModule\s+(\w+)\s*<:\s*ChaparAlg\b[^.]*\.(?=\s)")
_DEFINITION = re.compile(r"\b(?:Definition|Fixpoint|CoFixpoint|Inductive|CoInductive|Variant"
                         r"|Record|Structure|Let)\s+([\w']+)(.*?)(?::=|\.(?=\s|$))", re.DOTALL)
_STEM = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_RESERVED = {FRAMEWORK, CANDIDATE_FILE, PORT}


@attrs.frozen
class SpecShape:
    """What a spec file contributes to its task: the files it adds after the framework (in
    build order, the spec file last), the ``AlgDef`` module the candidate must refine, and what
    the prompt says about them beyond the framework."""

    files: Mapping[str, str]
    spec_module: str
    interface: str = ""
    probes: tuple[str, ...] = ("put_visible",)
    """The vacuous patterns the audit rejects by computation (:mod:`probes`)."""


def obligation_text(stem: str, spec_module: str, prefix: str, theorem: str) -> str:
    """The obligation file for spec file ``<stem>.v`` defining ``spec_module``."""
    return OBLIGATION.format(prefix=prefix, spec=spec_module, stem=stem, theorem=theorem)


def _read(path: Path) -> str:
    if not path.exists():
        raise KernelError(f"IDS spec file {path} does not exist")
    if not path.is_file():
        raise KernelError(f"IDS spec file {path} is not a regular file")
    if path.suffix != ".v":
        raise KernelError(f"IDS spec file {path} is not a Coq file (.v)")
    if path.name in _RESERVED or not _STEM.fullmatch(path.stem):
        raise KernelError(f"IDS spec file {path}: the name must be a Coq identifier other than "
                          f"{', '.join(sorted(_RESERVED))}")
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError:
        raise KernelError(f"IDS spec file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise KernelError(f"IDS spec file {path} cannot be read: {exc.strerror}") from None


def _exactly_one(path: Path, found: list[str], declaration: str) -> str:
    if len(found) != 1:
        listed = f"{len(found)} ({', '.join(found)})" if found else "none"
        raise KernelError(f"IDS spec file {path} must declare exactly one "
                          f"'{declaration}', found {listed}")
    return found[0]


def spec_module(path: Path, text: str) -> str:
    """The one ``Module <Name> <: AlgDef`` of a framework spec file."""
    code = blank_comments(text)
    if not _IMPORTS_FRAMEWORK.search(code):
        raise KernelError(f"IDS spec file {path} does not import the framework "
                          f"(From {LOGICAL_ROOT} Require Import KVStore); write it against "
                          f"AlgDef, or against ChaparAlg (ChaparPort) for a Chapar algorithm")
    return _exactly_one(path, _SPEC_MODULE.findall(code), "Module <Name> <: AlgDef")


def _items(text: str) -> list[str]:
    """The top-level items of a binder list: bracketed groups and bare words."""
    items, depth, current = [], 0, ""
    for char in text:
        if depth == 0 and (char.isspace() or (char in "({" and current not in ("", "'"))):
            items.append(current)
            current = ""
        if not (depth == 0 and char.isspace()):
            current += char
        depth += (char in "({[") - (char in ")}]")
        if depth == 0 and char in ")}]":
            items.append(current)
            current = ""
    return [item for item in [*items, current] if item]


def _binders(item: str) -> int:
    """Arguments one binder item declares: ``(a b : T)`` two, ``{A}`` none (implicit)."""
    if item.startswith("{"):
        return 0
    if item.startswith("(") and ":" in item:
        return len(item[1:].split(":")[0].split())
    return 1


def arity(header: str) -> int | None:
    """How many explicit arguments a definition header (the text between the defined name and
    ``:=``) declares: its binders plus the top-level arrows of its type; None when it does not
    say (no binders and no type, as in ``Definition f := fun ...``, or a ``forall`` type)."""
    depth, colon = 0, len(header)
    for i, char in enumerate(header):
        depth += (char in "({[") - (char in ")}]")
        if char == ":" and depth == 0:
            colon = i
            break
    count = sum(_binders(item) for item in _items(header[:colon]))
    kind = header[colon + 1:]
    if re.search(r"\bforall\b", kind) or (colon == len(header) and count == 0):
        return None
    depth, arrows = 0, 0
    for i, char in enumerate(kind):
        depth += (char in "({[") - (char in ")}]")
        arrows += depth == 0 and kind.startswith("->", i)
    return count + arrows


def chapar_module(path: Path, text: str) -> str:
    """The one ``Module <Name> <: ChaparAlg`` of a Chapar-style file, once its body defines
    every type constructor and method of :data:`CHAPAR_MEMBERS` with its number of
    arguments."""
    code = blank_comments(text)
    if not (_IMPORTS_FRAMEWORK.search(code) and _IMPORTS_PORT.search(code)):
        raise KernelError(f"IDS spec file {path} declares a ChaparAlg module but does not import "
                          f"the framework and the port (From {LOGICAL_ROOT} Require Import "
                          f"KVStore ChaparPort)")
    if _SPEC_MODULE.search(code):
        raise KernelError(f"IDS spec file {path} declares both AlgDef and ChaparAlg modules; "
                          f"a spec file holds one store")
    matches = list(_CHAPAR_MODULE.finditer(code))
    name = _exactly_one(path, [m.group(1) for m in matches], "Module <Name> <: ChaparAlg")
    start = matches[0].end()
    end = re.search(rf"\bEnd\s+{name}\s*\.", code[start:])
    if end is None:
        raise KernelError(f"IDS spec file {path}: module {name} has no 'End {name}.'")
    defined: dict[str, int | None] = {}
    for member, header in _DEFINITION.findall(code[start:start + end.start()]):
        defined.setdefault(member, arity(header))
    missing = [member for member in CHAPAR_MEMBERS if member not in defined]
    if missing:
        raise KernelError(f"IDS spec file {path}: module {name} does not define "
                          f"{', '.join(missing)} of Chapar's interface")
    for member, expected in CHAPAR_MEMBERS.items():
        found = defined[member]
        if found is not None and found != expected:
            raise KernelError(f"IDS spec file {path}: {name}.{member} takes {found} arguments, "
                              f"Chapar's interface gives it {expected}")
    return name


def chapar_shape(path: Path, text: str) -> SpecShape:
    """The port ``<Stem>_Spec := Port <Name>`` of a Chapar algorithm, after the port file and
    the user's file. Chapar's gets never wait, so no guard probe applies; ``put_propagates``
    rejects instead the store that would pass by never showing another client's put."""
    module = chapar_module(path, text)
    stem = path.stem
    spec = f"{stem}_Spec"
    if module in (spec, f"{stem}_Impl", f"{stem}_Refinement"):
        raise KernelError(f"IDS spec file {path}: the module name {module} is the task's; "
                          f"rename the ChaparAlg module")
    ported = PORTED.format(spec=spec, module=module, source=path.name, source_stem=stem)
    note = (f"The spec is Chapar's algorithm {module} from {path.name} run through `Port` "
            f"({PORT}: Chapar's five-method interface `ChaparAlg`, and what the port keeps of "
            f"it).\n")
    return SpecShape({PORT: coq_source("framework", PORT), path.name: text,
                      f"{stem}_Port.v": ported}, spec, note, ("put_visible", "put_propagates"))


def spec_shape(path: Path, text: str) -> SpecShape:
    """A Chapar algorithm's port, or the framework spec itself."""
    if _CHAPAR_MODULE.search(blank_comments(text)):
        return chapar_shape(path, text)
    return SpecShape({path.name: text}, spec_module(path, text))


def load_spec(spec_path: str) -> Task:
    """The task of an external spec file: candidates write ``<Stem>_Impl`` and
    ``<Stem>_Refinement`` in ``Impl.v``; the audit runs the probes every store must pass."""
    path = Path(spec_path).expanduser()
    text = _read(path)
    shape = spec_shape(path, text)
    *support, spec_file = shape.files
    stem = path.stem
    theorem = f"{stem.lower()}_impl_refines_spec"
    correct = f"{stem}_Correct.v"
    files = {FRAMEWORK: coq_source("framework", FRAMEWORK), **shape.files,
             correct: obligation_text(spec_file.removesuffix(".v"), shape.spec_module, stem,
                                      theorem)}
    obligation = Obligation(spec_file, correct, shape.spec_module, f"{stem}_Impl",
                            f"{stem}_Refinement", theorem,
                            {name: sha256(body) for name, body in files.items()},
                            shape.probes, support=tuple(support))
    title = f"the external spec {shape.spec_module} ({path.name})"
    prompt = PROMPT.format(title=title, framework=FRAMEWORK, spec=spec_file, obligation=correct,
                           theorem=theorem, spec_module=shape.spec_module,
                           candidate=CANDIDATE_FILE, impl_module=obligation.impl_module,
                           refinement_module=obligation.refinement_module,
                           interface=shape.interface)
    return Task(f"ext-{stem.lower()}", BENCHMARK, prompt, files,
                {"title": title, "obligation": obligation.to_json(), "source": str(path),
                 "artifact_files": [CANDIDATE_FILE]})

