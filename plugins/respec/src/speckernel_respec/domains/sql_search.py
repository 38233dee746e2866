"""Databases on which an engine runs both queries: exhaustive small ones, random ones, and
shrinking; and the SQLite engine.

A *database* gives each table a bag of rows. Only the columns that can affect a result (see
:func:`.sql_syntax.referenced`) take values from the search's value domain
(:mod:`.sql_values`: type-true, per column); every other column gets a distinct per-row filler,
which satisfies NOT NULL, UNIQUE and PRIMARY KEY and cannot change either query's result. The
random search keeps keys unique (it replaces a repeated key by a fresh value) and points
foreign keys at the parent rows it made most of the time. The engine enforces the schema's
constraints (foreign keys, CHECK, NOT NULL, UNIQUE) while loading, and the task's extra
constraints are queries that must return no row: a database that fails either is not a legal
instance and is skipped.

The engine runs the *original* query texts, read-only. Results are compared as bags, or as
lists when the oracle's outermost query has ORDER BY. Floats are rounded to 12 significant
digits first, so that two computations of the same number by different but equivalent
expressions compare equal. A result that changes when the engine scans tables in reverse order
(SQLite's ``PRAGMA reverse_unordered_selects``, the rows loaded backwards on MariaDB: ties under
ORDER BY … LIMIT, the row GROUP_CONCAT starts from, a bare column of an aggregate query) is
*unstable*: it is never used as evidence either way.

An engine error while a query runs (malformed JSON, an integer overflow, a string too long, a
scalar subquery with two rows on MariaDB) is that query's result on that database: a candidate
that fails where the oracle does not is refuted by the database, with the engine's message; a
database on which the oracle fails says nothing.
"""

from __future__ import annotations

import itertools
import math
import random
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

import attrs

from speckernel_respec.domains.sql_syntax import Query, Schema, Table
from speckernel_respec.domains.sql_values import Constants, Value, filler, fresh, random_value

Row = tuple[Value, ...]
Result = tuple[tuple[Value, ...], ...]
Domains = Mapping[str, Mapping[str, tuple[Value, ...]]]
"""Per table and varied column, the values the exhaustive search gives it."""

MAX_TEXT = 1_000_000
"""Longest string or blob SQLite may build (``SQLITE_LIMIT_LENGTH``): a candidate's
``printf('%.*c', 999999999, 'x')`` is then an engine error, not a gigabyte."""


class Deadline(Exception):
    """The check's time budget ran out inside the engine."""


class Rejected(Exception):
    """The engine refused a query before running it (the message says why)."""


class Failed(Exception):
    """The engine failed while running a query on a database (the message says why)."""


@attrs.frozen
class Database:
    """Rows per table, each row in the schema's column order."""

    tables: Mapping[str, tuple[Row, ...]]

    @property
    def size(self) -> int:
        return sum(len(rows) for rows in self.tables.values())

    def to_json(self, schema: Schema) -> dict[str, Any]:
        return {t.name: {"columns": [c.name for c in t.columns],
                         "rows": [list(r) for r in self.tables.get(t.name, ())]}
                for t in schema.tables}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Database:
        return Database({name: tuple(tuple(r) for r in content["rows"])
                         for name, content in data.items()})

    def without(self, table: str, index: int) -> Database:
        rows = self.tables[table]
        return Database({**self.tables, table: rows[:index] + rows[index + 1:]})

    def reversed(self) -> Database:
        return Database({name: rows[::-1] for name, rows in self.tables.items()})


def _materialise(table: Table, used: frozenset[str], partials: Sequence[Row]) -> tuple[Row, ...]:
    """Full rows of ``table`` from values of its used columns (in column order); every other
    column of row ``i`` gets :func:`.sql_values.filler`."""
    rows = []
    for index, partial in enumerate(partials):
        values = iter(partial)
        rows.append(tuple(next(values) if c.name in used else filler(c, index)
                          for c in table.columns))
    return tuple(rows)


