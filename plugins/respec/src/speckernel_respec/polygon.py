"""Polygon's LeetCode benchmark (Zhao, Wang, Wang, PLDI 2025) as ``sql`` tasks.

The upstream layout (``benchmarks/leetcode/`` of the Polygon repository; read from a user-given
path, never copied)::

    schemas/<n>.json       {"Problem Number": "<n>", "Tables": [<table>, ...], "Tuples": [...]}
    constraints/<n>.yml    integrity constraints in Polygon's small language (below)
    groundtruths/<n>.csv   qid,mysql_groundtruth — one or more reference queries (MySQL)

A table is ``{"TableName", "PKeys": [{"Name", "Type"}], "FKeys": [{"FName", "PName",
"PTable"}], "Others": [{"Name", "Type"}]}``. What the real files hold, and this module reads:

* ``PTable`` is a table's name or its index in ``Tables`` (``"0"``, ``"1"``);
* a foreign key's ``FName`` need not be declared among the columns: it is then a column of the
  parent column's type;
* a ``Type`` is ``int``, ``varchar``, ``date``, ... , ``enum,Y,N`` (an enum of ``Y`` and ``N``),
  or a table index (``"0"``: the type of the column of that name in that table);
* keys may be composite; a PRIMARY KEY column is NOT NULL.

The constraint language: lines ``row_dep:``, ``col_dep:`` or ``col_val:`` followed by
statements separated by ``;`` (continued on indented lines):

* ``unique(T.a, T.b)`` — no two rows agree on (a, b): a UNIQUE constraint;
* ``T.a <- {'x', 'y'}`` — a's values are among those: a CHECK;
* ``T.a <- U.b`` — every a is some b: a FOREIGN KEY when b is a key of U, else a constraint
  query (the verifier's "returns a row when violated" form, :mod:`.domains.sql_facts`);
* ``T.a op v`` and ``T.a op T.b`` (``< <= > >= = != <>``; ``v`` a number, a quoted string or
  a bare date ``2019-07-05``) — a CHECK; ``T.a != NULL`` is NOT NULL;
* ``T.a -> {...}`` — values the problem mentions (a hint for generating data, not a
  restriction: 1789 says ``primary_flag <- {'Y','N'}`` and ``primary_flag -> {'N'}``), and
  ``T.a | varchar+null`` — a type note; both are read and impose nothing.

Names are case-insensitive (``triangle.x`` is ``Triangle.x``), as in MySQL on Linux for columns.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from speckernel.errors import KernelError

DIALECTS = ("mysql", "sqlite")

_TYPES = {
    "int": ("INT", "INTEGER"), "integer": ("INT", "INTEGER"), "bigint": ("BIGINT", "INTEGER"),
    "smallint": ("SMALLINT", "INTEGER"), "tinyint": ("TINYINT", "INTEGER"),
    "varchar": ("VARCHAR(255)", "TEXT"), "char": ("VARCHAR(255)", "TEXT"),
    "string": ("VARCHAR(255)", "TEXT"), "text": ("VARCHAR(255)", "TEXT"),
    "date": ("DATE", "DATE"), "datetime": ("DATETIME", "DATETIME"),
    "timestamp": ("DATETIME", "DATETIME"), "float": ("DOUBLE", "REAL"),
    "double": ("DOUBLE", "REAL"), "real": ("DOUBLE", "REAL"),
    "decimal": ("DECIMAL(10,2)", "DECIMAL(10,2)"), "bool": ("BOOLEAN", "BOOLEAN"),
    "boolean": ("BOOLEAN", "BOOLEAN"),
}
"""Polygon's type names -> (MySQL, SQLite) column types."""

_DECLARED = re.compile(r"[A-Za-z]+(\(\d+(,\s*\d+)?\))?")
_OPERATORS = ("<=", ">=", "!=", "<>", "<", ">", "=")
_STATEMENT = re.compile(r"^\s*([\w.]+)\s*(<-|->|<=|>=|!=|<>|<|>|=|\|)\s*(.*?)\s*$", re.S)
_UNIQUE = re.compile(r"^\s*unique\s*\((.*)\)\s*$", re.S | re.I)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MEMBER = re.compile(r"'([^']*)'|\"([^\"]*)\"|([^,\s'\"]+)")


