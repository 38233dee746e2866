"""The SQL domain's facts, read one way by the verifier and by the prompt that states them.

``{"schema": "<CREATE TABLE statements>", "constraints": [<query>, ...]}``. Each optional
constraint is a query that returns a row exactly when a database violates it (Polygon's
integrity constraints written as SQL), so the verifier compares the two queries only on
databases where every constraint query returns no row; the schema's own CHECK, UNIQUE, NOT NULL
and FOREIGN KEY constraints SQLite enforces itself. This module needs no SQL parser, so the task
loader can use it whether or not the ``sql`` domain's dependencies are installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def schema(facts: Mapping[str, Any]) -> str:
    """The ``CREATE TABLE`` statements of a task."""
    return str(facts.get("schema", ""))


def constraints(facts: Mapping[str, Any]) -> list[str]:
    """The task's constraint queries (each returns a row when a database violates it)."""
    return [str(c) for c in facts.get("constraints") or ()]


def assumption(constraint: str) -> str:
    """The SQL condition every database the verifier considers satisfies, by the definition
    above: the constraint query returns no row."""
    return f"NOT EXISTS ({constraint.strip().rstrip(';').rstrip()})"
