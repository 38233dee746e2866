"""The SQL domain: does the candidate query return what the oracle returns on every database?

Facts: ``{"schema": "<CREATE TABLE statements>", "constraints": [<query>, ...],
"dialect": "sqlite" | "mysql"}``; each optional constraint is a query returning a row exactly
when a database violates it (:mod:`.sql_facts` reads them, for the verifier and for the task
prompt alike). The dialect (default ``sqlite``) is the engine that decides what a query means:
SQLite in the worker process, or for ``mysql`` (LeetCode, Polygon) a real MariaDB server
(:mod:`.sql_mariadb`).

**Supported fragment.** One read-only query: SELECT with inner, LEFT and cross joins, WHERE,
NULLs and three-valued logic, aggregates, GROUP BY/HAVING, DISTINCT, subqueries (IN, EXISTS,
scalar, derived tables), non-recursive WITH, set operations, CASE, LIKE, and ORDER BY with
LIMIT/OFFSET. Not supported (verdict ``unknown`` with the reason): window functions, recursive
WITH, nondeterministic functions (RANDOM, date/time of 'now', …), rowid, and LIMIT/OFFSET
without ORDER BY. A text the engine rejects against the schema, or that is not a single
read-only statement, is ``invalid``.

**Databases** are legal instances of the schema with type-true values (:mod:`.sql_values`);
**results** are compared as bags, or as lists when the oracle's outermost query has ORDER BY
(then order is part of the specification); see :mod:`.sql_search` for value normalisation,
engine errors and results that depend on the scan order, which never count as evidence.

**Verdicts** (RESpecBench §3.2, following Polygon's bounded check):

* ``refuted`` only with a database on which the task's engine returns different (stable)
  results for the two queries, or fails on the candidate only; it is shrunk by deleting rows
  and re-run on that engine before it is reported;
* ``equivalent`` only with a proof: equal canonical forms (:func:`.sql_syntax.canonical`);
* ``bounded`` — not a success — when every legal database with at most ``k`` rows per table
  over a value domain, and every random database tried, gives equal results; ``bound`` records
  ``k``, the domain and how many databases were run;
* ``unknown`` otherwise: timeout, unsupported features, too large a space to enumerate, or
  results that depend on scan order.

Each check first runs random databases (NULLs, duplicates, up to 6 rows per table) for at most
half of its budget, then the exhaustive enumeration from empty databases upwards.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import anyio.to_thread
from speckernel.components import Verifier, VerifyContext
from speckernel.errors import KernelError
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict

from speckernel_respec.domains import outcome, sql_facts, sql_symbolic
from speckernel_respec.domains.outcome import Outcome, TaskError
from speckernel_respec.domains.sql_search import (
    Database,
    Deadline,
    Domains,
    Engine,
    Observation,
    Probe,
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
from speckernel_respec.toolchain import MariadbToolchain

TOOLCHAINS = (MariadbToolchain,)
"""MariaDB for the ``mysql`` dialect; asked for only by tasks in that dialect, so a machine
without it still checks SQLite tasks."""

SPEC_FILE = "spec.sql"

MAX_DATABASES = 20_000
"""Most databases the exhaustive check enumerates; it picks the largest rows-per-table bound
(3, 2, then 1) whose database count stays below this."""

RANDOM_SHARE = 0.5
"""Fraction of the budget the random search may use before the exhaustive check."""

SYMBOLIC_SHARE = 0.6
"""Fraction of what the random search leaves that the symbolic search may use."""

SYMBOLIC_ROWS = (1, 2, 3)
"""The rows-per-table bounds the symbolic search tries in turn."""

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
    return _run(engine, schema, oracle, cand, deadline)


def _run(engine: SqliteEngine, schema: Schema, oracle: Query, candidate: Query,
         deadline: float) -> Outcome:
    """The in-process check: random databases for a share of the budget, the canonical-form
    proof, the symbolic search for a share of what is left, then the exhaustive check."""
    planner = Planner(schema, oracle, candidate, engine.constraints)
    search = Search(engine, schema, oracle, candidate)
    start = time.monotonic()
    random_until = start + (deadline - start) * RANDOM_SHARE
    found = search.search(itertools.takewhile(lambda _: time.monotonic() < random_until,
                                              planner.random_databases()))
    if found is not None:
        return found
    if planner.proved:
        return outcome.equivalent("the canonical forms of the two queries are equal")
    now = time.monotonic()
    found = search.search(planner.symbolic(now + (deadline - now) * SYMBOLIC_SHARE))
    if found is not None:
        return found
    search.symbolic_k, search.symbolic_note = planner.symbolic_k, planner.symbolic_note
    plan = planner.plan()
    if plan is None:
        return search.too_many()
    return search.bounded(*plan, exhaustive(schema, planner.used, *plan))


class Planner:
    """The databases that may tell one query pair apart: random, symbolic and exhaustive. It
    needs no engine, so the MySQL check plans in the worker, away from the server that runs
    them (a :class:`Search`)."""

    def __init__(self, schema: Schema, oracle: Query, candidate: Query,
                 constraints: Sequence[str] = ()) -> None:
        self.schema, self.oracle, self.candidate = schema, oracle, candidate
        self.used = referenced((oracle, candidate), schema)
        self.constants = Constants(*constants((oracle, candidate)))
        seed = hashlib.sha256(f"{oracle.text}\0{candidate.text}".encode()).digest()
        self.rng = random.Random(seed)
        self.proved = canonical(oracle, schema) == canonical(candidate, schema)
        self.constraints = tuple(constraints)
        self.symbolic_k = 0
        self.symbolic_note = ""

    def random_databases(self) -> Iterable[Database]:
        values = domains(self.schema, self.used, self.constants, neighbours=True)
        return itertools.islice(
            randomised(self.schema, self.used, values, self.constants, self.rng),
            PROVED_RANDOM_DATABASES if self.proved else RANDOM_DATABASES)

    def symbolic(self, until: float) -> Iterator[Database]:
        """The symbolic search's databases (:mod:`.sql_symbolic`) for 1, 2, 3 rows per table,
        while time lasts; records in ``symbolic_k`` the largest bound at which Z3 showed that
        no database separates the queries (only for bag comparison: the encoding compares
        results as bags), and in ``symbolic_note`` why it stopped."""
        queries = (self.oracle, self.candidate)
        reason = sql_symbolic.covered(self.schema, queries, self.constraints,
                                      self.schema.dialect)
        if reason is not None:
            self.symbolic_note = f"outside the symbolic fragment: {reason}"
            return
        for k in SYMBOLIC_ROWS:
            remaining_ms = int((until - time.monotonic()) * 1000)
            if remaining_ms < 50:
                self.symbolic_note = f"no time left for {k} rows per table"
                return
            try:
                found = sql_symbolic.search(self.schema, *queries, self.constraints,
                                            self.schema.dialect, k, remaining_ms)
            except (TimeoutError, sql_symbolic.Unsupported) as exc:
                self.symbolic_note = f"z3 stopped at {k} rows per table: {exc}"
                return
            for database in found.databases:
                yield _database(database)
            if found.databases or not found.exhausted:
                self.symbolic_note = f"a model at {k} rows per table did not re-check"
                return
            if not self.oracle.ordered:
                self.symbolic_k = k

    def plan(self, limit: int = MAX_DATABASES) -> tuple[Domains, int] | None:
        """The value domain and rows-per-table bound of the exhaustive check."""
        for neighbours in (True, False):
            values = domains(self.schema, self.used, self.constants, neighbours)
            for k in (3, 2, 1):
                if count(self.schema, self.used, values, k) <= limit:
                    return values, k
        return None


class Search:
    """Runs databases for one query pair on one engine: the first that tells the queries
    apart refutes; the exhaustive check passing gives a bounded verdict. The queries may be
    probes (:class:`Probe`), as the MySQL check's kernel side receives them from the worker."""

    def __init__(self, engine: Engine, schema: Schema, oracle: Query | Probe,
                 candidate: Query | Probe) -> None:
        self.engine, self.schema = engine, schema
        self.oracle, self.candidate = oracle, candidate
        self.tried = 0
        self.symbolic_k = 0
        self.symbolic_note = ""

    @property
    def compared_as(self) -> str:
        return "list" if self.oracle.ordered else "bag"

    def search(self, databases: Iterable[Database]) -> Outcome | None:
        """The refutation by the first database of ``databases`` that tells the queries
        apart, or None."""
        for db in databases:
            seen = observe(self.engine, self.oracle, self.candidate, db)
            self.tried += seen is not None
            if seen is not None and seen.differs:
                return self.refute(db, seen)
        return None

    def too_many(self) -> Outcome:
        if self.symbolic_k:
            return outcome.bounded(
                f"no counterexample on {self.tried} random databases; the symbolic search "
                f"shows none exists with at most {self.symbolic_k} row(s) per table over its "
                "value space (bounded check, not a proof)",
                {"rows_per_table": self.symbolic_k, "random_databases": self.tried,
                 "symbolic": {"rows_per_table": self.symbolic_k,
                              "values": sql_symbolic.value_space(self.schema.dialect)},
                 "compared_as": self.compared_as})
        return outcome.unknown(f"no counterexample on {self.tried} random databases, and the "
                               "small databases are too many to enumerate exhaustively (limit "
                               f"{MAX_DATABASES}); {self.symbolic_note or 'no symbolic bound'}")

    def bounded(self, values: Domains, k: int, databases: Iterable[Database]) -> Outcome:
        """The exhaustive check over ``databases``; when the budget runs out first, the
        symbolic bound alone if there is one (``Deadline`` otherwise)."""
        try:
            return self._bounded(values, k, databases)
        except Deadline:
            if self.symbolic_k and not self.oracle.ordered:
                return self.too_many()
            raise

    def _bounded(self, values: Domains, k: int, databases: Iterable[Database]) -> Outcome:
        unstable = 0
        total = 0
        for db in databases:
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
        symbolic: dict[str, Any] = {"rows_per_table": self.symbolic_k,
                                    "values": sql_symbolic.value_space(self.schema.dialect)}
        if self.symbolic_note:
            symbolic["stopped"] = self.symbolic_note
        bound = {"rows_per_table": max(k, self.symbolic_k),
                 "values": {t: {c: list(v) for c, v in cols.items()}
                            for t, cols in values.items() if cols},
                 "exhaustive_rows_per_table": k, "databases": total,
                 "random_databases": self.tried, "symbolic": symbolic,
                 "compared_as": self.compared_as}
        proved = (f"; the symbolic search shows none exists with at most {self.symbolic_k} "
                  "row(s) per table over its value space") if self.symbolic_k else ""
        return outcome.bounded(
            f"no counterexample on all {total} legal databases with at most {k} row(s) per "
            f"table over the value domain, nor on {self.tried} random databases with up to 6 "
            f"rows per table{proved} (bounded check, not a proof)", bound)

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


