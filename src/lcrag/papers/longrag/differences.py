"""Paired differences of per-question F1 between LongRAG's strategies, with bootstrap intervals (our runs).

:func:`strategy_differences` bootstraps F1(a) − F1(b) per generator x dataset x strategy pair on the questions
both strategies scored (:func:`paired_f1`); the claims on our runs (:mod:`lcrag.papers.longrag.claims_runs`) and
the chapter's differences table use it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lcrag.stats import bootstrap_diff, signed_interval

RESULT_COLUMNS = ("dataset", "strategy", "f1", "question_id", "generator")

#: Strategy pairs whose F1 differences :func:`strategy_differences` bootstraps by default (a − b).
RUN_PAIRS: tuple[tuple[str, str], ...] = (
    ("E&F", "R&B"),
    ("R&L", "R&B"),
    ("Ext", "R&L"),
    ("Ext", "R&B"),
    ("Fil", "R&B"),
    ("E&F", "Ext"),
    ("E&F", "Fil"),
    ("E&F", "R&L"),
)


def check_results(results: pd.DataFrame) -> None:
    """Raise ValueError on missing columns, an f1 outside 0-1 (or missing) or a question scored twice in a cell."""
    missing = [c for c in RESULT_COLUMNS if c not in results.columns]
    if missing:
        raise ValueError(f"results lack columns {missing} (need {list(RESULT_COLUMNS)})")
    keys = ["generator", "dataset", "strategy", "question_id"]
    if "setting" in results.columns:
        keys.append("setting")
    f1 = pd.to_numeric(results["f1"], errors="coerce")
    if f1.isna().any() or not f1.between(0, 1).all():
        raise ValueError(
            f"f1 must be a number in 0-1 per question (got {results['f1'].max()!r} at most; F1 points?)"
        )
    dup = results.duplicated(keys, keep=False)
    if dup.any():
        first = results.loc[dup, keys].iloc[0].to_dict()
        raise ValueError(f"results score the same question twice, e.g. {first}")


def paired_f1(results: pd.DataFrame, dataset: str, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-question F1 of strategies ``a`` and ``b`` on ``dataset``, aligned by question_id (questions scored
    under only one of them are left out; compare the lengths with the counts to see how many)."""
    d = results[results["dataset"] == dataset]
    wide = d[d["strategy"].isin([a, b])].pivot(index="question_id", columns="strategy", values="f1")
    if a not in wide or b not in wide:
        return np.array([]), np.array([])
    wide = wide.dropna(subset=[a, b])
    return wide[a].to_numpy(float), wide[b].to_numpy(float)


def strategy_differences(
    results: pd.DataFrame,
    pairs: Sequence[tuple[str, str]] = RUN_PAIRS,
    n: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Paired bootstrap of F1(a) − F1(b) per generator x dataset x pair, on the question_ids both scored.

    ``results`` has one row per question and strategy (columns :data:`RESULT_COLUMNS`, f1 in 0-1). Pairs whose
    strategies did not both run are skipped. Columns: generator, dataset, a, b, n_questions, n_dropped
    (questions scored under only one of the two), f1_a, f1_b, diff, diff_lo, diff_hi (95 % CI), all in 0-1.
    """
    check_results(results)
    records = []
    for (gen, dataset), part in results.groupby(["generator", "dataset"], sort=False):
        for a, b in pairs:
            x, y = paired_f1(part, dataset, a, b)
            if not len(x):
                continue
            ids = part.loc[part["strategy"].isin([a, b]), "question_id"]
            mean, lo, hi = bootstrap_diff(x, y, n_boot=n, seed=seed)
            records.append(
                {
                    "generator": gen,
                    "dataset": dataset,
                    "a": a,
                    "b": b,
                    "n_questions": len(x),
                    "n_dropped": int(ids.nunique()) - len(x),
                    "f1_a": float(x.mean()),
                    "f1_b": float(y.mean()),
                    "diff": mean,
                    "diff_lo": lo,
                    "diff_hi": hi,
                }
            )
    cols = [
        "generator",
        "dataset",
        "a",
        "b",
        "n_questions",
        "n_dropped",
        "f1_a",
        "f1_b",
        "diff",
        "diff_lo",
        "diff_hi",
    ]
    return pd.DataFrame(records, columns=cols)



def arm_sentence(diffs: pd.DataFrame, arm: str = "Full") -> str:
    """What the paired intervals of :func:`strategy_differences` say about ``arm`` against the strategies, written
    from the table (never typed): how many of its differences have a 95 % interval that excludes 0, which ones, and
    the number of questions per dataset they rest on."""
    rows = diffs[(diffs["a"] == arm) | (diffs["b"] == arm)]
    if rows.empty:
        return f"No difference with the {arm} arm was computed."
    sizes = rows.groupby("dataset", sort=False)["n_questions"].max()
    per = (f"{sizes.iloc[0]} questions per dataset" if sizes.nunique() == 1
           else ", ".join(f"{n} questions on {d}" for d, n in sizes.items()))
    clear = rows[(rows["diff_lo"] > 0) | (rows["diff_hi"] < 0)]

    def item(r) -> str:
        return f"{r.a} − {r.b} on {r.dataset} {signed_interval(r.diff, r.diff_lo, r.diff_hi, ' points')}"

    if clear.empty:
        return (f"With {per}, every one of the {len(rows)} paired 95 % intervals of a difference with the {arm} "
                f"arm above contains 0: this run cannot tell the {arm} arm from any strategy it was compared with.")
    rest = len(rows) - len(clear)
    tail = f"; the other {rest} contain 0" if rest else ""
    return (f"With {per}, {len(clear)} of the {len(rows)} paired 95 % intervals of a difference with the {arm} "
            f"arm above exclude 0: {'; '.join(item(r) for r in clear.itertuples())}{tail}.")


def baseline_sentence(diffs: pd.DataFrame, baseline: str = "Closed") -> str:
    """Whether any strategy is shown to beat ``baseline`` (answering with no context: a strategy that cannot beat it
    is not shown to use its context), written from the rows of :func:`strategy_differences` with ``b`` the
    baseline: each difference with its 95 % interval, and which of them lie above 0."""
    rows = diffs[diffs["b"] == baseline]
    if rows.empty:
        return f"No strategy was compared with the {baseline} arm."

    def item(r) -> str:
        return f"{r.a} − {baseline} on {r.dataset} {signed_interval(r.diff, r.diff_lo, r.diff_hi, ' points')}"

    from lcrag.book.verdicts import score_at_floor

    above = rows[rows["diff_lo"] > 0]
    listed = "; ".join(item(r) for r in rows.itertuples())
    head = (f"Against answering with no context ({baseline}, the baseline a strategy has to beat to show that it "
            f"uses its context): {listed}.")
    low = ([d for d, f in rows.groupby("dataset", sort=False)["f1_b"].first().items() if score_at_floor(f)]
           if "f1_b" in rows else [])
    if low:  # expected of a no-context baseline; it still decides: a strategy above it uses its context
        head += (f" ({baseline} is at the chapter's floor on {' and '.join(low)}, as answering without the "
                 "documents may be; a strategy whose interval lies above it there would still show that it uses "
                 "its context.)")
    if above.empty:
        return (head + f" None of these intervals lies above 0: this run does not show that any strategy compared "
                f"with {baseline}, plain retrieval included, beats answering without context.")
    shown = ", ".join(f"{r.a} on {r.dataset}" for r in above.itertuples())
    verb = "lies" if len(above) == 1 else "lie"
    return head + f" {len(above)} of the {len(rows)} intervals {verb} above 0 ({shown}); the others do not show a gain."