class Engine(Protocol):
    """What the search needs of a database engine (SQLite here, MariaDB in ``sql_mariadb``).
    ``reloads_to_reverse``: the other scan order is had by loading the rows backwards (MariaDB)
    rather than by ``run(..., reverse=True)`` (SQLite's pragma)."""

    deadline: float
    reloads_to_reverse: bool

    def load(self, db: Database) -> bool:
        """Replace the contents by ``db``; False if the schema or the task rejects it."""

    def run(self, text: str, reverse: bool = False) -> list[tuple[Value, ...]]:
        """The rows of query ``text``; ``Failed`` for a runtime error, ``Deadline`` past the
        deadline; ``reverse`` asks for the other scan order."""


class SqliteEngine:
    """One in-memory SQLite database with the schema, reloaded for each test database.

    ``constraints`` are the task's extra integrity constraints, each a query that returns a row
    exactly when a database violates it. Queries run read-only (an authorizer denies everything
    but reading), a progress handler interrupts any statement once the deadline has passed, and
    no string or blob may grow past ``MAX_TEXT``."""

    reloads_to_reverse = False

    def __init__(self, schema: Schema, constraints: Sequence[str], deadline: float) -> None:
        self.schema = schema
        self.constraints = tuple(constraints)
        self.deadline = deadline
        self.connection = sqlite3.connect(":memory:", isolation_level=None)
        self.connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_TEXT)
        self.connection.executescript(schema.ddl)
        self.connection.execute("PRAGMA foreign_keys = ON")
        self.connection.set_progress_handler(self._interrupt, 2000)
        self._reading = False
        self.connection.set_authorizer(self._authorize)

    def _interrupt(self) -> int:
        return 1 if time.monotonic() > self.deadline else 0

    def _authorize(self, action: int, *_: Any) -> int:
        if not self._reading or action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ,
                                           sqlite3.SQLITE_FUNCTION):
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    def close(self) -> None:
        self.connection.close()

    def load(self, db: Database) -> bool:
        cur = self.connection
        cur.execute("BEGIN")
        cur.execute("PRAGMA defer_foreign_keys = ON")
        try:
            for table in self.schema.tables:
                cur.execute(f'DELETE FROM "{table.name}"')
                rows = db.tables.get(table.name, ())
                if rows:
                    marks = ", ".join("?" * len(table.columns))
                    cur.executemany(f'INSERT INTO "{table.name}" VALUES ({marks})', rows)
            cur.execute("COMMIT")
        except (sqlite3.IntegrityError, OverflowError):
            cur.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError as exc:
            cur.execute("ROLLBACK")
            if "interrupt" in str(exc):
                raise Deadline() from None
            raise
        try:
            return not any(self.run(c) for c in self.constraints)
        except Failed:
            return False

    def prepare(self, text: str) -> None:
        """``Rejected`` unless ``text`` compiles as one read-only statement (SQLite prepares
        ``EXPLAIN`` of it without running it: unknown names, syntax and writes are refused)."""
        self._reading = True
        try:
            self.connection.execute(f"EXPLAIN {text}").fetchall()
        except (sqlite3.Error, sqlite3.Warning, OverflowError, ValueError) as exc:
            raise Rejected(str(exc)) from None
        finally:
            self._reading = False

    def run(self, text: str, reverse: bool = False) -> list[tuple[Value, ...]]:
        self.connection.execute(f"PRAGMA reverse_unordered_selects = {int(reverse)}")
        self._reading = True
        try:
            return self.connection.execute(text).fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                raise Deadline() from None
            raise Failed(str(exc)) from None
        except (sqlite3.Error, sqlite3.Warning, OverflowError, ValueError, MemoryError) as exc:
            raise Failed(f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)) from None
        finally:
            self._reading = False


def _normal(value: Any) -> Value:
    if isinstance(value, float):
        rounded = float(f"{value:.12g}")
        return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded
    if isinstance(value, bytes | bytearray):
        return value.hex()
    if isinstance(value, int | str) or value is None:
        return value
    if hasattr(value, "as_integer_ratio"):  # decimal.Decimal from MariaDB
        return _normal(float(value))
    return str(value)  # dates and times from MariaDB, in ISO form


