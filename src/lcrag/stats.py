"""Statistics, in one place: bootstrap intervals, McNemar's test, Cohen's kappa, the Wilson and the exact
(Clopper-Pearson) interval of a proportion, and how a difference and its interval print (:func:`signed`,
:func:`signed_interval`).

Every interval in the book is a bootstrap of a mean (or of a difference of means) over the items of a run, made
by :func:`scipy.stats.bootstrap` with the **BCa** method (bias-corrected and accelerated): at the small numbers of
items the book runs on (often 8 to 20 per setting) the percentile method's intervals are too narrow (they cover
the truth less often than they claim; ``tests/test_stats.py`` measures it at n = 12), and BCa corrects most of
that. A fixed ``seed`` gives the same interval for the same data, in any order (the values, or the rows of paired
columns, are sorted before resampling, so a table's downloaded rows give the page's interval whatever their
order), and a difference's interval is mirrored exactly when its two arms are swapped; no data give NaN bounds.

Degenerate data (every value equal: a model that fails all 8 cases, two arms that agree on every case) have no
spread to resample, but their mean is not known exactly: for scores on [0, 1] (and their differences, on [-1, 1])
the interval is the exact one for the share of items that could take another value when none of n did
(Clopper-Pearson: at most ``1 - 0.025 ** (1 / n)`` at 95 %, 0.37 for n = 8, 0.023 for n = 158), moved toward the
rest of the range (:func:`constant_interval`). A zero-width interval on eight cases would decide claims it cannot.
Other constant data (token counts) give the point itself. A difference of two independent groups of which one is
constant (no miss in the 18 cells of a quadrant) combines each group's own interval, the constant one's exact, by
Zou and Donner's MOVER (:func:`mover_difference`): resampling alone would take the constant group as known.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

#: The bootstrap interval method of every interval in the book (see the module docstring).
METHOD = "BCa"


def _interval(samples: tuple[np.ndarray, ...], statistic, point: float, n_boot: int, level: float, seed: int,
              method: str) -> tuple[float, float]:
    from scipy.stats import bootstrap

    if any(s.size == 0 for s in samples):
        return (float("nan"), float("nan"))
    samples = tuple(np.sort(s) for s in samples)  # independent samples: their order carries nothing
    if all(s.size < 2 or np.ptp(s) == 0 for s in samples):  # nothing varies: no spread to resample
        return (point, point)  # (the callers give scores their exact interval first: constant_interval)
    with warnings.catch_warnings():  # BCa on degenerate resamples warns, then gives NaN: handled just below
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.filterwarnings("ignore", message="The BCa confidence interval cannot be calculated")
        res = bootstrap(samples, statistic, n_resamples=n_boot, confidence_level=level, method=method,
                        rng=np.random.default_rng(seed), vectorized=True, paired=False)
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if np.isnan(lo) or np.isnan(hi):  # BCa undefined (e.g. one sample constant in a difference): percentile
        res = bootstrap(samples, statistic, n_resamples=n_boot, confidence_level=level, method="percentile",
                        rng=np.random.default_rng(seed), vectorized=True, paired=False)
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return (min(lo, point), max(hi, point))


def _before(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether ``x`` comes before ``y`` (same length) in lexicographic order: which way round a difference is
    computed, so that its interval does not depend on the order of the arms."""
    differ = np.flatnonzero(x != y)
    return bool(differ.size) and bool(x[differ[0]] < y[differ[0]])


def _either_way(key: np.ndarray, swapped_key: np.ndarray, interval, a: np.ndarray, b: np.ndarray):
    """The interval of a difference ``a - b`` computed one way round whatever the order of the arms: the way whose
    ``key`` comes first (the other mirrored), symmetric about 0 when both keys are equal (data alike both ways)."""
    if _before(swapped_key, key):
        lo, hi = interval(b, a)
        return (-hi, -lo)
    lo, hi = interval(a, b)
    return (min(lo, -hi), max(hi, -lo)) if key.size and np.array_equal(key, swapped_key) else (lo, hi)


