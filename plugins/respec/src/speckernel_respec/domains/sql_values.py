"""The values a counterexample database may hold: type-true, per column (issue 13).

A counterexample is only evidence if it is a legal database: integers in integer columns
(within the type's range), decimals with the column's scale, valid calendar dates in date
columns, members in enum columns, no NULL where the schema forbids it (a PRIMARY KEY included).
Within those bounds the values are chosen to tell queries apart:

* numbers: the queries' numeric constants, rounded to the column's type (a constant 0.49 gives
  an integer column 0 and 1, never 0.49), and with ``neighbours`` their off-by-one neighbours;
* dates: the date constants (``'2019-03-31'``) and the days either side;
* text: the string constants, LIKE patterns instantiated, the digits of the numeric constants
  (``name = 5`` holds for the text ``'5'`` in both dialects), and one string no constant
  equals; the random search adds strings of every length up to five, upper case and blanks.

The exhaustive search enumerates :class:`Domain` values; the random search draws from them most
of the time and from :func:`random_value` otherwise.
"""

from __future__ import annotations

import datetime
import math
import random
from collections.abc import Iterable, Mapping, Sequence

import attrs

from speckernel_respec.domains.sql_syntax import Column, Schema

Value = int | float | str | None

DEFAULT_DATE = datetime.date(2020, 1, 1)
FILLER_DATE = datetime.date(2000, 1, 1)
TEXT_SHAPES = ("", "a", "ab", "abc", "abcd", "abcde", "A", "x y", "0", "1", "12")
"""Strings of every length up to five, a capital, a blank and digit strings (random search)."""


@attrs.frozen
class Constants:
    """The literals of the queries: numbers, strings, and the strings that are dates."""

    numbers: frozenset[float]
    strings: frozenset[str]

    @property
    def dates(self) -> frozenset[datetime.date]:
        found = set()
        for text in self.strings:
            day = parse_date(text)
            if day is not None:
                found.add(day)
        return frozenset(found)


def parse_date(text: str) -> datetime.date | None:
    """``text`` as a calendar date if it starts with one (``YYYY-MM-DD``), else None."""
    try:
        return datetime.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def _clamp(column: Column, values: Iterable[int]) -> set[int]:
    return {min(max(v, column.low), column.high) for v in values}


def _integers(numbers: Iterable[float], neighbours: bool) -> set[int]:
    found: set[int] = set()
    for n in numbers:
        if not math.isfinite(n):
            continue
        low, high = math.floor(n), math.ceil(n)
        found |= {low, high}
        if neighbours and low == high:
            found |= {low - 1, low + 1}
    return found or {0}


def _decimals(column: Column, numbers: Iterable[float], neighbours: bool) -> set[float]:
    step = 10 ** -column.scale
    limit = column.high * step
    found: set[float] = set()
    for n in numbers:
        if not math.isfinite(n):
            continue
        rounded = round(n, column.scale)
        found |= {rounded, *((rounded - step, rounded + step) if neighbours else ())}
    return {round(v, column.scale) for v in (found or {0.0}) if abs(v) <= limit}


def _day(day: datetime.date) -> str:
    return day.isoformat()


def column_values(column: Column, constants: Constants, neighbours: bool) -> tuple[Value, ...]:
    """The exhaustive search's values for ``column`` (NULL first when the column admits it)."""
    values: Sequence[Value]
    if column.kind == "int":
        values = sorted(_clamp(column, _integers(
            constants.numbers | _digit_strings(constants.strings), neighbours)))
    elif column.kind == "decimal":
        values = sorted(_decimals(column, constants.numbers, neighbours))
    elif column.kind == "real":
        base = {float(n) for n in constants.numbers if math.isfinite(n)} or {0.0}
        near = {n + d for n in base for d in (-1.0, 1.0)} if neighbours else set()
        values = sorted(base | near)
    elif column.kind in ("date", "datetime"):
        days = set(constants.dates) or {DEFAULT_DATE}
        if neighbours:
            days |= {d + datetime.timedelta(days=s) for d in days for s in (-1, 1)
                     if datetime.date.min < d < datetime.date.max}
        values = [_moment(column, d) for d in sorted(days)]
    elif column.kind == "enum":
        values = list(column.values)
    else:
        texts = set(constants.strings) | {s.replace("%", "").replace("_", "x")
                                          for s in constants.strings}
        if neighbours or not texts:
            texts.add("zz")
        if neighbours:
            texts |= {str(int(n)) for n in constants.numbers
                      if math.isfinite(n) and n == int(n) and abs(n) < 10**6}
        values = sorted(texts)
    return tuple(values) if column.not_null else (None, *values)


def _digit_strings(strings: Iterable[str]) -> set[float]:
    """String constants that are integers (``'5'`` compared with an integer column)."""
    return {float(s) for s in strings if s.strip().lstrip("-").isdigit() and len(s) < 16}


def _moment(column: Column, day: datetime.date) -> str:
    return _day(day) + (" 00:00:00" if column.kind == "datetime" else "")


def random_value(rng: random.Random, column: Column, constants: Constants) -> Value:
    """A random type-true value for ``column``, beyond the exhaustive domain."""
    if not column.not_null and rng.random() < 0.15:
        return None
    if column.kind == "int":
        return min(max(rng.randint(-2, 12), column.low), column.high)
    if column.kind == "decimal":
        return round(rng.randint(-20, 120) * 10.0 ** -min(column.scale, 2), column.scale)
    if column.kind == "real":
        return rng.choice((rng.randint(-2, 12) * 1.0, rng.randint(-20, 120) / 4))
    if column.kind in ("date", "datetime"):
        anchor = rng.choice(sorted(constants.dates) or [DEFAULT_DATE])
        day = anchor + datetime.timedelta(days=rng.randint(-40, 40))
        return _moment(column, day)
    if column.kind == "enum":
        return rng.choice(column.values) if column.values else None
    pool = list(TEXT_SHAPES) + sorted(constants.strings)
    text = rng.choice(pool)
    twist = rng.random()
    if twist < 0.15:
        return text.upper()
    if twist < 0.3:
        return text + rng.choice("az9 ")
    return text


def filler(column: Column, index: int) -> Value:
    """The value of a column no query mentions, in row ``index``: distinct per row (so keys
    hold) and type-true."""
    if column.kind in ("int", "decimal", "real"):
        return min(index + 1, column.high)
    if column.kind in ("date", "datetime"):
        return _moment(column, FILLER_DATE + datetime.timedelta(days=index))
    if column.kind == "enum":
        return column.values[index % len(column.values)] if column.values else None
    return f"r{index}"


def fresh(column: Column, taken: set[Value], index: int) -> Value:
    """A value of ``column`` none of ``taken`` equals (to keep a key unique), or None."""
    for attempt in range(index, index + 64):
        candidate = filler(column, attempt + 1000)
        if candidate not in taken:
            return candidate
    return None


def domains(schema: Schema, used: Mapping[str, frozenset[str]], constants: Constants,
            neighbours: bool) -> dict[str, dict[str, tuple[Value, ...]]]:
    """Per table and used column, the exhaustive search's values."""
    return {t.name: {c.name: column_values(c, constants, neighbours)
                     for c in t.columns if c.name in used[t.name]}
            for t in schema.tables}
