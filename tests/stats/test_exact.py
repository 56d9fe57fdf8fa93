"""lcrag.stats.exact: McNemar's and the sign test, Cohen's kappa, the intervals of a proportion and of a
correlation, Spearman's rho and the permutation test of labelled answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from lcrag import stats
from lcrag.stats import mcnemar_test


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


def test_mcnemar_exact_by_hand():
    a = np.array([1] * 10 + [0] * 2 + [1] * 20 + [0] * 5, dtype=bool)
    b = np.array([0] * 10 + [1] * 2 + [1] * 20 + [0] * 5, dtype=bool)
    m = mcnemar_test(a, b)
    assert (m["a_only"], m["b_only"], m["n"]) == (10, 2, 37)
    assert m["p_value"] == pytest.approx(binomtest(10, 12, 0.5).pvalue) == pytest.approx(0.03857, abs=1e-4)
    assert m["chi2"] == pytest.approx(49 / 12)
    assert mcnemar_test([True, False], [True, False])["p_value"] == 1.0


def test_pearson_interval_is_fishers_z():
    from lcrag.stats import pearson_interval

    lo, hi = pearson_interval(0.5, 28)  # z = 0.5493, half-width 1.96 / 5 = 0.392
    assert (lo, hi) == pytest.approx((np.tanh(0.5493 - 0.392), np.tanh(0.5493 + 0.392)), abs=1e-3)
    assert lo < 0.5 < hi and 0.5 - lo > hi - 0.5  # skewed toward 0
    assert np.isnan(pearson_interval(0.5, 3)[0])
    # SummHay's C17: r(words per bullet, delta) = -0.078 on 200 summaries spans zero, and even r = 0 reaches 0.139
    assert pearson_interval(-0.078, 200) == pytest.approx((-0.2142, 0.0610), abs=5e-4)
    assert pearson_interval(0.0, 200) == pytest.approx((-0.1387, 0.1387), abs=5e-4)


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


def test_the_sign_test_gives_both_one_sided_p_values():
    """The thesis's Fig. 6.3 counts, F-E 16 against --- 10: pinned on scipy's binomtest as the accuracy claims ran
    it before it moved here."""
    assert stats.sign_test(16, 10) == (0.16346979141235352, 0.9156812280416489)
    up, down = stats.sign_test(10, 16)
    assert (up, down) == (0.9156812280416489, 0.16346979141235352)
    assert stats.sign_test(6, 0)[0] == pytest.approx(1 / 2**6) and stats.sign_test(6, 0)[1] == 1.0
    assert stats.sign_test(0, 0) == (1.0, 1.0)


def test_spearman_is_vectorized_and_says_what_a_constant_side_gives():
    """Pinned on Long²RAG's own spearman before it moved here (0 on a constant side, the trend's resamples); NaN by
    default, where rho is undefined."""
    assert float(stats.spearman(np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 4]))) == 0.8
    rows = stats.spearman(np.array([[1.0, 2, 3, 4], [4, 4, 1, 2]]), np.array([[1.0, 3, 2, 2], [1, 2, 3, 4]]))
    assert rows.tolist() == [0.31622776601683794, -0.7378647873726218]  # ties share their mean rank
    assert math.isnan(stats.spearman(np.array([1.0, 1, 1]), np.array([1.0, 2, 3])))
    assert float(stats.spearman(np.array([1.0, 1, 1]), np.array([1.0, 2, 3]), constant=0.0)) == 0.0
    columns = stats.spearman(np.array([[1.0, 5], [2, 5], [3, 5]]), np.array([[3.0, 1], [2, 2], [1, 3]]), axis=0,
                             constant=0.0)
    assert columns.tolist() == [-1.0, 0.0]
