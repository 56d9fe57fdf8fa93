"""Statistics, in one place: bootstrap intervals, McNemar's test, Cohen's kappa, the Wilson and the exact
(Clopper-Pearson) interval of a proportion, and how a difference and its interval print (:func:`signed`,
:func:`signed_interval`).

Every interval in the book is a bootstrap of a mean (or of a difference of means) over the items of a run, made
by :func:`scipy.stats.bootstrap` with the **BCa** method (bias-corrected and accelerated): at the small numbers of
items the book runs on (often 8 to 20 per setting) the percentile method's intervals are too narrow (they cover
the truth less often than they claim; ``tests/stats/test_bootstrap.py`` measures it at n = 12), and BCa corrects most of
that. A fixed ``seed`` gives the same interval for the same data, in any order (the values, or the rows of paired
columns, are sorted before resampling, so a table's downloaded rows give the page's interval whatever their
order), and a difference's interval is mirrored exactly when its two arms are swapped; no data give NaN bounds.

Degenerate data (every value equal: a model that fails all 8 cases, two arms that agree on every case) have no
spread to resample, but their mean is not known exactly: for scores on [0, 1] (and their differences, on [-1, 1])
the interval is the exact one for the share of items that could take another value when none of n did
(Clopper-Pearson: at most ``1 - 0.025 ** (1 / n)`` at 95 %, 0.37 for n = 8, 0.023 for n = 158), moved toward the
rest of the range (:func:`constant_interval`). A zero-width interval on eight cases would decide claims it cannot.
The same holds on one side of a paired difference of scores in which no item favours one arm and so few favour the
other (1 of 6 questions differs, or 2 of 158 cases, the same way) that the bootstrap's bound on the empty side is 0
exactly (at least 2.5 % of resamples hold no differing item): that bound says only that resampling cannot favour an
arm no item favoured, and would decide "no better" on it. It is moved by the same exact share toward the end of the
range (:func:`one_sided_bounds`).
Other constant data (token counts) give the point itself. A difference of two independent groups of which one is
constant (no miss in the 18 cells of a quadrant) combines each group's own interval, the constant one's exact, by
Zou and Donner's MOVER (:func:`mover_difference`): resampling alone would take the constant group as known.
:func:`is_unseen_bound` tells such an exact bound from a measured one.

Statistics that are not a mean of the items (a largest change over settings, a mean of rank correlations over
cells) get the percentile interval (:func:`paired_statistic_ci`, :func:`stratified_ci`), and a claim decided on
cells summed over clusters of items draws the clusters again by :func:`cluster_weights`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from lcrag.stats.exact import mcnemar_test

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
    share = unseen_share(n, level)
    lo, hi = bounds
    return (value - (value - lo) * share, value + (hi - value) * share)


def unseen_share(n: int, level: float = 0.95) -> float:
    """The largest share of a population that can hold items of a kind none of ``n`` sampled items was
    (Clopper-Pearson's upper bound for 0 of n, two-sided at ``level``): ``1 - 0.025 ** (1 / n)`` at 95 %."""
    return 1 - ((1 - level) / 2) ** (1 / n)


def is_unseen_bound(bound: float, n: int, end: float, level: float = 0.95) -> bool:
    """Whether an interval's ``bound`` over ``n`` items is the exact one :func:`one_sided_bounds` puts on a side of
    0 no item reached (``unseen_share(n) * end``, ``end`` that side's end of the range: 1 or -1 for scores, 100 or
    -100 in points), not one the data measured: such a bound narrows as 1/n, not 1/sqrt(n). False for no items."""
    return n > 0 and math.isclose(bound, unseen_share(n, level) * end, rel_tol=1e-9)


def one_sided_bounds(d: np.ndarray, ci: tuple[float, float], bounds: tuple[float, float],
                     level: float = 0.95) -> tuple[float, float]:
    """The interval ``ci`` of the mean of paired differences ``d`` (living in ``bounds``, about 0) with a bound
    that lies at 0 on a side of 0 no item reached (no item favours that arm, and resampling cannot tell): there
    the population may still hold a share :func:`unseen_share` of items that do, each as far as the bounds allow,
    so that bound becomes ``share * end`` (:func:`constant_interval` for a sample of zeros). A bound the data put
    off 0 (many items against the arm, or items on both sides) is unchanged."""
    lo, hi = ci
    if not d.size:
        return ci
    share = unseen_share(d.size, level)
    if d.max() <= 0 <= hi:
        hi = share * bounds[1]
    if lo <= 0 <= d.min():
        lo = share * bounds[0]
    return (lo, hi)


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
        ci = bootstrap_ci(a - b, n_boot=n_boot, level=level, seed=seed, method=method, bounds=(-1.0, 1.0))
        return ci if np.ptp(a - b) == 0 else one_sided_bounds(a - b, ci, (-1.0, 1.0), level)
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


def stratified_ci(sizes: Sequence[int], statistic, n_boot: int = 2000, level: float = 0.95,
                  seed: int = 0) -> tuple[float, float, float]:
    """``(value, lo, hi)``: a statistic of several strata of items and its percentile bootstrap interval, the items
    resampled within each stratum (each stratum keeps its size). ``statistic(*positions, axis=-1)``, vectorized,
    takes the positions of the drawn items in each stratum (floats, ``0 .. size - 1``; resamples along the last
    axis), so that every column of a stratum's items travels with its item. The value is the statistic of every
    item once. Percentile, not BCa (:data:`METHOD`): for statistics that are not a mean of the items (a mean of
    rank correlations over cells), as :func:`paired_statistic_ci`."""
    from scipy.stats import bootstrap

    positions = [np.arange(size, dtype=float) for size in sizes]
    point = float(statistic(*positions))
    res = bootstrap(positions, statistic, n_resamples=n_boot, confidence_level=level, method="percentile",
                    vectorized=True, paired=False, rng=np.random.default_rng(seed))
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return (point, min(lo, point), max(hi, point))


def cluster_weights(n_clusters: int, n_draws: int, seed: int = 0) -> np.ndarray:
    """Draws x clusters: how often each of ``n_clusters`` clusters (the subtopics whose summaries travel together)
    is drawn in each of ``n_draws`` resamples of the clusters with replacement, ``n_clusters`` of them each
    (multinomial, every cluster equally likely, seeded). A statistic that sums over clusters takes a draw as
    ``weights @ per_cluster_sums``."""
    return np.random.default_rng(seed).multinomial(n_clusters, np.full(n_clusters, 1 / n_clusters), size=n_draws)


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


def paired_comparison(a, b, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> dict:
    """Two settings answered the same cases (``a``, ``b``: booleans, right or wrong): the difference of their
    accuracies with a paired bootstrap interval (at ``level``), and McNemar's exact test on the cases where they
    disagree."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    lo, hi = paired_bootstrap_ci(a, b, n_boot=n_boot, level=level, seed=seed)
    m = mcnemar_test(a, b)
    return {"n": len(a), "diff": a.mean() - b.mean() if len(a) else np.nan, "ci_low": lo, "ci_high": hi,
            "a_only": m["a_only"], "b_only": m["b_only"], "mcnemar_p": m["p_value"]}
