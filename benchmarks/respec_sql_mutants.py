"""One-edit mutants of the team's SQL references, checked by ``respec.sql`` (issue 13).

For each reference query of the team's SQL tasks (``tasks/sql.yaml``), up to ten one-edit
mutants are made on sqlglot's tree, in a fixed order of edit kinds: a comparison operator
changed (``>`` to ``>=``, ``=`` to ``<>``, ...), a WHERE conjunct dropped, an aggregate changed
(COUNT/SUM, MIN/MAX, AVG/SUM), a constant moved by one, DISTINCT added or dropped, INNER and
LEFT joins swapped, AND and OR swapped, IS NULL and IS NOT NULL swapped, IN and NOT IN or
EXISTS and NOT EXISTS swapped, ASC and DESC swapped, a column replaced by another the query
names. Each mutant is checked against its
reference with the verifier's own check (``speckernel_respec.domains.sql.check``) and the
share of each verdict is printed, with every mutant called ``equivalent`` listed: the verifier
says ``equivalent`` only on equal canonical forms, so each of them is a rewrite, not a
different query — the list lets a reader confirm it.

Usage: python benchmarks/respec_sql_mutants.py [--timeout S] [--per-task N]
"""

from __future__ import annotations

import argparse
import collections
import time
from collections.abc import Callable, Iterator

from speckernel_respec.domains.sql import check
from speckernel_respec.domains.sql_syntax import DIALECT
from speckernel_respec.tasks import team_entries
from sqlglot import exp, parse_one

_OPERATORS: dict[type[exp.Expression], type[exp.Expression]] = {
    exp.GT: exp.GTE, exp.GTE: exp.GT, exp.LT: exp.LTE, exp.LTE: exp.LT, exp.EQ: exp.NEQ,
    exp.NEQ: exp.EQ}
_AGGREGATES: dict[type[exp.Expression], type[exp.Expression]] = {
    exp.Count: exp.Sum, exp.Sum: exp.Count, exp.Min: exp.Max, exp.Max: exp.Min,
    exp.Avg: exp.Sum}

Edit = Callable[[exp.Expression], Iterator[exp.Expression]]


def _replaced(tree: exp.Expression, target: exp.Expression,
              make: Callable[[exp.Expression], exp.Expression]) -> exp.Expression:
    """A copy of ``tree`` with the node at ``target``'s position replaced by ``make(node)``."""
    copy = tree.copy()
    path = [n for n in tree.walk()].index(target)
    node = list(copy.walk())[path]
    node.replace(make(node))
    return copy


def _nodes(tree: exp.Expression, kinds: tuple[type[exp.Expression], ...]) -> list[exp.Expression]:
    return [n for n in tree.walk() if isinstance(n, kinds)]


def comparisons(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, tuple(_OPERATORS)):
        yield _replaced(tree, node, lambda n: _OPERATORS[type(n)](this=n.this.copy(),
                                                                   expression=n.expression.copy()))


def conjuncts(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, (exp.And,)):
        yield _replaced(tree, node, lambda n: n.this.copy())
        yield _replaced(tree, node, lambda n: n.expression.copy())


def aggregates(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, tuple(_AGGREGATES)):
        if isinstance(node.this, exp.Star) and type(node) is exp.Count:
            continue
        yield _replaced(tree, node, lambda n: _AGGREGATES[type(n)](this=n.this.copy()))


def constants(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, (exp.Literal,)):
        if not node.is_string and node.this.lstrip("-").isdigit():
            for step in (1, -1):
                yield _replaced(tree, node,
                                lambda n, d=step: exp.Literal.number(int(n.this) + d))


def columns(tree: exp.Expression) -> Iterator[exp.Expression]:
    """A column reference replaced by another column name the query mentions."""
    names = sorted({c.name for c in _nodes(tree, (exp.Column,)) if c.name})
    for node in _nodes(tree, (exp.Column,)):
        for other in names:
            if other != node.name:
                yield _replaced(tree, node, lambda n, o=other: exp.column(o, table=n.table))
                break


