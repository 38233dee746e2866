"""Which file of a task is the artifact: every task is one stand-alone Rust file."""

from __future__ import annotations

from speckernel.model import Task

FILE_KEY = "file"
"""Task metadata naming the task's file (the only ``.rs`` file otherwise)."""


def task_file(task: Task) -> str:
    """The name of the file the agent completes and the verifiers check."""
    named = task.metadata.get(FILE_KEY)
    if isinstance(named, str):
        return named
    rust = sorted(name for name in task.files if name.endswith(".rs"))
    return rust[0] if rust else "main.rs"
