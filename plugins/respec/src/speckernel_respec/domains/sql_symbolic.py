"""Symbolic counterexample search: both queries over symbolic tables of up to ``k`` rows each,
in Z3, asking for a legal database on which their results differ (issue 13).

This is the approach of Polygon and VeriEQL (Zhao, Wang, Wang, PLDI 2025; He et al., OOPSLA
2024) with an encoding written for this project: a table is ``k`` rows, each with a presence
bit (rows present form a prefix, which removes symmetric models) and one symbolic cell per
column; a cell is a NULL bit and a value. Every operator keeps SQL's three-valued logic: a
condition is a pair (unknown, true), a row passes WHERE, ON or HAVING only when the condition
is true. Joins are products of rows (LEFT JOIN adds the NULL-extended row when no right row
matches), GROUP BY picks as group leader the first present row of each key, aggregates sum
over a group's members, DISTINCT keeps the first of equal rows, IN/NOT IN/EXISTS look at every
row of the subquery (NULLs make ``x NOT IN (…)`` unknown), set operations match rows. The
results differ when some row occurs a different number of times in one than in the other.

The database obeys the schema: values of each column's type (integers in the type's range,
dates as day numbers, strings of up to ``MAX_STRING`` characters over ``ALPHABET``, enum
members), NOT NULL and PRIMARY KEY, UNIQUE keys, foreign keys, CHECK constraints, and the
task's constraint queries (encoded like any query, required to return nothing).

**What a model means.** A satisfying assignment is turned into a database and run on the real
engine; only the engine's difference refutes (``sql.Search``). **What unsat means.** No
database with at most ``k`` rows per table over that value space separates the queries — for
the fragment the encoding covers, which :class:`Unsupported` bounds: window functions, ORDER BY
with LIMIT, string functions other than LENGTH, comparisons of text with numbers, division
other than the dialect's rules below, bare columns of aggregate queries and anything else not
listed here make the encoder decline, and the check then relies on the random and exhaustive
searches. Integer division: SQLite truncates toward zero, MySQL divides exactly (a decimal);
division by zero is NULL in both. MySQL compares strings case-insensitively
(``utf8mb4_general_ci``): its strings are encoded lower-cased, so that equality and order are
the collation's over the alphabet. An unsat answer is recorded as the ``bounded`` verdict's
bound (``k`` and the value space), never as a proof.
"""

from __future__ import annotations

import datetime
import itertools
import operator
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import z3
from sqlglot import exp

from speckernel_respec.domains.sql_syntax import Column, Query, Schema, Table, parse_query

MAX_STRING = 6
ALPHABET = "abcxyz0123456789"
"""Characters of generated strings: lower-case (MySQL's collation then equals the binary
order) and digits (text that looks like a number)."""

EPOCH = datetime.date(1970, 1, 1)
DAYS = (datetime.date(1900, 1, 1) - EPOCH).days, (datetime.date(2200, 12, 31) - EPOCH).days
"""Dates are day numbers in this range."""

INT_BOUND = 10**9
"""Generated integers stay within ±this (and the type's range), so that sums of a few rows
cannot overflow any integer type."""


class Unsupported(Exception):
    """The encoding does not cover this part of a query (the message says which)."""


@attrs.frozen
class Cell:
    """One SQL value: ``null`` and ``value`` (Int, Real or String) and its ``kind``."""

    null: Any
    value: Any
    kind: str  # "int", "real", "str", "date"


@attrs.frozen
class Truth:
    """A three-valued condition: ``unknown`` (NULL) or else ``true``."""

    unknown: Any
    true: Any

    @property
    def holds(self) -> Any:
        return z3.And(z3.Not(self.unknown), self.true)

    @property
    def fails(self) -> Any:
        return z3.And(z3.Not(self.unknown), z3.Not(self.true))


@attrs.frozen
class Row:
    present: Any
    env: Mapping[str, Cell]
    """Cells by ``qualifier.column`` and by ``column`` (the latter when unambiguous)."""
    outputs: tuple[Cell, ...] = ()


Relation = list[Row]


