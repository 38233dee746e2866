"""The bundled tasks (``tasks/<category>/<Name>/``) as kernel tasks, and their transformed
variants for the robustness metric.

Each task directory holds ``task.yaml`` (name, category, description, method), ``<Name>.java``
(the program, no JML), ``reference/<Name>.java`` (the same program with JML KeY proves) and
``<Name>Test.java`` (a ``main`` that checks the method and fails on a mismatch).
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from speckernel.errors import KernelError
from speckernel.model import Task

from speckernel_jml.prompting import task_prompt
from speckernel_jml.testinputs import calls_as_metadata, calls_in_test

BENCHMARK = "jml"
CATEGORIES = ("sequential", "branch", "single_path_loop", "multi_path_loop", "nested")
"""FormalBench's control-flow categories, spelled as its data spells them (``meta_data.jsonl``),
in its order."""

CATEGORY_ALIASES = {"branching": "branch", "branches": "branch", "nested_loop": "nested",
                    "nested_loops": "nested"}
"""Other names for FormalBench's categories (this plugin's earlier ones among them)."""


def canonical_category(name: str) -> str | None:
    """FormalBench's name for category ``name`` (itself or an alias), or None."""
    if name in CATEGORIES:
        return name
    return CATEGORY_ALIASES.get(name)


def tasks_root() -> Path:
    return Path(str(resources.files("speckernel_jml") / "tasks"))


def make_task(task_id: str, class_name: str, code: str, description: str,
              metadata: dict[str, Any], reference: str | None = None) -> Task:
    """A kernel task for one program: the agent reads ``<Class>.java`` and the description."""
    file = f"{class_name}.java"
    return Task(
        id=task_id, benchmark=BENCHMARK, prompt=task_prompt(description),
        files={file: code},
        metadata={"class_name": class_name, "file": file, "description": description,
                  "artifact_files": [file], **metadata},
        reference={file: reference} if reference is not None else None,
    )


def load_bundled(root: Path | None = None) -> Iterator[Task]:
    """Every bundled task, by category (FormalBench's order) then name."""
    base = root or tasks_root()
    for category in CATEGORIES:
        directory = base / category
        if not directory.is_dir():
            continue
        for task_dir in sorted(p for p in directory.iterdir() if (p / "task.yaml").is_file()):
            yield _load_task(task_dir, category)


def _load_task(task_dir: Path, category: str) -> Task:
    meta = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8")) or {}
    name = str(meta.get("name") or task_dir.name)
    try:
        code = (task_dir / f"{name}.java").read_text(encoding="utf-8")
        reference = (task_dir / "reference" / f"{name}.java").read_text(encoding="utf-8")
    except OSError as exc:
        raise KernelError(f"bundled task {task_dir}: {exc}") from exc
    test = task_dir / f"{name}Test.java"
    test_source = test.read_text(encoding="utf-8") if test.is_file() else None
    return make_task(
        f"{category}/{name}", name, code, str(meta.get("description", "")).strip(),
        {"category": canonical_category(str(meta.get("category", category))) or category,
         "method": meta.get("method"),
         "source": "bundled", "base_task": None, "rule": None,
         "test_class": f"{name}Test" if test_source is not None else None,
         "test_source": test_source,
         "test_calls": calls_as_metadata(calls_in_test(test_source, name))
         if test_source is not None else []},
        reference,
    )


def transformed_variants(task: Task, rules: list[str] | None = None) -> Iterator[Task]:
    """The task's checked semantic-preserving variants (:mod:`speckernel_jml.transforms`), one
    task per applicable rule. A variant has no reference spec: it is scored by whether the
    agent's spec for it verifies, against the agent's spec for the original (flip rate)."""
    from speckernel_jml import transforms

    class_name = str(task.metadata["class_name"])
    test = None
    if task.metadata.get("test_source"):
        test = transforms.ProgramTest(str(task.metadata["test_class"]),
                                      str(task.metadata["test_source"]))
    code = task.files[str(task.metadata["file"])]
    for variant in transforms.variants(code, class_name, rules or list(transforms.RULES), test):
        yield make_task(
            f"{task.id}--{variant.rule}", class_name, variant.source,
            str(task.metadata["description"]),
            {**{k: v for k, v in task.metadata.items()
                if k not in ("class_name", "file", "description", "artifact_files")},
             "source": "transforms", "base_task": task.id, "rule": variant.rule},
        )
