"""SQL text through sqlglot: the schema, the supported query fragment and canonical forms.

sqlglot (dialect ``sqlite``) parses the ``CREATE TABLE`` statements and the queries; SQLite itself
remains the judge of what a query means (:mod:`.sql_search` runs the original text, never
sqlglot's regenerated SQL). This module only decides

* whether a query lies in the supported fragment (:func:`unsupported`),
* which constants and columns it mentions (the value domain and the columns a database search
  must vary), and
* its canonical form (:func:`canonical`), built only from rewrites that preserve SQLite's
  semantics including NULLs: name resolution and ``*`` expansion by sqlglot's ``qualify``,
  dropping the output column names of the outermost ``SELECT`` (results are compared by value),
  sorting the operands of ``AND``/``OR`` chains (commutative and associative in three-valued
  logic) when no operand can fail while it is evaluated — no function call, no subquery and,
  for MySQL, no arithmetic (a BIGINT overflow is an error there): both engines stop at the
  first operand that decides a chain, so moving a failing operand could hide or expose its
  error (``json_extract`` of a text that is not JSON) — and, when no ``COLLATE``
  occurs, ordering the operands of ``=``/``<>`` and mirroring ``>``/``>=`` into ``<``/``<=``
  (the same truth value, NULL included; SQLite picks a comparison's collation from its left
  operand, hence the ``COLLATE`` exception), and renaming table aliases to table names when no
  table occurs twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs
import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify

DIALECT = "sqlite"

NONDETERMINISTIC = frozenset({
    "random", "randomblob", "changes", "total_changes", "last_insert_rowid", "sqlite_version",
})
"""Functions whose value is not a function of the database."""

_NONDETERMINISTIC_NODES = (exp.Rand, exp.CurrentDate, exp.CurrentTime, exp.CurrentTimestamp)

ROWID_NAMES = frozenset({"rowid", "oid", "_rowid_"})


class SqlError(ValueError):
    """A schema or query sqlglot cannot read, or that is not a query."""


Kind = str
"""A column's kind of value: ``int``, ``decimal``, ``real``, ``date``, ``datetime``, ``text`` or
``enum`` (see :func:`column_kind`)."""

INT_RANGES = {
    "TINYINT": (-2**7, 2**7 - 1), "UTINYINT": (0, 2**8 - 1),
    "SMALLINT": (-2**15, 2**15 - 1), "USMALLINT": (0, 2**16 - 1),
    "MEDIUMINT": (-2**23, 2**23 - 1), "UMEDIUMINT": (0, 2**24 - 1),
    "INT": (-2**31, 2**31 - 1), "UINT": (0, 2**32 - 1),
    "BIGINT": (-2**63, 2**63 - 1), "UBIGINT": (0, 2**63 - 1),
    "BOOLEAN": (0, 1), "BIT": (0, 1),
}
"""MySQL's integer types and their ranges (MySQL reference manual, "Integer Types"); SQLite's
INTEGER affinity stores any 64-bit integer, so for the ``sqlite`` dialect every integer column
but a boolean has the BIGINT range."""

_TEXT = ("CHAR", "VARCHAR", "TEXT", "NCHAR", "NVARCHAR", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT",
         "CLOB", "BLOB", "BINARY", "VARBINARY", "UUID", "JSON", "TIME")
_REAL = ("FLOAT", "DOUBLE", "REAL")


@attrs.frozen
class Column:
    """A column and the values its declared type admits (counterexamples respect them)."""

    name: str
    kind: Kind = "int"
    not_null: bool = False
    low: int = -2**63
    high: int = 2**63 - 1
    """The integer range of an ``int`` column (and of a ``decimal``'s unscaled value)."""
    scale: int = 0
    """Digits after the point of a ``decimal`` column."""
    values: tuple[str, ...] = ()
    """The members of an ``enum`` column."""

    @property
    def numeric(self) -> bool:
        """Whether the column holds numbers (else strings, dates included)."""
        return self.kind in ("int", "decimal", "real")


@attrs.frozen
class ForeignKey:
    columns: tuple[str, ...]
    table: str
    references: tuple[str, ...]


@attrs.frozen
class Table:
    name: str
    columns: tuple[Column, ...]
    constrained: frozenset[str]
    """Columns a FOREIGN KEY (on either side) or a CHECK constraint mentions: their values
    matter to legality. (Keys need only distinct values, which every database search gives the
    columns it does not vary.)"""
    keys: tuple[tuple[str, ...], ...] = ()
    """The PRIMARY KEY and every UNIQUE column set: no two rows agree on one (NULLs aside)."""
    foreign: tuple[ForeignKey, ...] = ()
    checks: tuple[exp.Expression, ...] = ()
    """The CHECK conditions (a row is legal unless one of them is false)."""

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name.lower() == name.lower()), None)


