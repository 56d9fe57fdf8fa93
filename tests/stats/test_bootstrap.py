"""lcrag.stats.bootstrap: the bootstrap intervals' coverage at the book's small n, the exact intervals that replace
them where the data have no spread, and the resampling of strata and of clusters."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from lcrag import stats
from lcrag.stats import bootstrap_ci, paired_bootstrap_ci


def coverage(method: str, p: float = 0.7, n: int = 12, reps: int = 300) -> float:
    """How often the 95 % interval of the mean of n Bernoulli(p) draws contains p."""
    rng = np.random.default_rng(1)
    hits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            lo, hi = stats.bootstrap_ci(rng.random(n) < p, n_boot=1000, seed=r, method=method)
            hits += lo <= p <= hi
    return hits / reps


def test_bca_covers_as_claimed_at_n_12_where_the_percentile_interval_does_not():
    # 12 questions per dataset is what the book's LongRAG default runs: the percentile interval is too narrow
    assert coverage("percentile") < 0.90
    assert coverage("BCa") >= 0.93
    assert stats.METHOD == "BCa"


def test_intervals_contain_the_point_and_are_reproducible():
    x = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0]
    lo, hi = stats.bootstrap_ci(x, seed=3)
    assert lo < np.mean(x) < hi and 0 <= lo and hi <= 1
    assert stats.bootstrap_ci(x, seed=3) == (lo, hi)
    mean, lo2, hi2 = stats.bootstrap_diff([1, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 0])
    assert mean == pytest.approx(0.5) and lo2 <= 0.5 <= hi2 and hi2 <= 1


def test_degenerate_and_empty_data():
    # nothing varies: the exact interval of a score (Clopper-Pearson, none of n differing), not a zero width
    lo, hi = stats.bootstrap_ci([1] * 8)
    assert (lo, hi) == pytest.approx((0.025 ** (1 / 8), 1.0))  # 8 of 8 right: (0.631, 1.0)
    from scipy.stats import binomtest

    cp = binomtest(8, 8).proportion_ci(0.95, method="exact")
    assert lo == pytest.approx(cp.low)
    assert stats.bootstrap_ci([0.0] * 158)[1] == pytest.approx(1 - 0.025 ** (1 / 158))  # 0.023
    assert stats.paired_bootstrap_ci([1, 0, 1, 1], [1, 0, 1, 1]) == pytest.approx((-0.602, 0.602), abs=1e-3)
    assert stats.bootstrap_diff([0] * 8, [0] * 8) == pytest.approx((0.0, -0.369, 0.369), abs=1e-3)
    lo, hi = stats.unpaired_bootstrap_ci([1, 1, 1], [0, 0, 0, 0])  # both constant: widest difference allowed
    assert lo == pytest.approx(0.025 ** (1 / 3) - (1 - 0.025 ** (1 / 4))) and hi == 1.0
    assert stats.bootstrap_ci([250, 250]) == (250.0, 250.0)  # not a score (a count): the point itself
    assert stats.paired_bootstrap_ci([40, 60], [40, 60]) == (0.0, 0.0)  # percentages: no range assumed
    assert all(math.isnan(v) for v in stats.bootstrap_ci([]))
    assert all(math.isnan(v) for v in stats.bootstrap_diff([], []))
    assert all(math.isnan(v) for v in stats.mean_ci([float("nan")]))
    lo, hi = stats.unpaired_bootstrap_ci([1, 1, 1], [0, 1, 0, 0])  # one group constant: still an interval
    assert lo <= 0.75 <= hi and not math.isnan(lo)
    with pytest.raises(ValueError, match="same length"):
        stats.paired_bootstrap_ci([1, 0], [1])


def test_bootstrap_intervals():
    x = np.array([1] * 30 + [0] * 10)
    lo, hi = bootstrap_ci(x, n_boot=2000, seed=0)
    assert lo < 0.75 < hi and 0.55 < lo and hi < 0.9
    assert bootstrap_ci(x, seed=0) == bootstrap_ci(x, seed=0)
    assert bootstrap_ci(np.ones(5)) == pytest.approx((0.025 ** (1 / 5), 1.0))  # 5 of 5: Clopper-Pearson's
    assert all(np.isnan(bootstrap_ci([])))
    w = 1 - 0.025 ** (1 / 4)  # two runs that agree on all 4 cases: up to 60 % of cases could still differ
    assert paired_bootstrap_ci([1, 1, 1, 0], [1, 1, 1, 0]) == pytest.approx((-w, w))
    with pytest.raises(ValueError, match="same length"):
        paired_bootstrap_ci([1, 0], [1])


def test_a_statistic_of_paired_columns_gets_a_percentile_interval_with_the_items_resampled_together():
    import numpy as np

    from lcrag.stats import paired_statistic_ci

    def largest_change(ref, *others, axis=-1):
        return np.max(np.abs(np.stack([np.mean(o, axis=axis) - np.mean(ref, axis=axis) for o in others])), axis=0)

    ref = np.array([0.2, 0.3, 0.25, 0.2, 0.3, 0.25])
    value, lo, hi = paired_statistic_ci([ref, ref + 0.1, ref - 0.02], largest_change, n_boot=500)
    assert value == pytest.approx(0.1) and lo == pytest.approx(0.1) and hi == pytest.approx(0.1)  # paired: exact
    value, lo, hi = paired_statistic_ci([ref, ref + np.array([0.3, -0.1, 0.2, 0.0, 0.25, -0.05])], largest_change,
                                        n_boot=500)
    assert lo < value < hi and lo >= 0
    assert np.isnan(paired_statistic_ci([[0.1], [0.2]], largest_change)[1])


def test_rows_ci_resamples_whole_rows():
    """Two columns equal up to a constant: every resample keeps the pairing, so the median gap is exact."""
    from lcrag.stats import rows_ci

    x = np.random.default_rng(1).uniform(0, 1, 50)
    lo, hi = rows_ci(np.column_stack([x, x + 0.01]), lambda v: np.median(v[..., 1], -1) - np.median(v[..., 0], -1), 500)
    assert lo == pytest.approx(0.01) and hi == pytest.approx(0.01)
    lo, hi = rows_ci(np.column_stack([x, x[::-1]]), lambda v: np.median(v[..., 1], -1) - np.median(v[..., 0], -1), 500)
    assert lo < 0 < hi  # unpaired columns: an interval around no difference
    assert all(np.isnan(rows_ci(np.ones((1, 2)), lambda v: v.mean((-2, -1)))))


def test_a_degenerate_resample_gives_an_interval_without_a_warning():
    """Differences equal up to rounding (0.9 - 0.05 i against 0.4 - 0.05 i) make BCa's acceleration 0/0: scipy
    warns and returns NaN, and the interval falls back to the percentile method. No warning reaches a page."""
    from lcrag.stats import paired_bootstrap_ci

    a, b = [0.9 - 0.05 * i for i in range(8)], [0.4 - 0.05 * i for i in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = paired_bootstrap_ci(a, b, n_boot=500)
    assert lo == pytest.approx(0.5) and hi == pytest.approx(0.5)


def test_an_interval_does_not_depend_on_the_order_of_the_items():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 30).astype(float)
    b = rng.integers(0, 2, 30).astype(float)
    perm = rng.permutation(30)
    assert bootstrap_ci(a) == bootstrap_ci(a[perm])
    assert paired_bootstrap_ci(a, b) == paired_bootstrap_ci(a[perm], b[perm])
    assert stats.unpaired_bootstrap_ci(a, b[:20]) == stats.unpaired_bootstrap_ci(a[perm], b[:20][::-1])
    rows = np.column_stack([a, b])
    mean_gap = lambda x: x[..., 0].mean(axis=-1) - x[..., 1].mean(axis=-1)  # noqa: E731
    assert stats.rows_ci(rows, mean_gap) == stats.rows_ci(rows[perm], mean_gap)
    largest = lambda x, y, axis=-1: np.maximum(x.mean(axis=axis), y.mean(axis=axis))  # noqa: E731
    assert stats.paired_statistic_ci([a, b], largest) == stats.paired_statistic_ci([a[perm], b[perm]], largest)


def test_a_constant_group_keeps_its_own_uncertainty_in_an_unpaired_difference():
    """No miss in 18 cells against 1 in 48: the 18 cells' miss rate may be up to 18.5 % (Clopper-Pearson), so the
    difference may be up to about +16 points; resampling alone gives an upper bound of 0."""
    quadrant, rest = np.zeros(18), np.r_[np.ones(1), np.zeros(47)]
    assert stats.exact_interval(0, 18)[1] == pytest.approx(0.1853, abs=1e-4)
    lo, hi = stats.unpaired_bootstrap_ci(quadrant, rest)
    rest_ci = bootstrap_ci(rest)
    assert (lo, hi) == pytest.approx(stats.mover_difference(0.0, (0.0, 0.1853), 1 / 48, rest_ci), abs=1e-3)
    assert 0.15 < hi < 0.1853 and lo == pytest.approx(-rest_ci[1], abs=1e-9)
    # symmetric: the constant group second
    assert stats.unpaired_bootstrap_ci(rest, quadrant) == pytest.approx((-hi, -lo), abs=1e-9)
    # MOVER of two Wilson intervals is Newcombe's method 10 (his worked example: 56/70 vs 48/80, [0.0524, 0.3339])
    p1, p2 = 56 / 70, 48 / 80
    assert stats.mover_difference(p1, stats.wilson_interval(56, 70), p2, stats.wilson_interval(48, 80)) == \
        pytest.approx((0.0524, 0.3339), abs=1e-4)


def test_swapping_the_arms_mirrors_a_difference_exactly():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2, 40).astype(float)
    b = rng.integers(0, 2, 40).astype(float)
    lo, hi = paired_bootstrap_ci(a, b)
    assert paired_bootstrap_ci(b, a) == (-hi, -lo)
    lo, hi = stats.unpaired_bootstrap_ci(a, b[:25])
    assert stats.unpaired_bootstrap_ci(b[:25], a) == (-hi, -lo)
    c, e = rng.normal(50, 10, 40), rng.normal(0, 3, 40)  # not scores: no bounds, the same rule
    lo, hi = paired_bootstrap_ci(c, c + e)
    assert paired_bootstrap_ci(c + e, c) == (-hi, -lo)


def test_a_bound_at_zero_on_a_side_no_item_reached_is_the_exact_one():
    """Two of 158 cases favour b, none favours a: at least 2.5 % of resamples hold neither differing case, so the
    bootstrap's upper bound is exactly 0 and would decide "a is no better" on a sample that never saw a case where
    it is. That bound becomes the exact share of cases that could favour a (1 - 0.025 ** (1 / 158)), each by 1;
    the lower bound, which the data set, is the bootstrap's."""
    a, b = [0] * 158, [1, 1] + [0] * 156
    diff, lo, hi = stats.bootstrap_diff(a, b)
    assert hi == pytest.approx(1 - 0.025 ** (1 / 158))  # +2.3 points, not 0
    assert lo < diff < 0
    assert stats.bootstrap_diff(b, a) == pytest.approx((-diff, -hi, -lo))  # mirrored: the lower bound moves
    assert stats.one_sided_bounds(np.array([-1.0, 0.0, 0.0]), (-0.5, 0.0), (-1.0, 1.0)) == pytest.approx(
        (-0.5, 1 - 0.025 ** (1 / 3)))


