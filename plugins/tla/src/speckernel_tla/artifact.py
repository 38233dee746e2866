"""What the TLA+ verifiers share: how a call opens (the tool, the verdict skeleton, the model
under test), and a wall-clock budget split over several TLC runs."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import attrs
from speckernel.components import VerifyContext
from speckernel.model import Candidate, Diagnostic, Files, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_tla.toolchain import Tla2ToolsToolchain

MODULE_KEY = "module"
"""Task metadata naming the model's module (SysMoBench's ``specModule``)."""

MIN_RUN_S = 5.0
"""A TLC run with less wall time than this cannot start its JVM and read a model."""


def tla_modules(candidate: Candidate) -> dict[str, str]:
    """The candidate's ``.tla`` files by module name (file stem), wherever they sit."""
    return {PurePosixPath(path).stem: text for path, text in candidate.files.items()
            if path.endswith(".tla")}


def model_module(task: Task, modules: Mapping[str, str]) -> str | None:
    """The module under test: the task's ``module``, else the candidate's only module."""
    named = task.metadata.get(MODULE_KEY)
    if isinstance(named, str):
        return named
    return next(iter(modules)) if len(modules) == 1 else None


@attrs.frozen
class ModelUnderTest:
    """The candidate's model: its module name, its TLC configuration file name, and the files
    TLC needs (every ``.tla`` of the candidate and the cfg, where the candidate has one)."""

    module: str
    config: str
    files: Files

    @property
    def text(self) -> str:
        return self.files[f"{self.module}.tla"]

    @property
    def cfg_text(self) -> str:
        """The cfg, empty where the candidate has none (and the verifier needs none)."""
        return self.files.get(self.config, "")

    @property
    def module_texts(self) -> list[str]:
        """The text of every module of the candidate, the model's own first."""
        return [self.text, *self.other_modules.values()]

    @property
    def other_modules(self) -> Files:
        """The candidate's other modules, by file name."""
        return {path: text for path, text in self.files.items()
                if path.endswith(".tla") and path != f"{self.module}.tla"}


def model_under_test(candidate: Candidate, task: Task,
                     needs_config: bool = True) -> ModelUnderTest | Diagnostic:
    """The task's module and ``<module>.cfg`` from the candidate (the cfg only if
    ``needs_config``), or why they are missing. A module in two files (``M.tla`` and
    ``x/M.tla``, which SANY would both call ``M``) is refused: one of them would be checked and
    the other could be what the evaluator model is shown."""
    files_of: dict[str, list[str]] = {}
    for path in sorted(p for p in candidate.files if p.endswith(".tla")):
        files_of.setdefault(PurePosixPath(path).stem, []).append(path)
    if held := next((paths for paths in files_of.values() if len(paths) > 1), None):
        return Diagnostic(f"module {PurePosixPath(held[0]).stem} is in more than one file "
                          f"({', '.join(held)}): which one is the model is ambiguous")
    modules = tla_modules(candidate)
    module = model_module(task, modules)
    if module is None or module not in modules:
        wanted = f"module {module}" if module else "a single TLA+ module"
        found = ", ".join(sorted(modules)) or "none"
        return Diagnostic(f"expected {wanted} in the artifact; found: {found}")
    config = f"{module}.cfg"
    if needs_config and config not in candidate.files:
        return Diagnostic(f"no TLC configuration {config} in the artifact", file=config)
    files = {f"{name}.tla": text for name, text in modules.items()}
    cfg = {config: candidate.files[config]} if config in candidate.files else {}
    return ModelUnderTest(module, config, {**files, **cfg})


@attrs.frozen
class Opening:
    """Where a TLA+ verifier call starts: the jar, the verdict it builds on (status ``error``
    and the tool named, until the call decides), and the model under test. Without a model,
    ``verdict`` is already the call's answer: a failure saying what the candidate lacks."""

    jar: Path
    verdict: Verdict
    model: ModelUnderTest | None

    @classmethod
    def of(cls, verifier: str, candidate: Candidate, task: Task, ctx: VerifyContext,
           needs_config: bool = True) -> Opening:
        tool = ctx.tools.status(Tla2ToolsToolchain.name)
        verdict = Verdict(verifier, Status.ERROR, tool=tool.name, tool_version=tool.version)
        model = model_under_test(candidate, task, needs_config)
        if isinstance(model, Diagnostic):
            return cls(Path(tool.path), attrs.evolve(
                verdict, status=Status.FAILURE, diagnostics=(model,)), None)
        return cls(Path(tool.path), verdict, model)


@attrs.frozen
class Deadline:
    """The end of a verifier call's wall-clock budget, shared by the TLC runs inside it."""

    end: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def limits(self, base: Limits, per_run_s: float) -> Limits | None:
        """``base`` with the wall budget of one run: ``per_run_s`` or what is left if less;
        None when too little is left to start TLC."""
        left = self.end - time.monotonic()
        if left < MIN_RUN_S:
            return None
        return attrs.evolve(base, wall_s=min(per_run_s, left))
