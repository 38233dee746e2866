"""The SQL domain: does the candidate query return what the oracle returns on every database?

Facts: ``{"schema": "<CREATE TABLE statements>", "constraints": [<query>, ...]}``; each optional
constraint is a query returning a row exactly when a database violates it (:mod:`.sql_facts`
reads them, for the verifier and for the task prompt alike).

**Supported fragment.** One read-only SQLite query: SELECT with inner, LEFT and cross joins,
WHERE, NULLs and three-valued logic, aggregates (COUNT(*), COUNT(col), SUM, AVG, MIN, MAX,
COUNT(DISTINCT …), GROUP_CONCAT), GROUP BY/HAVING, DISTINCT, subqueries (IN, EXISTS, scalar,
derived tables), non-recursive WITH, UNION/INTERSECT/EXCEPT, CASE, LIKE, and ORDER BY with
LIMIT/OFFSET. Not supported (verdict ``unknown`` with the reason): window functions, recursive
WITH, nondeterministic functions (RANDOM, date/time of 'now', …), rowid, and LIMIT/OFFSET
without ORDER BY. A text SQLite rejects against the schema, or that is not a single read-only
statement, is ``invalid``.

**Results** are compared as bags, or as lists when the oracle's outermost query has ORDER BY
(then order is part of the specification); see :mod:`.sql_search` for value normalisation and
for results that depend on SQLite's scan order, which never count as evidence.

**Verdicts** (RESpecBench §3.2, following Polygon's bounded check):

* ``refuted`` only with a database on which SQLite returns different (stable) results for the
  two queries; it is shrunk by deleting rows and re-run before it is reported;
* ``equivalent`` with a proof: equal canonical forms (:func:`.sql_syntax.canonical`, unbounded),
  or, with ``bounded=True``, the exhaustive check that *every* legal database with at most ``k``
  rows per table over a value domain (NULL, the queries' constants, their integer neighbours,
  one other string) gives equal results; ``bound`` records ``k``, the domain and how many
  databases were run;
* ``unknown`` otherwise: timeout, unsupported features, too large a space to enumerate, or
  results that depend on scan order.

Each check first runs random databases (NULLs, duplicates, up to 6 rows per table) for at most
a quarter of its budget, then the exhaustive enumeration from empty databases upwards.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import sqlite3
import time
from collections.abc import Mapping
from typing import Any

from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Task, Verdict

from speckernel_respec.domains import outcome, sql_facts
from speckernel_respec.domains.outcome import Outcome, TaskError
from speckernel_respec.domains.sql_search import (
    Database,
    Deadline,
    Domains,
    Engine,
    Observation,
    Rejected,
    SqliteEngine,
    count,
    exhaustive,
    observe,
    randomised,
    shrink,
)
from speckernel_respec.domains.sql_syntax import (
    Query,
    Schema,
    SqlError,
    canonical,
    constants,
    parse_query,
    parse_schema,
    referenced,
    unsupported,
)
from speckernel_respec.domains.sql_values import Constants, domains

SPEC_FILE = "spec.sql"

MAX_DATABASES = 20_000
"""Most databases the exhaustive check enumerates; it picks the largest rows-per-table bound
(3, 2, then 1) whose database count stays below this."""

RANDOM_SHARE = 0.5
"""Fraction of the budget the random search may use before the exhaustive check."""

RANDOM_DATABASES = 3000
"""Most random databases per check; 50 when the canonical forms already prove equivalence
(there they only guard the canonical form against a bug)."""

PROVED_RANDOM_DATABASES = 50


def dialect_of(facts: Mapping[str, Any]) -> str:
    """The task's SQL dialect: ``sqlite`` (the default) or ``mysql``."""
    dialect = str(facts.get("dialect") or "sqlite").lower()
    if dialect not in ("sqlite", "mysql"):
        raise TaskError(f"unknown SQL dialect {dialect!r} (sqlite or mysql)")
    return dialect


def check(oracle: str, candidate: str, facts: Mapping[str, Any] | None,
          timeout_s: float) -> Outcome:
    """Decide whether query ``candidate`` is equivalent to ``oracle`` on the facts' schema in
    SQLite; ``TaskError`` if the schema or the oracle is not valid, supported SQL."""
    deadline = time.monotonic() + timeout_s
    given = facts or {}
    try:
        schema = parse_schema(sql_facts.schema(given))
        engine = SqliteEngine(schema, sql_facts.constraints(given), deadline)
    except (SqlError, sqlite3.Error) as exc:
        raise TaskError(f"the schema is not usable: {exc}") from exc
    try:
        return _check(engine, schema, oracle, candidate, deadline)
    except Deadline:
        return outcome.unknown(f"timeout after {timeout_s:g} s without a counterexample")
    except sqlite3.OperationalError as exc:
        # The engine's progress handler interrupts SQLite only once the deadline has passed;
        # a statement outside its guarded calls (a ROLLBACK after an interrupt) can see it too.
        if "interrupt" not in str(exc):
            raise
        return outcome.unknown(f"timeout after {timeout_s:g} s without a counterexample")
    finally:
        engine.close()