# --------------------------------------------------------------------------- the MySQL dialect

MYSQL_RANDOM_DATABASES = 400
MYSQL_MAX_DATABASES = 500
MYSQL_SYMBOLIC_SHARE = 0.4
"""The share of the budget the worker's symbolic search may take (the server needs the
rest to run the databases)."""
"""The MySQL check's database counts: each database is a round trip to the server, so the
worker plans fewer than the in-process SQLite search runs."""


def _rows(db: Database) -> dict[str, list[list[Any]]]:
    return {name: [list(r) for r in rows] for name, rows in db.tables.items()}


def _database(plain: Mapping[str, Any]) -> Database:
    return Database({name: tuple(tuple(r) for r in rows) for name, rows in plain.items()})


def plan_mysql(oracle_text: str, candidate_text: str, facts: Mapping[str, Any] | None,
               timeout_s: float) -> dict[str, Any]:
    """The worker's half of a MySQL check: parse (sqlglot, dialect ``mysql``), decide what it
    can without the server, and make the databases the server will run — as plain data."""
    given = facts or {}
    try:
        schema = parse_schema(sql_facts.schema(given), "mysql")
        oracle = parse_query(oracle_text, "mysql")
    except SqlError as exc:
        return {"task_error": f"the schema or the oracle is not usable: {exc}"}
    reason = unsupported(oracle)
    if reason:
        return {"task_error": f"the oracle is outside the supported fragment: {reason}"}
    try:
        cand = parse_query(candidate_text, "mysql")
    except SqlError as exc:
        if "not a query" in str(exc) or "statement" in str(exc):
            return {"outcome": outcome.invalid(f"{exc} (only one read-only query is "
                                               "allowed)").to_plain()}
        return {"unparsed": str(exc)}
    reason = unsupported(cand)
    if reason:
        return {"outcome": outcome.unknown(f"outside the supported fragment: {reason}")
                .to_plain()}
    started = time.monotonic()
    constraints = sql_facts.constraints(given)
    planner = Planner(schema, oracle, cand, constraints)
    randoms = list(itertools.islice(planner.random_databases(), MYSQL_RANDOM_DATABASES
                                    if not planner.proved else PROVED_RANDOM_DATABASES))
    symbolic = [] if planner.proved else [
        _rows(db) for db in planner.symbolic(started + timeout_s * MYSQL_SYMBOLIC_SHARE)]
    plan = planner.plan(MYSQL_MAX_DATABASES)
    exhaustive_part = None if plan is None else {
        "values": {t: {c: list(v) for c, v in cols.items()} for t, cols in plan[0].items()},
        "k": plan[1],
        "databases": [_rows(db) for db in exhaustive(schema, planner.used, *plan)]}
    return {"proved": planner.proved,
            "oracle": [oracle.text, oracle.ordered, oracle.order_sensitive],
            "candidate": [cand.text, cand.ordered, cand.order_sensitive],
            "random": [_rows(db) for db in randoms], "exhaustive": exhaustive_part,
            "symbolic": symbolic, "symbolic_k": planner.symbolic_k,
            "symbolic_note": planner.symbolic_note}