def distinct(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, (exp.Select,)):
        def toggle(n: exp.Expression) -> exp.Expression:
            copy = n.copy()
            copy.set("distinct", None if n.args.get("distinct") else exp.Distinct())
            return copy
        yield _replaced(tree, node, toggle)


def joins(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, (exp.Join,)):
        def swap(n: exp.Expression) -> exp.Expression:
            copy = n.copy()
            copy.set("side", None if n.side else "LEFT")
            copy.set("kind", None)
            return copy
        if node.args.get("on") is not None:
            yield _replaced(tree, node, swap)


def connectives(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, (exp.And, exp.Or)):
        other = exp.Or if isinstance(node, exp.And) else exp.And
        yield _replaced(tree, node, lambda n, o=other: o(this=n.this.copy(),
                                                       expression=n.expression.copy()))


def nulls(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, (exp.Is,)):
        parent = node.parent
        if isinstance(parent, exp.Not):
            yield _replaced(tree, parent, lambda n: n.this.copy())
        else:
            yield _replaced(tree, node, lambda n: exp.Not(this=n.copy()))


def memberships(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, (exp.In, exp.Exists)):
        parent = node.parent
        if isinstance(parent, exp.Not):
            yield _replaced(tree, parent, lambda n: n.this.copy())
        else:
            yield _replaced(tree, node, lambda n: exp.Not(this=n.copy()))


def orders(tree: exp.Expression) -> Iterator[exp.Expression]:
    for node in _nodes(tree, (exp.Ordered,)):
        def flip(n: exp.Expression) -> exp.Expression:
            copy = n.copy()
            copy.set("desc", not n.args.get("desc"))
            return copy
        yield _replaced(tree, node, flip)


EDITS: tuple[Edit, ...] = (comparisons, conjuncts, aggregates, constants, distinct, joins,
                           connectives, nulls, memberships, orders, columns)


def mutants(query: str, limit: int) -> list[str]:
    """Up to ``limit`` distinct one-edit mutants of ``query``, taking the edit kinds in turn."""
    tree = parse_one(query, read=DIALECT)
    same = tree.sql(dialect=DIALECT)
    pools = [list(edit(tree)) for edit in EDITS]
    found: dict[str, None] = {}
    while len(found) < limit and any(pools):
        for pool in pools:
            if pool and len(found) < limit:
                text = pool.pop(0).sql(dialect=DIALECT)
                if text != same:
                    found.setdefault(text, None)
    return list(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=4.0, help="per check, seconds")
    parser.add_argument("--per-task", type=int, default=10)
    args = parser.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    ks: collections.Counter[int] = collections.Counter()
    proved: list[tuple[str, str, str]] = []
    started = time.perf_counter()
    entries = team_entries("sql")
    for entry in entries:
        for mutant in mutants(entry.oracle, args.per_task):
            result = check(entry.oracle, mutant, entry.facts, args.timeout)
            counts[result.verdict] += 1
            if result.verdict == "bounded" and isinstance(result.bound, dict):
                ks[int(result.bound["rows_per_table"])] += 1
            if result.verdict == "equivalent":
                proved.append((entry.name, mutant, result.reason))
    total = sum(counts.values())
    seconds = time.perf_counter() - started
    print(f"{len(entries)} references, {total} mutants, {seconds:.1f} s "
          f"({total / seconds:.2f} checks/s), timeout {args.timeout:g} s")
    print("| verdict | mutants | share |\n|---|---|---|")
    for verdict in ("refuted", "invalid", "bounded", "unknown", "equivalent"):
        print(f"| {verdict} | {counts[verdict]} | {100 * counts[verdict] / total:.1f}% |")
    print("bounded checks by rows per table: "
          + (", ".join(f"k={k}: {n}" for k, n in sorted(ks.items())) or "none"))
    print("mutants called equivalent (canonical forms equal, i.e. rewrites):")
    for name, mutant, reason in proved:
        print(f"  {name}: {mutant}  [{reason}]")


if __name__ == "__main__":
    main()
