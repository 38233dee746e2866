"""Inline SVG bar charts for ``report.html``: grouped bars with error bars, no script, no
external resource.

A chart compares *series* (an agent and model each) side by side within each *category* (a
metric's summary, a task, a histogram bin) on one shared y axis, so two models are read against
each other at a glance; each series keeps its colour in every chart of a page (the order given),
and a legend names them. A bar may carry an interval, drawn as an error bar with caps (the
interval in its tooltip). Colours are the Okabe & Ito (2008) palette, distinguishable with the
common colour-vision deficiencies.

Labels stay readable: category labels are rotated, cut at ``LABEL_CHARS`` characters with the
whole label in a tooltip, and the plot grows with the number of bars instead of squeezing them
(the page scrolls a wide chart within its own box). Every text is escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence

import attrs

from speckernel.escaping import printable

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000")
"""Okabe & Ito, "Color Universal Design" (2008): series colours, in order."""

LABEL_CHARS = 22
"""Category labels longer than this are cut (the full label is the tooltip)."""

_BAR_W, _GAP = 16, 14
_MIN_WIDTH, _HEIGHT = 360, 300
_LEFT, _RIGHT, _TOP = 64, 16, 40
_CHAR_W = 5.6
"""Approximate width of a 10 px label character, to size the space under the axis."""


@attrs.frozen
class Bar:
    """One bar: its value (``None``: no bar, e.g. a series without that category) and the
    bounds of its interval when it has one."""

    value: float | None
    low: float | None = None
    high: float | None = None


def _text(value: object) -> str:
    """Untrusted text (a task id, a model name) for the page: control characters shown as
    escapes (``escaping.printable``), then HTML-escaped."""
    return html.escape(printable(str(value), lines=False), quote=True)


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "\u2026"


def y_range(values: Sequence[float], rate: bool) -> tuple[float, float]:
    """The plotted range: [0, 1] for rates, else the values' range widened to include 0 (bars
    grow from 0) and never empty."""
    if rate:
        return 0.0, 1.0
    finite = [v for v in values if math.isfinite(v)]
    lo, hi = min(0.0, *finite), max(0.0, *finite)
    return (lo, hi) if hi > lo else (lo, lo + 1.0)


def grouped_bar_chart(
    title: str,
    categories: Sequence[str],
    series: Sequence[str],
    bars: Sequence[Sequence[Bar]],
    *,
    x_label: str,
    y_label: str,
    y_bounds: tuple[float, float],
    fmt_y: Callable[[float], str],
) -> str:
    """An SVG chart: for each category, one bar per series (``bars[category][series]``), with an
    error bar where the bar has an interval; a title, a legend, labelled axes and five y ticks
    with grid lines. ``y_bounds`` must include 0; values and bounds outside it are clipped to it
    (the tooltip keeps the true numbers)."""
    lo, hi = y_bounds
    n_series = max(1, len(series))
    # bars fill a small chart (up to 2.5 times their least width), and a big one grows
    fill = (_MIN_WIDTH - _LEFT - _RIGHT) / max(1, len(categories))
    bar_w = max(_BAR_W, min(2.5 * _BAR_W, (fill - _GAP) / n_series))
    per_group = n_series * bar_w + _GAP
    longest = max((len(_short(c)) for c in categories), default=1)
    bottom_space = 34 + int(longest * _CHAR_W * 0.64)  # rotated by 40 degrees: sin 40 ~ 0.64
    legend_rows = math.ceil(len(series) / 2) if len(series) > 1 else 0
    top = _TOP + 14 * legend_rows
    plot_h = _HEIGHT - _TOP - 88
    width = max(_MIN_WIDTH, _LEFT + _RIGHT + per_group * len(categories))
    height = top + plot_h + bottom_space
    plot_w = width - _LEFT - _RIGHT
    base = top + plot_h

    def y(value: float) -> float:
        clipped = min(max(value, lo), hi)
        return top + plot_h * (hi - clipped) / (hi - lo)

    parts = [
        f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{_text(title)}">',
        f"<title>{_text(title)}</title>",
        f'<text class="title" x="{width / 2:.1f}" y="18" text-anchor="middle">'
        f"{_text(title)}</text>",
    ]
    for i, name in enumerate(series if len(series) > 1 else ()):
        lx = _LEFT + (i % 2) * (plot_w / 2)
        ly = _TOP - 8 + 14 * (i // 2)
        parts += [
            f'<g class="legend"><rect x="{lx:.1f}" y="{ly - 9}" width="10" height="10" '
            f'fill="{PALETTE[i % len(PALETTE)]}"/>',
            f'<text x="{lx + 14:.1f}" y="{ly}">{_text(name)}</text></g>',
        ]
    for i in range(5):
        tick = lo + (hi - lo) * i / 4
        ty = y(tick)
        parts += [
            f'<line class="grid" x1="{_LEFT}" y1="{ty:.1f}" x2="{_LEFT + plot_w}" '
            f'y2="{ty:.1f}"/>',
            f'<text x="{_LEFT - 4}" y="{ty + 3:.1f}" text-anchor="end">'
            f"{_text(fmt_y(tick))}</text>",
        ]
    zero = y(0.0)
    parts += [
        f'<line class="axis" x1="{_LEFT}" y1="{top}" x2="{_LEFT}" y2="{base}"/>',
        f'<line class="axis" x1="{_LEFT}" y1="{zero:.1f}" x2="{_LEFT + plot_w}" '
        f'y2="{zero:.1f}"/>',
    ]
    for c, (category, row) in enumerate(zip(categories, bars, strict=True)):
        x0 = _LEFT + c * per_group + _GAP / 2
        for s, bar in enumerate(row):
            if bar.value is None or not math.isfinite(bar.value):
                continue
            x = x0 + s * bar_w
            y0, y1 = sorted((zero, y(bar.value)))
            label = f"{series[s]}: " if len(series) > 1 else ""
            tip = f"{category}: {label}{fmt_y(bar.value)}"
            if bar.low is not None and bar.high is not None:
                tip += f" (95% interval {fmt_y(bar.low)} to {fmt_y(bar.high)})"
            parts.append(
                f'<rect class="bar" x="{x + 1:.1f}" y="{y0:.1f}" width="{bar_w - 2:.1f}" '
                f'height="{max(y1 - y0, 0.5):.1f}" fill="{PALETTE[s % len(PALETTE)]}">'
                f"<title>{_text(tip)}</title></rect>")
            if bar.low is not None and bar.high is not None:
                cx, top_y, low_y = x + bar_w / 2, y(bar.high), y(bar.low)
                parts.append(
                    f'<g class="errorbar"><title>{_text(tip)}</title>'
                    f'<line x1="{cx:.1f}" y1="{top_y:.1f}" x2="{cx:.1f}" y2="{low_y:.1f}"/>'
                    f'<line x1="{cx - 4:.1f}" y1="{top_y:.1f}" x2="{cx + 4:.1f}" '
                    f'y2="{top_y:.1f}"/>'
                    f'<line x1="{cx - 4:.1f}" y1="{low_y:.1f}" x2="{cx + 4:.1f}" '
                    f'y2="{low_y:.1f}"/></g>')
        cx = x0 + (per_group - _GAP) / 2
        parts.append(
            f'<text class="category" x="{cx:.1f}" y="{base + 14}" text-anchor="end" '
            f'transform="rotate(-40 {cx:.1f} {base + 14})"><title>{_text(category)}</title>'
            f"{_text(_short(category))}</text>")
    parts += [
        f'<text x="{_LEFT + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
        f"{_text(x_label)}</text>",
        f'<text x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">{_text(y_label)}</text>',
        "</svg>",
    ]
    return "\n".join(parts)