class Encoder:
    """Encodes a schema's symbolic database of ``k`` rows per table and queries over it."""

    def __init__(self, schema: Schema, k: int, dialect: str) -> None:
        self.schema, self.k, self.dialect = schema, k, dialect
        self.facts: list[Any] = []
        self.tables: dict[str, list[tuple[Any, list[Cell]]]] = {}
        for table in schema.tables:
            self.tables[table.name.lower()] = self._table(table)
        for table in schema.tables:
            self._keys(table)
        for table in schema.tables:
            self._foreign(table)

    # ----------------------------------------------------------------- the database

    def _kind(self, column: Column) -> str:
        if column.kind == "int":
            return "int"
        if column.kind in ("decimal", "real"):
            return "real"
        if column.kind == "date":
            return "date"
        if column.kind in ("text", "enum"):
            return "str"
        raise Unsupported(f"column {column.name} of kind {column.kind}")

    def _table(self, table: Table) -> list[tuple[Any, list[Cell]]]:
        rows = []
        previous = None
        for i in range(self.k):
            present = z3.Bool(f"{table.name}_{i}_present")
            if previous is not None:
                self.facts.append(z3.Implies(present, previous))
            previous = present
            cells = []
            for column in table.columns:
                kind = self._kind(column)
                base = f"{table.name}_{i}_{column.name}"
                null = z3.Bool(base + "_null")
                if column.not_null:
                    self.facts.append(z3.Not(null))
                value = self._value(column, kind, base)
                cells.append(Cell(null, value, kind))
            rows.append((present, cells))
        return rows

    def _value(self, column: Column, kind: str, name: str) -> Any:
        if kind == "int":
            value = z3.Int(name)
            self.facts.append(z3.And(value >= max(column.low, -INT_BOUND),
                                     value <= min(column.high, INT_BOUND)))
        elif kind == "date":
            value = z3.Int(name)
            self.facts.append(z3.And(value >= DAYS[0], value <= DAYS[1]))
        elif kind == "real":
            value = z3.Real(name)
            if column.kind == "decimal":
                scaled = z3.Int(name + "_scaled")
                self.facts.append(value * 10**column.scale == z3.ToReal(scaled))
                self.facts.append(z3.And(scaled >= max(column.low, -INT_BOUND),
                                         scaled <= min(column.high, INT_BOUND)))
        else:
            value = z3.String(name)
            if column.kind == "enum":
                self.facts.append(z3.Or(*[value == z3.StringVal(self._text(m))
                                          for m in column.values]))
            else:
                allowed = z3.Union(*[z3.Re(c) for c in ALPHABET])
                self.facts.append(z3.InRe(value, z3.Star(allowed)))
                self.facts.append(z3.Length(value) <= MAX_STRING)
        return value

    def _text(self, text: str) -> str:
        """A string as the encoding holds it (lower-cased for MySQL's collation)."""
        if any(ord(c) > 126 for c in text):
            raise Unsupported("non-ASCII text")
        return text.lower() if self.dialect == "mysql" else text

    def _keys(self, table: Table) -> None:
        rows = self.tables[table.name.lower()]
        positions = {c.name.lower(): i for i, c in enumerate(table.columns)}
        for key in table.keys:
            places = [positions[k.lower()] for k in key if k.lower() in positions]
            for (pa, ca), (pb, cb) in itertools.combinations(rows, 2):
                same = z3.And(*[z3.And(z3.Not(ca[p].null), z3.Not(cb[p].null),
                                       ca[p].value == cb[p].value) for p in places])
                self.facts.append(z3.Not(z3.And(pa, pb, same)))
        for check in table.checks:
            for present, cells in rows:
                env = self._env(table.name, table, cells)
                truth = self.condition(check, [env])
                self.facts.append(z3.Implies(present, z3.Not(truth.fails)))

    def _foreign(self, table: Table) -> None:
        rows = self.tables[table.name.lower()]
        positions = {c.name.lower(): i for i, c in enumerate(table.columns)}
        for fk in table.foreign:
            parent = self.schema.table(fk.table)
            if parent is None:
                continue
            parent_positions = {c.name.lower(): i for i, c in enumerate(parent.columns)}
            pairs = [(positions[c.lower()], parent_positions[r.lower()])
                     for c, r in zip(fk.columns, fk.references, strict=False)
                     if c.lower() in positions and r.lower() in parent_positions]
            for present, cells in rows:
                some_null = z3.Or(*[cells[c].null for c, _ in pairs])
                matches = [z3.And(pp, *[z3.And(z3.Not(pc[r].null), pc[r].value == cells[c].value)
                                        for c, r in pairs])
                           for pp, pc in self.tables[parent.name.lower()]]
                self.facts.append(z3.Implies(z3.And(present, z3.Not(some_null)),
                                             z3.Or(*matches) if matches else z3.BoolVal(False)))

    def _env(self, qualifier: str, table: Table, cells: Sequence[Cell]) -> dict[str, Cell]:
        env: dict[str, Cell] = {}
        for column, cell in zip(table.columns, cells, strict=True):
            env[f"{qualifier.lower()}.{column.name.lower()}"] = cell
            env[column.name.lower()] = cell
        return env

    def constrain(self, query: Query) -> None:
        """The task's constraint ``query`` returns no row."""
        for row in self.relation(query.tree, []):
            self.facts.append(z3.Not(row.present))

    # ----------------------------------------------------------------- queries

    def relation(self, node: exp.Expression, outer: list[Mapping[str, Cell]]) -> Relation:
        """The rows a query returns: presence and output cells."""
        if isinstance(node, exp.Subquery):
            return self.relation(node.this, outer)
        if isinstance(node, exp.Union | exp.Intersect | exp.Except):
            return self._set_operation(node, outer)
        if not isinstance(node, exp.Select):
            raise Unsupported(f"{node.key} query")
        if node.args.get("with") is not None:
            raise Unsupported("WITH")
        if node.args.get("limit") is not None or node.args.get("offset") is not None:
            raise Unsupported("LIMIT/OFFSET")
        rows = self._from(node, outer)
        where = node.args.get("where")
        if where is not None:
            rows = [Row(z3.And(r.present, self.condition(where.this, [r.env, *outer]).holds),
                        r.env) for r in rows]
        grouped = node.args.get("group") is not None or any(
            e.find(exp.AggFunc) for e in node.expressions)
        if grouped:
            result = self._grouped(node, rows, outer)
        else:
            if node.args.get("having") is not None:
                raise Unsupported("HAVING without aggregation")
            result = [Row(r.present, r.env, tuple(self._outputs(node, [r.env, *outer])))
                      for r in rows]
        if node.args.get("distinct") is not None:
            result = _distinct(result)
        return result

    def _outputs(self, node: exp.Select, envs: list[Mapping[str, Cell]]) -> list[Cell]:
        cells = []
        for item in node.expressions:
            if isinstance(item, exp.Star) or (isinstance(item, exp.Column)
                                              and isinstance(item.this, exp.Star)):
                raise Unsupported("* in the select list")
            target = item.this if isinstance(item, exp.Alias) else item
            cells.append(self.value(target, envs))
        return cells

    def _from(self, node: exp.Select, outer: list[Mapping[str, Cell]]) -> Relation:
        source = node.args.get("from") or node.args.get("from_")
        if source is None:
            return [Row(z3.BoolVal(True), {})]
        rows = self._source(source.this, outer)
        for join in node.args.get("joins") or ():
            if join.args.get("using") or str(join.args.get("method") or ""):
                raise Unsupported("USING or NATURAL join")
            right = self._source(join.this, outer)
            on = join.args.get("on")
            side = str(join.side or "").upper()
            if side == "RIGHT":
                rows, right = right, rows
                side = "LEFT"
            if side not in ("", "LEFT"):
                raise Unsupported(f"{side} JOIN")
            rows = self._join(rows, right, on, side == "LEFT", outer)
        return rows

    def _source(self, node: exp.Expression, outer: list[Mapping[str, Cell]]) -> Relation:
        if isinstance(node, exp.Table):
            table = self.schema.table(node.name)
            if table is None or node.args.get("db"):
                raise Unsupported(f"table {node.name}")
            qualifier = node.alias_or_name
            return [Row(p, self._env(qualifier, table, cells))
                    for p, cells in self.tables[table.name.lower()]]
        if isinstance(node, exp.Subquery) and node.alias:
            inner = node.this
            if not isinstance(inner, exp.Select):
                raise Unsupported("derived table that is not one SELECT")
            rows = self.relation(inner, outer)
            names = [_output_name(item) for item in inner.expressions]
            result = []
            for row in rows:
                env: dict[str, Cell] = {}
                for name, cell in zip(names, row.outputs, strict=True):
                    env[f"{node.alias.lower()}.{name}"] = cell
                    env[name] = cell
                result.append(Row(row.present, env))
            return result
        raise Unsupported(f"FROM {node.key}")

    def _join(self, left: Relation, right: Relation, on: exp.Expression | None, outer_join: bool,
              outer: list[Mapping[str, Cell]]) -> Relation:
        rows = []
        for a in left:
            matched = []
            for b in right:
                env = _merge(a.env, b.env)
                holds = self.condition(on, [env, *outer]).holds if on is not None \
                    else z3.BoolVal(True)
                present = z3.And(a.present, b.present, holds)
                matched.append(present)
                rows.append(Row(present, env))
            if outer_join:
                template = right[0].env if right else {}
                nulls = {name: Cell(z3.BoolVal(True), cell.value, cell.kind)
                         for name, cell in template.items()}
                rows.append(Row(z3.And(a.present, z3.Not(z3.Or(*matched)) if matched
                                       else z3.BoolVal(True)), _merge(a.env, nulls)))
        return rows

    def _grouped(self, node: exp.Select, rows: Relation,
                 outer: list[Mapping[str, Cell]]) -> Relation:
        group = node.args.get("group")
        keys = list(group.expressions) if group is not None else []
        if any(isinstance(k, exp.Literal) for k in keys):
            raise Unsupported("GROUP BY a position")
        key_cells = [[self.value(k, [r.env, *outer]) for k in keys] for r in rows]
        result = []
        leaders = range(len(rows)) if keys else [0] if rows else []
        for i in leaders:
            if keys:
                earlier = [z3.And(rows[j].present, _same_cells(key_cells[i], key_cells[j]))
                           for j in range(i)]
                leader = z3.And(rows[i].present, z3.Not(z3.Or(*earlier)) if earlier
                                else z3.BoolVal(True))
                members = [z3.And(r.present, _same_cells(key_cells[i], key_cells[j]))
                           for j, r in enumerate(rows)]
            else:
                leader = z3.BoolVal(True)
                members = [r.present for r in rows]
            scope = _Group(self, rows, members, outer, keys, rows[i].env if rows else {})
            having = node.args.get("having")
            present = leader
            if having is not None:
                present = z3.And(present, scope.condition(having.this).holds)
            outputs = tuple(scope.value(item.this if isinstance(item, exp.Alias) else item)
                            for item in node.expressions)
            result.append(Row(present, {}, outputs))
        if not rows and not keys:
            scope = _Group(self, [], [], outer, [], {})
            result.append(Row(z3.BoolVal(True), {}, tuple(
                scope.value(item.this if isinstance(item, exp.Alias) else item)
                for item in node.expressions)))
        return result

    def _set_operation(self, node: exp.Expression, outer: list[Mapping[str, Cell]]) -> Relation:
        left = self.relation(node.this, outer)
        right = self.relation(node.expression, outer)
        distinct = node.args.get("distinct") is not False
        if isinstance(node, exp.Union):
            rows = left + right
            return _distinct(rows) if distinct else rows
        if not distinct:
            raise Unsupported(f"{node.key.upper()} ALL")
        left = _distinct(left)
        result = []
        for row in left:
            found = z3.Or(*[z3.And(r.present, _same_cells(row.outputs, r.outputs))
                            for r in right]) if right else z3.BoolVal(False)
            keep = found if isinstance(node, exp.Intersect) else z3.Not(found)
            result.append(Row(z3.And(row.present, keep), {}, row.outputs))
        return result

    # ----------------------------------------------------------------- expressions

    def lookup(self, column: exp.Column, envs: list[Mapping[str, Cell]]) -> Cell:
        key = f"{column.table.lower()}.{column.name.lower()}" if column.table \
            else column.name.lower()
        for env in envs:
            if key in env:
                return env[key]
        raise Unsupported(f"column {column.sql()}")

    def value(self, node: exp.Expression, envs: list[Mapping[str, Cell]]) -> Cell:
        if isinstance(node, exp.Paren):
            return self.value(node.this, envs)
        if isinstance(node, exp.Column):
            return self.lookup(node, envs)
        if isinstance(node, exp.Null):
            return Cell(z3.BoolVal(True), z3.IntVal(0), "int")
        if isinstance(node, exp.Literal):
            if node.is_string:
                return Cell(z3.BoolVal(False), z3.StringVal(self._text(node.this)), "str")
            text = node.this
            if "." in text or "e" in text.lower():
                return Cell(z3.BoolVal(False), z3.RealVal(text), "real")
            return Cell(z3.BoolVal(False), z3.IntVal(int(text)), "int")
        if isinstance(node, exp.Neg):
            inner = self.value(node.this, envs)
            _numeric(inner)
            return Cell(inner.null, -inner.value, inner.kind)
        if isinstance(node, exp.Add | exp.Sub | exp.Mul):
            a, b = self.value(node.this, envs), self.value(node.expression, envs)
            a, b = _numbers(a, b)
            op = {exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul}[type(node)]
            return Cell(z3.Or(a.null, b.null), op(a.value, b.value), a.kind)
        if isinstance(node, exp.Div):
            return self._divide(node, envs)
        if isinstance(node, exp.Case | exp.If):
            return self._case(node, envs)
        if isinstance(node, exp.Coalesce):
            parts = [self.value(p, envs) for p in [node.this, *node.expressions]]
            return _coalesce(parts)
        if isinstance(node, exp.Nullif):
            a, b = self.value(node.this, envs), self.value(node.expression, envs)
            equal = _compare(a, b, "=", self.dialect)
            return Cell(z3.Or(a.null, equal.holds), a.value, a.kind)
        if isinstance(node, exp.Length):
            inner = self.value(node.this, envs)
            if inner.kind != "str":
                raise Unsupported("LENGTH of a non-string")
            return Cell(inner.null, z3.Length(inner.value), "int")
        if isinstance(node, exp.Subquery):
            return self._scalar(node, envs)
        if isinstance(node, exp.Condition):
            raise Unsupported(f"a condition used as a value ({node.key})")
        raise Unsupported(f"expression {node.key}")

    def _divide(self, node: exp.Div, envs: list[Mapping[str, Cell]]) -> Cell:
        a, b = _numbers(self.value(node.this, envs), self.value(node.expression, envs))
        zero = b.value == 0
        null = z3.Or(a.null, b.null, zero)
        if self.dialect == "sqlite" and a.kind == "int":
            return Cell(null, _truncated(a.value, z3.If(zero, 1, b.value)), "int")
        if self.dialect == "mysql" and a.kind == "int":
            raise Unsupported("MySQL integer division (a decimal rounded to four places)")
        return Cell(null, z3.ToReal(a.value) / z3.If(zero, z3.RealVal(1), z3.ToReal(b.value)),
                    "real")

    def _case(self, node: exp.Expression, envs: list[Mapping[str, Cell]]) -> Cell:
        if isinstance(node, exp.If):
            branches = [(node.this, node.args.get("true"))]
            default = node.args.get("false")
        else:
            if node.this is not None:
                raise Unsupported("CASE with an operand")
            branches = [(b.this, b.args.get("true")) for b in node.args.get("ifs") or ()]
            default = node.args.get("default")
        result = self.value(default, envs) if default is not None \
            else Cell(z3.BoolVal(True), None, "")
        for test, then in reversed(branches):
            chosen = self.value(then, envs)
            holds = self.condition(test, envs).holds
            result = _choose(holds, chosen, result)
        return result

    def _scalar(self, node: exp.Subquery, envs: list[Mapping[str, Cell]]) -> Cell:
        inner = node.this
        if not isinstance(inner, exp.Select) or inner.args.get("group") is not None or not any(
                e.find(exp.AggFunc) for e in inner.expressions) or len(inner.expressions) != 1:
            raise Unsupported("a scalar subquery that is not one aggregate")
        [row] = self.relation(inner, envs)
        return row.outputs[0]

    def condition(self, node: exp.Expression, envs: list[Mapping[str, Cell]]) -> Truth:
        if isinstance(node, exp.Paren):
            return self.condition(node.this, envs)
        if isinstance(node, exp.And | exp.Or):
            a, b = self.condition(node.this, envs), self.condition(node.expression, envs)
            if isinstance(node, exp.And):
                false = z3.Or(a.fails, b.fails)
                return Truth(z3.And(z3.Not(false), z3.Or(a.unknown, b.unknown)),
                             z3.And(a.holds, b.holds))
            true = z3.Or(a.holds, b.holds)
            return Truth(z3.And(z3.Not(true), z3.Or(a.unknown, b.unknown)), true)
        if isinstance(node, exp.Not):
            inner = self.condition(node.this, envs)
            return Truth(inner.unknown, z3.Not(inner.true))
        if isinstance(node, exp.Boolean):
            return Truth(z3.BoolVal(False), z3.BoolVal(node.this))
        ops: dict[type[exp.Expr], str] = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<",
                                           exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
        symbol = ops.get(type(node))
        if symbol is not None:
            left, right = self._operands(node.this, node.expression, envs)
            return _compare(left, right, symbol, self.dialect)
        if isinstance(node, exp.Is):
            if not isinstance(node.expression, exp.Null):
                raise Unsupported("IS with something other than NULL")
            return Truth(z3.BoolVal(False), self.value(node.this, envs).null)
        if isinstance(node, exp.Between):
            x, low_value = self._operands(node.this, node.args["low"], envs)
            _, high_value = self._operands(node.this, node.args["high"], envs)
            low = _compare(x, low_value, ">=", self.dialect)
            high = _compare(x, high_value, "<=", self.dialect)
            return _and(low, high)
        if isinstance(node, exp.In):
            return self._in(node, envs)
        if isinstance(node, exp.Exists):
            rows = self.relation(node.this, envs)
            return Truth(z3.BoolVal(False), z3.Or(*[r.present for r in rows]) if rows
                         else z3.BoolVal(False))
        raise Unsupported(f"condition {node.key}")

    def _operands(self, left: exp.Expression, right: exp.Expression,
                  envs: list[Mapping[str, Cell]]) -> tuple[Cell, Cell]:
        """Both sides of a comparison; a string literal compared with a date is that date
        (an ISO ``YYYY-MM-DD`` literal: SQLite compares the text, which orders such dates
        as days do; MySQL converts it)."""
        a, b = self.value(left, envs), self.value(right, envs)
        if a.kind == "date" and isinstance(right, exp.Literal) and right.is_string:
            b = _date(right.this)
        elif b.kind == "date" and isinstance(left, exp.Literal) and left.is_string:
            a = _date(left.this)
        elif self.dialect == "sqlite":
            a, b = self._affinity(left, a, right, b)
            b, a = self._affinity(right, b, left, a)
        return a, b

    def _affinity(self, left: exp.Expression, a: Cell, right: exp.Expression,
                  b: Cell) -> tuple[Cell, Cell]:
        """SQLite compares a TEXT column with a number as text: the number gets the column's
        affinity ("Datatypes In SQLite", §4.2), so ``name = 5`` is ``name = '5'``."""
        if a.kind == "str" and isinstance(left, exp.Column) and isinstance(right, exp.Literal) \
                and not right.is_string and re.fullmatch(r"-?\d+", right.this):
            return a, Cell(b.null, z3.StringVal(str(int(right.this))), "str")
        return a, b

    def _in(self, node: exp.In, envs: list[Mapping[str, Cell]]) -> Truth:
        x = self.value(node.this, envs)
        query = node.args.get("query")
        if query is not None:
            rows = self.relation(query, envs)
            if any(len(r.outputs) != 1 for r in rows):
                raise Unsupported("IN with a subquery of several columns")
            members = [(r.present, r.outputs[0]) for r in rows]
        elif node.args.get("unnest") or node.args.get("field"):
            raise Unsupported("IN UNNEST")
        else:
            members = [(z3.BoolVal(True), self._operands(node.this, e, envs)[1])
                       for e in node.expressions]
        equal = [z3.And(p, _compare(x, m, "=", self.dialect).holds) for p, m in members]
        any_null = [z3.And(p, m.null) for p, m in members]
        nonempty = z3.Or(*[p for p, _ in members]) if members else z3.BoolVal(False)
        true = z3.Or(*equal) if equal else z3.BoolVal(False)
        unknown = z3.And(z3.Not(true), nonempty,
                         z3.Or(x.null, *any_null) if any_null else x.null)
        return Truth(unknown, true)


