"""Loading VeruSAGE-Bench and Verus-Bench tasks from a directory the user names.

VeruSAGE-Bench keeps each task as ``tasks/<PROJ>__<module>__...__<fn>.rs`` and its ground truth
under ``source-projects/<project>/verified/``, linked by ``mapping_<proj>.txt`` lines
``<name>.rs -> verified/<sub>/<name>.rs`` where the task file is ``<PROJ>__<name>.rs``.
Verus-Bench keeps ``tasks.jsonl`` (task and ground truth inline) beside ``<Source>/unverified``
and ``<Source>/verified``. A task's project (AL, AC, IR, MA, NO, NR, OS, ST, VE; or CloverBench,
Diffy, MBPP, Misc) is its group in the report. A task's reference is its ground truth's proof
transplanted into the task's text (``transplant_references``).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs
from speckernel.errors import KernelError
from speckernel.model import Task

from speckernel_verus.artifact import FILE_KEY
from speckernel_verus.cheats import (
    CheatCheckError,
    CheatPair,
    Function,
    function_lists,
    transplant_pairs,
)

BENCHMARK = "verus"
VERUSAGE = "VeruSAGE-Bench"
VERUS_BENCH = "Verus-Bench"

PROJECTS: dict[str, str] = {
    "AL": "anvil-library",
    "AC": "anvil-controller",
    "IR": "ironkv",
    "MA": "memory-allocator",
    "NO": "node-replication",
    "NR": "nrkernel",
    "OS": "atmosphere",
    "ST": "storage",
    "VE": "vest",
}
"""VeruSAGE-Bench's project prefixes and their directories under ``source-projects/``."""

PROMPT = (
    "Add proof annotations (assertions, proof blocks, lemma calls, loop invariants, decreases "
    "clauses, new spec or proof functions) to {target} in this Verus file so that Verus verifies "
    "it. Do not change specifications, executable code or existing items, and do not use "
    "assume(...), admit(), #[verifier::external_body] or axioms."
)

_IMPL_PREFIX = re.compile(r"impl\d*_(?P<name>\w+)")
_VERSION_SUFFIX = re.compile(r"_?\d+$")
_PARTS = re.compile(r"(?<!_)__")
_LEMMA_MARK = re.compile(r"(^|_)L_")


def load_tasks(path: str | Path) -> Iterator[Task]:
    """Every task under ``path``, VeruSAGE-Bench first, each suite in file-name order.

    ``path`` is a VeruSAGE-Bench or Verus-Bench directory, or a directory holding either or both.
    A path that holds neither, a VeruSAGE task whose target cannot be found, or a missing helper
    (which reads the tasks' functions) raises ``KernelError`` with one line.
    """
    root = Path(path).expanduser()
    if not root.is_dir():
        raise KernelError(f"verus data: {root} is not a directory")
    verusage = next((d for d in (root, root / VERUSAGE) if _is_verusage(d)), None)
    bench = next((d for d in (root, root / VERUS_BENCH)
                  if (d / "tasks.jsonl").is_file() and not _is_verusage(d)), None)
    if verusage is None and bench is None:
        raise KernelError(f"verus data: {root} holds neither {VERUSAGE} (tasks/, "
                          f"source-projects/) nor {VERUS_BENCH} (tasks.jsonl)")
    try:
        if verusage is not None:
            yield from transplant_references(assign_targets(list(verusage_tasks(verusage))))
        if bench is not None:
            yield from transplant_references(list(verus_bench_tasks(bench)))
    except CheatCheckError as exc:
        raise KernelError(f"verus data: {exc}") from None


def name_variants(stem: str) -> list[str]:
    """The function names a VeruSAGE task file's name may stand for, most literal first: its
    last ``__`` part (``__`` not inside a longer run of underscores, so IronKV's
    ``impl2___is_marshalable`` names ``_is_marshalable``) without a ``-poly``/``-fixed``-style
    suffix (``MA__layout__mod_mul-poly``); without an ``impl<N>_`` prefix (IronKV's
    ``delegation_map_v__impl1_new``); verified-storage's ``_L_`` read as ``_lemma_``
    (``inv_L_x`` is module ``inv``'s ``lemma_x``); without a version number
    (``new_container_preserve_tree_inv_2``, ``subregion_read_relative_aligned2``)."""
    last = _PARTS.split(stem)[-1].split("-", 1)[0]
    out = [last]
    impl = _IMPL_PREFIX.fullmatch(last)
    if impl:
        out.append(impl["name"])
    out += [_LEMMA_MARK.sub(r"\1lemma_", name) for name in list(out)]
    out += [_VERSION_SUFFIX.sub("", name) for name in list(out)]
    return list(dict.fromkeys(n for n in out if n))


def choose_target(stem: str, functions: Sequence[Function]) -> str:
    """The function a VeruSAGE task asks to prove: among the task's exec and proof functions
    with a real body (never a spec function, never a trusted stub), the one its file name names
    (``name_variants``); else the longest one a name variant ends with, word for word
    (verified-storage's ``logimpl_get_head_tail_and_capacity`` is module ``logimpl``'s
    ``get_head_tail_and_capacity``, Anvil's ``proof_lemma_x`` is ``lemma_x``); else the one
    name within a typo of it (upstream misspells a few: ``map_values_weaknes_no_duplicates``);
    else the only one there is (a task named for its module, like ``AL__vec_lib``).
    ``ValueError`` says why there is none."""
    names = sorted({f.name for f in functions if f.provable})
    wanted = name_variants(stem)
    for name in wanted:
        if name in names:
            return name
    suffixes = {n for n in names for w in wanted if w.endswith("_" + n)}
    longest = [n for n in suffixes if len(n) == max(map(len, suffixes), default=0)]
    if len(longest) == 1:
        return longest[0]
    close = {n for w in wanted for n in difflib.get_close_matches(w, names, n=3, cutoff=0.8)}
    if len(close) == 1:
        return close.pop()
    if len(names) == 1:
        return names[0]
    listed = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "") or "none"
    raise ValueError(f"no exec or proof function with a body matches the name "
                     f"{wanted[0]!r} (functions to prove: {listed})")


