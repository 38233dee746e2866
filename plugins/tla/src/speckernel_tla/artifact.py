"""What the TLC-based verifiers share: the model under test, and a wall-clock budget split
over several TLC runs."""

from __future__ import annotations

import time

import attrs
from speckernel.model import Candidate, Diagnostic, Files, Task
from speckernel.sandbox.base import Limits

from speckernel_tla.verifiers import model_module, tla_modules

MIN_RUN_S = 5.0
"""A TLC run with less wall time than this cannot start its JVM and read a model."""


@attrs.frozen
class ModelUnderTest:
    """The candidate's model: its module name, its TLC configuration file name, and the files
    TLC needs (every ``.tla`` of the candidate and the cfg)."""

    module: str
    config: str
    files: Files

    @property
    def cfg_text(self) -> str:
        return self.files[self.config]


def model_under_test(candidate: Candidate, task: Task) -> ModelUnderTest | Diagnostic:
    """The task's module and ``<module>.cfg`` from the candidate, or why they are missing."""
    modules = tla_modules(candidate)
    module = model_module(task, modules)
    if module is None or module not in modules:
        wanted = f"module {module}" if module else "a single TLA+ module"
        return Diagnostic(f"expected {wanted} in the artifact")
    config = f"{module}.cfg"
    if config not in candidate.files:
        return Diagnostic(f"no TLC configuration {config} in the artifact", file=config)
    files = {f"{name}.tla": text for name, text in modules.items()}
    return ModelUnderTest(module, config, {**files, config: candidate.files[config]})


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
