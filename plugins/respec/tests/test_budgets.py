"""Every check ends on time (issue 20): candidates that made the in-process checkers hang,
eat gigabytes or crash now end, within the run's timeout plus the worker's slack, as a verdict
on the candidate (``unknown`` for a budget, ``invalid`` for a checker they broke), never as an
``error`` that a resume would run again.

Each case is one adversarial candidate found against the old in-thread checks; the bound is
generous for a loaded machine (the old checks took 38 s to several minutes).
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from speckernel.model import Candidate, Provenance, Status

from speckernel_respec import plugin, tasks

TIMEOUT_S = 1.0
ENDS_WITHIN_S = 20.0

CASES = [
    pytest.param("regex", "a*b", "((((((((((((a*)*)*)*)*)*)*)*)*)*)*)*)*c", {"syntax": "python"},
                 id="regex-nested-stars"),
    pytest.param("regex", "[a-z]+", "[^\\x00-\\U0010ffff]", {"syntax": "python"},
                 id="regex-empty-unicode-class"),
    pytest.param("regex", "ab|cd", "|".join(f"x{i}y" for i in range(1_000_000)),
                 {"syntax": "python"}, id="regex-10mb-alternation"),
    pytest.param("gsm", "2 + 3", "(" * 500 + "5" + ")" * 500,
                 {"variables": {}, "constraints": []}, id="gsm-500-parentheses"),
    pytest.param("sql", "SELECT name FROM emp",
                 "SELECT printf('%.*c', 999999999, 'x') FROM emp",
                 {"schema": "CREATE TABLE emp (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"},
                 id="sql-printf-gigabyte"),
    pytest.param("fol", "∀x (P(x) → Q(x))", "(" * 3000 + "P(a)" + ")" * 3000,
                 {"predicates": {"P": 1, "Q": 1}, "constants": ["a"]}, id="fol-deep-nesting"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("domain", "oracle", "text", "facts"), CASES)
async def test_a_hostile_candidate_ends_on_time_as_a_verdict(
        make_ctx: Callable[..., Any], domain: str, oracle: str, text: str,
        facts: dict[str, Any]) -> None:
    verifier = plugin.loaded().verifiers[domain]
    task = tasks.Entry(domain, "t", "A task.", oracle, facts).task()
    candidate = Candidate({tasks.spec_file(domain): text}, Provenance("t", "m"))
    started = time.monotonic()
    verdict = await verifier.verify(candidate, task, make_ctx(timeout_s=TIMEOUT_S))
    took = time.monotonic() - started
    assert took < ENDS_WITHIN_S, f"{domain} took {took:.1f} s"
    assert verdict.status is not Status.ERROR, verdict
    assert verdict.data["verdict"] in ("unknown", "invalid", "refuted"), verdict


# --------------------------------------------------------------------------- the process boundary

SOURCE = Path(plugin.__file__).resolve().parent
FORBIDDEN_MODULES = {"subprocess", "pty"}
FORBIDDEN_CALLS = {("os", "system"), ("os", "popen"), ("anyio", "run_process"),
                   ("anyio", "open_process")}


def _escapes(tree: ast.AST) -> list[str]:
    """Imports and calls that would start a process outside the kernel sandbox."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                a.name for a in node.names]
            found += [f"import {n}" for n in names if n.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            pair = (node.value.id, node.attr)
            if pair in FORBIDDEN_CALLS or (pair[0] == "os" and pair[1].startswith(
                    ("exec", "spawn", "posix_spawn", "fork"))):
                found.append(".".join(pair))
    return found


def test_no_process_starts_outside_the_sandbox() -> None:
    """Only ``toolchain.py`` (detection: trusted commands on no model output) may start a
    process directly; everything else goes through ``ctx.run``/``ctx.sandbox.open``."""
    offenders = {str(path.relative_to(SOURCE)): escapes
                 for path in sorted(SOURCE.rglob("*.py")) if path.name != "toolchain.py"
                 if (escapes := _escapes(ast.parse(path.read_text(encoding="utf-8"))))}
    assert offenders == {}