def _key(row: tuple[Value, ...]) -> tuple[tuple[int, Any], ...]:
    """A total order on rows mixing NULLs, numbers and strings (for bag comparison)."""
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float) else (2, str(v))
                 for v in row)


def result(rows: Sequence[tuple[Any, ...]], ordered: bool) -> Result:
    """Rows in comparable form: normalised values, sorted unless order is significant."""
    normal = tuple(tuple(_normal(v) for v in row) for row in rows)
    return normal if ordered else tuple(sorted(normal, key=_key))


Seen = Result | str | None
"""One query's stable result, the engine's error message (a ``str``), or None (unstable)."""


@attrs.frozen
class Probe:
    """What running a query needs to know of it: its text and whether order matters (the
    worker parses the query; the kernel's side of MariaDB gets only this)."""

    text: str
    ordered: bool
    order_sensitive: bool

    @staticmethod
    def of(query: Query | Probe) -> Probe:
        return Probe(query.text, query.ordered, query.order_sensitive)


@attrs.frozen
class Observation:
    """What the two queries did on one database."""

    oracle: Seen
    candidate: Seen

    @property
    def differs(self) -> bool:
        """Evidence: the oracle ran, the candidate failed or returned something else."""
        return isinstance(self.oracle, tuple) and self.candidate is not None \
            and self.oracle != self.candidate

    @property
    def agrees(self) -> bool:
        return isinstance(self.oracle, tuple) and self.oracle == self.candidate

    def shown(self, which: Seen) -> Any:
        return {"error": which} if isinstance(which, str) else [list(r) for r in which or ()]


def observe(engine: Engine, oracle: Query | Probe, candidate: Query | Probe,
            db: Database) -> Observation | None:
    """Both results on ``db`` (None if ``db`` is not a legal instance of the schema);
    ``Deadline`` once the engine's deadline has passed."""
    if time.monotonic() > engine.deadline:
        raise Deadline()
    if not engine.load(db):
        return None
    ordered = oracle.ordered
    check_order = oracle.order_sensitive or candidate.order_sensitive

    def once(query: Query | Probe, reverse: bool) -> Seen:
        try:
            return result(engine.run(query.text, reverse=reverse), ordered)
        except Failed as exc:
            return str(exc)[:500] or "the engine failed"

    first = (once(oracle, False), once(candidate, False))
    if not check_order:
        return Observation(*first)
    if engine.reloads_to_reverse and not engine.load(db.reversed()):
        return None
    second = (once(oracle, True), once(candidate, True))
    return Observation(*(a if a == b else None for a, b in zip(first, second, strict=True)))


# --------------------------------------------------------------------------- database spaces


def _row_space(table: Table, used: frozenset[str], values: Domains) -> list[Row]:
    """Every assignment of domain values to the used columns of ``table``."""
    columns = [c for c in table.columns if c.name in used]
    return list(itertools.product(*(values[table.name][c.name] for c in columns)))


def _bags(rows: Sequence[Row], size: int) -> Iterator[tuple[Row, ...]]:
    return itertools.combinations_with_replacement(rows, size)


def count(schema: Schema, used: Mapping[str, frozenset[str]], values: Domains, k: int) -> int:
    """How many databases have at most ``k`` rows per table over ``values``."""
    total = 1
    for table in schema.tables:
        space = len(_row_space(table, used[table.name], values))
        total *= sum(math.comb(space + size - 1, size) for size in range(k + 1))
    return total


def exhaustive(schema: Schema, used: Mapping[str, frozenset[str]], values: Domains,
               k: int) -> Iterator[Database]:
    """Every database with at most ``k`` rows per table over ``values``, smaller ones first."""
    spaces = {t.name: _row_space(t, used[t.name], values) for t in schema.tables}
    for largest in range(k + 1):
        per_table = [[bag for size in range(largest + 1) for bag in _bags(spaces[t.name], size)]
                     for t in schema.tables]
        for choice in itertools.product(*per_table):
            if max((len(b) for b in choice), default=0) == largest:
                yield Database({t.name: _materialise(t, used[t.name], bag)
                                for t, bag in zip(schema.tables, choice, strict=True)})


