"""The viewer's Jinja2 environment: autoescaping on for every template, undefined names are
errors, and the formatting helpers the templates share with ``kernel compare``'s HTML."""

from __future__ import annotations

import datetime
import functools
import math
from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from speckernel.compare import arm_text, fmt, fmt_p, interval_text, outcome_text
from speckernel.report import format_cost
from speckernel.stats import Interval


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def rate_interval(interval: Interval | None) -> str:
    """A rate with its interval, clipped to [0, 1]: ``62.5% [40.1, 84.9]``."""
    if interval is None:
        return "-"
    low, high = max(0.0, interval.low), min(1.0, interval.high)
    if math.isinf(interval.low):
        return percent(interval.estimate)
    return f"{percent(interval.estimate)} [{100 * low:.1f}, {100 * high:.1f}]"


def value_interval(interval: Interval | None) -> str:
    if interval is None:
        return "-"
    if math.isinf(interval.low):
        return fmt(interval.estimate)
    return f"{fmt(interval.estimate)} {interval_text(interval)}"


def money(value: float, unpriced_calls: int = 0) -> str:
    """Dollars, or what is known of them when some model calls had no price (not a zero)."""
    return format_cost(value, unpriced_calls)


def seconds(value: float) -> str:
    return f"{value:.2f} s"


def timestamp(value: float) -> str:
    """A Unix time as local ``YYYY-MM-DD HH:MM:SS`` (``-`` for 0, the unknown time)."""
    if not value:
        return "-"
    return datetime.datetime.fromtimestamp(value).strftime("%Y-%m-%d %H:%M:%S")


@functools.cache
def environment() -> Environment:
    env = Environment(loader=PackageLoader("speckernel.viewer", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(fmt=fmt, fmt_p=fmt_p, outcome=outcome_text, interval=interval_text,
                       arm=arm_text, percent=percent, rate_interval=rate_interval,
                       value_interval=value_interval, money=money, seconds=seconds,
                       timestamp=timestamp)
    return env


@functools.cache
def inline_css() -> str:
    """The viewer's stylesheet, for pages that must stand alone (``kernel compare --format
    html``). Trusted: it ships with the package."""
    return files("speckernel.viewer").joinpath("static", "viewer.css").read_text("utf-8")


def render_page(name: str, **context: Any) -> str:
    """Render template ``name``; ``standalone`` pages carry their CSS inline."""
    context.setdefault("standalone", False)
    return environment().get_template(name).render(inline_css=inline_css(), **context)
