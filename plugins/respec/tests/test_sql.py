"""The SQL domain: supported fragment, verdicts and soundness of ``respec.sql``.

A refutation must carry a database on which SQLite returns different results: every one is
rebuilt here in a fresh SQLite database and re-run. Ground truth for generated pairs comes from
running both queries on every one-row table over NULL and the neighbours of the constant.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from conftest import FOUND
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance, Status

from speckernel_respec import tasks
from speckernel_respec.domains.sql import SqlVerifier, check

SCHEMA = """
CREATE TABLE dept (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
CREATE TABLE emp (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER, salary INTEGER,
                  dept_id INTEGER);
"""
FACTS = {"schema": SCHEMA}


def rerun(oracle: str, candidate: str, counterexample: Any) -> None:
    """Rebuild the counterexample database in a fresh SQLite and check the queries differ."""
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    for table, content in counterexample["database"].items():
        marks = ", ".join("?" * len(content["columns"]))
        db.executemany(f"INSERT INTO {table} VALUES ({marks})", content["rows"])
    a, b = db.execute(oracle).fetchall(), db.execute(candidate).fetchall()
    if counterexample["compared_as"] == "bag":
        a, b = sorted(a, key=repr), sorted(b, key=repr)
    assert a != b


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(("oracle", "candidate"), [
    ("SELECT name FROM emp WHERE age > 30", "SELECT name FROM emp WHERE age >= 30"),
    ("SELECT COUNT(*) FROM emp", "SELECT COUNT(age) FROM emp"),
    ("SELECT name FROM emp WHERE dept_id NOT IN (SELECT id FROM dept)",
     "SELECT name FROM emp e WHERE NOT EXISTS (SELECT 1 FROM dept d WHERE d.id = e.dept_id)"),
    ("SELECT e.name, d.title FROM emp e JOIN dept d ON e.dept_id = d.id",
     "SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON e.dept_id = d.id"),
    ("SELECT DISTINCT dept_id FROM emp", "SELECT dept_id FROM emp"),
    ("SELECT dept_id FROM emp GROUP BY dept_id HAVING COUNT(*) > 1",
     "SELECT dept_id FROM emp WHERE age IS NOT NULL GROUP BY dept_id HAVING COUNT(*) > 1"),
    ("SELECT name FROM emp ORDER BY age, name", "SELECT name FROM emp ORDER BY name, age"),
])
def test_classic_mistakes_are_refuted_on_a_real_database(oracle: str, candidate: str) -> None:
    result = check(oracle, candidate, FACTS, 4.0)
    assert result.verdict == "refuted", result
    rerun(oracle, candidate, result.counterexample)


def test_equal_canonical_forms_are_an_unbounded_proof() -> None:
    result = check("SELECT name FROM emp WHERE age > 30 AND dept_id = 1",
                   "SELECT e.name AS n FROM emp e WHERE (1 = e.dept_id AND 30 < e.age)",
                   FACTS, 4.0)
    assert (result.verdict, result.bounded) == ("equivalent", False)


def test_negated_comparison_is_bounded_with_a_recorded_bound_never_a_success() -> None:
    result = check("SELECT name FROM emp WHERE age > 30",
                   "SELECT name FROM emp WHERE NOT age <= 30", FACTS, 4.0)
    assert (result.verdict, result.bounded) == ("bounded", True)
    assert result.to_verdict("respec.sql", 0.0).status is Status.UNKNOWN
    assert isinstance(result.bound, dict)
    assert result.bound["rows_per_table"] >= 1
    assert {None, 29, 30, 31} <= set(result.bound["values"]["emp"]["age"])


@pytest.mark.parametrize(("candidate", "verdict", "reason"), [
    ("SELECT nme FROM emp", "invalid", "no such column"),
    ("DROP TABLE emp", "invalid", "read-only"),
    ("SELECT 1; SELECT 2", "invalid", "one statement"),
    ("SELECT RANK() OVER (ORDER BY age) FROM emp", "unknown", "window functions"),
    ("SELECT name FROM emp LIMIT 1", "unknown", "LIMIT/OFFSET without ORDER BY"),
    ("SELECT abs(random()) % 2 FROM emp", "unknown", "nondeterministic"),
    ("SELECT rowid FROM emp", "unknown", "rowid"),
])
def test_bad_or_unsupported_candidates_get_a_reason(candidate: str, verdict: str,
                                                    reason: str) -> None:
    result = check("SELECT name FROM emp", candidate, FACTS, 4.0)
    assert result.verdict == verdict
    assert reason in result.reason


def test_the_prompt_states_the_constraints_the_verifier_assumes() -> None:
    """A constraint is a query that returns a row when a database violates it; the prompt
    states it as the condition the verifier assumes, and SQLite agrees on which is which."""
    violation = "SELECT 1 FROM emp WHERE age IS NULL OR age < 18;"
    facts = {"schema": SCHEMA, "constraints": [violation]}
    adults = "SELECT name FROM emp WHERE age >= 18"
    assert check(adults, "SELECT name FROM emp", facts, 4.0).verdict == "bounded"
    assert check(adults, "SELECT name FROM emp", FACTS, 4.0).verdict == "refuted"
    [condition] = [line.strip() for line in tasks.prompt("sql", "Names.", facts).splitlines()
                   if violation.rstrip(";") in line]
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    for age, legal in ((30, True), (None, False), (12, False)):
        db.execute("DELETE FROM emp")
        db.execute("INSERT INTO emp VALUES (1, 'a', ?, 10, NULL)", (age,))
        assert db.execute(f"SELECT {condition}").fetchone() == (legal,)
        assert (db.execute(violation).fetchall() == []) is legal


def test_the_timeout_is_respected() -> None:
    heavy = ("SELECT COUNT(*) FROM emp a, emp b, emp c, emp d, emp e, emp f "
             "WHERE a.age + b.age + c.age + d.age + e.age + f.age > 3")
    result = check(heavy, heavy.replace("> 3", ">= 3"), FACTS, 0.5)
    assert result.verdict in ("refuted", "unknown")


@pytest.mark.anyio
async def test_verifier_verdicts_follow_the_contract(make_ctx: Callable[..., Any]) -> None:
    task = tasks.Entry("sql", "t", "Names.", "SELECT name FROM emp", FACTS).task()
    verifier = SqlVerifier()
    cases = {"SELECT emp.name FROM emp": (Status.SUCCESS, "equivalent"),
             "SELECT DISTINCT name FROM emp": (Status.FAILURE, "refuted"),
             "SELEC name": (Status.FAILURE, "invalid")}
    for text, (status, verdict) in cases.items():
        result = await verifier.verify(Candidate({"spec.sql": text}, Provenance("t", "m")),
                                       task, make_ctx())
        assert (result.status, result.data["verdict"]) == (status, verdict)
        assert set(result.data) == {"verdict", "counterexample", "reason", "bounded", "bound",
                                    "seconds"}


@pytest.mark.anyio
async def test_a_broken_task_is_an_error_and_a_missing_spec_invalid(
        make_ctx: Callable[..., Any]) -> None:
    verifier = SqlVerifier()
    broken = tasks.Entry("sql", "t", "Names.", "SELECT nme FROM emp", FACTS).task()
    result = await verifier.verify(Candidate({"spec.sql": "SELECT name FROM emp"},
                                             Provenance("t", "m")), broken, make_ctx())
    assert result.status is Status.ERROR
    assert result.diagnostics[0].message.startswith("sql/t: the oracle is not a valid query")
    task = tasks.Entry("sql", "t", "Names.", "SELECT name FROM emp", FACTS).task()
    missing = await verifier.verify(Candidate({}, Provenance("t", "m")), task, make_ctx())
    assert (missing.status, missing.data["verdict"]) == (Status.FAILURE, "invalid")


@pytest.mark.parametrize("entry", tasks.team_entries("sql"), ids=lambda e: e.name)
def test_task_oracles_are_equivalent_to_themselves(entry: tasks.Entry) -> None:
    assert check(entry.oracle, entry.oracle + " ", entry.facts, 4.0).verdict == "equivalent"


# --------------------------------------------------------------------------- soundness

COLUMNS = ("age", "salary")
OPS = ("<", "<=", ">", ">=", "=", "<>")
MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>"}
NEGATION = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "<>", "<>": "="}

conditions = st.tuples(st.sampled_from(COLUMNS), st.sampled_from(OPS), st.integers(0, 5))


def truly_differ(oracle: str, candidate: str, constants: set[int]) -> bool:
    """Whether some one-row emp table over NULL and the constants' neighbours tells the two
    queries apart (bag comparison)."""
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    values = [None, *sorted({c + d for c in constants for d in (-1, 0, 1)})]
    for age, salary in itertools.product(values, repeat=2):
        db.execute("DELETE FROM emp")
        db.execute("INSERT INTO emp VALUES (1, 'n', ?, ?, NULL)", (age, salary))
        if sorted(db.execute(oracle).fetchall()) != sorted(db.execute(candidate).fetchall()):
            return True
    return False


def where(conds: list[tuple[str, str, int]]) -> str:
    return " AND ".join(f"{c} {op} {k}" for c, op, k in conds)


SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(conditions, min_size=1, max_size=3), st.randoms())
def test_rewrites_are_never_refuted(conds: list[tuple[str, str, int]], rnd: Any) -> None:
    """Commuted conjuncts, mirrored comparisons and ``NOT`` of the negated comparison (all
    three agree on NULL: a comparison with NULL and its negation are both NULL, filtered out)."""
    shuffled = rnd.sample(conds, len(conds))
    rewritten = [rnd.choice([f"{k} {MIRROR[op]} {c}", f"NOT ({c} {NEGATION[op]} {k})",
                             f"{c} {op} {k}"]) for c, op, k in shuffled]
    oracle = f"SELECT name, age FROM emp WHERE {where(conds)}"
    candidate = f"SELECT e.name, e.age FROM emp e WHERE {' AND '.join(rewritten)}"
    assert not truly_differ(oracle, candidate, {k for *_, k in conds})
    result = check(oracle, candidate, FACTS, 4.0)
    assert result.verdict in ("equivalent", "bounded", "unknown"), result


@SETTINGS
@given(st.lists(conditions, min_size=1, max_size=3), st.integers(0, 2), st.sampled_from(OPS))
def test_mutants_are_never_called_equivalent_and_refutations_rerun(
        conds: list[tuple[str, str, int]], index: int, op: str) -> None:
    """Change one comparison operator; ground truth from :func:`truly_differ`."""
    changed = list(conds)
    column, _, k = changed[index % len(changed)]
    changed[index % len(changed)] = (column, op, k)
    oracle = f"SELECT name FROM emp WHERE {where(conds)}"
    candidate = f"SELECT name FROM emp WHERE {where(changed)}"
    result = check(oracle, candidate, FACTS, 4.0)
    if result.verdict == "refuted":
        rerun(oracle, candidate, result.counterexample)
    if truly_differ(oracle, candidate, {k for *_, k in conds}):
        assert result.verdict not in ("equivalent", "bounded"), (oracle, candidate)


@pytest.mark.parametrize(("oracle", "candidate"), [
    ("SELECT e.name FROM emp e JOIN dept d ON e.dept_id = d.id",
     "SELECT e.name FROM dept d JOIN emp e ON d.id = e.dept_id"),
    ("SELECT e.name FROM emp e JOIN dept d ON e.dept_id = d.id WHERE d.title = 'x'",
     "SELECT e.name FROM emp e, dept d WHERE d.title = 'x' AND e.dept_id = d.id"),
])
def test_commuted_joins_are_not_refuted(oracle: str, candidate: str) -> None:
    assert check(oracle, candidate, FACTS, 4.0).verdict in ("equivalent", "bounded", "unknown")


def test_dropping_a_join_condition_is_refuted() -> None:
    oracle = "SELECT e.name FROM emp e JOIN dept d ON e.dept_id = d.id"
    candidate = "SELECT e.name FROM emp e JOIN dept d"
    result = check(oracle, candidate, FACTS, 4.0)
    assert result.verdict == "refuted"
    rerun(oracle, candidate, result.counterexample)


# --------------------------------------------------------------------------- referenced columns


def _used(*queries: str) -> dict[str, frozenset[str]]:
    from speckernel_respec.domains.sql_syntax import parse_query, parse_schema, referenced

    return referenced(tuple(map(parse_query, queries)), parse_schema(SCHEMA))


def test_a_qualified_column_counts_for_the_table_its_qualifier_denotes() -> None:
    used = _used("SELECT e.name FROM emp e JOIN dept d ON e.dept_id = d.id")
    assert used == {"dept": {"id"}, "emp": {"name", "dept_id"}}
    assert _used("SELECT emp.name FROM emp")["dept"] == set()


def test_unresolved_names_using_star_and_natural_joins_count_everywhere() -> None:
    assert _used("SELECT name FROM emp WHERE id > 2")["dept"] == {"id"}
    assert _used("WITH x AS (SELECT * FROM dept) SELECT x.title FROM x")["dept"] == {
        "id", "title"}
    assert _used("SELECT name FROM emp JOIN dept USING (id)")["dept"] == {"id"}
    assert _used("SELECT e.name FROM emp e NATURAL JOIN dept")["dept"] == {"id", "title"}
    assert _used("SELECT d.* FROM dept d")["emp"] == {"id", "name", "age", "salary", "dept_id"}


def test_an_in_subquery_without_distinct_is_refuted_by_two_namesakes() -> None:
    """The precise columns leave room for two rows per table: two customers who share a name
    and both ordered give the name twice without DISTINCT (the timeout sweep's finding)."""
    shop = {"schema": """
        CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
        CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id),
                             amount INTEGER NOT NULL CHECK (amount > 0));"""}
    oracle = "SELECT DISTINCT c.name FROM customer c JOIN orders o ON o.customer_id = c.id"
    candidate = "SELECT c.name FROM customer c WHERE c.id IN (SELECT customer_id FROM orders)"
    result = check(oracle, candidate, shop, 4.0)
    assert result.verdict == "refuted", result
    names = result.counterexample["candidate_result"]
    assert len(names) == 2 and names[0] == names[1]


# --------------------------------------------------------------------------- found cases



def rerun_on(schema: str, oracle: str, candidate: str, counterexample: Any) -> None:
    """Rebuild a counterexample in a fresh SQLite and check the queries differ on it (an
    engine error of the candidate where the oracle runs counts as a difference)."""
    db = sqlite3.connect(":memory:")
    db.executescript(schema)
    for table, content in counterexample["database"].items():
        marks = ", ".join("?" * len(content["columns"]))
        db.executemany(f"INSERT INTO {table} VALUES ({marks})", content["rows"])
    a = db.execute(oracle).fetchall()
    try:
        b = db.execute(candidate).fetchall()
    except sqlite3.Error:
        return
    if counterexample["compared_as"] == "bag":
        a, b = sorted(a, key=repr), sorted(b, key=repr)
    assert a != b


@pytest.mark.parametrize("case", FOUND["cases"], ids=lambda c: c["name"])
def test_the_found_cases_get_a_true_verdict(case: dict[str, str]) -> None:
    schema = FOUND["schemas"][case["schema"]]["sqlite"]
    result = check(case["oracle"], case["candidate"], {"schema": schema}, 4.0)
    if case["truth"] == "equivalent":
        assert result.verdict in ("equivalent", "bounded", "unknown"), result
    else:
        assert result.verdict == "refuted", result
        rerun_on(schema, case["oracle"], case["candidate"], result.counterexample)