def _check(engine: SqliteEngine, schema: Schema, oracle_text: str, candidate_text: str,
           deadline: float) -> Outcome:
    try:
        engine.prepare(oracle_text)
        oracle = parse_query(oracle_text)
    except (Rejected, SqlError) as exc:
        raise TaskError(f"the oracle is not a valid query: {exc}") from exc
    reason = unsupported(oracle)
    if reason:
        raise TaskError(f"the oracle is outside the supported fragment: {reason}")
    try:
        engine.prepare(candidate_text)
    except Rejected as exc:
        hint = " (only read-only queries are allowed)" if "not authorized" in str(exc) else ""
        return outcome.invalid(f"SQLite rejects the candidate: {exc}{hint}")
    try:
        cand = parse_query(candidate_text)
    except SqlError as exc:
        return outcome.unknown(f"outside the supported fragment: {exc}")
    reason = unsupported(cand)
    if reason:
        return outcome.unknown(f"outside the supported fragment: {reason}")
    return Search(engine, schema, oracle, cand, deadline).run()


class Search:
    """The counterexample search and bounded check for one query pair on one engine."""

    def __init__(self, engine: Engine, schema: Schema, oracle: Query, candidate: Query,
                 deadline: float) -> None:
        self.engine, self.schema = engine, schema
        self.oracle, self.candidate = oracle, candidate
        self.deadline = deadline
        self.used = referenced((oracle, candidate), schema)
        self.constants = Constants(*constants((oracle, candidate)))
        seed = hashlib.sha256(f"{oracle.text}\0{candidate.text}".encode()).digest()
        self.rng = random.Random(seed)
        self.tried = 0

    @property
    def compared_as(self) -> str:
        return "list" if self.oracle.ordered else "bag"

    def run(self) -> Outcome:
        proved = canonical(self.oracle, self.schema) == canonical(self.candidate, self.schema)
        values = domains(self.schema, self.used, self.constants, neighbours=True)
        start = time.monotonic()
        random_until = start + (self.deadline - start) * RANDOM_SHARE
        databases = itertools.islice(
            randomised(self.schema, self.used, values, self.constants, self.rng),
            PROVED_RANDOM_DATABASES if proved else RANDOM_DATABASES)
        for db in itertools.takewhile(lambda _: time.monotonic() < random_until, databases):
            seen = observe(self.engine, self.oracle, self.candidate, db)
            self.tried += seen is not None
            if seen is not None and seen.differs:
                return self.refute(db, seen)
        if proved:
            return outcome.equivalent("the canonical forms of the two queries are equal")
        return self.bounded()

    def bounded(self) -> Outcome:
        plan = self.plan()
        if plan is None:
            return outcome.unknown(f"no counterexample on {self.tried} random databases, and "
                                   "the small databases are too many to enumerate "
                                   f"exhaustively (limit {MAX_DATABASES})")
        values, k = plan
        unstable = 0
        total = 0
        for db in exhaustive(self.schema, self.used, values, k):
            seen = observe(self.engine, self.oracle, self.candidate, db)
            if seen is None:
                continue
            total += 1
            if seen.differs:
                return self.refute(db, seen)
            if not seen.agrees:
                unstable += 1
        if unstable:
            return outcome.unknown(f"no counterexample, but on {unstable} of {total} databases "
                                   "a result depends on the scan order or the oracle fails")
        bound = {"rows_per_table": k, "values": {t: {c: list(v) for c, v in cols.items()}
                                                 for t, cols in values.items() if cols},
                 "databases": total, "random_databases": self.tried,
                 "compared_as": self.compared_as}
        return outcome.bounded(
            f"no counterexample on all {total} legal databases with at most {k} row(s) per "
            f"table over the value domain, nor on {self.tried} random databases with up to 6 "
            "rows per table (bounded check, not a proof)", bound)

    def plan(self) -> tuple[Domains, int] | None:
        """The value domain and rows-per-table bound of the exhaustive check."""
        for neighbours in (True, False):
            values = domains(self.schema, self.used, self.constants, neighbours)
            for k in (3, 2, 1):
                if count(self.schema, self.used, values, k) <= MAX_DATABASES:
                    return values, k
        return None

    def refute(self, db: Database, seen: Observation) -> Outcome:
        small, seen = shrink(self.engine, self.oracle, self.candidate, db, seen)
        failed = isinstance(seen.candidate, str)
        what = f"the candidate fails ({seen.candidate})" if failed else \
            "the two queries return different results"
        return outcome.refuted(
            f"on a database with {small.size} row(s) {what}",
            {"database": small.to_json(self.schema),
             "oracle_result": seen.shown(seen.oracle),
             "candidate_result": seen.shown(seen.candidate),
             "compared_as": self.compared_as})


class SqlVerifier(Verifier):
    """``respec.sql``: query equivalence by canonical forms, bounded enumeration and SQLite
    counterexamples (see the module docstring)."""

    name = "respec.sql"
    version = "1"
    description = "SQL query equivalence: SQLite counterexamples, canonical forms, bounded check"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        return await outcome.verify(self.name, SPEC_FILE, check, candidate, task, ctx)