@attrs.frozen
class Schema:
    ddl: str
    tables: tuple[Table, ...]
    dialect: str = DIALECT

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name.lower() == name.lower()), None)

    def mapping(self) -> dict[str, object]:
        """The schema as sqlglot's optimizer wants it (column order kept for ``*``)."""
        return {t.name: {c.name: "INT" if c.numeric else "TEXT" for c in t.columns}
                for t in self.tables}


def _affinity(declared: str) -> Kind:
    """SQLite's affinity rules (§3.1 of "Datatypes In SQLite") for a type sqlglot does not
    know: INT means integers; CHAR, CLOB, TEXT or BLOB strings; anything else numbers."""
    upper = declared.upper()
    if "INT" in upper or not upper:
        return "int"
    return "text" if any(w in upper for w in ("CHAR", "CLOB", "TEXT", "BLOB")) else "real"


def column_kind(kind: exp.DataType | None, dialect: str) -> dict[str, Any]:
    """The :class:`Column` fields a declared type implies: its kind, integer range, decimal
    scale and enum members. SQLite stores any value in any column, but a counterexample must
    respect the declared type (issue 13), so both dialects read the type the same way; only
    the integer ranges differ (SQLite's INTEGER is 64-bit whatever its name)."""
    if kind is None:
        return {"kind": "int"}
    name = kind.this.name if hasattr(kind.this, "name") else str(kind.this)
    params = [p.this.this if isinstance(p, exp.DataTypeParam) else p.this
              for p in kind.expressions or ()]
    if name in INT_RANGES:
        low, high = INT_RANGES[name] if dialect == "mysql" else INT_RANGES["BIGINT"]
        if name in ("BOOLEAN", "BIT"):
            low, high = 0, 1
        return {"kind": "int", "low": low, "high": high}
    if name in ("DECIMAL", "NUMERIC", "BIGDECIMAL", "MONEY", "UDECIMAL"):
        if not params and dialect == DIALECT:
            return {"kind": "real"}
        digits = int(params[0]) if params else 10
        scale = int(params[1]) if len(params) > 1 else 0
        bound = 10 ** min(digits, 18) - 1
        return {"kind": "decimal", "scale": scale, "low": -bound, "high": bound}
    if name in _REAL:
        return {"kind": "real"}
    if name == "DATE":
        return {"kind": "date"}
    if name in ("DATETIME", "TIMESTAMP", "TIMESTAMPTZ", "DATETIME64"):
        return {"kind": "datetime"}
    if name == "ENUM":
        return {"kind": "enum", "values": tuple(str(p) for p in params)}
    if name.startswith(_TEXT):
        return {"kind": "text"}
    return {"kind": _affinity(kind.sql(dialect))}


def parse_schema(ddl: str, dialect: str = DIALECT) -> Schema:
    """The tables of ``ddl`` (``CREATE TABLE`` statements only); ``SqlError`` otherwise."""
    try:
        statements = [s for s in sqlglot.parse(ddl, read=dialect) if s is not None]
    except SqlglotError as exc:
        raise SqlError(f"schema does not parse: {exc}") from exc
    tables = [_table(s, dialect) for s in statements]
    parents: dict[str, set[str]] = {}
    for table in tables:
        for fk in table.foreign:
            parents.setdefault(fk.table.lower(), set()).update(fk.references)
    return Schema(ddl, tuple(attrs.evolve(t, constrained=t.constrained | parents.get(
        t.name.lower(), set())) for t in tables), dialect)


