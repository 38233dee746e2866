"""Soundness of ``respec.sql`` in both dialects, on generated query pairs with a known relation
(issue 13): a query against an equivalent rewrite is never ``refuted``; a query against a
one-edit mutant that a database separates is never ``equivalent`` (nor ``bounded``).

The generated fragment (integer comparisons with constants, AND/OR/NOT, IS NULL, IN lists,
BETWEEN, a grouped count, an IN subquery) means the same in SQLite and MySQL, so the ground
truth of a mutant comes from SQLite: every database with at most one row per table over NULL
and the constants' neighbours, plus two-row tables for the grouped and subquery shapes. The
symbolic encoding is also checked against that truth: where it claims no separating database
exists up to ``k`` rows, the brute force finds none either.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance

from speckernel_respec import plugin, tasks
from speckernel_respec.domains import sql_symbolic
from speckernel_respec.domains.sql import check
from speckernel_respec.domains.sql_syntax import parse_query, parse_schema
from speckernel_respec.toolchain import MariadbToolchain

SQLITE = """
CREATE TABLE dept (id INTEGER PRIMARY KEY, budget INTEGER);
CREATE TABLE emp (id INTEGER PRIMARY KEY, age INTEGER, salary INTEGER, dept_id INTEGER);
"""
MYSQL = """
CREATE TABLE dept (id INT PRIMARY KEY, budget INT);
CREATE TABLE emp (id INT PRIMARY KEY, age INT, salary INT, dept_id INT);
"""
COLUMNS = ("age", "salary", "dept_id")
OPS = ("<", "<=", ">", ">=", "=", "<>")
MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>"}
NEGATION = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "<>", "<>": "="}
SHAPES = (
    "SELECT id, age FROM emp WHERE {where}",
    "SELECT dept_id, COUNT(*) FROM emp WHERE {where} GROUP BY dept_id",
    "SELECT id FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE {inner}) AND {where}",
    "SELECT id FROM emp WHERE dept_id NOT IN (SELECT id FROM dept WHERE {inner}) AND {where}",
)

Condition = tuple[str, str, int]
conditions = st.tuples(st.sampled_from(COLUMNS), st.sampled_from(OPS), st.integers(0, 4))


def rewrite(cond: Condition, choice: int) -> str:
    """An equivalent spelling of one comparison (three-valued logic included)."""
    column, op, k = cond
    return [f"{k} {MIRROR[op]} {column}", f"NOT ({column} {NEGATION[op]} {k})",
            f"{column} {op} {k}"][choice % 3]


def render(shape: str, conds: list[str], inner: str) -> str:
    return shape.format(where=" AND ".join(conds), inner=inner)


def separable(oracle: str, candidate: str, constants: set[int]) -> bool:
    """Whether some small database separates the two queries in SQLite (see the module
    docstring); the ground truth of the mutant tests."""
    db = sqlite3.connect(":memory:")
    db.executescript(SQLITE)
    values = [None, *sorted({c + d for c in constants for d in (-1, 0, 1)})]
    rows = [(i, a, s, d) for i, (a, s, d) in enumerate(itertools.product(values, repeat=3), 1)]
    depts = [(i, b) for i in values if i is not None for b in values]
    for emp_rows in itertools.chain(([r] for r in rows), itertools.combinations(rows[:40], 2)):
        for dept_rows in ([], *([d] for d in depts)):
            db.execute("DELETE FROM emp")
            db.execute("DELETE FROM dept")
            db.executemany("INSERT OR IGNORE INTO dept VALUES (?, ?)", dept_rows)
            db.executemany("INSERT INTO emp VALUES (?, ?, ?, ?)", emp_rows)
            a = sorted(db.execute(oracle).fetchall(), key=repr)
            b = sorted(db.execute(candidate).fetchall(), key=repr)
            if a != b:
                return True
    return False


SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

pairs = st.tuples(st.sampled_from(SHAPES), st.lists(conditions, min_size=1, max_size=3),
                  conditions, st.lists(st.integers(0, 2), min_size=4, max_size=4))


@SETTINGS
@given(pairs)
def test_sqlite_rewrites_are_never_refuted(pair: Any) -> None:
    shape, conds, inner, choices = pair
    oracle = render(shape, [f"{c} {o} {k}" for c, o, k in conds], f"budget {inner[1]} {inner[2]}")
    rewritten = [rewrite(c, choices[i % 4]) for i, c in enumerate(reversed(conds))]
    candidate = render(shape, rewritten, rewrite(("budget", inner[1], inner[2]), choices[0]))
    result = check(oracle, candidate, {"schema": SQLITE}, 4.0)
    assert result.verdict in ("equivalent", "bounded", "unknown"), (oracle, candidate, result)


def _mutant(pair: Any, op: str) -> tuple[str, str, set[int]]:
    shape, conds, inner, choices = pair
    changed = list(conds)
    column, _, k = changed[choices[0] % len(changed)]
    changed[choices[0] % len(changed)] = (column, op, k + choices[1] - 1)
    oracle = render(shape, [f"{c} {o} {k}" for c, o, k in conds], f"budget {inner[1]} {inner[2]}")
    candidate = render(shape, [f"{c} {o} {k}" for c, o, k in changed],
                       f"budget {inner[1]} {inner[2]}")
    return oracle, candidate, {k for *_, k in conds} | {k for *_, k in changed} | {inner[2]}


@SETTINGS
@given(pairs, st.sampled_from(OPS))
def test_sqlite_separable_mutants_are_never_equivalent(pair: Any, op: str) -> None:
    oracle, candidate, constants = _mutant(pair, op)
    result = check(oracle, candidate, {"schema": SQLITE}, 4.0)
    if separable(oracle, candidate, constants):
        assert result.verdict not in ("equivalent", "bounded"), (oracle, candidate, result)
    else:
        assert result.verdict != "refuted", (oracle, candidate, result)


@SETTINGS
@given(pairs, st.sampled_from(OPS))
def test_the_symbolic_bound_agrees_with_brute_force(pair: Any, op: str) -> None:
    """Where Z3 says no database of at most two rows per table separates the queries, the
    brute force (one- and two-row tables over the constants' neighbours) agrees."""
    oracle, candidate, constants = _mutant(pair, op)
    schema = parse_schema(SQLITE)
    found = sql_symbolic.search(schema, parse_query(oracle), parse_query(candidate), [],
                                "sqlite", 2, 20_000)
    if found.exhausted and not found.databases:
        assert not separable(oracle, candidate, constants), (oracle, candidate)


# --------------------------------------------------------------------------- MySQL


@pytest.fixture(scope="module")
def mariadb() -> None:
    status = MariadbToolchain().detect()
    if not status.found:
        pytest.skip(f"MariaDB is not installed ({status.detail}): kernel tools install respec")


async def _mysql_verdict(make_ctx: Callable[..., Any], oracle: str, candidate: str) -> str:
    task = tasks.Entry("sql", "t", "q", oracle, {"schema": MYSQL, "dialect": "mysql"}).task()
    verdict = await plugin.loaded().verifiers["sql"].verify(
        Candidate({"spec.sql": candidate}, Provenance("t", "m")), task, make_ctx(timeout_s=4.0))
    return str(verdict.data.get("verdict"))


MYSQL_SETTINGS = settings(max_examples=8, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.function_scoped_fixture])


@pytest.mark.anyio
@MYSQL_SETTINGS
@given(pair=pairs, op=st.sampled_from(OPS))
async def test_mysql_rewrites_and_mutants(mariadb: None, make_ctx: Callable[..., Any],
                                          pair: Any, op: str) -> None:
    shape, conds, inner, choices = pair
    oracle = render(shape, [f"{c} {o} {k}" for c, o, k in conds], f"budget {inner[1]} {inner[2]}")
    rewritten = [rewrite(c, choices[i % 4]) for i, c in enumerate(reversed(conds))]
    candidate = render(shape, rewritten, rewrite(("budget", inner[1], inner[2]), choices[0]))
    assert await _mysql_verdict(make_ctx, oracle, candidate) != "refuted", (oracle, candidate)
    oracle, mutant, constants = _mutant(pair, op)
    verdict = await _mysql_verdict(make_ctx, oracle, mutant)
    if separable(oracle, mutant, constants):
        assert verdict not in ("equivalent", "bounded"), (oracle, mutant, verdict)
    else:
        assert verdict != "refuted", (oracle, mutant, verdict)
