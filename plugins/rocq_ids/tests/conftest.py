"""Shared fixtures: the real coqc, the real local sandbox, a verifier context around them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from speckernel.components import VerifyContext
from speckernel.model import Candidate, Provenance, Task
from speckernel.sandbox.base import Limits
from speckernel.testing import verify_context

from speckernel_rocq_ids.storebuild import OcamlToolchain
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, all_tasks
from speckernel_rocq_ids.toolchain import CoqIdsToolchain


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def coqc() -> None:
    status = CoqIdsToolchain().detect()
    if not status.found:
        pytest.skip(f"coqc not available ({status.detail}); run `kernel tools install rocq_ids`")


@pytest.fixture
def make_ctx() -> Callable[..., VerifyContext]:
    """``make_ctx(wall_s=...)``: the kernel's verifier context (local sandbox, worker pool)
    with the plugin's detected tools."""

    def make(wall_s: float = 120.0) -> VerifyContext:
        return verify_context(toolchains=[CoqIdsToolchain(), OcamlToolchain()],
                              limits=Limits(wall_s=wall_s, memory_mb=4096))

    return make


@pytest.fixture(scope="session")
def tasks() -> dict[str, Task]:
    return {task.id: task for task in all_tasks()}


def reference(task: Task) -> str:
    assert task.reference is not None
    return task.reference[CANDIDATE_FILE]


def candidate(**files: str) -> Candidate:
    return Candidate(files, Provenance("test", "none"))


@pytest.fixture(scope="session")
def tasks_all() -> dict[str, Task]:
    """Every bundled task, the suite beyond the references included."""
    return {task.id: task for task in all_tasks("all")}
