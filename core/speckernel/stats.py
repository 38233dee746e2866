"""Statistics for reading runs: intervals around a mean and paired tests between two runs.

Every function is pure and deterministic (a bootstrap takes its seed as an argument), so a
comparison printed twice is the same comparison.

Definitions, with their sources:

* ``paired_bootstrap``: the percentile interval of Efron & Tibshirani, *An Introduction to the
  Bootstrap* (1993), ch. 13, for the mean of paired differences. The unit resampled is the pair
  (a task), so both runs' values of a task always move together: that is what makes it paired.
* ``mcnemar_exact``: McNemar's test for paired binary outcomes (McNemar 1947) in its exact
  conditional form: given the ``b + c`` discordant pairs, the number that went one way is
  Binomial(b + c, 1/2) under the null; the two-sided p-value is twice the smaller tail, capped
  at 1 (Fagerland, Lydersen & Laake 2013, "The McNemar test for binary matched-pairs data",
  BMC Medical Research Methodology 13:91, eq. 2).
* ``normal_interval``: mean +- z * s / sqrt(n) over independent units. Applied to per-task
  means it is the clustered standard error of Miller 2024, "Adding Error Bars to Evals"
  (arXiv:2411.00640), sec. 2.2, for tasks with equal sample counts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import attrs
import numpy as np

Z95 = 1.959963984540054
"""The standard normal's 97.5 % quantile."""

_DRAWS_PER_CHUNK = 2_000_000
"""Bootstrap indices drawn at once (16 MB): memory stays bounded however many tasks."""


@attrs.frozen
class Interval:
    """A point estimate with the bounds of its interval (``low <= high``)."""

    estimate: float
    low: float
    high: float


def total(values: Iterable[float]) -> float:
    """The sum, with ``math.fsum`` (correctly rounded, order-free); an infinity when the sum is
    beyond the float range (where ``fsum`` raises: a metric a candidate influences may hold
    anything JSON can)."""
    values = list(values)
    try:
        return math.fsum(values)
    except OverflowError:
        return sum(values)


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean (``total`` over the count)."""
    if not values:
        raise ValueError("the mean of no values")
    return total(values) / len(values)


def paired_bootstrap(differences: Sequence[float], *, resamples: int = 10_000,
                     confidence: float = 0.95, seed: int = 0) -> Interval:
    """The mean of ``differences`` (one per pair, ``b - a``) with its percentile bootstrap
    interval.

    Each of ``resamples`` draws ``n`` pairs with replacement and takes their mean; the bounds are
    the order statistics at ``k`` and ``resamples - 1 - k`` with ``k = floor(resamples *
    (1 - confidence) / 2)``, chosen so that negating every difference negates the interval
    exactly (swapping the runs swaps the bounds). The draws depend only on ``seed``, ``n`` and
    ``resamples``, not on the values. The estimate and every resample's mean are summed the same
    way (NumPy's), vectorised: 10,000 resamples of 2,500 tasks take a fraction of a second.
    """
    n = len(differences)
    if n == 0:
        raise ValueError("a bootstrap needs at least one pair")
    if not all(math.isfinite(d) for d in differences):
        raise ValueError("differences must be finite numbers")
    if resamples < 1 or not 0 < confidence < 1:
        raise ValueError("resamples must be positive and confidence in (0, 1)")
    values = np.asarray(differences, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, _DRAWS_PER_CHUNK // n)
    with np.errstate(over="ignore"):  # a sum beyond the float range is an infinity
        for start in range(0, resamples, chunk):
            stop = min(resamples, start + chunk)
            means[start:stop] = values[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
        estimate = float(values.mean())
    means.sort()
    k = math.floor(resamples * (1 - confidence) / 2)
    return Interval(estimate, float(means[k]), float(means[resamples - 1 - k]))


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided exact McNemar p-value for ``b`` pairs that went one way and ``c`` that went
    the other (see the module docstring); 1.0 when there is no discordant pair."""
    if b < 0 or c < 0:
        raise ValueError("counts cannot be negative")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    # On exact integers: 2 * tail / 2**n, rounded once.
    return min(1.0, tail / (1 << (n - 1)))


def normal_interval(values: Sequence[float], z: float = Z95) -> Interval:
    """The mean of independent ``values`` with ``mean +- z * s / sqrt(n)`` (``s`` the sample
    standard deviation). One value says nothing about its spread: its bounds are infinite."""
    n = len(values)
    centre = mean(values)
    if n < 2:
        return Interval(centre, -math.inf, math.inf)
    try:
        variance = math.fsum((v - centre) ** 2 for v in values) / (n - 1)
    except OverflowError:  # values near the float range: nothing is known of the spread
        return Interval(centre, -math.inf, math.inf)
    half = z * math.sqrt(variance / n)
    return Interval(centre, centre - half, centre + half)
