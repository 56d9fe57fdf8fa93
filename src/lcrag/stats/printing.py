"""How a difference, its interval, a share in per cent and a table of numbers print on every page of the book."""

from __future__ import annotations

import math


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


def percent(share: float | None, digits: int = 1, unit: str = "", missing: str | None = None) -> str:
    """A share (0-1) in per cent to ``digits`` decimals, then ``unit``: ``12.5``, or ``12.50%`` with ``digits=2,
    unit="%"``. With ``missing``, a share that is None or a float NaN prints as it (``n/a``); without, NaN prints
    ``nan``."""
    if missing is not None and (share is None or (isinstance(share, float) and math.isnan(share))):
        return missing
    return f"{100 * share:.{digits}f}{unit}"


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
