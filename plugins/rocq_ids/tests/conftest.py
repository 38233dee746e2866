"""Shared fixtures: the real coqc, the real local sandbox, a verifier context around them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs
import pytest
from speckernel.components import ToolResolver, VerifyContext
from speckernel.model import Candidate, Provenance, Task
from speckernel.sandbox.base import Limits, Sandbox
from speckernel.sandbox.local import LocalSandbox
from speckernel.toolchains import DetectedTools

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


@attrs.define
class Context(VerifyContext):
    sandbox: Sandbox
    tools: ToolResolver
    limits: Limits
    options: Mapping[str, Any]


@pytest.fixture
def make_ctx() -> Callable[..., Context]:
    """``make_ctx(wall_s=...)``: a verifier context on the local sandbox and detected tools."""
    tools = DetectedTools({CoqIdsToolchain.name: CoqIdsToolchain()})

    def make(wall_s: float = 120.0) -> Context:
        return Context(LocalSandbox(), tools, Limits(wall_s=wall_s, memory_mb=4096), {})

    return make


@pytest.fixture(scope="session")
def tasks() -> dict[str, Task]:
    return {task.id: task for task in all_tasks()}


def reference(task: Task) -> str:
    assert task.reference is not None
    return task.reference[CANDIDATE_FILE]


def candidate(**files: str) -> Candidate:
    return Candidate(files, Provenance("test", "none"))