class _Group:
    """Expressions over one group: its key columns (the leader's cells) and aggregates."""

    def __init__(self, encoder: Encoder, rows: Relation, members: list[Any],
                 outer: list[Mapping[str, Cell]], keys: Sequence[exp.Expression],
                 leader: Mapping[str, Cell]) -> None:
        self.encoder, self.rows, self.members, self.outer = encoder, rows, members, outer
        self.key_nodes = list(keys)
        self.keys = {k.sql() for k in keys}
        self.leader = leader

    def is_key(self, node: exp.Expression) -> bool:
        """Whether ``node`` is a GROUP BY expression (a column matches a key column of its
        name whose qualifier, where both have one, is the same)."""
        if node.sql() in self.keys:
            return True
        if not isinstance(node, exp.Column):
            return False
        for key in self.key_nodes:
            if isinstance(key, exp.Column) and key.name.lower() == node.name.lower() and (
                    not key.table or not node.table or key.table.lower() == node.table.lower()):
                return True
        return False

    def value(self, node: exp.Expression) -> Cell:
        if isinstance(node, exp.AggFunc):
            return self._aggregate(node)
        if self.is_key(node):
            return self.encoder.value(node, [self.leader, *self.outer])
        if isinstance(node, exp.Column):
            if node.find(exp.Star):
                raise Unsupported("* in an aggregate query")
            raise Unsupported(f"bare column {node.sql()} in an aggregate query")
        if isinstance(node, exp.Literal | exp.Null):
            return self.encoder.value(node, [])
        return self.encoder.value(_substitute(node, self), [self.leader, *self.outer])

    def condition(self, node: exp.Expression) -> Truth:
        return self.encoder.condition(_substitute(node, self), [self.leader, *self.outer])

    def _aggregate(self, node: exp.AggFunc) -> Cell:
        argument = node.this
        distinct = isinstance(argument, exp.Distinct)
        if distinct:
            if len(argument.expressions) != 1:
                raise Unsupported("DISTINCT over several expressions")
            argument = argument.expressions[0]
        if isinstance(node, exp.Count) and isinstance(argument, exp.Star):
            return Cell(z3.BoolVal(False), z3.Sum([z3.If(m, 1, 0) for m in self.members])
                        if self.members else z3.IntVal(0), "int")
        cells = [self.encoder.value(argument, [r.env, *self.outer]) for r in self.rows]
        counted = [z3.And(m, z3.Not(c.null)) for m, c in zip(self.members, cells, strict=True)]
        if distinct:
            counted = [z3.And(counted[i], *[z3.Not(z3.And(counted[j], _equal(cells[i], cells[j])))
                                            for j in range(i)]) for i in range(len(cells))]
        count = z3.Sum([z3.If(c, 1, 0) for c in counted]) if counted else z3.IntVal(0)
        none = z3.Not(z3.Or(*counted)) if counted else z3.BoolVal(True)
        if isinstance(node, exp.Count):
            return Cell(z3.BoolVal(False), count, "int")
        if not cells:
            return Cell(z3.BoolVal(True), z3.IntVal(0), "int")
        for cell in cells:
            _numeric(cell) if not isinstance(node, exp.Min | exp.Max) else None
        kind = cells[0].kind
        if isinstance(node, exp.Sum | exp.Avg):
            zero = z3.RealVal(0) if kind == "real" else z3.IntVal(0)
            total = z3.Sum([z3.If(c, cell.value, zero) for c, cell in zip(counted, cells,
                                                                           strict=True)])
            if isinstance(node, exp.Sum):
                return Cell(none, total, kind)
            return Cell(none, z3.ToReal(total) / z3.If(count == 0, 1, z3.ToReal(count)),
                        "real")
        if isinstance(node, exp.Min | exp.Max):
            if kind == "str":
                raise Unsupported("MIN/MAX of text")
            better = operator.lt if isinstance(node, exp.Min) else operator.gt
            best = cells[0].value
            seen = counted[0]
            for c, cell in zip(counted[1:], cells[1:], strict=True):
                best = z3.If(z3.And(c, z3.Or(z3.Not(seen), better(cell.value, best))),
                             cell.value, best)
                seen = z3.Or(seen, c)
            return Cell(none, best, kind)
        raise Unsupported(f"aggregate {node.key}")