def _names(node: exp.Expression) -> tuple[str, ...]:
    return tuple(i.name for i in node.find_all(exp.Identifier))


def _members_of(check: exp.Expression, columns: list[dict[str, Any]]) -> None:
    """A ``CHECK (c IN ('a', 'b'))`` makes text column ``c`` an enum of those strings (how an
    enum is written in SQLite), so the searches give it only legal values."""
    test = check.this
    if not isinstance(test, exp.In) or not isinstance(test.this, exp.Column):
        return
    members = test.expressions
    if not members or not all(isinstance(m, exp.Literal) and m.is_string for m in members):
        return
    for column in columns:
        if column["name"].lower() == test.this.name.lower() and column["kind"] == "text":
            column.update(kind="enum", values=tuple(m.this for m in members))


def _table(statement: exp.Expr, dialect: str) -> Table:
    """One ``CREATE TABLE``: its columns with their types, keys, foreign keys and the columns
    a constraint mentions. A PRIMARY KEY column is NOT NULL whatever the text says (SQL's
    definition; SQLite's tolerance of NULL keys is a documented bug it keeps for old files)."""
    if not isinstance(statement, exp.Create) or not isinstance(statement.this, exp.Schema):
        raise SqlError(f"schema statement is not CREATE TABLE: {statement.sql()[:60]}")
    columns: list[dict[str, Any]] = []
    constrained: set[str] = set()
    keys: list[tuple[str, ...]] = []
    primary: set[str] = set()
    foreign: list[ForeignKey] = []
    checks: list[exp.Expression] = []
    for item in statement.this.expressions:
        if isinstance(item, exp.Identifier):
            columns.append({"name": item.name, "kind": "int"})
        elif isinstance(item, exp.ColumnDef):
            column: dict[str, Any] = {"name": item.name,
                                      **column_kind(item.args.get("kind"), dialect)}
            for constraint in item.constraints:
                kind = constraint.kind
                if isinstance(kind, exp.NotNullColumnConstraint):
                    column["not_null"] = not kind.args.get("allow_null")
                elif isinstance(kind, exp.PrimaryKeyColumnConstraint):
                    primary.add(item.name)
                    keys.append((item.name,))
                elif isinstance(kind, exp.UniqueColumnConstraint):
                    keys.append((item.name,))
                elif isinstance(kind, exp.Reference):
                    target = kind.this
                    table = target.this if isinstance(target, exp.Schema) else target
                    parents = tuple(i.name for i in target.expressions) \
                        if isinstance(target, exp.Schema) else ()
                    foreign.append(ForeignKey((item.name,), table.name, parents or (item.name,)))
                if isinstance(kind, exp.CheckColumnConstraint):
                    checks.append(kind.this)
                if isinstance(kind, exp.CheckColumnConstraint | exp.Reference):
                    constrained.add(item.name)
            columns.append(column)
        elif isinstance(item, exp.PrimaryKey):
            names = _names(item)
            primary.update(names)
            keys.append(names)
        elif isinstance(item, exp.UniqueColumnConstraint):
            keys.append(_names(item.this) if item.this is not None else ())
        elif isinstance(item, exp.ForeignKey):
            reference = item.args["reference"].this
            names = tuple(i.name for i in item.expressions)
            foreign.append(ForeignKey(names, reference.this.name,
                                      tuple(i.name for i in reference.expressions) or names))
            constrained.update(names)
        elif isinstance(item, exp.CheckColumnConstraint | exp.Check):
            constrained.update(c.name for c in item.find_all(exp.Identifier))
            checks.append(item.this)
            _members_of(item, columns)
    built = tuple(Column(**{**c, "not_null": bool(c.get("not_null")) or c["name"] in primary})
                  for c in columns)
    return Table(statement.this.this.name, built, frozenset(constrained), tuple(keys),
                 tuple(foreign), tuple(checks))


