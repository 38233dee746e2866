"""Databases on which SQLite runs both queries: exhaustive small ones, random ones, and shrinking.

A *database* gives each table a bag of rows. Only the columns that can affect a result (see
:func:`.sql_syntax.referenced`) take values from the search's value domain; every other column
gets a distinct per-row value (``i + 1`` or ``'r<i>'``), which satisfies NOT NULL, UNIQUE and
PRIMARY KEY and cannot change either query's result. SQLite enforces the schema's constraints
(deferred foreign keys, CHECK, NOT NULL, UNIQUE) while loading, and the task's extra constraints
are queries that must return no row: a database that fails either is not a legal instance and
is skipped.

SQLite runs the *original* query texts, read-only (an authorizer denies everything but reading),
and a progress handler interrupts any statement once the check's deadline has passed. Results
are compared as bags, or as lists when the oracle's outermost query has ORDER BY. Floats are
rounded to 12 significant digits first, so that two computations of the same number by different
but equivalent expressions compare equal. A result that changes when SQLite scans tables in
reverse order (``PRAGMA reverse_unordered_selects``: ties under ORDER BY … LIMIT, the row
GROUP_CONCAT starts from, a bare column of an aggregate query) is *unstable*: it is never used
as evidence either way.
"""

from __future__ import annotations

import itertools
import math
import random
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from speckernel_respec.domains.sql_syntax import Query, Schema, Table

Value = int | float | str | None
Row = tuple[Value, ...]
Result = tuple[tuple[Value, ...], ...]


class Deadline(Exception):
    """The check's time budget ran out inside SQLite."""


class Rejected(Exception):
    """SQLite refused a query (the message says why)."""


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

    def without(self, table: str, index: int) -> Database:
        rows = self.tables[table]
        return Database({**self.tables, table: rows[:index] + rows[index + 1:]})


@attrs.frozen
class Domain:
    """The values referenced columns range over (NULL always included)."""

    numbers: tuple[Value, ...]
    strings: tuple[Value, ...]

    def for_column(self, numeric: bool) -> tuple[Value, ...]:
        return self.numbers if numeric else self.strings

    def to_json(self) -> dict[str, list[Value]]:
        return {"numeric": list(self.numbers), "text": list(self.strings)}


def domain(numbers: frozenset[float], strings: frozenset[str], neighbours: bool) -> Domain:
    """NULL, the constants of the queries and, with ``neighbours``, each integer constant's
    neighbours (off-by-one bounds) and a string no constant equals (LIKE patterns are also
    instantiated: ``%`` as the empty string, ``_`` as ``x``)."""
    ints = {int(n) if n == int(n) else n for n in numbers} or {0}
    if neighbours:
        ints |= {n + d for n in ints if isinstance(n, int) for d in (-1, 1)}
    texts = {s.replace("%", "").replace("_", "x") for s in strings} | set(strings)
    if neighbours or not texts:
        texts.add("zz")
    return Domain((None, *sorted(ints)), (None, *sorted(texts)))


def _materialise(table: Table, used: frozenset[str], partials: Sequence[Row]) -> tuple[Row, ...]:
    """Full rows of ``table`` from values of its referenced columns (in column order); row ``i``
    gets the filler ``i + 1`` or ``'r<i>'`` in every other column."""
    rows = []
    for index, partial in enumerate(partials):
        values = iter(partial)
        rows.append(tuple(next(values) if c.name in used
                          else index + 1 if c.numeric else f"r{index}"
                          for c in table.columns))
    return tuple(rows)


class Engine:
    """One in-memory SQLite database with the schema, reloaded for each test database.

    ``constraints`` are the task's extra integrity constraints, each a query that returns a row
    exactly when a database violates it."""

    def __init__(self, schema: Schema, constraints: Sequence[str], deadline: float) -> None:
        self.schema = schema
        self.constraints = tuple(constraints)
        self.deadline = deadline
        self.connection = sqlite3.connect(":memory:", isolation_level=None)
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
        """Replace the contents by ``db``; False if the schema's constraints reject it."""
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
        except sqlite3.IntegrityError:
            cur.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError as exc:
            cur.execute("ROLLBACK")
            if "interrupt" in str(exc):
                raise Deadline() from None
            raise
        return not any(self.run(c) for c in self.constraints)

    def run(self, text: str, reverse: bool = False) -> list[tuple[Value, ...]]:
        """The rows SQLite returns for query ``text`` (``Rejected`` if it refuses to run it)."""
        self.connection.execute(f"PRAGMA reverse_unordered_selects = {int(reverse)}")
        self._reading = True
        try:
            return self.connection.execute(text).fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                raise Deadline() from None
            raise Rejected(str(exc)) from None
        except (sqlite3.Error, sqlite3.Warning, OverflowError) as exc:
            raise Rejected(str(exc)) from None
        finally:
            self._reading = False