def assign_targets(tasks: list[Task]) -> list[Task]:
    """VeruSAGE tasks with their target (``choose_target``) in metadata and prompt;
    ``KernelError`` naming every task whose target cannot be found."""
    lists = function_lists([t.files[t.metadata[FILE_KEY]] for t in tasks])
    out, problems = [], []
    for task, functions in zip(tasks, lists, strict=True):
        stem = Path(task.metadata[FILE_KEY]).stem
        try:
            if isinstance(functions, str):
                raise ValueError(f"the task does not parse: {functions}")
            target = choose_target(stem, functions)
        except ValueError as exc:
            problems.append(f"{task.id}: {exc}")
            continue
        out.append(attrs.evolve(task, prompt=PROMPT.format(target=f"the function `{target}`"),
                                metadata={**task.metadata, "target": target}))
    if problems:
        raise KernelError(f"verus data: {len(problems)} task(s) without a target: "
                          + "; ".join(problems[:3]) + (" ..." if len(problems) > 3 else ""))
    return out


def transplant_references(tasks: Sequence[Task], jobs: int = 2) -> list[Task]:
    """The tasks with each reference made the ground truth's proof in the task's own text
    (``cheats.transplant_pairs``: the target function(s) and the new proof items taken from the
    ground truth, every other byte the task's), so the reference passes the cheat checker
    wherever the ground truth's proof itself does. The raw ground truth stays in metadata
    (``ground_truth_text``); ``reference`` says which one the reference is (the raw ground
    truth where either file does not parse)."""
    pairs = [CheatPair(t.files[t.metadata[FILE_KEY]], t.reference[t.metadata[FILE_KEY]],
                       t.metadata.get("target")) for t in tasks if t.reference]
    results = iter(transplant_pairs(pairs, jobs=jobs))
    out = []
    for task in tasks:
        if not task.reference:
            out.append(task)
            continue
        result, file = next(results), task.metadata[FILE_KEY]
        truth = task.reference[file]
        out.append(attrs.evolve(
            task,
            reference={file: truth if result.text is None else result.text},
            metadata={**task.metadata, "ground_truth_text": truth,
                      "reference": "transplanted" if result.text is not None
                      else f"raw ground truth ({result.error})"},
        ))
    return out


def _is_verusage(suite: Path) -> bool:
    return (suite / "tasks").is_dir() and (suite / "source-projects").is_dir()


def verusage_tasks(suite: Path) -> Iterator[Task]:
    """VeruSAGE-Bench tasks with the ground truth each ``mapping_*.txt`` names (None where the
    data holds no ground truth for a task), their targets not yet chosen (``assign_targets``)."""
    truths = _verusage_truths(suite / "source-projects")
    for file in sorted((suite / "tasks").glob("*.rs")):
        project, sep, name = file.name.partition("__")
        if not sep or project not in PROJECTS:
            continue
        text = _read(file)
        truth = truths.get((project, name))
        yield Task(
            id=f"verusage/{file.stem}",
            benchmark=BENCHMARK,
            prompt=PROMPT.format(target="its functions"),
            files={file.name: text},
            metadata={
                FILE_KEY: file.name,
                "artifact_files": [file.name],
                "suite": VERUSAGE,
                "project": project,
                "target": None,
                "source": f"tasks/{file.name}",
                "ground_truth": truth.relative_to(suite).as_posix() if truth else None,
            },
            reference={file.name: _read(truth)} if truth else None,
        )


def _verusage_truths(projects: Path) -> dict[tuple[str, str], Path]:
    """(project prefix, unverified file name) -> ground-truth file, from every mapping file."""
    truths: dict[tuple[str, str], Path] = {}
    for mapping in sorted(projects.glob("*/mapping_*.txt")):
        prefix = mapping.stem.removeprefix("mapping_").upper()
        for line in _read(mapping).splitlines():
            source, arrow, verified = line.partition("->")
            if arrow and (projects / mapping.parent.name / verified.strip()).is_file():
                truths[(prefix, source.strip())] = mapping.parent / verified.strip()
    return truths


def verus_bench_tasks(suite: Path) -> Iterator[Task]:
    """Verus-Bench tasks from ``tasks.jsonl``: every function is a target (the suite names
    none), and a task whose ``ground_truth`` is ``None`` has no reference."""
    rows = []
    for number, line in enumerate(_read(suite / "tasks.jsonl").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise KernelError(f"verus data: {suite / 'tasks.jsonl'}:{number}: not JSON "
                                  f"({exc.msg})") from None
    for row in sorted(rows, key=lambda r: str(r.get("task_id"))):
        task_path = str(row.get("task_path") or "")
        name = Path(task_path).name or f"{row.get('name')}.rs"
        truth = row.get("ground_truth")
        has_truth = isinstance(truth, str) and truth != "None"
        yield Task(
            id=f"verus-bench/{row.get('task_id')}",
            benchmark=BENCHMARK,
            prompt=PROMPT.format(target="its functions"),
            files={name: str(row.get("task", ""))},
            metadata={
                FILE_KEY: name,
                "artifact_files": [name],
                "suite": VERUS_BENCH,
                "project": str(row.get("source", "")),
                "target": None,
                "source": task_path,
                "ground_truth": row.get("solution_path") if has_truth else None,
            },
            reference={name: truth} if has_truth else None,
        )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KernelError(f"verus data: cannot read {path}: {exc}") from None