@attrs.frozen
class Query:
    """A parsed query: its text (what SQLite runs) and sqlglot's tree."""

    text: str
    tree: exp.Expression

    @property
    def ordered(self) -> bool:
        """Whether the outermost query has ORDER BY, which makes row order part of its result."""
        return self.tree.args.get("order") is not None

    @property
    def order_sensitive(self) -> bool:
        """Whether some result might depend on the order SQLite scans rows in."""
        return any(self.tree.find_all(exp.Order, exp.Limit, exp.Offset, exp.GroupConcat,
                                      exp.Group, exp.AggFunc))


def parse_query(text: str, dialect: str = DIALECT) -> Query:
    """One SELECT statement (possibly with set operations and subqueries); ``SqlError`` else."""
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect) if s is not None]
    except SqlglotError as exc:
        raise SqlError(f"sqlglot cannot parse the query: {str(exc).splitlines()[0]}") from exc
    if len(statements) != 1:
        raise SqlError(f"expected one SQL statement, found {len(statements)}")
    tree = statements[0]
    if not isinstance(tree, exp.Query):
        raise SqlError(f"not a query: {tree.key.upper()} statement")
    return Query(text, tree)  # type: ignore[arg-type]  # exp.Query is an exp.Expression


def unsupported(query: Query) -> str | None:
    """Why ``query`` is outside the supported fragment, or None."""
    tree = query.tree
    if tree.find(exp.Window):
        return "window functions are not supported"
    with_ = tree.find(exp.With)
    if with_ is not None and with_.args.get("recursive"):
        return "recursive common table expressions are not supported"
    for node in tree.find_all(exp.Func):
        name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
        if name.lower() in NONDETERMINISTIC or isinstance(node, _NONDETERMINISTIC_NODES):
            return f"nondeterministic function {name.upper()}"
    if any(lit.is_string and lit.this.lower() == "now" for lit in tree.find_all(exp.Literal)):
        return "date/time functions of 'now' are nondeterministic"
    if any(c.name.lower() in ROWID_NAMES for c in tree.find_all(exp.Column)):
        return "rowid depends on insertion order and is not supported"
    for select in tree.find_all(exp.Select):
        limited = select.args.get("limit") or select.args.get("offset")
        if limited and not select.args.get("order"):
            return "LIMIT/OFFSET without ORDER BY is nondeterministic"
    return None


def constants(queries: tuple[Query, ...]) -> tuple[frozenset[float], frozenset[str]]:
    """The numeric and string literals the queries mention."""
    numbers: set[float] = set()
    strings: set[str] = set()
    for query in queries:
        for lit in query.tree.find_all(exp.Literal):
            if lit.is_string:
                strings.add(lit.this)
            else:
                try:
                    numbers.add(float(lit.this))
                except ValueError:
                    continue
    return frozenset(numbers), frozenset(strings)


def referenced(queries: tuple[Query, ...], schema: Schema) -> dict[str, frozenset[str]]:
    """Per table, the columns whose values may affect a result, and the columns a constraint
    mentions. A column counts for the tables its qualifier may denote (every alias or name a
    query gives that table, in any scope); an unqualified name, or a qualifier that is no base
    table (a CTE, a derived table), counts for every table with a column of that name. ``USING``
    columns count like unqualified names; ``*`` projections and NATURAL joins make every column
    count. The other columns cannot influence either query."""
    tables = {t.name.lower(): t for t in schema.tables}
    denotes: dict[str, set[str]] = {}
    for query in queries:
        for node in query.tree.find_all(exp.Table):
            if node.name.lower() in tables:
                for label in {node.name.lower(), node.alias.lower()} - {""}:
                    denotes.setdefault(label, set()).add(node.name.lower())
    named: dict[str, set[str]] = {name: set() for name in tables}
    everything = False
    for query in queries:
        for column in query.tree.find_all(exp.Column):
            if isinstance(column.this, exp.Star):
                everything = True
            owners = denotes.get(column.table.lower()) if column.table else None
            for name in owners or tables:
                named[name].add(column.name.lower())
        for join in query.tree.find_all(exp.Join):
            everything |= str(join.args.get("method") or "").upper() == "NATURAL"
            for identifier in join.args.get("using") or ():
                for columns in named.values():
                    columns.add(identifier.name.lower())
        everything |= any(isinstance(s.parent, exp.Select) for s in query.tree.find_all(exp.Star))
    return {t.name: frozenset(c.name for c in t.columns
                              if everything or c.name.lower() in named[t.name.lower()]
                              or c.name in t.constrained)
            for t in schema.tables}


