"""Claims ledger: each chapter checks the paper's headline claims against its own numbers.

A verdict is computed, never typed. The paper's claims are data: ``lcrag/papers/<paper>/claims.csv`` declares
each one's text and the paper's value, typed once (:func:`lcrag.papers.tables.declared_claims`). A chapter gives
our value and the *outcome of a test* (``True``/``False``, or ``None`` when the test cannot decide; the interval
decisions: :func:`interval_in` in :mod:`lcrag.book.comparisons`), or, for a claim no run can test because the
data it needs were never released, what is missing (``unreleased=``), and for a claim whose values the paper
prints only in a figure, which figure (``figure_only=``)::

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

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lcrag import config
from lcrag.book.comparisons import (  # noqa: F401  (re-exported: chapters import them from here)
    CLOSED,
    NEITHER,
    OPEN,
    SLACK,
    _missing,
    absent,
    all_of,
    at_least,
    below_margin,
    declared_test,
    greater,
    interval_in,
    less,
    within,
    within_margin,
)
from lcrag.book.verdicts import FIGURE_ONLY, NOT_RELEASED, NOTHING_CHECKED, REASON_LABELS, SOURCES, source_of
from lcrag.papers.tables import DeclaredClaim, declared_claims

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
NOT_TESTABLE = "not testable with this model"  # an arm at the floor (lcrag.book.verdicts.floor_reason)
#: The paper prints the values the claim needs only in a figure (a plot without numbers), which this book has not
#: digitised (``ClaimsLedger.check(..., figure_only=...)``): the values exist and anyone may read them off the plot,
#: but no value was checked. Not a test's outcome, so never counted with the claims a chapter checked.
FIGURE_ONLY_VERDICT = "not checked (values only in a figure)"
#: No run, by anyone, can test the claim: the data it needs (the paper's data set, its human labels, its intermediate
#: outputs) were never released (``ClaimsLedger.check(..., unreleased=...)``). Not a test's outcome, so never
#: counted with the claims a chapter checked.
UNRELEASED = "not testable (data not released)"
VERDICTS: tuple[str, ...] = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTABLE, FIGURE_ONLY_VERDICT, UNRELEASED)
#: The verdicts of claims on which nothing was checked (their source is :data:`lcrag.book.verdicts.NOTHING_CHECKED`).
UNCHECKED_VERDICTS: tuple[str, ...] = (FIGURE_ONLY_VERDICT, UNRELEASED)
#: The verdicts of claims a test decided or tried to decide on some run: all but :data:`UNCHECKED_VERDICTS`.
CHECKED_VERDICTS: tuple[str, ...] = tuple(v for v in VERDICTS if v not in UNCHECKED_VERDICTS)

#: Appended to the paper key of a claim that is the book's reading of a paper's words, not the paper's own claim
#: (``ClaimsLedger.check(..., book_reading=True)``; the thesis's H4d): the claims page tallies it apart from the
#: paper's claims.
BOOK_READING = " (the book's reading)"
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

    def check(
        self,
        claim_id: str,
        text: str | None = None,
        paper_value: Any = DECLARED,
        our_value: Any = None,
        passed: bool | None = None,
        evidence: str = "",
        anchor: str = "",
        floor: str | None = None,
        source: str | None = None,
        model: str | None = None,
        untestable: str | None = None,
        not_run: str | None = None,
        unreleased: str | None = None,
        figure_only: str | None = None,
        book_reading: bool = False,
    ) -> Claim:
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
        labels, its intermediate outputs): no run can test it, and the verdict is *not testable (data not
        released)*, the evidence starting ``"not released: <unreleased>"`` (:data:`lcrag.book.verdicts.NOT_RELEASED`),
        any ``evidence`` after it. Given with a test's outcome (``passed`` True or False) or with a reason of
        another verdict (``floor``, ``not_run``, ``untestable``), it is a ValueError: a claim nobody can test has
        no test. ``figure_only`` names the figure that alone holds the values the claim needs (the paper prints them
        only as a plot, which this book has not digitised): the verdict is *not checked (values only in a figure)*,
        the evidence starting ``"values only in a figure: <figure_only>"`` (:data:`lcrag.book.verdicts.FIGURE_ONLY`),
        under the same conditions. Either one's source is :data:`lcrag.book.verdicts.NOTHING_CHECKED`: no value was
        checked, whatever the ledger's model. ``book_reading`` marks a claim that is the book's reading of the paper's
        words, not the paper's own (its paper key gets :data:`BOOK_READING`, so the claims page tallies it apart).

        A claim declared in ``lcrag/papers/<paper>/claims.csv`` takes its text and paper value from there (give
        neither: a paper's number is typed once); a claim whose text depends on the run gives both."""
        text, paper_value = self._declared(str(claim_id), text, paper_value)
        unchecked = [(label, what) for label, what in ((NOT_RELEASED, unreleased), (FIGURE_ONLY, figure_only)) if what]
        if unchecked:
            if passed is not None or floor or not_run or untestable or len(unchecked) > 1:
                raise ValueError(f"claim {claim_id}: unreleased= or figure_only= (nothing to check) cannot come with a "
                                 f"test's outcome (passed={passed!r}), another reason (floor, not_run, untestable) or "
                                 "each other")
            (label, what), = unchecked
            evidence = f"{label}: {what}" + (f"; {evidence}" if evidence else "")
            source = NOTHING_CHECKED
        for label, reason in zip(REASON_LABELS, (floor, not_run, untestable), strict=True):
            if reason:
                evidence = f"{evidence}; {label}: {reason}" if evidence else f"{label}: {reason}"
        claim = Claim(
            chapter=self.chapter,
            claim_id=str(claim_id),
            paper=self.paper + (BOOK_READING if book_reading else ""),
            text=text,
            paper_value=paper_value,
            our_value=our_value,
            model=model or self.model,
            verdict=(UNRELEASED if unreleased else FIGURE_ONLY_VERDICT if figure_only
                     else NOT_TESTABLE if floor or not_run or untestable else verdict(passed)),
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
