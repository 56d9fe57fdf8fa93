"""The comparisons a claim's verdict comes from: our number against the paper's (:func:`within`,
:func:`declared_test`), one arm against another with a confidence interval (:func:`greater`, :func:`less`), an
effect's absence (:func:`absent`, an equivalence test), a quantity inside a range judged on its interval
(:func:`interval_in`, with :func:`within_margin`, :func:`below_margin`, :func:`at_least`) and several tests of
one claim together (:func:`all_of`). Each returns True, False or None (undecided); :mod:`lcrag.book.claims` turns
that outcome into a verdict (and re-exports them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from lcrag.papers.tables import DeclaredClaim


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def within(our: float | None, paper: float | None, tol: float, *, relative: bool = False) -> bool | None:
    """Is ``our`` within ``tol`` of ``paper`` (``tol * |paper|`` when ``relative``)? None when either value is
    missing (None or NaN): nothing to compare."""
    if _missing(our) or _missing(paper):
        return None
    if tol < 0:
        raise ValueError(f"tol must be >= 0, not {tol}")
    bound = tol * abs(paper) if relative else tol
    return bool(abs(our - paper) <= bound)


def greater(a: float | None, b: float | None, margin: float = 0.0,
            ci: tuple[float, float] | None = None) -> bool | None:
    """Is ``a`` greater than ``b`` by more than ``margin``? Without ``ci``, on the point values: ``a - b > margin``.
    With ``ci = (lo, hi)``, a confidence interval for ``a - b``, decided only when the interval clears the margin:
    :func:`interval_in` above an open bound (``lo > margin`` -> True, ``hi <= margin`` -> False, None when the
    interval contains the margin). None also when ``a`` or ``b`` is missing."""
    if _missing(a) or _missing(b):
        return None
    if ci is not None:
        if not any(_missing(x) for x in ci) and ci[0] > ci[1]:
            raise ValueError(f"confidence interval must be (lo, hi) with lo <= hi, not {ci}")
        return interval_in(ci, low=margin, bounds=OPEN)
    return bool(a - b > margin)


def all_of(verdicts: Sequence[bool | None]) -> bool | None:
    """Several tests of one claim together: True if every test passed, False if any failed, None otherwise (or
    with no test). A test may be a numpy bool."""
    if not verdicts:
        return None
    tests = [None if v is None else bool(v) for v in verdicts]
    if any(v is False for v in tests):
        return False
    return True if all(v is True for v in tests) else None


def less(a: float | None, b: float | None, margin: float = 0.0, ci: tuple[float, float] | None = None) -> bool | None:
    """Is ``a`` less than ``b`` by more than ``margin``? ``ci`` is for the difference ``a - b``."""
    flipped = None if ci is None else (-ci[1], -ci[0])
    return greater(b, a, margin, flipped)


def absent(effect: float | None, ci: tuple[float, float], margin: float) -> bool | None:
    """Is an effect absent, no larger than ``margin`` either way (an equivalence test, book/verdicts.md)? True when
    its 95 % interval ``ci`` lies inside [-margin, margin] (:func:`interval_in`, bounds included); False when the
    effect is significant (the interval excludes 0) and at least ``margin`` in size; None otherwise: a test that
    merely fails to find the effect is inconclusive. None also when anything is missing."""
    if _missing(effect) or any(_missing(x) for x in ci):
        return None
    if interval_in(ci, -margin, margin) is True:
        return True
    lo, hi = ci
    return False if (lo > 0 or hi < 0) and abs(effect) >= margin else None


#: Where a bound of :func:`interval_in`'s range lies: inside it (``[low, high]``), outside it (``(low, high)``), or
#: on neither side (an interval that touches a bound decides nothing).
CLOSED, OPEN, NEITHER = "closed", "open", "neither"


def interval_in(ci: tuple[float, float], low: float | None = None, high: float | None = None,
                bounds: str = CLOSED) -> bool | None:
    """Is a quantity between ``low`` and ``high`` (None: no bound), judged on its 95 % interval ``ci``? True when
    the whole interval lies inside the range, False when it lies wholly outside, None when it reaches across a
    bound (or is missing). Every interval decision of the book is one of these, with its rule at a bound said:
    ``bounds`` CLOSED (the bounds are in the range: True for ``low <= lo and hi <= high``, False for ``hi < low``
    or ``lo > high``), OPEN (they are out of it: True for ``low < lo and hi < high``, False for ``hi <= low`` or
    ``lo >= high``) or NEITHER (True as OPEN, False as CLOSED: an interval touching a bound is undecided). "At
    least m" is ``interval_in(ci, low=m)``, "more than m" ``interval_in(ci, low=m, bounds=OPEN)`` (:func:`greater`),
    "within t of p" ``interval_in(ci, p - t, p + t)``."""
    if bounds not in (CLOSED, OPEN, NEITHER):
        raise ValueError(f"bounds must be one of {CLOSED!r}, {OPEN!r}, {NEITHER!r}, not {bounds!r}")
    lo, hi = ci
    if _missing(lo) or _missing(hi):
        return None
    shut = bounds == CLOSED
    if (low is None or (low <= lo if shut else low < lo)) and (high is None or (hi <= high if shut else hi < high)):
        return True
    out = bounds != OPEN  # a bound touched counts as outside only when the range is open
    below = low is not None and (hi < low if out else hi <= low)
    return False if below or (high is not None and (lo > high if out else lo >= high)) else None


def within_margin(ci: tuple[float, float], margin: float) -> bool | None:
    """Is a difference no larger than ``margin`` (a one-sided equivalence test)? :func:`interval_in` below a
    closed bound: True when the whole interval lies at or below the margin, False when it lies above it."""
    return interval_in(ci, high=margin)


def below_margin(ci: tuple[float, float], margin: float) -> bool | None:
    """Is a rate below ``margin`` (an equivalence test on the needle's miss rates)? :func:`interval_in` with the
    margin on NEITHER side: True when the interval lies below it, False when it lies above it, None when it holds
    or touches it."""
    return interval_in(ci, high=margin, bounds=NEITHER)


def at_least(diff: float, ci: tuple[float, float], margin: float) -> bool | None:
    """Is a difference at least ``margin``? :func:`interval_in` above a closed bound: True when the whole interval
    lies at or above the margin, False when it lies wholly below it; None otherwise (or when the point value
    ``diff`` is missing), whatever ``diff``."""
    return None if _missing(diff) else interval_in(ci, low=margin)


#: Float rounding allowed on an inclusive bound (``within``, ``at least``, ``at most``): 6.94 computed as a
#: difference of two printed numbers may be 6.9400000001.
SLACK = 1e-9


def declared_test(claim: DeclaredClaim, ours: float | None) -> bool | None:
    """The comparison ``claim``'s file declares (its ``test``, by its ``tolerance``; none is 0) of our number
    with the paper's value: ``within`` (``|ours - paper| <= tol``), ``at least`` (``ours >= paper - tol``),
    ``at most`` (``ours <= paper + tol``), ``greater`` (``ours - paper > tol``), ``less`` (``paper - ours >
    tol``); None when ``ours`` is missing. A claim without a test is a ValueError: its code decides it."""
    tol, paper = claim.tolerance or 0.0, claim.paper_value
    if not claim.test:
        raise ValueError(f"claim {claim.claim_id} declares no test: its code decides it")
    if _missing(ours):
        return None
    tests = {
        "within": lambda: within(ours, paper, tol + SLACK),
        "at least": lambda: bool(ours >= paper - tol - SLACK),
        "at most": lambda: bool(ours <= paper + tol + SLACK),
        "greater": lambda: greater(ours, paper, tol),
        "less": lambda: less(ours, paper, tol),
    }
    return tests[claim.test]()