def judge_mysql(sandbox: Any, facts: Mapping[str, Any], plan: Mapping[str, Any],
                candidate_text: str, budget_s: float) -> Outcome:
    """The kernel's half of a MySQL check, in a thread: run the planned databases on the
    process's MariaDB server (``sql_mariadb``) in a throwaway database, within ``budget_s``
    from the moment the server is up (the first check of a run starts it). ``TaskError`` for
    a schema or oracle the server rejects."""
    from speckernel_respec.domains.sql_mariadb import MariadbEngine, server_for

    schema = parse_schema(sql_facts.schema(facts), "mysql")
    server = server_for(sandbox)
    deadline = time.monotonic() + budget_s
    try:
        engine = MariadbEngine(server, schema, sql_facts.constraints(facts), deadline)
    except Rejected as exc:
        raise TaskError(str(exc)) from None
    try:
        oracle = Probe(*plan["oracle"]) if "oracle" in plan else None
        if oracle is not None:
            try:
                engine.prepare(oracle.text)
            except Rejected as exc:
                raise TaskError(f"MariaDB rejects the oracle: {exc}") from None
        try:
            engine.prepare(candidate_text)
        except Rejected as exc:
            return outcome.invalid(f"MariaDB rejects the candidate: {exc}")
        if "unparsed" in plan or oracle is None:
            return outcome.unknown(f"outside the supported fragment: {plan.get('unparsed')}")
        search = Search(engine, schema, oracle, Probe(*plan["candidate"]))
        random_until = time.monotonic() + budget_s * RANDOM_SHARE
        found = search.search(itertools.takewhile(
            lambda _: time.monotonic() < random_until,
            (_database(db) for db in plan["random"])))
        if found is not None:
            return found
        if plan["proved"]:
            return outcome.equivalent("the canonical forms of the two queries are equal")
        found = search.search(_database(db) for db in plan["symbolic"])
        if found is not None:
            return found
        search.symbolic_k = int(plan["symbolic_k"])
        search.symbolic_note = str(plan["symbolic_note"])
        part = plan["exhaustive"]
        if part is None:
            return search.too_many()
        return search.bounded(part["values"], int(part["k"]),
                              (_database(db) for db in part["databases"]))
    except Deadline:
        return outcome.unknown(f"timeout without a counterexample after {search_time(deadline)}")
    finally:
        engine.close()


