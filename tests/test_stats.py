"""Statistics (lcrag.stats): the bootstrap intervals' coverage at the book's small n, and the exact tests."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import binomtest

from lcrag import stats
from lcrag.stats import bootstrap_ci, mcnemar_test, paired_bootstrap_ci


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


def test_mcnemar_counts_only_discordant_pairs():
    a = [True] * 8 + [False] * 2
    b = [True] * 2 + [False] * 8
    r = stats.mcnemar_test(a, b)
    assert (r["a_only"], r["b_only"], r["n"]) == (6, 0, 10)
    assert r["p_value"] == pytest.approx(2 / 2**6)  # two-sided binomial test of 6 of 6
    assert stats.mcnemar_test([True, False], [True, False])["p_value"] == 1.0


def test_kappa_and_wilson():
    assert stats.cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0
    assert stats.cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == 0.0
    assert math.isnan(stats.cohen_kappa([1, 1], [1, 1]))
    lo, hi = stats.wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)


def test_spearman_interval_follows_fisher_z_and_widens_with_few_items():
    from lcrag.stats import spearman_interval

    lo, hi = spearman_interval(0.714, 6)
    assert lo == pytest.approx(-0.356, abs=1e-3) and hi == pytest.approx(0.974, abs=1e-3)
    lo30, hi30 = spearman_interval(0.714, 30)
    assert lo < lo30 < 0.714 < hi30 < hi
    assert spearman_interval(0.9, 3) == (-1.0, 1.0) and spearman_interval(float("nan"), 10) == (-1.0, 1.0)


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


def test_mcnemar_exact_by_hand():
    a = np.array([1] * 10 + [0] * 2 + [1] * 20 + [0] * 5, dtype=bool)
    b = np.array([0] * 10 + [1] * 2 + [1] * 20 + [0] * 5, dtype=bool)
    m = mcnemar_test(a, b)
    assert (m["a_only"], m["b_only"], m["n"]) == (10, 2, 37)
    assert m["p_value"] == pytest.approx(binomtest(10, 12, 0.5).pvalue) == pytest.approx(0.03857, abs=1e-4)
    assert m["chi2"] == pytest.approx(49 / 12)
    assert mcnemar_test([True, False], [True, False])["p_value"] == 1.0


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


def test_pearson_interval_is_fishers_z():
    from lcrag.stats import pearson_interval

    lo, hi = pearson_interval(0.5, 28)  # z = 0.5493, half-width 1.96 / 5 = 0.392
    assert (lo, hi) == pytest.approx((np.tanh(0.5493 - 0.392), np.tanh(0.5493 + 0.392)), abs=1e-3)
    assert lo < 0.5 < hi and 0.5 - lo > hi - 0.5  # skewed toward 0
    assert np.isnan(pearson_interval(0.5, 3)[0])
    # SummHay's C17: r(words per bullet, delta) = -0.078 on 200 summaries spans zero, and even r = 0 reaches 0.139
    assert pearson_interval(-0.078, 200) == pytest.approx((-0.2142, 0.0610), abs=5e-4)
    assert pearson_interval(0.0, 200) == pytest.approx((-0.1387, 0.1387), abs=5e-4)


def test_rows_ci_resamples_whole_rows():
    """Two columns equal up to a constant: every resample keeps the pairing, so the median gap is exact."""
    from lcrag.stats import rows_ci

    x = np.random.default_rng(1).uniform(0, 1, 50)
    lo, hi = rows_ci(np.column_stack([x, x + 0.01]), lambda v: np.median(v[..., 1], -1) - np.median(v[..., 0], -1), 500)
    assert lo == pytest.approx(0.01) and hi == pytest.approx(0.01)
    lo, hi = rows_ci(np.column_stack([x, x[::-1]]), lambda v: np.median(v[..., 1], -1) - np.median(v[..., 0], -1), 500)
    assert lo < 0 < hi  # unpaired columns: an interval around no difference
    assert all(np.isnan(rows_ci(np.ones((1, 2)), lambda v: v.mean((-2, -1)))))


def test_label_permutation_gives_the_letter_prior_and_its_p_value():
    from lcrag.stats import label_permutation

    gold = list("AAAABBCD") * 5  # A is the answer of half the items
    prior, p = label_permutation(["A"] * 40, gold)
    assert prior == pytest.approx(0.5) and p == 1.0  # always "A": right half the time, and no better than its prior
    prior, p = label_permutation(gold, gold)  # every answer right, with the gold letters' shares
    assert prior == pytest.approx(0.5**2 + 0.25**2 + 2 * 0.125**2)
    assert p < 0.001
    prior, _ = label_permutation([None] * 4 + ["A"] * 4, list("AAAAAAAA"))
    assert prior == pytest.approx(0.5)  # a missing answer is never right
    assert all(np.isnan(label_permutation([], [])))


def test_exact_interval_is_clopper_pearson():
    """The exact interval of a share: 0 of 24 still allows 14 % (the needle's H4b), 0 of 12 26 %; scipy's."""
    assert stats.exact_interval(0, 24) == pytest.approx((0.0, 1 - 0.025 ** (1 / 24)))
    assert stats.exact_interval(0, 24)[1] == pytest.approx(0.1425, abs=1e-4)
    assert stats.exact_interval(0, 12)[1] == pytest.approx(0.2646, abs=1e-4)
    lo, hi = stats.exact_interval(1, 42)
    assert 0 < lo < 0.001 and hi == pytest.approx(0.1257, abs=1e-4)
    assert all(math.isnan(x) for x in stats.exact_interval(0, 0))


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


def test_differences_print_with_their_sign_and_a_tie_as_plus_zero():
    assert stats.signed(-0.04) == "+0.0" and stats.signed(-0.06) == "-0.1" and stats.signed(0.0) == "+0.0"
    assert stats.signed(-0.0004, 3) == "+0.000" and stats.signed(0.1234, 3) == "+0.123"
    assert stats.signed_interval(0.095, 0.013, 0.177, " pp") == "+9.5 pp [+1.3, +17.7]"
    assert stats.signed_interval(-0.0003, -0.088, 0.088) == "+0.0 [-8.8, +8.8]"  # the paired tie of 8 cases
    assert stats.signed_interval(0.31, 0.05, 0.5, scale=1, digits=2) == "+0.31 [+0.05, +0.50]"


def test_a_share_prints_in_per_cent_to_its_callers_digits():
    assert stats.percent(0.0999) == "10.0" and stats.percent(0.099) == "9.9" and stats.percent(float("nan")) == "nan"
    assert stats.percent(0.81646, 2, "%", "n/a") == "81.65%"
    assert stats.percent(None, 2, "%", "n/a") == "n/a" and stats.percent(float("nan"), 2, "%", "n/a") == "n/a"


def test_a_bound_near_zero_shows_which_side_of_zero_it_lies():
    """The needle's 1.5B printed "-1.2 pp [-6.0, +0.0]" for an upper bound of exactly 0 and LongRAG's "+0.6 [+0.0,
    +2.8]" for a lower bound of -0.02 points: read as a verdict, a reader could not tell whether 0 was excluded."""
    assert stats.bound(0.0) == "0.0" and stats.bound(-0.0) == "0.0" and stats.bound(0.0, 0) == "0"
    assert stats.bound(-0.02) == "-0.02" and stats.bound(0.004) == "+0.004" and stats.bound(-0.3, 0) == "-0.3"
    assert stats.bound(1e-9) == "0.0" and stats.bound(-6.04) == "-6.0" and stats.bound(13.33) == "+13.3"
    assert stats.signed_interval(-0.0119, -0.0602, 0.0) == "-1.2 [-6.0, 0.0]"
    assert stats.signed_interval(0.006, -0.0002, 0.028) == "+0.6 [-0.02, +2.8]"