def test_a_side_the_data_put_off_zero_keeps_its_bootstrap_bound():
    """Every case favours a (no resample reaches 0), or cases favour each arm: the bootstrap's bounds stand."""
    every = stats.bootstrap_diff([1] * 12, [0, 0.5] * 6)
    assert every[1] > 0  # decided: all twelve favour a
    assert stats.one_sided_bounds(np.array([0.5, 1.0]), (0.5, 1.0), (-1.0, 1.0)) == (0.5, 1.0)
    both = stats.bootstrap_diff([1, 0, 1, 1, 0, 1], [0, 1, 0, 0, 0, 0])
    assert stats.one_sided_bounds(np.array([1.0, -1.0, 1, 1, 0, 1]), both[1:], (-1.0, 1.0)) == both[1:]


def test_a_statistic_of_strata_resamples_each_stratum_on_its_own():
    """Long²RAG's within-variant rank trend resamples the questions of each kind of haystack apart: pinned on the
    numbers the trend's own resampling gave before it moved here (percentile, the seed's stream unchanged)."""
    a, b = np.array([1.0, 2, 3, 10]), np.array([0.0, 5, 1, 2, 8])

    def gap(i, j, axis=-1):
        return a[np.asarray(i, dtype=int)].mean(axis=axis) - b[np.asarray(j, dtype=int)].mean(axis=axis)

    assert stats.stratified_ci([4, 5], gap, n_boot=300, seed=7) == (0.7999999999999998, -2.72625, 5.554999999999996)
    value, lo, hi = stats.stratified_ci([4, 5], gap, n_boot=300, seed=7, level=0.5)
    assert value == pytest.approx(0.8) and -2.72625 < lo < value < hi < 5.555  # a lower level: a narrower interval
    constant = stats.stratified_ci([3, 3], lambda i, j, axis=-1: np.zeros(np.shape(i)[:-1]), n_boot=100)
    assert constant == (0.0, 0.0, 0.0)  # the interval always holds the value


