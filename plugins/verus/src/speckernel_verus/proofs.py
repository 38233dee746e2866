"""Proof length: how many lines a solution adds to its task file, to compare an agent's proofs
with the ground truth's (VeruSAGE reports solutions' proof size against the human proofs)."""

from __future__ import annotations

import difflib


def _meaningful(text: str) -> list[str]:
    """Lines that carry code: stripped, neither blank nor a line comment."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("//")]


def added_lines(task_text: str, solution_text: str) -> int:
    """Lines of ``solution_text`` not matched to a line of ``task_text`` (the proof added)."""
    before, after = _meaningful(task_text), _meaningful(solution_text)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return sum(j2 - j1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("insert",
                                                                                "replace"))
