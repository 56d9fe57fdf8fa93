"""What LongRAG's claims on our runs share: the chapter's floor rule, how a claim's intervals are shown, how
per-dataset verdicts combine, and the reason a claim whose arms did not run cannot be tested.

The claims on the strategies (:mod:`lcrag.papers.longrag.claims_runs`) and on the grid and transfer sections
(:mod:`lcrag.papers.longrag.claims_sections`) both use them, and the chapter's comparison in the synthesis
(:mod:`lcrag.papers.longrag.comparison`) asks the same floor rule (:func:`dataset_floor`), so they always agree.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import pandas as pd

from lcrag.book import verdicts
from lcrag.book.verdicts import floor_reason, per_unit_floor
from lcrag.stats import signed_interval


def majority(verdicts: Sequence[bool | None]) -> bool | None:
    """True if more than half passed, False once a majority can no longer pass, None otherwise."""
    n = len(verdicts)
    if n == 0:
        return None
    if sum(v is True for v in verdicts) > n / 2:
        return True
    if sum(v is False for v in verdicts) >= n - n // 2:
        return False
    return None


def intervals_text(rows: pd.DataFrame) -> str:
    """``dataset +3.1 [-1.0, +7.2] (n=30)`` per row, in F1 points; when the rows hold more than one pair of
    strategies (C11: E&F against each other one), each names its pair: ``dataset E&F − R&B +3.1 [...]``."""
    several = len(rows[["a", "b"]].drop_duplicates()) > 1

    def pair(r) -> str:
        return f" {r.a} − {r.b}" if several else ""

    return "; ".join(
        f"{r.dataset}{pair(r)} {signed_interval(r.diff, r.diff_lo, r.diff_hi)} (n={r.n_questions})"
        for r in rows.itertuples()
    )


def floored_datasets(rows: pd.DataFrame, strategies) -> dict[str, str]:
    """The datasets on which a claim about ``strategies`` cannot be decided, each with its reason: one of the
    strategies has a mean F1 (0-1) below the floor there (:func:`lcrag.book.verdicts.floor_reason`).

    The chapter's floor rule, in one place: its claims (:func:`lcrag.papers.longrag.claims_runs.run_claims`) and
    its comparison in the synthesis (:mod:`lcrag.papers.longrag.comparison`) both ask it (:func:`dataset_floor`),
    so they always agree."""
    means = rows[rows["strategy"].isin(list(strategies))].groupby(["dataset", "strategy"], sort=False)["f1"].mean()
    out = {}
    for d, by_s in means.groupby(level="dataset", sort=False):
        reason = floor_reason({f"{s} on {d} (mean F1)": {"score": float(f)} for (_, s), f in by_s.items()})
        if reason:
            out[d] = reason
    return out


def dataset_floor(rows: pd.DataFrame, strategies) -> tuple[list[str], str | None, str]:
    """The chapter's floor rule for a comparison of ``strategies`` over datasets (:func:`floored_datasets`,
    :func:`lcrag.book.verdicts.per_unit_floor`): (the datasets that decide it, the reason it is *not testable with
    this model* when every dataset is floored else None, the evidence note naming the floored datasets)."""
    ran = list(dict.fromkeys(rows.loc[rows["strategy"].isin(list(strategies)), "dataset"]))
    floored = floored_datasets(rows, strategies)
    reason, note = per_unit_floor(floored, ran)
    return [d for d in ran if d not in floored], reason, note


def f1_floor(rows: pd.DataFrame, strategies) -> str | None:
    """Why a claim on ``strategies`` is *not testable with this model*: on every dataset one of them is at the
    floor (:func:`floored_datasets`); None when some dataset can decide it."""
    return dataset_floor(rows, strategies)[1]


def floor_note(rows: pd.DataFrame, strategies) -> str:
    """``; not deciding (at the floor): ...`` for the floored datasets when others decide the claim."""
    return dataset_floor(rows, strategies)[2]


def not_run(rows: pd.DataFrame, strategies: Collection[str], column: str = "strategy") -> str | None:
    """Why a claim comparing ``strategies`` cannot be tested on ``rows`` (the run left some out: a profile's
    ``strategies``, ``grid``), or None when every one of them ran (:func:`lcrag.book.verdicts.not_run`)."""
    return verdicts.not_run(strategies, rows[column])