def test_a_cluster_bootstrap_draws_whole_clusters_with_replacement():
    """SummHay's order claims draw the news subtopics again: counts per draw and cluster, pinned on the draws the
    claims made before the draws moved here (seed 0, 5 clusters, 4 draws)."""
    w = stats.cluster_weights(5, 4, seed=0)
    assert w.tolist() == [[1, 0, 0, 0, 4], [2, 2, 0, 1, 0], [1, 2, 1, 0, 1], [2, 0, 1, 0, 2]]
    assert (w.sum(axis=1) == 5).all() and stats.cluster_weights(3, 3, seed=2).tolist() == [[0, 1, 2], [2, 0, 1],
                                                                                            [1, 1, 1]]
    assert (stats.cluster_weights(5, 4, seed=0) == w).all() and w.shape == (4, 5)


def test_an_exact_bound_is_told_from_a_measured_one():
    """Two of 158 cases favour b, none a: the upper bound of a - b is the exact share 1 - 0.025 ** (1 / 158), in
    shares or in points, and mirrored when the arms swap; the lower bound, which the data set, is not."""
    diff, lo, hi = stats.bootstrap_diff([0] * 158, [1, 1] + [0] * 156)
    assert stats.is_unseen_bound(hi, 158, 1.0) and stats.is_unseen_bound(100 * hi, 158, 100.0)
    assert not stats.is_unseen_bound(lo, 158, -1.0) and not stats.is_unseen_bound(hi, 157, 1.0)
    assert not stats.is_unseen_bound(hi, 158, -1.0)  # the other side's end
    _, lo2, _ = stats.bootstrap_diff([1, 1] + [0] * 156, [0] * 158)
    assert stats.is_unseen_bound(lo2, 158, -1.0) and stats.is_unseen_bound(100 * lo2, 158, -100.0)
    same = stats.bootstrap_diff([0, 1, 1], [0, 1, 1])  # no item favours either: both bounds exact
    assert stats.is_unseen_bound(same[1], 3, -1.0) and stats.is_unseen_bound(same[2], 3, 1.0)
    assert not stats.is_unseen_bound(0.0, 0, 1.0) and not stats.is_unseen_bound(float("nan"), 8, 1.0)
