"""Tasks from spec files outside the package (benchmark option ``spec_path``).

A user brings a specification store written against the IDS framework, e.g. a port of Chapar's
causal-consistency spec (Chapar's own ``KVStore.v`` has a different, five-method interface and
needs such a port, notes §1.6). The file must import the framework and declare exactly one
``Module <Name> <: AlgDef``; the task's obligation file is generated in the same shape as the
bundled ones (``RYW_Correct.v``), so the same verifiers and audit judge it. Anything else is a
one-line error naming the file and what is wrong, raised when the tasks are listed.
"""

from __future__ import annotations

import re
from pathlib import Path

from speckernel.errors import KernelError
from speckernel.model import Task

from speckernel_rocq_ids.scan import strip_comments
from speckernel_rocq_ids.sources import FRAMEWORK, LOGICAL_ROOT, coq_source, sha256
from speckernel_rocq_ids.tasks import BENCHMARK, CANDIDATE_FILE, PROMPT, Obligation

OBLIGATION = """\
(** * The {prefix} obligation: the candidate's [{prefix}_Impl] refines [{spec}]. *)

From IDS Require Import KVStore {stem} Impl.

Module {prefix}_TI := TraceInclusion {prefix}_Impl {spec} {prefix}_Refinement.

Theorem {theorem} : forall reps a v0 h wi,
  {prefix}_Refinement.WI.step_star ({prefix}_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws, {prefix}_Refinement.WS.step_star ({prefix}_Refinement.WS.initWorld reps a v0) \
hs ws /\\
                obs_proj h = obs_proj hs.
Proof. exact {prefix}_TI.trace_inclusion. Qed.
"""
"""The obligation of a spec ``{stem}.v`` defining ``{spec}``; ``RYW_Correct.v`` is this with
prefix RYW."""

_IMPORTS_FRAMEWORK = re.compile(rf"\bFrom\s+{LOGICAL_ROOT}\s+Require\s+(?:Import\s+|Export\s+)?"
                                r"[\w\s]*\bKVStore\b")
_SPEC_MODULE = re.compile(r"\bModule\s+(\w+)\s*<:\s*AlgDef\b")
_STEM = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_RESERVED = {FRAMEWORK, CANDIDATE_FILE}


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
                          f"{' and '.join(sorted(_RESERVED))}")
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError:
        raise KernelError(f"IDS spec file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise KernelError(f"IDS spec file {path} cannot be read: {exc.strerror}") from None


def spec_module(path: Path, text: str) -> str:
    """The one ``Module <Name> <: AlgDef`` of a framework spec file."""
    code = strip_comments(text)
    if not _IMPORTS_FRAMEWORK.search(code):
        raise KernelError(f"IDS spec file {path} does not import the framework "
                          f"(From {LOGICAL_ROOT} Require Import KVStore); port it to AlgDef first")
    modules = _SPEC_MODULE.findall(code)
    if len(modules) != 1:
        found = f"{len(modules)} ({', '.join(modules)})" if modules else "none"
        raise KernelError(f"IDS spec file {path} must declare exactly one "
                          f"'Module <Name> <: AlgDef', found {found}")
    return str(modules[0])


def load_spec(spec_path: str) -> Task:
    """The task of an external spec file: candidates write ``<Stem>_Impl`` and
    ``<Stem>_Refinement`` in ``Impl.v``; the audit runs the probes every store must pass."""
    path = Path(spec_path).expanduser()
    text = _read(path)
    spec = spec_module(path, text)
    stem = path.stem
    theorem = f"{stem.lower()}_impl_refines_spec"
    correct = f"{stem}_Correct.v"
    files = {FRAMEWORK: coq_source("framework", FRAMEWORK), path.name: text,
             correct: obligation_text(stem, spec, stem, theorem)}
    obligation = Obligation(path.name, correct, spec, f"{stem}_Impl", f"{stem}_Refinement",
                            theorem, {name: sha256(body) for name, body in files.items()},
                            ("put_visible",))
    title = f"the external spec {spec} ({path.name})"
    prompt = PROMPT.format(title=title, framework=FRAMEWORK, spec=path.name, obligation=correct,
                           theorem=theorem, spec_module=spec, candidate=CANDIDATE_FILE,
                           impl_module=obligation.impl_module,
                           refinement_module=obligation.refinement_module, interface="")
    return Task(f"ext-{stem.lower()}", BENCHMARK, prompt, files,
                {"title": title, "obligation": obligation.to_json(), "source": str(path),
                 "artifact_files": [CANDIDATE_FILE]})
