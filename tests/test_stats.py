"""``speckernel.stats`` against values computed independently: SciPy's binomial test and
bootstrap, exact enumeration of every resample, and the properties the definitions promise."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from speckernel.stats import (
    cluster_bootstrap,
    clustered_mean,
    clustered_standard_error,
    mcnemar_exact,
    mean,
    normal_interval,
    paired_bootstrap,
    total,
)

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize(("b", "c"), [(0, 0), (0, 1), (1, 0), (3, 3), (4, 12), (12, 4), (0, 10),
                                      (7, 30), (25, 26), (100, 140)])
def test_mcnemar_exact_is_the_two_sided_binomial_test(b: int, c: int) -> None:
    expected = 1.0 if b + c == 0 else scipy_stats.binomtest(b, b + c, 0.5).pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_exact_known_value() -> None:
    # b=1, c=9: P = 2 * (C(10,0) + C(10,1)) / 2**10 = 22 / 1024
    assert mcnemar_exact(1, 9) == 22 / 1024


@given(st.integers(0, 300), st.integers(0, 300))
def test_mcnemar_is_symmetric_and_a_probability(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert p == mcnemar_exact(c, b)
    assert 0.0 < p <= 1.0
    if b == c:
        assert p == 1.0


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def _exact_percentiles(diffs: list[float], confidence: float) -> tuple[float, float]:
    """The percentile interval of the *exact* bootstrap distribution: every one of the n**n
    equally likely resamples enumerated."""
    n = len(diffs)
    means = sorted(math.fsum(diffs[i] for i in idx) / n
                   for idx in itertools.product(range(n), repeat=n))
    alpha = (1 - confidence) / 2
    return means[math.floor(alpha * len(means))], means[math.ceil((1 - alpha) * len(means)) - 1]


@pytest.mark.parametrize("diffs", [[0.0, 1.0, 1.0, -1.0, 0.0, 1.0],
                                   [0.25, -0.5, 0.75, 0.0, 1.0],
                                   [3.0, 1.0, 4.0, 1.0, 5.0, 9.0]])
def test_bootstrap_matches_the_exact_bootstrap_distribution(diffs: list[float]) -> None:
    low, high = _exact_percentiles(diffs, 0.95)
    got = paired_bootstrap(diffs, resamples=40_000, seed=3)
    assert got.estimate == pytest.approx(sum(diffs) / len(diffs))
    spread = max(diffs) - min(diffs)
    # Monte Carlo error of a 2.5 % quantile with 40,000 draws is far below a tenth of the range
    # for these discrete distributions; the bounds are attained means, so compare with that
    # tolerance.
    assert got.low == pytest.approx(low, abs=spread / 10)
    assert got.high == pytest.approx(high, abs=spread / 10)


def test_bootstrap_matches_scipy_percentile_bootstrap() -> None:
    rng = np.random.default_rng(7)
    diffs = list(rng.normal(0.3, 1.0, size=60))
    ours = paired_bootstrap(diffs, resamples=20_000, seed=11)
    theirs = scipy_stats.bootstrap((np.array(diffs),), np.mean, method="percentile",
                                   n_resamples=20_000, confidence_level=0.95,
                                   random_state=np.random.default_rng(5)).confidence_interval
    se = float(np.std(diffs, ddof=1) / math.sqrt(len(diffs)))
    assert ours.low == pytest.approx(theirs.low, abs=0.05 * se * 4)
    assert ours.high == pytest.approx(theirs.high, abs=0.05 * se * 4)
    assert ours.estimate == pytest.approx(float(np.mean(diffs)))


def test_bootstrap_is_deterministic_per_seed() -> None:
    diffs = [0.1 * i for i in range(-5, 12)]
    assert paired_bootstrap(diffs, seed=1) == paired_bootstrap(diffs, seed=1)
    # with few resamples the Monte Carlo bounds move with the seed
    assert {paired_bootstrap(diffs, seed=seed, resamples=50) for seed in range(5)} != {
        paired_bootstrap(diffs, seed=1, resamples=50)}


def test_bootstrap_of_constant_differences_is_a_point() -> None:
    interval = paired_bootstrap([0.5] * 9, resamples=500)
    assert interval.low == interval.estimate == interval.high == 0.5


def test_bootstrap_refuses_nonsense() -> None:
    for kwargs in ({"resamples": 0}, {"confidence": 1.0}, {"confidence": 0.0}):
        with pytest.raises(ValueError):
            paired_bootstrap([1.0], **kwargs)
    with pytest.raises(ValueError):
        paired_bootstrap([])


@settings(max_examples=150, deadline=None)
@given(st.lists(finite, min_size=1, max_size=25), st.integers(0, 2**32))
def test_bootstrap_interval_contains_the_estimate(diffs: list[float], seed: int) -> None:
    interval = paired_bootstrap(diffs, resamples=400, seed=seed)
    assert interval.low <= interval.high
    ulps = 1e-12 * max(abs(d) for d in diffs)  # a mean of equal values may round by an ulp
    assert min(diffs) - ulps <= interval.low and interval.high <= max(diffs) + ulps
    assert interval.low <= interval.estimate <= interval.high


@settings(max_examples=150, deadline=None)
@given(st.lists(finite, min_size=1, max_size=25), st.integers(0, 2**32))
def test_swapping_the_runs_negates_the_interval(diffs: list[float], seed: int) -> None:
    forward = paired_bootstrap(diffs, resamples=300, seed=seed)
    backward = paired_bootstrap([-d for d in diffs], resamples=300, seed=seed)
    assert (backward.estimate, backward.low, backward.high) == (
        -forward.estimate, -forward.high, -forward.low)


@settings(max_examples=100, deadline=None)
@given(st.lists(finite, min_size=1, max_size=20), finite, st.integers(0, 2**16))
def test_shifting_every_difference_shifts_the_interval(diffs: list[float], shift: float,
                                                       seed: int) -> None:
    base = paired_bootstrap(diffs, resamples=200, seed=seed)
    moved = paired_bootstrap([d + shift for d in diffs], resamples=200, seed=seed)
    tolerance = 1e-9 * (1 + max(abs(d) for d in diffs) + abs(shift))
    assert moved.low == pytest.approx(base.low + shift, abs=tolerance)
    assert moved.high == pytest.approx(base.high + shift, abs=tolerance)


def test_normal_interval_known_values() -> None:
    values = [0.0, 1.0, 1.0, 0.0, 1.0]
    interval = normal_interval(values)
    sd = float(np.std(values, ddof=1))
    half = float(scipy_stats.norm.ppf(0.975)) * sd / math.sqrt(5)
    assert interval.estimate == pytest.approx(0.6)
    assert (interval.low, interval.high) == pytest.approx((0.6 - half, 0.6 + half))
    single = normal_interval([0.4])
    assert single.estimate == 0.4 and math.isinf(single.low) and math.isinf(single.high)


def test_mean_is_exactly_rounded() -> None:
    assert mean([1e16, 1.0, -1e16]) == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        mean([])


def test_sums_beyond_the_float_range_are_infinite_not_errors() -> None:
    assert total([1.7e308, 1.7e308]) == math.inf
    assert total([-1.7e308, -1.7e308, 1.0]) == -math.inf
    assert total([0.1] * 10) == 1.0  # fsum: correctly rounded
    assert mean([1.7e308, 1.7e308]) == math.inf
    spread = normal_interval([1e200, -1e200, 0.0])
    assert spread.estimate == 0.0 and spread.low == -math.inf and spread.high == math.inf
    with pytest.raises(ValueError, match="finite"):
        paired_bootstrap([1.0, math.inf])


# --------------------------------------------------------------------------- clustered values

clusters_strategy = st.lists(st.lists(finite, min_size=1, max_size=5), min_size=2, max_size=8)


def _exact_cluster_percentiles(clusters: list[list[float]],
                               confidence: float) -> tuple[float, float]:
    """The percentile interval of the exact cluster bootstrap distribution: every one of the
    C**C equally likely draws of C clusters, each resample's mean the total of its values over
    their count."""
    c = len(clusters)
    means = sorted(math.fsum(v for i in idx for v in clusters[i])
                   / sum(len(clusters[i]) for i in idx)
                   for idx in itertools.product(range(c), repeat=c))
    alpha = (1 - confidence) / 2
    return means[math.floor(alpha * len(means))], means[math.ceil((1 - alpha) * len(means)) - 1]


@pytest.mark.parametrize("clusters", [[[1.0, 1.0, 0.0], [0.0], [1.0, 0.0], [0.0, 0.0, 0.0, 1.0]],
                                      [[0.5, 0.25], [1.0, 1.0, 1.0], [0.0], [0.75], [0.1, 0.2]],
                                      [[3.0], [1.0, 4.0], [1.0, 5.0, 9.0], [2.0, 6.0]]])
def test_cluster_bootstrap_matches_the_exact_cluster_bootstrap(
        clusters: list[list[float]]) -> None:
    low, high = _exact_cluster_percentiles(clusters, 0.95)
    got = cluster_bootstrap(clusters, resamples=40_000, seed=5)
    values = [v for c in clusters for v in c]
    assert got.estimate == pytest.approx(sum(values) / len(values))
    spread = max(values) - min(values)
    assert got.low == pytest.approx(low, abs=spread / 10)
    assert got.high == pytest.approx(high, abs=spread / 10)


@given(st.lists(finite, min_size=1, max_size=30), st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_cluster_bootstrap_of_single_values_is_the_plain_bootstrap(values: list[float],
                                                                   seed: int) -> None:
    """Draw for draw: the same bounds (the estimates differ only in how they are summed)."""
    clustered = cluster_bootstrap([[v] for v in values], resamples=300, seed=seed)
    plain = paired_bootstrap(values, resamples=300, seed=seed)
    assert (clustered.low, clustered.high) == (plain.low, plain.high)
    assert clustered.estimate == pytest.approx(plain.estimate, rel=1e-12, abs=1e-9)


def test_clustered_standard_error_of_single_values_is_the_textbook_one() -> None:
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 0.25, 0.75]
    assert clustered_standard_error([[v] for v in values]) == pytest.approx(
        float(scipy_stats.sem(values)))


def test_clustered_standard_error_of_equal_clusters_is_that_of_their_means() -> None:
    """With m values in each cluster the clustered standard error is the standard error of the
    C cluster means (Miller 2024, sec. 2.3): the within-task spread does not count."""
    clusters = [[1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.5, 0.5, 0.0]]
    means = [sum(c) / len(c) for c in clusters]
    assert clustered_standard_error(clusters) == pytest.approx(float(scipy_stats.sem(means)))


@given(clusters_strategy)
@settings(max_examples=60, deadline=None)
def test_clustered_standard_error_ignores_order_and_shift(clusters: list[list[float]]) -> None:
    se = clustered_standard_error(clusters)
    assert se >= 0
    assert clustered_standard_error(list(reversed(clusters))) == pytest.approx(
        se, rel=1e-6, abs=1e-9)
    shifted = [[v + 3.5 for v in c] for c in clusters]
    assert clustered_standard_error(shifted) == pytest.approx(se, rel=1e-6, abs=1e-6)


@given(clusters_strategy, st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_clustered_mean_interval_holds_the_estimate_between_the_extremes(
        clusters: list[list[float]], seed: int) -> None:
    estimate = clustered_mean(clusters, resamples=300, seed=seed)
    assert estimate is not None and estimate.low is not None and estimate.high is not None
    means = [sum(c) / len(c) for c in clusters]
    slack = 1e-9 * (1 + max(abs(v) for c in clusters for v in c))
    assert min(means) - slack <= estimate.low <= estimate.high <= max(means) + slack
    assert estimate.n == sum(map(len, clusters)) and estimate.clusters == len(clusters)


def test_clustered_mean_without_spread_information() -> None:
    assert clustered_mean([[], []]) is None
    one = clustered_mean([[0.5, 1.0], []])
    assert one is not None and one.estimate == 0.75 and one.clusters == 1
    assert (one.standard_error, one.low, one.high) == (None, None, None)
    odd = clustered_mean([[math.inf], [1.0]])
    assert odd is not None and odd.estimate == math.inf and odd.standard_error is None
    with pytest.raises(ValueError):
        clustered_standard_error([[1.0], []])