def _substitute(node: exp.Expression, group: _Group) -> exp.Expression:
    """``node`` with each aggregate replaced by a placeholder column bound in the leader's
    environment (so the ordinary expression encoder can combine aggregates)."""
    copy = node.copy()
    bound: dict[str, Cell] = dict(group.leader)
    for index, aggregate in enumerate(list(copy.find_all(exp.AggFunc))):
        name = f"__agg{index}"
        bound[name] = group._aggregate(aggregate)
        aggregate.replace(exp.column(name))
    for column in copy.find_all(exp.Column):
        if not column.name.startswith("__agg") and not group.is_key(column):
            raise Unsupported(f"bare column {column.sql()} in an aggregate query")
    group.leader = bound
    return copy


def _output_name(item: exp.Expression) -> str:
    if isinstance(item, exp.Alias):
        return item.alias.lower()
    if isinstance(item, exp.Column):
        return item.name.lower()
    raise Unsupported("a derived table's unnamed column")


def _date(text: str) -> Cell:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise Unsupported(f"date literal {text!r} not in YYYY-MM-DD form")
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise Unsupported(f"date literal {text!r} is no calendar date") from None
    return Cell(z3.BoolVal(False), z3.IntVal((day - EPOCH).days), "date")


def _merge(a: Mapping[str, Cell], b: Mapping[str, Cell]) -> dict[str, Cell]:
    merged = dict(a)
    for name, cell in b.items():
        if "." not in name and name in merged:
            merged.pop(name)  # ambiguous without a qualifier
            continue
        merged[name] = cell
    return merged


