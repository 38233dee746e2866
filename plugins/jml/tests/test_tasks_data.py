"""The bundled tasks: FormalBench's shape (a Java class with one static method, its description,
tests) in the paper's five control-flow categories, each with a reference JML specification
that annotates exactly the task's code and nothing else."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from speckernel.model import Status

from speckernel_jml.bundled import CATEGORIES, load_bundled, tasks_root
from speckernel_jml.javasource import first_difference, jml_comments, tokenize, top_level_class
from speckernel_jml.verifiers import check_file

TASKS_ROOT = tasks_root()
TASK_DIRS = sorted(p for p in TASKS_ROOT.glob("*/*") if p.is_dir())
TASK_IDS = [f"{p.parent.name}/{p.name}" for p in TASK_DIRS]

def texts(source: str, *, jml: bool) -> list[str]:
    """The token texts of ``source`` (comments included), with or without its JML comments."""
    return [t.text for t in tokenize(source) if jml or not t.is_jml]


def load(task_dir: Path) -> dict[str, object]:
    data = yaml.safe_load((task_dir / "task.yaml").read_text())
    assert isinstance(data, dict)
    return data


def test_every_category_holds_at_least_six_of_the_forty_tasks() -> None:
    per_category = Counter(p.parent.name for p in TASK_DIRS)
    assert set(per_category) == set(CATEGORIES)
    assert all(per_category[c] >= 6 for c in CATEGORIES), per_category
    assert len(TASK_DIRS) >= 40
    assert len({p.name for p in TASK_DIRS}) == len(TASK_DIRS), "class names must be unique"


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=TASK_IDS)
def test_task_has_its_files_and_metadata(task_dir: Path) -> None:
    name = task_dir.name
    data = load(task_dir)
    assert set(data) == {"name", "category", "description", "method"}
    assert data["name"] == name and data["category"] == task_dir.parent.name
    description = data["description"]
    assert isinstance(description, str) and "Examples:" in description
    assert sum(line.startswith("- ") for line in description.splitlines()) >= 2
    source = (task_dir / f"{name}.java").read_text()
    program = texts(source, jml=True)
    assert "package" not in program and "import" not in program
    assert top_level_class(source) == name and program.count("class") == 1
    method = program.index(str(data["method"]))
    assert "static" in program[:method] and program[method + 1] == "("
    test_source = (task_dir / f"{name}Test.java").read_text()
    test = texts(test_source, jml=True)
    assert top_level_class(test_source) == f"{name}Test"
    assert "main" in test and "AssertionError" in test and "assert" not in test


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=TASK_IDS)
def test_reference_is_the_program_plus_jml(task_dir: Path) -> None:
    name = task_dir.name
    program = (task_dir / f"{name}.java").read_text()
    reference = (task_dir / "reference" / f"{name}.java").read_text()
    assert not jml_comments(program), "the task's program carries no JML"
    assert texts(reference, jml=False) == texts(program, jml=True), "only JML comments added"
    assert first_difference(program, reference) is None, "the benchmark's cheating check agrees"
    spec = "\n".join(t.text for t in jml_comments(reference))
    assert "normal_behavior" in spec and "ensures" in spec and "assignable" in spec
    loops = sum(t in ("for", "while") for t in texts(program, jml=True))
    assert spec.count("loop_invariant") + spec.count("maintaining") >= loops
    assert spec.count("decreases") + spec.count("decreasing") >= loops


@pytest.fixture(scope="session")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every program and its test compiled by one ``javac`` (class names are unique)."""
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("javac/java not on PATH")
    out = tmp_path_factory.mktemp("classes")
    sources = [str(p) for d in TASK_DIRS for p in (d / f"{d.name}.java", d / f"{d.name}Test.java")]
    result = subprocess.run(["javac", "-d", str(out), *sources], capture_output=True, text=True,
                            timeout=240, check=False)
    assert result.returncode == 0, result.stderr
    return out


@pytest.mark.slow
@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=TASK_IDS)
def test_program_passes_its_tests(task_dir: Path, compiled: Path) -> None:
    result = subprocess.run(["java", "-cp", str(compiled), f"{task_dir.name}Test"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize("task_id", TASK_IDS)
async def test_reference_is_proved_by_the_verifier(task_id: str, key_installed: None,
                                                   make_ctx: Any) -> None:
    """Every reference verifies as a candidate would: FormalBench's semantics (nullable by
    default), the program as KeY reads it, and not vacuous for the task's test inputs."""
    [task] = [t for t in load_bundled() if t.id == task_id]
    file = str(task.metadata["file"])
    assert task.reference is not None
    outcome = await check_file(task, {file: task.reference[file]}, make_ctx(timeout_s=600.0))
    assert outcome.status is Status.SUCCESS, outcome.diagnostics