@attrs.define
class _Column:
    name: str
    polygon_type: str
    not_null: bool = False


@attrs.define
class _Table:
    name: str
    columns: list[_Column]
    primary: list[str]
    uniques: list[list[str]] = attrs.Factory(list)
    checks: list[str] = attrs.Factory(list)
    foreign: list[tuple[str, str, str]] = attrs.Factory(list)
    """(column, parent table, parent column)."""

    def column(self, name: str) -> _Column | None:
        return next((c for c in self.columns if c.name.lower() == name.lower()), None)


@attrs.frozen
class Schema:
    """A Polygon schema as SQL: ``CREATE TABLE`` text in a dialect, and constraint queries."""

    ddl: str
    constraints: tuple[str, ...]


def _tables_of(schema: Any) -> list[Mapping[str, Any]]:
    """The table list of a schema file (``{"Tables": [...]}``) or of a bare list."""
    tables = schema.get("Tables") if isinstance(schema, Mapping) else schema
    if not isinstance(tables, list) or not all(isinstance(t, Mapping) for t in tables):
        raise KernelError("a Polygon schema is a list of tables or {\"Tables\": [...]}")
    return tables


def _parent(tables: Sequence[Mapping[str, Any]], ref: Any) -> str:
    """The parent table's name: ``PTable`` is a name or an index into ``Tables``."""
    text = str(ref).strip()
    if text.isdigit():
        index = int(text)
        if index >= len(tables):
            raise KernelError(f"foreign key names table index {index} of {len(tables)}")
        return str(tables[index]["TableName"])
    return text


def _read_tables(raw: Sequence[Mapping[str, Any]]) -> list[_Table]:
    tables = []
    for spec in raw:
        keys = [_Column(str(k["Name"]), str(k.get("Type", "int")), True)
                for k in spec.get("PKeys") or []]
        others = [_Column(str(c["Name"]), str(c.get("Type", "int")))
                  for c in spec.get("Others") or []]
        table = _Table(str(spec["TableName"]), [*keys, *others], [k.name for k in keys])
        for fk in spec.get("FKeys") or []:
            table.foreign.append((str(fk["FName"]), _parent(raw, fk["PTable"]),
                                  str(fk.get("PName") or fk["FName"])))
        tables.append(table)
    by_name = {t.name.lower(): t for t in tables}
    for table in tables:
        for child, parent, parent_column in table.foreign:
            if table.column(child) is None:
                source = by_name.get(parent.lower())
                found = source.column(parent_column) if source else None
                table.columns.append(_Column(child, found.polygon_type if found else "int"))
    for index, table in enumerate(tables):
        for column in table.columns:
            column.polygon_type = _resolved_type(tables, index, column)
    return tables


def _resolved_type(tables: Sequence[_Table], index: int, column: _Column) -> str:
    """A type given as a table index means that table's column of the same name."""
    text = column.polygon_type.strip()
    if not text.isdigit():
        return text
    position = int(text)
    if position < len(tables) and position != index:
        source = tables[position].column(column.name)
        if source is not None and not source.polygon_type.strip().isdigit():
            return source.polygon_type
    return "int"


def _sql_type(column: _Column, dialect: str) -> tuple[str, str | None]:
    """The column's SQL type and, for an enum in SQLite, the CHECK that stands for it."""
    text = column.polygon_type.strip()
    if text.lower().startswith("enum"):
        members = [m.strip().strip("'\"") for m in text.split(",")[1:] if m.strip()]
        if not members:
            raise KernelError(f"column {column.name}: enum without members")
        listed = ", ".join(_string(m) for m in members)
        if dialect == "mysql":
            return f"ENUM({listed})", None
        return "TEXT", f"{_name(column.name)} IN ({listed})"
    mapped = _TYPES.get(text.lower())
    if mapped is not None:
        return mapped[0] if dialect == "mysql" else mapped[1], None
    if _DECLARED.fullmatch(text):
        return text.upper(), None
    raise KernelError(f"column {column.name}: unknown Polygon type {text!r}")