def _numeric(cell: Cell) -> None:
    if cell.kind not in ("int", "real"):
        raise Unsupported(f"arithmetic on {cell.kind}")


def _numbers(a: Cell, b: Cell) -> tuple[Cell, Cell]:
    _numeric(a)
    _numeric(b)
    if a.kind == b.kind:
        return a, b
    return (Cell(a.null, z3.ToReal(a.value) if a.kind == "int" else a.value, "real"),
            Cell(b.null, z3.ToReal(b.value) if b.kind == "int" else b.value, "real"))


def _truncated(a: Any, b: Any) -> Any:
    """Integer division truncating toward zero (SQLite), for b != 0 (else anything)."""
    absolute = z3.If(a >= 0, a, -a) / z3.If(b >= 0, b, -b)
    return z3.If((a >= 0) == (b >= 0), absolute, -absolute)


def _compare(a: Cell, b: Cell, op: str, dialect: str) -> Truth:
    if a.kind == "" or b.kind == "":
        return Truth(z3.BoolVal(True), z3.BoolVal(False))
    if {a.kind, b.kind} <= {"int", "real"}:
        a, b = _numbers(a, b)
    elif a.kind != b.kind:
        raise Unsupported(f"{a.kind} compared with {b.kind}")
    x, y = a.value, b.value
    if a.kind == "str":
        result = {"=": x == y, "<>": x != y, "<": x < y, "<=": x <= y, ">": y < x,
                  ">=": y <= x}[op]
    else:
        result = {"=": x == y, "<>": x != y, "<": x < y, "<=": x <= y, ">": x > y,
                  ">=": x >= y}[op]
    return Truth(z3.Or(a.null, b.null), result)