def test_rounded_tables_print_no_negative_zero():
    """The thesis's paired table printed "-0.000" for a bound of -0.0001: rounded clears the sign of a zero, keeps
    counts integers and text as it is."""
    import pandas as pd

    t = pd.DataFrame({"comparison": ["Full vs RAG", "Full vs CQS"], "n": [158, 80], "diff": [0.0633, 0.1],
                      "ci_low": [-0.0001, 0.0251], "ci_high": [0.1329, 0.2]})
    out = stats.rounded(t, 3)
    assert "-0.000" in t.round(3).to_string() and "-0.000" not in out.to_string() and "-0.000" not in out.to_html()
    assert " 0.000" in out.to_string() and not np.signbit(out["ci_low"]).any()
    assert str(out["n"].dtype) == "int64" and out["comparison"].tolist() == ["Full vs RAG", "Full vs CQS"]
    assert out["ci_low"].tolist() == [0.0, 0.025] and out["diff"].tolist() == [0.063, 0.1]
    assert str(stats.rounded(pd.Series([-0.0004, -0.2]), 3).tolist()) == "[0.0, -0.2]"
    assert stats.rounded(pd.Series(["a"])).tolist() == ["a"]
    # counts a missing value made floats print as counts again: n_* columns, and those named
    counted = stats.rounded(pd.DataFrame({"n_insights": [1419.0, None], "kept": [86.0, 1.0], "r": [1.0, 0.5]}),
                            counts=("kept",))
    assert counted["n_insights"].tolist()[0] == 1419 and str(counted["n_insights"].dtype) == "Int64"
    assert str(counted["kept"].dtype) == "Int64" and str(counted["r"].dtype) == "float64"


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