def _sorted_rows(values: np.ndarray) -> np.ndarray:
    """The rows of ``values`` (items x columns, or items) in lexicographic order: the items of paired columns in an
    order that does not depend on the table's."""
    if values.ndim == 1:
        return np.sort(values)
    if not len(values):
        return values
    return values[np.lexsort(values.T[::-1])]


def _mean(x, axis=-1):
    return np.mean(x, axis=axis)


def _mean_difference(a, b, axis=-1):
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


def value_range(x: np.ndarray) -> tuple[float, float] | None:
    """The range a score's values live on: [0, 1] when they lie in it, else [-1, 1] (differences of scores), else
    None (not a score: a count, a length)."""
    if x.size and x.min() >= 0 and x.max() <= 1:
        return (0.0, 1.0)
    if x.size and x.min() >= -1 and x.max() <= 1:
        return (-1.0, 1.0)
    return None


def constant_interval(value: float, n: int, bounds: tuple[float, float], level: float = 0.95) -> tuple[float, float]:
    """The interval of a mean when all ``n`` items have ``value`` and any could lie in ``bounds``: at most a share
    ``1 - ((1 - level) / 2) ** (1 / n)`` of the population differs (Clopper-Pearson with none of n observed), each
    as far as the bounds allow. For 8 of 8 right: (0.63, 1.0), Clopper-Pearson's own interval."""
    share = 1 - ((1 - level) / 2) ** (1 / n)
    lo, hi = bounds
    return (value - (value - lo) * share, value + (hi - value) * share)


def _constant(x: np.ndarray, bounds: tuple[float, float] | None, level: float) -> tuple[float, float] | None:
    """:func:`constant_interval` for a constant sample of scores, None for anything else."""
    if x.size == 0 or np.ptp(x) != 0:
        return None
    bounds = bounds or value_range(x)
    return None if bounds is None else constant_interval(float(x[0]), x.size, bounds, level)


def bootstrap_ci(values, n_boot: int = 2000, level: float = 0.95, seed: int = 0,
                 method: str = METHOD, bounds: tuple[float, float] | None = None) -> tuple[float, float]:
    """Bootstrap interval of the mean of ``values`` (e.g. 0/1 correctness, one per case); ``bounds``: the range
    the values live on (default: :func:`value_range`), used only when every value is the same."""
    x = np.asarray(values, dtype=np.float64)
    point = float(x.mean()) if x.size else float("nan")
    exact = _constant(x, bounds, level)
    return exact if exact is not None else _interval((x,), _mean, point, n_boot, level, seed, method)


def paired_bootstrap_ci(a, b, n_boot: int = 2000, level: float = 0.95, seed: int = 0,
                        method: str = METHOD) -> tuple[float, float]:
    """Bootstrap interval of ``mean(a) - mean(b)`` for paired values (the same cases, in the same order).

    The pairs are resampled together (the interval of the mean of the differences), which keeps the correlation
    between the two settings: a case hard for one is often hard for the other.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired values must have the same length, got {a.size} and {b.size}")
    return _either_way(np.sort(a - b), np.sort(b - a),
                       lambda x, y: _paired_interval(x, y, n_boot, level, seed, method), a, b)


def _paired_interval(a: np.ndarray, b: np.ndarray, n_boot: int, level: float, seed: int,
                     method: str) -> tuple[float, float]:
    if value_range(np.concatenate([a, b])) == (0.0, 1.0):  # scores: their differences live on [-1, 1]
        return bootstrap_ci(a - b, n_boot=n_boot, level=level, seed=seed, method=method, bounds=(-1.0, 1.0))
    d = a - b  # not scores (counts, percentages): no range to bound a constant difference by
    return _interval((d,), _mean, float(d.mean()) if d.size else float("nan"), n_boot, level, seed, method)


def unpaired_bootstrap_ci(a, b, n_boot: int = 2000, level: float = 0.95, seed: int = 0,
                          method: str = METHOD) -> tuple[float, float]:
    """Bootstrap interval of ``mean(a) - mean(b)`` for two independent groups (e.g. the responses of two length
    bins): each group is resampled on its own."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    sa, sb = np.sort(a), np.sort(b)  # keys: the smaller group first, then the values
    return _either_way(np.r_[a.size, b.size, sa, sb], np.r_[b.size, a.size, sb, sa],
                       lambda x, y: _unpaired_interval(x, y, n_boot, level, seed, method), a, b)