def _and(a: Truth, b: Truth) -> Truth:
    false = z3.Or(a.fails, b.fails)
    return Truth(z3.And(z3.Not(false), z3.Or(a.unknown, b.unknown)), z3.And(a.holds, b.holds))


def _equal(a: Cell, b: Cell) -> Any:
    """Both non-null and equal (for DISTINCT inside an aggregate)."""
    if {a.kind, b.kind} <= {"int", "real"} and a.kind != b.kind:
        a, b = _numbers(a, b)
    if a.kind != b.kind:
        return z3.BoolVal(False)
    return a.value == b.value


def _same(a: Cell, b: Cell) -> Any:
    """The same value for grouping, DISTINCT and result comparison: both NULL, or neither
    and equal."""
    if a.kind == "" or b.kind == "":
        return z3.And(a.null, b.null)
    if {a.kind, b.kind} <= {"int", "real"} and a.kind != b.kind:
        a, b = _numbers(a, b)
    if a.kind != b.kind:
        return z3.And(a.null, b.null)
    return z3.Or(z3.And(a.null, b.null), z3.And(z3.Not(a.null), z3.Not(b.null),
                                                 a.value == b.value))


def _same_cells(a: Sequence[Cell], b: Sequence[Cell]) -> Any:
    return z3.And(*[_same(x, y) for x, y in zip(a, b, strict=True)]) if a else z3.BoolVal(True)


