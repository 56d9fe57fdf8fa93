"""Claims ledger: each chapter checks the paper's headline claims against its own numbers.

A verdict is computed, never typed. The paper's claims are data: ``lcrag/papers/<paper>/claims.csv`` declares
each one's text and the paper's value, typed once (:func:`lcrag.papers.tables.declared_claims`). A chapter gives
our value and the *outcome of a test* (``True``/``False``, or ``None`` when the test cannot decide; the interval
decisions are here: :func:`interval_in` and its readings), or, for a claim no run can test because the data it
needs were never released, what is missing (``unreleased=``)::

    ledger = ClaimsLedger(None, paper="thesis")        # chapter and model from the runner's env
    ledger.check("H8", our_value=acc_evidence - acc_full,   # text and paper value from thesis/claims.csv
                 passed=greater(acc_evidence, acc_full, ci=diff_ci), evidence="paired bootstrap 95% CI")
    ledger.save()           # claims.csv in the run directory; ledger.table(): a DataFrame for the chapter

A claim whose wording depends on the run gives its text and paper value in the call instead. A claim whose file
names a ``test`` and a ``tolerance`` is decided by :func:`declared_test` (``passed=ledger.test("C1", ours)``); one
whose code decides it reads its margin there (``ledger.tolerance("C14")``). The book's claims page collects every
chapter's ``claims.csv`` (:func:`lcrag.book.claims_page.summary_markdown`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lcrag import config
from lcrag.book.verdicts import NOT_RELEASED, REASON_LABELS, SOURCES, source_of
from lcrag.papers.tables import DeclaredClaim, declared_claims

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
NOT_TESTABLE = "not testable with this model"  # an arm at the floor (lcrag.book.verdicts.floor_reason)
#: No run, by anyone, can test the claim: the data it needs (the paper's data set, its human labels, values shown only
#: in its figures) were never released (``ClaimsLedger.check(..., unreleased=...)``). Not a test's outcome, so never
#: counted with the claims a chapter checked.
UNRELEASED = "not testable (data not released)"
VERDICTS: tuple[str, ...] = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTABLE, UNRELEASED)
#: The verdicts of claims a test decided or tried to decide on some run: all but :data:`UNRELEASED`.
CHECKED_VERDICTS: tuple[str, ...] = tuple(v for v in VERDICTS if v != UNRELEASED)

CLAIMS_FILE = "claims.csv"
DECLARED = object()  # ClaimsLedger.check's default paper value: the one declared in the paper's claims.csv
COLUMNS = (
    "chapter",
    "claim_id",
    "paper",
    "text",
    "paper_value",
    "our_value",
    "model",
    "source",
    "verdict",
    "evidence",
    "anchor",
)


def verdict(passed: bool | None) -> str:
    """``True`` -> reproduced, ``False`` -> not reproduced, ``None`` -> inconclusive. Anything else (a string, a
    number) is a TypeError: a verdict comes from a computed test."""
    if passed is None:
        return INCONCLUSIVE
    if isinstance(passed, np.bool_):  # from a numpy or pandas comparison
        passed = bool(passed)
    if not isinstance(passed, bool):
        raise TypeError(f"passed must be True, False or None (a test's outcome), not {passed!r}")
    return REPRODUCED if passed else NOT_REPRODUCED


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
    with no test)."""
    if not verdicts:
        return None
    if any(v is False for v in verdicts):
        return False
    return True if all(v is True for v in verdicts) else None


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


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, checked on our numbers."""

    chapter: str
    claim_id: str
    paper: str
    text: str
    paper_value: Any
    our_value: Any
    model: str
    verdict: str
    evidence: str = ""
    anchor: str = ""  # a MyST label in the chapter, e.g. "thesis-h1", for links from the summary
    source: str = ""  # where the evidence comes from: one of lcrag.book.verdicts.SOURCES


class ClaimsLedger:
    """The claims one chapter checks, for one paper and one model.

    ``chapter`` and ``model`` default to the runner's ``LCRAG_CHAPTER`` and ``LCRAG_MODEL``; ``source`` (where
    the evidence comes from, :data:`lcrag.book.verdicts.SOURCES`) defaults to what ``model`` names: the paper's
    tables, its released artefacts, or a run of that model. Checking the same ``claim_id`` again replaces the
    earlier entry (a re-executed cell).
    """

    def __init__(self, chapter: str | None, paper: str, model: str | None = None, source: str | None = None):
        self.chapter = chapter or config.chapter() or "unknown"
        self.paper = paper
        self.model = model or config.default_model()
        self.source = _checked_source(source or source_of(self.model))
        self._claims: dict[str, Claim] = {}

    def check(self, claim_id: str, text: str | None = None, paper_value: Any = DECLARED, our_value: Any = None,
              passed: bool | None = None, evidence: str = "", anchor: str = "", floor: str | None = None,
              source: str | None = None, model: str | None = None, untestable: str | None = None,
              not_run: str | None = None, unreleased: str | None = None) -> Claim:
        """Record a claim with the verdict that ``passed`` (a computed test's outcome) implies, or *not testable
        with this model* when ``floor`` gives a reason (an arm at the floor: :func:`lcrag.book.verdicts.
        floor_reason`), when ``not_run`` says which of the runs it compares this run left out (a profile without
        them: :func:`lcrag.book.verdicts.not_run`), or when ``untestable`` gives another reason the run cannot
        test the claim (e.g. the paper's embedding model is not ours), whatever the test said. The evidence
        names the reason after its label (:data:`lcrag.book.verdicts.REASON_LABELS`). ``model`` overrides the
        ledger's for this claim: the model whose outputs decide it (e.g. a judge of released summaries in a
        summarizer's ledger; ``"no model"`` for a computation that needs none), and ``source`` defaults to what it
        names (:func:`lcrag.book.verdicts.source_of`); ``source`` overrides both (e.g. a check in a model's ledger
        that needs no model).

        ``unreleased`` says what data the claim needs that were never released (the paper's data set, its human
        labels, values only in its figures): no run can test it, and the verdict is *not testable (data not
        released)*, the evidence starting ``"not released: <unreleased>"`` (:data:`lcrag.book.verdicts.NOT_RELEASED`),
        any ``evidence`` after it. Given with a test's outcome (``passed`` True or False) or with a reason of
        another verdict (``floor``, ``not_run``, ``untestable``), it is a ValueError: a claim nobody can test has
        no test.

        A claim declared in ``lcrag/papers/<paper>/claims.csv`` takes its text and paper value from there (give
        neither: a paper's number is typed once); a claim whose text depends on the run gives both."""
        text, paper_value = self._declared(str(claim_id), text, paper_value)
        if unreleased:
            if passed is not None or floor or not_run or untestable:
                raise ValueError(f"claim {claim_id}: unreleased= (no run can test it) cannot come with a test's outcome "
                                 f"(passed={passed!r}) or another reason (floor, not_run, untestable)")
            evidence = f"{NOT_RELEASED}: {unreleased}" + (f"; {evidence}" if evidence else "")
        for label, reason in zip(REASON_LABELS, (floor, not_run, untestable), strict=True):
            if reason:
                evidence = f"{evidence}; {label}: {reason}" if evidence else f"{label}: {reason}"
        claim = Claim(
            chapter=self.chapter,
            claim_id=str(claim_id),
            paper=self.paper,
            text=text,
            paper_value=paper_value,
            our_value=our_value,
            model=model or self.model,
            verdict=(UNRELEASED if unreleased else NOT_TESTABLE if floor or not_run or untestable
                     else verdict(passed)),
            evidence=evidence,
            anchor=anchor,
            source=_checked_source(source or (source_of(model) if model else self.source)),
        )
        self._claims[claim.claim_id] = claim
        return claim

    def _declared(self, claim_id: str, text: str | None, paper_value: Any) -> tuple[str, Any]:
        declared = declared_claims(self.paper).get(claim_id)
        given = text is not None or paper_value is not DECLARED
        if declared is not None and given:
            raise ValueError(f"claim {claim_id} of {self.paper!r} is declared in its claims.csv: give neither its text "
                             "nor its paper value here (a paper's number is typed once)")
        if declared is not None:
            return declared.text, declared.paper_value
        if text is None or paper_value is DECLARED:
            raise ValueError(f"claim {claim_id} of {self.paper!r} is not declared in lcrag/papers/{self.paper}/"
                             "claims.csv: declare it there, or give its text and paper value")
        return text, paper_value

    def declared(self, claim_id: str) -> DeclaredClaim:
        """Claim ``claim_id`` as the paper's claims.csv declares it (KeyError if it does not)."""
        declared = declared_claims(self.paper).get(claim_id)
        if declared is None:
            raise KeyError(f"claim {claim_id} is not declared in lcrag/papers/{self.paper}/claims.csv")
        return declared

    def test(self, claim_id: str, ours: float | None) -> bool | None:
        """The declared comparison of claim ``claim_id`` applied to our number (:func:`declared_test`)."""
        return declared_test(self.declared(claim_id), ours)

    def tolerance(self, claim_id: str) -> float:
        """The tolerance (margin, bound) claim ``claim_id`` declares; a ValueError if it declares none."""
        tol = self.declared(claim_id).tolerance
        if tol is None:
            raise ValueError(f"claim {claim_id} of {self.paper!r} declares no tolerance in its claims.csv")
        return tol

    @property
    def claims(self) -> list[Claim]:
        return list(self._claims.values())

    def table(self) -> pd.DataFrame:
        """One row per claim, in the order they were checked."""
        return pd.DataFrame([asdict(c) for c in self.claims], columns=list(COLUMNS))

    def counts(self) -> dict[str, int]:
        """Number of claims per verdict (every verdict present)."""
        return {v: sum(c.verdict == v for c in self.claims) for v in VERDICTS}

    def save(self, path: Path | None = None) -> Path:
        """Write ``claims.csv`` to ``path``, else the run directory, else the working directory."""
        path = Path(path) if path else (config.run_dir() or Path.cwd()) / CLAIMS_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        self.table().to_csv(path, index=False)
        return path


def _checked_source(source: str) -> str:
    if source not in SOURCES:
        raise ValueError(f"a claim's source must be one of {SOURCES}, not {source!r}")
    return source


def save_ledgers(ledgers: list[ClaimsLedger], path: Path | None = None) -> Path:
    """Write several ledgers of one chapter (e.g. one per model, or the paper's tables and our runs) as one
    ``claims.csv``, in order; a claim id checked in two ledgers keeps both rows (their models differ)."""
    path = Path(path) if path else (config.run_dir() or Path.cwd()) / CLAIMS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.concat([ledger.table() for ledger in ledgers], ignore_index=True).to_csv(path, index=False)
    return path


#: The columns a chapter shows of its claims (``claims.csv`` keeps them all).
SHOWN_COLUMNS = ("claim_id", "model", "text", "paper_value", "our_value", "verdict", "evidence")


def shown(value: Any) -> str:
    """A claim's value as a reader sees it: a number with at most four significant digits and no trailing zeros
    (``6.94``, ``0.716``, ``15000``; ``0``, never ``-0``), nothing for a missing one, yes/no for a test's outcome,
    text as it is."""
    if _missing(value):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return np.format_float_positional(float(value) + 0.0, precision=4, unique=True, fractional=False, trim="-")
    return str(value)


def save_and_show(ledgers: list[ClaimsLedger], columns=SHOWN_COLUMNS):
    """:func:`save_ledgers`, then the chapter's view of the claims: every ledger's rows in order, ``columns``
    (the evidence included: it names the test, the interval and any arm at the floor), each cell in full (a
    pandas Styler: no text cut at ``display.max_colwidth``, no index) and each value :func:`shown` as on the
    claims page, its text HTML-escaped (``depth < 50 %`` prints as written; no cell holds markup)."""
    save_ledgers(ledgers)
    table = pd.concat([ledger.table() for ledger in ledgers], ignore_index=True)[list(columns)]
    styled = table.style.hide(axis="index").format(shown, escape="html")
    return styled.set_table_attributes('class="dataframe"')  # styled like the others


def read_claims(path: Path) -> pd.DataFrame:
    """Read a ``claims.csv``; raise ValueError naming the file if columns or verdicts are wrong."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    for column, allowed in (("verdict", VERDICTS), ("source", SOURCES)):
        bad = df.loc[~df[column].isin(allowed)]
        if len(bad):
            row = int(bad.index[0]) + 2  # header is line 1
            raise ValueError(f"{path} line {row}: {column} {bad[column].iloc[0]!r} is not one of {allowed}")
    return df[list(COLUMNS)]