def _unpaired_interval(a: np.ndarray, b: np.ndarray, n_boot: int, level: float, seed: int,
                       method: str) -> tuple[float, float]:
    point = float(a.mean() - b.mean()) if a.size and b.size else float("nan")
    ea, eb = _constant(a, None, level), _constant(b, None, level)
    if ea is not None and eb is not None:  # both constant scores: the widest difference their intervals allow
        return (ea[0] - eb[1], ea[1] - eb[0])
    if ea is not None or eb is not None:  # one constant: its exact interval, the other's bootstrap, combined
        ia = ea if ea is not None else bootstrap_ci(a, n_boot, level, seed, method)
        ib = eb if eb is not None else bootstrap_ci(b, n_boot, level, seed, method)
        return mover_difference(float(a.mean()), ia, float(b.mean()), ib)
    return _interval((a, b), _mean_difference, point, n_boot, level, seed, method)


def mover_difference(mean_a: float, ci_a: tuple[float, float], mean_b: float,
                     ci_b: tuple[float, float]) -> tuple[float, float]:
    """The interval of ``mean_a - mean_b`` (independent groups) from each mean's own interval: Zou and Donner's
    MOVER, Newcombe's square-and-add for two proportions (his method 10 with Wilson's intervals). For 0 misses in
    18 cells (exact interval [0, 0.185]) against 1 in 48 (BCa [0, 0.10]): [-0.10, +0.17], where resampling
    alone gives an upper bound of 0, taking the 18 cells' rate as known."""
    d = mean_a - mean_b
    lo = d - float(np.hypot(mean_a - ci_a[0], ci_b[1] - mean_b))
    hi = d + float(np.hypot(ci_a[1] - mean_a, mean_b - ci_b[0]))
    return (lo, hi)


def paired_statistic_ci(columns: Sequence, statistic, n_boot: int = 2000, level: float = 0.95,
                        seed: int = 0) -> tuple[float, float, float]:
    """``(value, lo, hi)``: a statistic of several paired columns (the same items, in the same order;
    ``statistic(*columns, axis)``, vectorized) and its percentile bootstrap interval, the items resampled
    together. For statistics that are not a mean (a largest change over settings), where BCa's assumptions do
    not hold; NaN bounds with fewer than 2 items."""
    from scipy.stats import bootstrap

    cols = list(_sorted_rows(np.column_stack([np.asarray(c, dtype=np.float64) for c in columns])).T)
    point = float(statistic(*cols, axis=-1))
    if cols[0].size < 2:
        return (point, float("nan"), float("nan"))
    res = bootstrap(cols, statistic, n_resamples=n_boot, confidence_level=level, method="percentile",
                    rng=np.random.default_rng(seed), vectorized=True, paired=True)
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return (point, min(lo, point), max(hi, point))