def _coalesce(parts: Sequence[Cell]) -> Cell:
    result = parts[-1]
    for part in reversed(parts[:-1]):
        result = _choose(z3.Not(part.null), part, result)
    return result


def _choose(condition: Any, a: Cell, b: Cell) -> Cell:
    if b.kind == "":
        return Cell(z3.Or(z3.Not(condition), a.null), a.value, a.kind)
    if a.kind == "":
        return Cell(z3.Or(condition, b.null), b.value, b.kind)
    if a.kind != b.kind:
        if {a.kind, b.kind} <= {"int", "real"}:
            a, b = _numbers(a, b)
        else:
            raise Unsupported(f"CASE mixing {a.kind} and {b.kind}")
    return Cell(z3.If(condition, a.null, b.null), z3.If(condition, a.value, b.value), a.kind)


def _distinct(rows: Relation) -> Relation:
    return [Row(z3.And(r.present, *[z3.Not(z3.And(rows[j].present,
                                                  _same_cells(r.outputs, rows[j].outputs)))
                                    for j in range(i)]), r.env, r.outputs)
            for i, r in enumerate(rows)]


def differ(a: Relation, b: Relation) -> Any:
    """Some row occurs a different number of times in ``a`` than in ``b`` (bag semantics)."""
    def count(rel: Relation, row: Row) -> Any:
        return z3.Sum([z3.If(z3.And(r.present, _same_cells(row.outputs, r.outputs)), 1, 0)
                       for r in rel]) if rel else z3.IntVal(0)

    if any(len(r.outputs) != len(a[0].outputs) for r in a + b) if a else False:
        return z3.BoolVal(True)
    return z3.Or(*[z3.And(row.present, count(a, row) != count(b, row)) for row in a + b]) \
        if a or b else z3.BoolVal(False)