# --------------------------------------------------------------------------- canonical form


_MIRROR: Mapping[type[exp.Expression], type[exp.Expression]] = {exp.GT: exp.LT, exp.GTE: exp.LTE}
_SYMMETRIC = (exp.EQ, exp.NEQ)


def _chain(node: exp.Expression, kind: type[exp.Expression]) -> Iterator[exp.Expression]:
    """The operands of a chain of ``kind`` (AND or OR)."""
    if isinstance(node, kind):
        yield from _chain(node.this, kind)
        yield from _chain(node.expression, kind)
    else:
        yield node


_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv, exp.Neg)


def _cannot_fail(node: exp.Expression, dialect: str) -> bool:
    """Whether evaluating ``node`` can raise no engine error (see the module docstring)."""
    if node.find(exp.Func, exp.Subquery, exp.Select, exp.Anonymous) is not None:
        return False
    return dialect == DIALECT or node.find(*_ARITHMETIC) is None


def _normalise(node: exp.Expression, orient: bool, dialect: str = DIALECT) -> exp.Expression:
    """``node`` rewritten as the module docstring says, without parentheses: the canonical form
    is compared as a tree (its ``repr``), which keeps the grouping they expressed."""
    if isinstance(node, exp.Paren):
        return _normalise(node.this, orient, dialect)
    if isinstance(node, exp.And | exp.Or):
        kind = type(node)
        operands = [_normalise(p, orient, dialect) for p in _chain(node, kind)]
        parts = sorted(operands, key=lambda p: p.sql(DIALECT)) \
            if all(_cannot_fail(p, dialect) for p in operands) else operands
        result = parts[0]
        for part in parts[1:]:
            result = kind(this=result, expression=part)
        return result
    if orient and type(node) in _MIRROR:
        return _MIRROR[type(node)](this=_normalise(node.expression, orient, dialect),
                                   expression=_normalise(node.this, orient, dialect))
    if orient and isinstance(node, _SYMMETRIC):
        left, right = sorted((_normalise(node.this, orient, dialect),
                              _normalise(node.expression, orient, dialect)),
                             key=lambda p: p.sql(DIALECT))
        return type(node)(this=left, expression=right)
    for key, value in list(node.args.items()):
        if isinstance(value, exp.Expression):
            node.set(key, _normalise(value, orient, dialect))
        elif isinstance(value, list):
            node.set(key, [_normalise(v, orient, dialect) if isinstance(v, exp.Expression)
                           else v for v in value])
    return node


def _dealias(tree: exp.Expression) -> None:
    """Rename every table alias to its table's name when no table occurs twice (renaming bound
    names consistently preserves meaning; with a self-join the aliases are what tells the
    occurrences apart, so they stay)."""
    tables = list(tree.find_all(exp.Table))
    names = [t.name for t in tables]
    aliases = {t.alias_or_name: t.name for t in tables}
    if len(set(names)) != len(names) or len(aliases) != len(tables):
        return
    for table in tables:
        table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
    for column in tree.find_all(exp.Column):
        if column.table in aliases:
            column.set("table", exp.to_identifier(aliases[column.table]))


def canonical(query: Query, schema: Schema) -> str | None:
    """The canonical form of ``query`` (module docstring) as the text of its tree, or None if
    sqlglot cannot resolve its names against the schema."""
    try:
        tree = qualify(query.tree.copy(), schema=schema.mapping(), dialect=schema.dialect,
                       validate_qualify_columns=True)
    except SqlglotError:
        return None
    _dealias(tree)
    if isinstance(tree, exp.Select):
        tree.set("expressions", [e.this if isinstance(e, exp.Alias) else e
                                 for e in tree.expressions])
    orient = "collate" not in (schema.ddl + query.text).lower()
    return repr(_normalise(tree, orient, schema.dialect))