def parents_first(schema: Schema) -> list[Table]:
    """The tables with every foreign key's parent before its child (where there is no cycle)."""
    order: list[Table] = []
    pending = list(schema.tables)
    while pending:
        ready = [t for t in pending
                 if all(fk.table.lower() in {o.name.lower() for o in order}
                        or fk.table.lower() == t.name.lower()
                        or schema.table(fk.table) is None for fk in t.foreign)] or pending[:1]
        order.append(ready[0])
        pending.remove(ready[0])
    return order


def randomised(schema: Schema, used: Mapping[str, frozenset[str]], values: Domains,
               constants: Constants, rng: random.Random,
               max_rows: int = 6) -> Iterator[Database]:
    """An endless stream of random databases: up to ``max_rows`` rows per table, values from
    the domain or other type-true values, NULLs, duplicated rows, foreign keys that mostly
    match a parent row, and keys kept unique."""
    while True:
        tables: dict[str, tuple[Row, ...]] = {}
        for table in parents_first(schema):
            columns = [c for c in table.columns if c.name in used[table.name]]
            picks: dict[str, list[Value]] = {}
            for fk in table.foreign:
                parent = schema.table(fk.table)
                if parent is None or parent.name not in tables:
                    continue
                for child, key in zip(fk.columns, fk.references, strict=False):
                    index = next((i for i, c in enumerate(parent.columns)
                                  if c.name.lower() == key.lower()), None)
                    if index is not None:
                        picks[child] = [r[index] for r in tables[parent.name]]
            rows: list[list[Value]] = []
            for _ in range(rng.randint(0, max_rows)):
                if rows and rng.random() < 0.25:
                    rows.append(list(rng.choice(rows)))
                    continue
                row = []
                for c in columns:
                    if picks.get(c.name) and rng.random() < 0.6:
                        row.append(rng.choice(picks[c.name]))
                    elif rng.random() < 0.7:
                        row.append(rng.choice(values[table.name][c.name]))
                    else:
                        row.append(random_value(rng, c, constants))
                rows.append(row)
            full = [list(r) for r in _materialise(table, used[table.name],
                                                  [tuple(r) for r in rows])]
            tables[table.name] = _unique_keys(table, full)
        yield Database(tables)


def _unique_keys(table: Table, rows: list[list[Value]]) -> tuple[Row, ...]:
    """``rows`` with every repeated key replaced by a fresh value of its last column (a row
    whose key cannot be freshened is dropped)."""
    positions = {c.name.lower(): i for i, c in enumerate(table.columns)}
    kept: list[list[Value]] = []
    for row in rows:
        for key in table.keys:
            places = [positions[k.lower()] for k in key if k.lower() in positions]
            if not places or any(row[p] is None for p in places):
                continue
            taken = {tuple(r[p] for p in places) for r in kept}
            if tuple(row[p] for p in places) in taken:
                last = places[-1]
                values = {r[last] for r in kept}
                row[last] = fresh(table.columns[last], values, len(kept))
        kept.append(row)
    return tuple(tuple(r) for r in kept if all(
        r[i] is not None for i, c in enumerate(table.columns) if c.not_null))


def shrink(engine: Engine, oracle: Query | Probe, candidate: Query | Probe, db: Database,
           seen: Observation) -> tuple[Database, Observation]:
    """Delete rows from a counterexample ``db`` (on which the queries were ``seen`` to differ)
    while they still differ; stops early, with the smallest so far, at the deadline."""
    changed = True
    while changed:
        changed = False
        for table, rows in db.tables.items():
            for i in range(len(rows)):
                smaller = db.without(table, i)
                try:
                    after = observe(engine, oracle, candidate, smaller)
                except Deadline:
                    return db, seen
                if after is not None and after.differs:
                    db, seen, changed = smaller, after, True
                    break
            if changed:
                break
    return db, seen
