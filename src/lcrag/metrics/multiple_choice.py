"""Scoring multiple-choice answers (BAMBOO): three scorers, from strict to format-proof.

- :func:`bamboo_letter`: BAMBOO's own scorer: the first character of the first line of the answer.
- :func:`lenient_letter`: a letter however the model wraps it ("Answer: (B)", "The answer is B.", "b)").
- :func:`logprob_letter`: argmax over A-D of the first generated position's top logprobs (where the
  endpoint returns them), so a model that would have said "B" but wrote "The" still gets scored.
"""

from __future__ import annotations

import re

LETTERS = ("A", "B", "C", "D")

_LENIENT_PATTERNS = [
    re.compile(r"^\s*\(?([A-D])\)?(?:[.):,\s]|$)"),  # "B", "B.", "(B)", "B) text"
    re.compile(r"\b(?:answer|option|choice)\s*(?:is|:)?\s*\(?([A-D])\b", re.IGNORECASE),
    re.compile(r"\b([A-D])\s*[.)]\s"),  # "... B. apple"
    re.compile(r"\b([A-D])\b"),  # a lone capital letter anywhere
]


def bamboo_letter(answer: str) -> str | None:
    """BAMBOO's scorer: the first character of the first line (None when the answer is empty)."""
    first = (answer or "").strip().split("\n")[0].strip()
    return first[0] if first else None


def lenient_letter(answer: str) -> str | None:
    """The first A-D letter the answer commits to, trying patterns from the most to the least explicit."""
    text = (answer or "").strip()
    if not text:
        return None
    if len(text) == 1 and text.upper() in LETTERS:
        return text.upper()
    for pattern in _LENIENT_PATTERNS:
        m = pattern.search(text)
        if m:
            return m.group(1).upper()
    return None


def logprob_letter(top_logprobs: dict[str, float]) -> str | None:
    """Argmax over A-D among the top alternatives at the first position (tokens stripped, any case)."""
    best: dict[str, float] = {}
    for token, lp in (top_logprobs or {}).items():
        t = token.strip().strip("(").upper()
        if t in LETTERS:
            best[t] = max(lp, best.get(t, float("-inf")))
    return max(best, key=best.get) if best else None


# ----------------------------------------------------------------------------- BAMBOO's evaluate.py, exactly


def bamboo_eval_letter(answer: str) -> str | None:
    """BAMBOO's ``evaluate.py`` (``qa_accuracy``) exactly: the first character of the first line, any case.

    ``pred.strip().split('\\n')[0].strip(' ')[0]`` is mapped to ``X`` when it is ``X`` or ``x`` (the released
    ``"[X" in pred`` test can never hold for one character). So "Answer: B" scores as A and "based on" as B:
    this is the raw scorer the thesis's Table 6.1 row 1 used. None where evaluate.py says "F" (or crashes,
    on an empty answer). :func:`bamboo_letter` is the same without the case folding.
    """
    first = (answer or "").strip().split("\n")[0].strip(" ")
    if not first:
        return None
    c = first[0].upper()
    return c if c in LETTERS else None


# ----------------------------------------------------------------------------- uncertainty and paired tests


def bootstrap_ci(values, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (e.g. 0/1 correctness, one per case).

    Cases are resampled with replacement ``n_boot`` times with a fixed ``seed`` (the same data give the same
    interval). NaN bounds for an empty input.
    """
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    return _percentile_interval(_resampled_means(x, n_boot, rng), level)


def _resampled_means(x, n_boot: int, rng):
    """The means of ``n_boot`` resamples of ``x`` with replacement."""
    return x[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)


def _percentile_interval(stats, level: float) -> tuple[float, float]:
    """The central ``level`` percentile interval of bootstrap statistics."""
    import numpy as np

    tail = (1.0 - level) / 2.0 * 100.0
    return (float(np.percentile(stats, tail)), float(np.percentile(stats, 100.0 - tail)))


def paired_bootstrap_ci(a, b, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(a) - mean(b)`` for paired values (the same cases, same order).

    Resampling pairs keeps the correlation between the two settings (a case hard for one is often hard for the
    other), so the interval is narrower and more honest than two separate intervals.
    """
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired values must have the same length, got {a.size} and {b.size}")
    return bootstrap_ci(a - b, n_boot=n_boot, level=level, seed=seed)


def unpaired_bootstrap_ci(a, b, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(a) - mean(b)`` for two independent groups (e.g. the responses of
    two length bins): each group is resampled on its own. NaN bounds when either group is empty."""
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.size == 0 or b.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    return _percentile_interval(_resampled_means(a, n_boot, rng) - _resampled_means(b, n_boot, rng), level)


def mcnemar_test(a, b) -> dict:
    """McNemar's exact test for paired correctness ``a`` and ``b`` (booleans, one per case).

    Only the discordant cases count: ``a_only`` (a right, b wrong) and ``b_only`` (b right, a wrong). Under
    the null hypothesis (same accuracy) each discordant case falls either way with probability 1/2, so the
    two-sided p-value is the binomial test of ``a_only`` out of ``a_only + b_only`` (1.0 when there is no
    discordant case). Also returned: the continuity-corrected chi-square statistic, for reference.
    """
    import numpy as np
    from scipy.stats import binomtest

    a = np.asarray(a, dtype=bool)
    b = np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"paired values must have the same length, got {a.size} and {b.size}")
    a_only = int(np.sum(a & ~b))
    b_only = int(np.sum(~a & b))
    n = a_only + b_only
    p = 1.0 if n == 0 else float(binomtest(a_only, n, 0.5).pvalue)
    chi2 = 0.0 if n == 0 else max(abs(a_only - b_only) - 1, 0) ** 2 / n
    return {"n": int(a.size), "a_only": a_only, "b_only": b_only, "chi2": float(chi2), "p_value": p}