def _normal(value: Value) -> Value:
    if isinstance(value, float):
        rounded = float(f"{value:.12g}")
        return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded
    if isinstance(value, bytes):
        return value.hex()
    return value


def _key(row: tuple[Value, ...]) -> tuple[tuple[int, Any], ...]:
    """A total order on rows mixing NULLs, numbers and strings (for bag comparison)."""
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float) else (2, str(v))
                 for v in row)


def result(rows: Sequence[tuple[Value, ...]], ordered: bool) -> Result:
    """Rows in comparable form: normalised values, sorted unless order is significant."""
    normal = tuple(tuple(_normal(v) for v in row) for row in rows)
    return normal if ordered else tuple(sorted(normal, key=_key))


@attrs.frozen
class Observation:
    """What the two queries returned on one database (None: unstable under scan order)."""

    oracle: Result | None
    candidate: Result | None

    @property
    def differs(self) -> bool:
        return None not in (self.oracle, self.candidate) and self.oracle != self.candidate

    @property
    def agrees(self) -> bool:
        return self.oracle is not None and self.oracle == self.candidate


def observe(engine: Engine, oracle: Query, candidate: Query, db: Database) -> Observation | None:
    """Both results on ``db`` (None if ``db`` is not a legal instance of the schema);
    ``Deadline`` once the engine's deadline has passed."""
    if time.monotonic() > engine.deadline:
        raise Deadline()
    if not engine.load(db):
        return None
    ordered = oracle.ordered
    check_order = oracle.order_sensitive or candidate.order_sensitive

    def stable(query: Query) -> Result | None:
        first = result(engine.run(query.text), ordered)
        if check_order and result(engine.run(query.text, reverse=True), ordered) != first:
            return None
        return first

    return Observation(stable(oracle), stable(candidate))


# --------------------------------------------------------------------------- database spaces


def _row_space(table: Table, used: frozenset[str], values: Domain) -> list[Row]:
    """Every assignment of domain values to the referenced columns of ``table``."""
    columns = [c for c in table.columns if c.name in used]
    return list(itertools.product(*(values.for_column(c.numeric) for c in columns)))


def _bags(rows: Sequence[Row], size: int) -> Iterator[tuple[Row, ...]]:
    return itertools.combinations_with_replacement(rows, size)


def count(schema: Schema, used: Mapping[str, frozenset[str]], values: Domain, k: int) -> int:
    """How many databases have at most ``k`` rows per table over ``values``."""
    total = 1
    for table in schema.tables:
        space = len(_row_space(table, used[table.name], values))
        total *= sum(math.comb(space + size - 1, size) for size in range(k + 1))
    return total


def exhaustive(schema: Schema, used: Mapping[str, frozenset[str]], values: Domain,
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


def randomised(schema: Schema, used: Mapping[str, frozenset[str]], values: Domain,
               rng: random.Random, max_rows: int = 6) -> Iterator[Database]:
    """An endless stream of random databases: up to ``max_rows`` rows per table, values from
    the domain or small random numbers and strings, NULLs, and duplicated rows."""
    while True:
        tables: dict[str, tuple[Row, ...]] = {}
        for table in schema.tables:
            rows: list[Row] = []
            for _ in range(rng.randint(0, max_rows)):
                if rows and rng.random() < 0.25:
                    rows.append(rng.choice(rows))
                else:
                    rows.append(tuple(_pick(rng, values, c.numeric) for c in table.columns
                                      if c.name in used[table.name]))
            tables[table.name] = _materialise(table, used[table.name], rows)
        yield Database(tables)


def _pick(rng: random.Random, values: Domain, numeric: bool) -> Value:
    if rng.random() < 0.7:
        return rng.choice(values.for_column(numeric))
    return rng.randint(-2, 12) if numeric else rng.choice(("a", "b", "x y", ""))


def shrink(engine: Engine, oracle: Query, candidate: Query, db: Database,
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