# --------------------------------------------------------------------------- the search


@attrs.frozen
class Found:
    """The symbolic search's answer for one ``k``: databases to run (models), or none."""

    k: int
    databases: tuple[dict[str, list[list[Any]]], ...]
    exhausted: bool
    """True when Z3 showed no further database exists (unsat) — the bound holds."""


def _decode(encoder: Encoder, model: Any) -> dict[str, list[list[Any]]]:
    database: dict[str, list[list[Any]]] = {}
    for table in encoder.schema.tables:
        rows = []
        for present, cells in encoder.tables[table.name.lower()]:
            if not z3.is_true(model.eval(present, model_completion=True)):
                continue
            row: list[Any] = []
            for column, cell in zip(table.columns, cells, strict=True):
                if z3.is_true(model.eval(cell.null, model_completion=True)):
                    row.append(None)
                    continue
                value = model.eval(cell.value, model_completion=True)
                row.append(_python(value, column, cell.kind))
            rows.append(row)
        database[table.name] = rows
    return database


def _python(value: Any, column: Column, kind: str) -> Any:
    if kind == "int":
        return value.as_long()
    if kind == "date":
        day = EPOCH + datetime.timedelta(days=value.as_long())
        return day.isoformat()
    if kind == "real":
        fraction = value.as_fraction()
        number = float(fraction)
        return round(number, column.scale) if column.kind == "decimal" else number
    text = value.as_string()
    if column.kind == "enum":
        return next((m for m in column.values if m.lower() == text.lower()), text)
    return text


def search(schema: Schema, oracle: Query, candidate: Query, constraints: Sequence[str],
           dialect: str, k: int, timeout_ms: int, models: int = 3) -> Found:
    """Up to ``models`` databases of at most ``k`` rows per table on which the encoding says
    the two queries differ (each blocked before the next is asked for); ``Unsupported`` when
    the queries leave the encoded fragment, ``TimeoutError`` when Z3 gives up."""
    encoder = Encoder(schema, k, dialect)
    for text in constraints:
        encoder.constrain(parse_query(text, dialect))
    a = encoder.relation(oracle.tree, [])
    b = encoder.relation(candidate.tree, [])
    solver = z3.Solver()
    solver.set("timeout", max(1, timeout_ms))
    solver.add(*encoder.facts)
    solver.add(differ(a, b))
    found: list[dict[str, list[list[Any]]]] = []
    for _ in range(models):
        status = solver.check()
        if status == z3.unsat:
            return Found(k, tuple(found), True)
        if status != z3.sat:
            if found:
                return Found(k, tuple(found), False)
            raise TimeoutError(f"z3: {solver.reason_unknown()}")
        model = solver.model()
        database = _decode(encoder, model)
        found.append(database)
        solver.add(_block(encoder, model))
    return Found(k, tuple(found), False)


def _block(encoder: Encoder, model: Any) -> Any:
    """A constraint ruling out the model's database (some presence bit or cell differs)."""
    differences = []
    for rows in encoder.tables.values():
        for present, cells in rows:
            differences.append(present != model.eval(present, model_completion=True))
            for cell in cells:
                differences.append(cell.null != model.eval(cell.null, model_completion=True))
                differences.append(z3.And(z3.Not(cell.null), cell.value != model.eval(
                    cell.value, model_completion=True)))
    return z3.Or(*differences)


def value_space(dialect: str) -> dict[str, Any]:
    """The bound's description of what the symbolic tables range over."""
    return {"integers": f"type range within ±{INT_BOUND}",
            "dates": f"{EPOCH + datetime.timedelta(days=DAYS[0])} to "
                     f"{EPOCH + datetime.timedelta(days=DAYS[1])}",
            "text": f"up to {MAX_STRING} characters of {ALPHABET!r}"
                    + (" (compared case-insensitively)" if dialect == "mysql" else ""),
            "decimals": "the column's scale"}


def covered(schema: Schema, queries: Sequence[Query], constraints: Sequence[str],
            dialect: str) -> str | None:
    """Why the encoding does not cover the queries (a one-row encoding is tried), or None."""
    try:
        encoder = Encoder(schema, 1, dialect)
        for text in constraints:
            encoder.constrain(parse_query(text, dialect))
        for query in queries:
            encoder.relation(query.tree, [])
    except Unsupported as exc:
        return str(exc)
    return None