def rows_ci(values, statistic, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Bootstrap interval of ``statistic`` over the rows (items) of ``values`` (items × columns), the rows resampled
    whole, so every column keeps its pairing with the others. ``statistic(x)`` takes ``x`` of shape (..., items,
    columns) and reduces the items axis. BCa (:data:`METHOD`), percentile where BCa is undefined; NaN bounds with
    fewer than 2 items."""
    values = _sorted_rows(np.asarray(values, dtype=np.float64))
    if len(values) < 2:
        return (float("nan"), float("nan"))

    def stat(i, axis=-1):
        return statistic(values[np.asarray(i, dtype=int)])

    with warnings.catch_warnings():  # BCa on a statistic every resample gives alike: NaN, then the percentile
        warnings.simplefilter("ignore")
        return _interval((np.arange(len(values)),), stat, float(statistic(values)), n_boot, level, seed, METHOD)


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


def bootstrap_diff(a: Sequence[float], b: Sequence[float], n_boot: int = 2000,
                   seed: int = 0) -> tuple[float, float, float]:
    """Mean of the paired differences ``a - b`` and its 95 % bootstrap interval: ``(mean, lo, hi)``; NaNs for
    empty input."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"paired values must have the same length, got {x.size} and {y.size}")
    if x.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    lo, hi = paired_bootstrap_ci(x, y, n_boot=n_boot, seed=seed)
    return (float((x - y).mean()), lo, hi)


def mean_ci(values, n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of ``values`` with NaNs dropped (NaNs when nothing is left)."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if not x.size:
        return (float("nan"),) * 3
    lo, hi = bootstrap_ci(x, n_boot=n_boot, seed=seed)
    return float(x.mean()), lo, hi


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


def paired_comparison(a, b, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> dict:
    """Two settings answered the same cases (``a``, ``b``: booleans, right or wrong): the difference of their
    accuracies with a paired bootstrap interval (at ``level``), and McNemar's exact test on the cases where they
    disagree."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    lo, hi = paired_bootstrap_ci(a, b, n_boot=n_boot, level=level, seed=seed)
    m = mcnemar_test(a, b)
    return {"n": len(a), "diff": a.mean() - b.mean() if len(a) else np.nan, "ci_low": lo, "ci_high": hi,
            "a_only": m["a_only"], "b_only": m["b_only"], "mcnemar_p": m["p_value"]}


def signed(x: float, digits: int = 1) -> str:
    """``x`` with its sign to ``digits`` decimals, as every difference in the book prints: one that rounds to zero
    is ``+0.0``, never ``-0.0`` (so a tie reads the same on every page)."""
    return f"{round(float(x), digits) + 0.0:+.{digits}f}"


def bound(x: float, digits: int = 1) -> str:
    """An interval's bound as :func:`signed` prints it, except near zero, where whether the interval excludes 0
    turns on it: exactly 0 is ``0.0`` (no sign), and one that :func:`signed` would round to ``+0.0`` gets the
    decimals that show its sign (``-0.02``), up to three more; a bound closer to 0 than that is printed as 0."""
    x = float(x)
    for d in range(digits, digits + 4):
        if round(x, d) != 0:
            return signed(x, d)
    return f"{0:.{digits}f}"


def signed_interval(diff: float, lo: float, hi: float, unit: str = "", scale: float = 100, digits: int = 1) -> str:
    """A difference, its ``unit`` and its interval (bounds by :func:`bound`), times ``scale`` (0-1 shares to
    percentage points by default): ``+9.5 pp [+1.3, +17.7]`` with ``unit=" pp"``, ``-1.2 pp [-6.0, 0.0]`` for an
    interval that reaches 0 and ``+0.6 [-0.02, +2.8]`` for one that just crosses it."""
    return f"{signed(scale * diff, digits)}{unit} [{bound(scale * lo, digits)}, {bound(scale * hi, digits)}]"


def rounded(table, digits: int = 3, counts: tuple[str, ...] = ()):
    """A table (DataFrame or Series) as a page shows it: ``table.round(digits)`` with every float that rounds to
    zero made ``0.0``, so a difference or bound just below zero prints ``0.000``, never ``-0.000`` (the table's
    :func:`signed`); the ``counts`` columns, and every float column named ``n`` or ``n_...``, as whole numbers
    (``1419``, not ``1419.0``, a missing one ``<NA>``) when all their values are; other columns unchanged."""
    import pandas as pd

    out = table.round(digits)
    if isinstance(out, pd.Series):
        return out + 0.0 if pd.api.types.is_float_dtype(out) else out
    floats = out.select_dtypes("floating").columns
    whole = [c for c in floats if (c in counts or c == "n" or str(c).startswith("n_"))
             and (out[c].dropna() % 1 == 0).all()]
    return out.assign(**{c: out[c].astype("Int64") if c in whole else out[c] + 0.0 for c in floats})
