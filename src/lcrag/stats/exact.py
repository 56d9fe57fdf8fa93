"""Exact and closed-form statistics of counts and correlations: McNemar's test, the sign test of two counts,
Cohen's kappa, the exact (Clopper-Pearson) and Wilson intervals of a proportion, Spearman's rho (vectorized, for
resamples) and Fisher-z intervals of a correlation, and a permutation test of labelled answers against their own
label preferences."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def label_permutation(pred: Sequence, gold: Sequence, n_perm: int = 2000, seed: int = 0) -> tuple[float, float]:
    """``(prior, p)`` for answers ``pred`` to items whose right answers are ``gold`` (labels: letters; a missing
    answer is a label of its own, never right). ``prior`` is the accuracy of answers that carry no information
    about the items but keep the model's label preferences: the answers shuffled across the items, whose expected
    accuracy is the sum over labels of (share of answers with the label) × (share of items whose answer it is).
    ``p`` is the one-sided permutation p-value of the observed number right against those shuffles (``n_perm``
    of them, seeded; (hits + 1) / (n_perm + 1)). A model that always answers "A" has the prior of A's share of
    the items whatever it knows. NaNs for no items."""
    pred = np.asarray([str(x) for x in pred], dtype=object)
    gold = np.asarray([str(x) for x in gold], dtype=object)
    if pred.size == 0:
        return (float("nan"), float("nan"))
    labels, codes = np.unique(np.concatenate([pred, gold]), return_inverse=True)
    p_codes, g_codes = codes[: pred.size], codes[pred.size:]
    share = np.bincount(p_codes, minlength=len(labels)) * np.bincount(g_codes, minlength=len(labels))
    prior = float(share.sum() / pred.size**2)
    observed = int((p_codes == g_codes).sum())
    rng = np.random.default_rng(seed)
    shuffled = np.argsort(rng.random((n_perm, pred.size)), axis=1)
    hits = int(((p_codes[shuffled] == g_codes).sum(axis=1) >= observed).sum())
    return (prior, (hits + 1) / (n_perm + 1))


def mcnemar_test(a, b) -> dict:
    """McNemar's exact test for paired correctness ``a`` and ``b`` (booleans, one per case).

    Only the discordant cases count: ``a_only`` (a right, b wrong) and ``b_only`` (b right, a wrong). Under
    the null hypothesis (same accuracy) each discordant case falls either way with probability 1/2, so the
    two-sided p-value is the binomial test of ``a_only`` out of ``a_only + b_only`` (1.0 when there is no
    discordant case). Also returned: the continuity-corrected chi-square statistic, for reference.
    """
    from scipy.stats import binomtest

    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"paired values must have the same length, got {a.size} and {b.size}")
    a_only, b_only = int(np.sum(a & ~b)), int(np.sum(~a & b))
    n = a_only + b_only
    p = 1.0 if n == 0 else float(binomtest(a_only, n, 0.5).pvalue)
    chi2 = 0.0 if n == 0 else max(abs(a_only - b_only) - 1, 0) ** 2 / n
    return {"n": int(a.size), "a_only": a_only, "b_only": b_only, "chi2": float(chi2), "p_value": p}


def sign_test(a: int, b: int) -> tuple[float, float]:
    """``(p_a, p_b)``: the one-sided exact binomial p-values that count ``a`` is the larger of two counts, and that
    ``b`` is. Under the null hypothesis (both equally likely) each of the ``a + b`` events falls either way with
    probability 1/2; ``p_a`` is P(at least ``a`` of them on a's side). 16 against 10: (0.16, 0.92). (1.0, 1.0)
    when both are 0."""
    from scipy.stats import binomtest

    a, b = int(a), int(b)
    if a + b == 0:
        return (1.0, 1.0)
    return (float(binomtest(a, a + b, alternative="greater").pvalue),
            float(binomtest(b, a + b, alternative="greater").pvalue))


def cohen_kappa(a: Sequence, b: Sequence) -> float:
    """Cohen's κ of two binary label sequences (NaN when chance agreement is 1: both constant and equal)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.size == 0:
        raise ValueError("need two equal-length non-empty label sequences")
    x, y = (x != 0).astype(int), (y != 0).astype(int)
    po = float((x == y).mean())
    pe = float(x.mean() * y.mean() + (1 - x.mean()) * (1 - y.mean()))
    return float("nan") if pe == 1 else (po - pe) / (1 - pe)


def exact_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a proportion ``k / n``, two-sided at ``level`` (scipy's): never
    narrower than its nominal coverage, and still informative at 0 of n (0 to ``1 - 0.025 ** (1 / n)`` at 95 %:
    0.14 for n = 24). NaN bounds for n = 0."""
    from scipy.stats import binomtest

    if n == 0:
        return (float("nan"), float("nan"))
    ci = binomtest(int(k), int(n)).proportion_ci(level, method="exact")
    return (float(ci.low), float(ci.high))


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion ``k / n`` (well-behaved at small n and at 0 or 1)."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def spearman(x, y, axis: int = -1, constant: float = float("nan")) -> np.ndarray:
    """Spearman's rho of ``x`` and ``y`` along ``axis`` (ties share their mean rank: the Pearson correlation of the
    ranks), vectorized over the other axes (a bootstrap's resamples); ``constant`` where either has no spread, where
    rho is undefined: NaN by default. Its last digit can differ from :func:`scipy.stats.spearmanr`'s (which divides
    the ranks' covariance by each standard deviation in turn)."""
    from scipy.stats import rankdata

    rx, ry = rankdata(x, axis=axis), rankdata(y, axis=axis)
    rx, ry = rx - rx.mean(axis=axis, keepdims=True), ry - ry.mean(axis=axis, keepdims=True)
    den = np.sqrt((rx**2).sum(axis=axis) * (ry**2).sum(axis=axis))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (rx * ry).sum(axis=axis) / np.where(den > 0, den, 1), constant)


def spearman_interval(rho: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Confidence interval of a Spearman correlation over ``n`` ranked items: Fisher's z with Bonett and Wright's
    standard error sqrt((1 + rho^2 / 2) / (n - 3)). With 6 items and rho 0.71 it spans about -0.4 to 0.97; with
    fewer than 4 items it is the whole range [-1, 1]."""
    from scipy.stats import norm

    if n < 4 or not np.isfinite(rho):
        return -1.0, 1.0
    r = float(np.clip(rho, -0.999999, 0.999999))
    half = norm.ppf(0.5 + level / 2) * np.sqrt((1 + r**2 / 2) / (n - 3))
    return float(np.tanh(np.arctanh(r) - half)), float(np.tanh(np.arctanh(r) + half))


def pearson_interval(r: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Interval of a Pearson correlation ``r`` on ``n`` pairs (Fisher's z, standard error 1/sqrt(n - 3));
    NaNs for n < 4."""
    from scipy.stats import norm

    if n < 4 or np.isnan(r):
        return (float("nan"), float("nan"))
    z = np.arctanh(float(np.clip(r, -0.999999, 0.999999)))
    half = norm.ppf(0.5 + level / 2) / np.sqrt(n - 3)
    return float(np.tanh(z - half)), float(np.tanh(z + half))