def plan_outcome(oracle: str, candidate: str, facts: Mapping[str, Any] | None,
                 timeout_s: float) -> Outcome:
    """:func:`plan_mysql` as a domain check (so it runs under ``outcome.checked``'s budget and
    error handling): a decided outcome, or ``unknown`` "plan:" carrying the plan."""
    plan = plan_mysql(oracle, candidate, facts, timeout_s)
    if "task_error" in plan:
        raise TaskError(plan["task_error"])
    if "outcome" in plan:
        return Outcome.from_plain(plan["outcome"])
    return Outcome("unknown", "plan: databases for the server", plan)


def search_time(deadline: float) -> str:
    return "the check's budget" if time.monotonic() >= deadline else "a server timeout"


class SqlVerifier(Verifier):
    """``respec.sql``: query equivalence by canonical forms, bounded enumeration and SQLite
    counterexamples (see the module docstring)."""

    name = "respec.sql"
    version = "1"
    description = "SQL query equivalence: SQLite counterexamples, canonical forms, bounded check"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        facts = task.metadata.get("facts") or {}
        try:
            dialect = dialect_of(facts)
        except TaskError as exc:
            return Verdict(self.name, Status.ERROR, (Diagnostic(f"{task.id}: {exc}"),))
        if dialect == "sqlite":
            return await outcome.verify(self.name, SPEC_FILE, check, candidate, task, ctx)
        return await self._verify_mysql(candidate, task, facts, ctx)

    async def _verify_mysql(self, candidate: Candidate, task: Task, facts: Mapping[str, Any],
                            ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        text = candidate.files.get(SPEC_FILE)
        if text is None:
            return outcome.invalid(f"the candidate has no {SPEC_FILE}").to_verdict(self.name, 0)
        status = ctx.tools.status(MariadbToolchain.name)
        if not status.found:
            return Verdict(self.name, Status.ERROR, (Diagnostic(
                f"{task.id}: the mysql dialect needs MariaDB ({status.detail}); install it with "
                "kernel tools install respec"),))
        timeout_s = float(ctx.options.get("timeout_s", 4.0))
        oracle = str(task.metadata["oracle"])
        try:
            result = await outcome.checked(ctx, plan_outcome, oracle, text, facts, timeout_s)
        except TaskError as exc:
            return Verdict(self.name, Status.ERROR, (Diagnostic(f"{task.id}: {exc}"),),
                           duration_s=time.monotonic() - started)
        if result.verdict == "unknown" and result.reason.startswith("plan:"):
            budget_s = max(0.5, timeout_s - (time.monotonic() - started))
            plan = result.counterexample if isinstance(result.counterexample, dict) else {}
            try:
                result = await anyio.to_thread.run_sync(
                    judge_mysql, ctx.sandbox, facts, plan, text, budget_s)
            except TaskError as exc:
                return Verdict(self.name, Status.ERROR, (Diagnostic(f"{task.id}: {exc}"),),
                               duration_s=time.monotonic() - started)
            except KernelError as exc:
                return Verdict(self.name, Status.ERROR, (Diagnostic(str(exc)),),
                               duration_s=time.monotonic() - started)
        return result.to_verdict(self.name, time.monotonic() - started)