def _string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _name(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        raise KernelError(f"not a plain SQL name: {text!r}")
    return text


# --------------------------------------------------------------------------- constraints


def constraint_statements(text: str) -> list[str]:
    """The statements of a constraints file: ``key: stmt; stmt`` with indented continuations."""
    blocks: list[str] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        head = re.match(r"^(\w+)\s*:(.*)$", line)
        if head and not line[:1].isspace():
            blocks.append(head.group(2))
        elif blocks:
            blocks[-1] += " " + line.strip()
        else:
            raise KernelError(f"constraint line outside a section: {line.strip()!r}")
    return [s.strip() for block in blocks for s in block.split(";") if s.strip()]


def _reference(tables: Sequence[_Table], text: str) -> tuple[_Table, _Column] | None:
    if "." not in text:
        return None
    table_name, column_name = text.split(".", 1)
    table = next((t for t in tables if t.name.lower() == table_name.lower()), None)
    column = table.column(column_name) if table else None
    return (table, column) if table and column else None


def _literal(text: str) -> str:
    value = text.strip()
    if value.upper() == "NULL":
        return "NULL"
    if _DATE.fullmatch(value):
        return _string(value)
    if re.fullmatch(r"-?\d+(\.\d+)?", value):
        return value
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return _string(value[1:-1])
    raise KernelError(f"not a constant: {value!r}")


def _members(text: str) -> list[str]:
    inner = text.strip()
    if not (inner.startswith("{") and inner.endswith("}")):
        raise KernelError(f"expected {{...}}, found {text!r}")
    return [_string(quoted if quoted is not None else double) if bare is None
            else _literal(bare)
            for quoted, double, bare in ((m.group(1), m.group(2), m.group(3))
                                         for m in _MEMBER.finditer(inner[1:-1]))]


def _is_key(table: _Table, column: str) -> bool:
    return [c.lower() for c in table.primary] == [column.lower()] or any(
        [c.lower() for c in u] == [column.lower()] for u in table.uniques)


def _apply(tables: list[_Table], statement: str, queries: list[str]) -> None:
    unique = _UNIQUE.match(statement)
    if unique:
        refs = [_reference(tables, part.strip()) for part in unique.group(1).split(",")]
        if any(r is None for r in refs) or len({r[0].name for r in refs if r}) != 1:
            raise KernelError(f"unique() over unknown or several tables: {statement!r}")
        table = refs[0][0]  # type: ignore[index]
        names = [r[1].name for r in refs if r]
        if [n.lower() for n in names] != [p.lower() for p in table.primary]:
            table.uniques.append(names)
        return
    parts = _STATEMENT.match(statement)
    if parts is None:
        raise KernelError(f"cannot read constraint {statement!r}")
    left, operator, right = parts.groups()
    target = _reference(tables, left)
    if target is None:
        raise KernelError(f"constraint on an unknown column: {statement!r}")
    table, column = target
    if operator in ("->", "|"):
        return
    if operator == "<-":
        if right.strip().startswith("{"):
            table.checks.append(f"{_name(column.name)} IN ({', '.join(_members(right))})")
            return
        source = _reference(tables, right)
        if source is None:
            raise KernelError(f"inclusion from an unknown column: {statement!r}")
        parent, key = source
        if _is_key(parent, key.name) and parent is not table:
            if (column.name, parent.name, key.name) not in table.foreign:
                table.foreign.append((column.name, parent.name, key.name))
            return
        queries.append(f"SELECT 1 FROM {_name(table.name)} WHERE {_name(column.name)} IS NOT "
                       f"NULL AND {_name(column.name)} NOT IN (SELECT {_name(key.name)} FROM "
                       f"{_name(parent.name)} WHERE {_name(key.name)} IS NOT NULL)")
        return
    other = _reference(tables, right)
    if other is not None:
        if other[0] is not table:
            raise KernelError(f"a comparison across two tables is not supported: {statement!r}")
        table.checks.append(f"{_name(column.name)} {operator} {_name(other[1].name)}")
        return
    value = _literal(right)
    if value == "NULL":
        if operator in ("!=", "<>"):
            column.not_null = True
            return
        if operator == "=":
            table.checks.append(f"{_name(column.name)} IS NULL")
            return
        raise KernelError(f"cannot compare with NULL: {statement!r}")
    table.checks.append(f"{_name(column.name)} {operator} {value}")


def to_sql(schema: Any, constraints: str = "", dialect: str = "mysql") -> Schema:
    """The ``CREATE TABLE`` statements (in ``dialect``) and the constraint queries of a Polygon
    schema and its constraints file; ``KernelError`` naming what cannot be read."""
    if dialect not in DIALECTS:
        raise KernelError(f"unknown dialect {dialect!r}")
    tables = _read_tables(_tables_of(schema))
    queries: list[str] = []
    for statement in constraint_statements(constraints):
        _apply(tables, statement, queries)
    by_name = {t.name.lower(): t for t in tables}
    statements = []
    for table in tables:
        items = []
        for column in table.columns:
            kind, check = _sql_type(column, dialect)
            null = " NOT NULL" if column.not_null or column.name in table.primary else ""
            items.append(f"{_name(column.name)} {kind}{null}")
            if check:
                table.checks.append(check)
        if table.primary:
            items.append(f"PRIMARY KEY ({', '.join(map(_name, table.primary))})")
        items.extend(f"UNIQUE ({', '.join(map(_name, u))})" for u in table.uniques)
        for child, parent_name, key in table.foreign:
            parent = by_name.get(parent_name.lower())
            if parent is None:
                raise KernelError(f"table {table.name}: foreign key to unknown table "
                                  f"{parent_name!r}")
            if _is_key(parent, key):
                items.append(f"FOREIGN KEY ({_name(child)}) REFERENCES "
                             f"{_name(parent.name)}({_name(key)})")
            else:
                queries.append(
                    f"SELECT 1 FROM {_name(table.name)} WHERE {_name(child)} IS NOT NULL AND "
                    f"{_name(child)} NOT IN (SELECT {_name(key)} FROM {_name(parent.name)} "
                    f"WHERE {_name(key)} IS NOT NULL)")
        items.extend(f"CHECK ({c})" for c in dict.fromkeys(table.checks))
        statements.append(f"CREATE TABLE {_name(table.name)} (\n  " + ",\n  ".join(items)
                          + "\n);")
    return Schema("\n".join(statements), tuple(queries))


# --------------------------------------------------------------------------- the benchmark


def ground_truths(text: str) -> list[tuple[str, str]]:
    """(problem number, query) of a ``groundtruths/<n>.csv`` file, in file order."""
    rows = list(csv.DictReader(io.StringIO(text)))
    found = [(str(r.get("qid", "")).strip(), str(r.get("mysql_groundtruth", "")).strip())
             for r in rows]
    if not rows or not all(q for _, q in found):
        raise KernelError("expected columns qid,mysql_groundtruth with a query on every row")
    return found


def leetcode_records(root: Path) -> list[dict[str, Any]]:
    """One record per problem of the layout above that has a schema and a ground truth:
    ``{"name", "nl", "schema", "constraints", "oracle", "alternatives", "dialect"}``, the
    schema as SQL. An optional ``statements.json`` ({number: problem text}) gives each
    problem's statement; without it the statement names the problem."""
    statements: Mapping[str, str] = {}
    if (root / "statements.json").is_file():
        statements = json.loads((root / "statements.json").read_text(encoding="utf-8"))
    records = []
    for schema_file in sorted((root / "schemas").glob("*.json"), key=_problem_order):
        number = schema_file.stem
        truths_file = root / "groundtruths" / f"{number}.csv"
        if not truths_file.is_file():
            continue
        where = f"problem {number}"
        try:
            raw = json.loads(schema_file.read_text(encoding="utf-8"))
            constraints_file = root / "constraints" / f"{number}.yml"
            text = constraints_file.read_text(encoding="utf-8") \
                if constraints_file.is_file() else ""
            schema = to_sql(raw, text, "mysql")
            truths = [q for _, q in ground_truths(truths_file.read_text(encoding="utf-8"))]
        except (KernelError, ValueError, KeyError) as exc:
            raise KernelError(f"{where}: {exc}") from exc
        records.append({
            "name": f"leetcode-{number}",
            "nl": statements.get(number) or (
                f"LeetCode database problem {number}: write the MySQL query its statement "
                "asks for over the schema below."),
            "schema": schema.ddl, "constraints": list(schema.constraints),
            "oracle": truths[0].rstrip().rstrip(";"), "alternatives": truths[1:],
            "dialect": "mysql"})
    return records


def _problem_order(path: Path) -> tuple[int, str]:
    return (int(path.stem), "") if path.stem.isdigit() else (1 << 30, path.stem)
