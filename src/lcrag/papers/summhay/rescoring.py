"""Every released summary of the news haystacks rescored from its released GPT-4o judgments, next to Tables 2, 3, 5.

:func:`rescore` scores each judged insight with :mod:`lcrag.metrics.summhay`; :func:`system_scores` pools them like
the released ``compute_2d_rag_results``; :func:`compare_table2`, :func:`compare_table5`, :func:`words_table` and
:func:`position_table` put them next to the paper's Tables 2, 5, the #Wb column and Table 3; :func:`swap_check`
tests the Vect/LongE header swap. No LLM call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from lcrag.book.reading import NO_VALUE
from lcrag.metrics.summhay import INSIGHT_COLUMNS, insight_rows, micro_average, words_per_bullet
from lcrag.papers.summhay.dataset_shape import gold_documents
from lcrag.papers.summhay.names import (
    POSITION_SETTINGS,
    SETTINGS,
    SUMMARIZERS,
    TABLE2_SETTINGS,
    parse_summary_key,
)
from lcrag.papers.summhay.paper_numbers import (
    PAPER_INSIGHTS,
    PAPER_TABLE2,
    PAPER_TABLE3,
    PAPER_TABLE5,
    PAPER_WORDS_PER_BULLET,
    paper_table2,
)


def rescore(
    haystacks: Mapping, *, max_subtopics: int | None = None, link_policy: str = "parity"
) -> pd.DataFrame:
    """Score every released summary of ``haystacks`` from its released judgments: one row per judged insight.

    Columns: haystack, subtopic_id, summary_key, summarizer, setting, n_bullets, words_per_bullet, then the
    columns of :func:`lcrag.metrics.summhay.score_insights`. ``max_subtopics`` keeps the first subtopics of
    each haystack (smoke runs). A haystack without released summaries (the conversation copies) adds no rows;
    a summary without judgments is skipped and counted in ``attrs["summaries_without_judgments"]``.
    """
    rows, unjudged = [], 0
    front = ["haystack", "subtopic_id", "summary_key", "summarizer", "setting", "n_bullets", "words_per_bullet"]
    for name, h in haystacks.items():
        gold = gold_documents(h.documents)
        keep = list(h.subtopics["subtopic_id"])[: max_subtopics or None]
        judged = h.judgments[h.judgments["subtopic_id"].isin(keep)]
        judged = judged.assign(bullet_id=judged["bullet_id"].astype(object).where(judged["bullet_id"].notna(), "NA"))
        by_summary: dict[tuple, list[dict]] = {}
        for j in judged.to_dict("records"):  # plain dicts: pandas calls per summary (thousands) took seconds
            by_summary.setdefault((j["subtopic_id"], j["summary_key"]), []).append(j)
        for s in h.summaries[h.summaries["subtopic_id"].isin(keep)].itertuples():
            judgments = by_summary.get((s.subtopic_id, s.summary_key))
            if judgments is None:
                unjudged += 1
                continue
            summarizer, setting = parse_summary_key(s.summary_key)
            where = dict(zip(front, (name, s.subtopic_id, s.summary_key, summarizer, setting, len(s.bullets),
                                     words_per_bullet(s.bullets)), strict=True))
            rows += [{**where, **r} for r in insight_rows(s.bullets, judgments, gold, link_policy=link_policy)]
    out = pd.DataFrame(rows, columns=front + INSIGHT_COLUMNS).astype({"linked_bullet": "Int64"})
    out.attrs["summaries_without_judgments"] = unjudged
    return out


def expected_insights(haystacks: Mapping, max_subtopics: int | None = None) -> int:
    """How many reference insights a complete system cell covers in ``haystacks`` (336 for the 5 news ones)."""
    total = 0
    for h in haystacks.values():
        keep = list(h.subtopics["subtopic_id"])[: max_subtopics or None]
        total += int(h.insights["subtopic_id"].isin(keep).sum())
    return total


def system_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Micro-averaged scores (0-100) per summarizer and setting, with n_insights / n_covered; tidy and long."""
    pooled = micro_average(scores, by=["summarizer", "setting"])
    long = pooled.melt(
        id_vars=["summarizer", "setting", "n_insights", "n_covered"],
        value_vars=["coverage", "citation", "joint", "precision", "recall"],
        var_name="metric",
        value_name="ours",
    )
    long["ours"] = 100 * long["ours"].astype(float)
    return long[["summarizer", "setting", "metric", "ours", "n_insights", "n_covered"]]


def compare_table2(
    systems: pd.DataFrame, n_expected: int, *, swap: bool = True, n_paper: int = PAPER_INSIGHTS
) -> pd.DataFrame:
    """Our cells next to Table 2's (coverage, citation, joint), one row per cell.

    - ``judged_share``: the share of the ``n_expected`` reference insights that have a released judgment for the
      system (1.0 = the released files hold the whole cell);
    - ``diff`` = ours - paper; ``match`` = equal at the paper's rounding (one decimal);
    - ``implied_rest``: for coverage and joint (means over all insights), the mean the *other* ``n_paper - n``
      insights (those not in our files: the conversation haystacks) must have for the paper's value to hold;
      a value outside 0-100 would prove our files and the paper's table inconsistent.
    """
    paper = paper_table2(swap)
    out = paper.merge(systems, on=["summarizer", "setting", "metric"], how="left")
    out["judged_share"] = out["n_insights"] / n_expected
    out["diff"] = out["ours"] - out["paper"]
    out["match"] = (out["ours"].round(1) - out["paper"]).abs() < 1e-9
    rest = n_paper - out["n_insights"]
    implied = (out["paper"] * n_paper - out["ours"] * out["n_insights"]) / rest
    out["implied_rest"] = implied.where(out["metric"].isin(["coverage", "joint"]) & (rest > 0))
    return out[
        [
            "summarizer",
            "setting",
            "paper_column",
            "metric",
            "paper",
            "ours",
            "diff",
            "match",
            "n_insights",
            "judged_share",
            "n_covered",
            "implied_rest",
        ]
    ]


def match_rates(comparison: pd.DataFrame, tolerances: Sequence[float] = (1.0, 3.0, 5.0)) -> pd.DataFrame:
    """Per metric: cells compared, exact matches (paper's rounding), share within each tolerance (points),
    mean absolute difference and the Spearman rank correlation of ours with the paper's across cells."""
    rows = []
    for metric, g in comparison.dropna(subset=["ours"]).groupby("metric", sort=False):
        row = {"metric": metric, "cells": len(g), "exact": int(g["match"].sum())}
        for tol in tolerances:
            row[f"within_{tol:g}"] = float((g["diff"].abs() <= tol).mean())
        row["mean_abs_diff"] = g["diff"].abs().mean()
        row["rank_corr"] = g["ours"].corr(g["paper"], method="spearman")
        rows.append(row)
    return pd.DataFrame(rows)


def swap_check(systems: pd.DataFrame) -> pd.DataFrame:
    """Which reading of Table 2's "Vect" and "LongE" headers fits our cells, literal or swapped.

    Two measures per reading: the mean |ours - paper| over the 60 cells of the two columns (levels, which differ
    between the news half and the whole table anyway), and, per summarizer and score, the agreement of the
    *difference* between the two columns (Vect - LongE in the paper against vector - longembed, or its
    negative, in ours), where a shift common to both columns cancels: its correlation across the 30 pairs and
    the number of pairs with the same sign (pairs with a zero difference are not counted).
    """
    cell = systems.set_index(["summarizer", "setting", "metric"])["ours"]
    pairs = pd.DataFrame(
        [
            {
                "paper": values[1] - values[2],
                "ours": cell.get((s, "vector", metric), np.nan) - cell.get((s, "longembed", metric), np.nan),
            }
            for metric, by_summarizer in PAPER_TABLE2.items()
            for s, values in by_summarizer.items()
        ]
    ).dropna()
    rows = []
    for swap, sign in ((False, 1), (True, -1)):
        cmp = paper_table2(swap).merge(systems, on=["summarizer", "setting", "metric"])
        cells = cmp[cmp["paper_column"].isin(["Vect", "LongE"])]
        ours = sign * pairs["ours"]
        signed = (pairs["paper"] != 0) & (ours != 0)
        rows.append(
            {
                "reading": "swapped (inventory)" if swap else "literal headers",
                "cells": len(cells),
                "mean_abs_diff": (cells["ours"] - cells["paper"]).abs().mean(),
                "difference_corr": pairs["paper"].corr(ours) if len(pairs) > 1 else np.nan,
                "same_sign": int((np.sign(pairs["paper"]) == np.sign(ours))[signed].sum()),
                "pairs": int(signed.sum()),
            }
        )
    return pd.DataFrame(rows)


def wide(comparison: pd.DataFrame, metric: str, value: str = "ours") -> pd.DataFrame:
    """One metric of a long comparison as a summarizer x setting table (for display)."""
    g = comparison[comparison["metric"] == metric]
    t = g.pivot_table(index="summarizer", columns="setting", values=value, aggfunc="first")
    cols = [s for s in SETTINGS if s in t.columns]
    rows = [s for s in SUMMARIZERS if s in t.index]
    return t.loc[rows, cols]


#: How a displayed table marks a cell with no run (GPT-3.5 has no full-context run), as every page marks a missing
#: value (:data:`lcrag.book.reading.NO_VALUE`; these cells are strings, which the page does not see as missing); the
#: saved tables keep NaN.
NO_RUN = NO_VALUE


def shown(value: float) -> str:
    """A score as the chapter's tables show it: one decimal, :data:`NO_RUN` when missing."""
    return NO_RUN if pd.isna(value) else f"{value:.1f}"


def side_by_side(comparison: pd.DataFrame, metric: str) -> pd.DataFrame:
    """``ours | paper`` per setting for one metric, as strings (for the chapter's tables); a cell with neither
    value (no run) is :data:`NO_RUN`, and a missing one of the two is written :data:`NO_RUN` in its place."""
    ours, paper = wide(comparison, metric, "ours"), wide(comparison, metric, "paper")
    paper = paper.reindex_like(ours)
    text = ours.map(shown) + " | " + paper.map(shown)
    return text.where(ours.notna() | paper.notna(), NO_RUN)


def compare_table5(systems: pd.DataFrame) -> pd.DataFrame:
    """Citation precision and recall under Oracle and Full, next to Table 5."""
    rows = [
        {"summarizer": s, "setting": setting, "metric": metric, "paper": v}
        for metric, by_summarizer in PAPER_TABLE5.items()
        for s, values in by_summarizer.items()
        for setting, v in zip(("oracle", "full"), values, strict=True)
        if v is not None
    ]
    out = pd.DataFrame(rows).merge(systems, on=["summarizer", "setting", "metric"], how="left")
    out["diff"] = out["ours"] - out["paper"]
    out["match"] = (out["ours"].round(1) - out["paper"]).abs() < 1e-9
    return out[["summarizer", "setting", "metric", "paper", "ours", "diff", "match", "n_covered"]]


def table5_display(table5: pd.DataFrame) -> pd.DataFrame:
    """Table 5 as the chapter shows it (from :func:`compare_table5`): ours and the paper's precision and recall per
    summarizer and setting, one decimal, :data:`NO_RUN` where there is no run (GPT-3.5's Full)."""
    t = table5.pivot_table(index="summarizer", columns=["metric", "setting"], values=["ours", "paper"],
                           dropna=False).sort_index(axis=1)
    return t.map(shown)


def words_table(scores: pd.DataFrame) -> pd.DataFrame:
    """#Wb per summarizer: the mean words per bullet over its summaries in the Table 2 settings, next to the paper.

    The paper does not say how #Wb is averaged; this is one summary = one value, all settings pooled.
    """
    per_summary = scores.drop_duplicates(["haystack", "subtopic_id", "summary_key"])
    per_summary = per_summary[per_summary["setting"].isin(TABLE2_SETTINGS)]
    ours = per_summary.groupby("summarizer")["words_per_bullet"].agg(["mean", "size"])
    out = pd.DataFrame({"summarizer": [s for s in SUMMARIZERS if s in ours.index]})
    out["paper"] = out["summarizer"].map(PAPER_WORDS_PER_BULLET)
    out["ours"] = out["summarizer"].map(ours["mean"])
    out["summaries"] = out["summarizer"].map(ours["size"]).astype(int)
    out["diff"] = out["ours"] - out["paper"]
    return out


def position_table(systems: pd.DataFrame) -> pd.DataFrame:
    """Table 3: Joint by document order for the three position-bias summarizers, with the sensitivity.

    ``sensitivity`` = max |Top - Random|, |Bottom - Random| (the paper's definition, Random = the stored order);
    ``sensitivity_with_middle`` adds the unreported Middle order, as the authors' notebook does.
    """
    joint = systems[(systems["metric"] == "joint") & systems["setting"].isin(POSITION_SETTINGS)]
    t = joint.pivot_table(index="summarizer", columns="setting", values="ours", aggfunc="first")
    t = t.reindex([s for s in PAPER_TABLE3 if s in t.index])
    if t.empty:
        return pd.DataFrame()
    out = pd.DataFrame({"summarizer": t.index})
    for order in ("top", "bottom", "full", "middle"):
        out[order] = t[order].to_numpy() if order in t else np.nan
    out["sensitivity"] = np.maximum((out["top"] - out["full"]).abs(), (out["bottom"] - out["full"]).abs())
    out["sensitivity_with_middle"] = np.maximum(out["sensitivity"], (out["middle"] - out["full"]).abs())
    paper = pd.DataFrame(
        PAPER_TABLE3, index=["paper_top", "paper_bottom", "paper_random", "paper_sensitivity"]
    ).T
    return out.merge(paper, left_on="summarizer", right_index=True)


def rescoring_note(scores: pd.DataFrame, table2: pd.DataFrame, n_expected: int) -> str:
    """What the rescoring covered: summary keys, summaries, insight judgments, the judged share of each Table 2
    cell and the mean the missing insights would need (three lines)."""
    n_summaries = len(scores.drop_duplicates(["haystack", "subtopic_id", "summary_key"]))
    return "\n".join([
        f"{scores['summary_key'].nunique()} summary keys, {n_summaries} summaries, {len(scores)} insight judgments "
        f"({scores.attrs['summaries_without_judgments']} summaries without judgments skipped); "
        f"each complete cell holds {n_expected} insights",
        f"judged share per cell: {table2['judged_share'].min()} to {table2['judged_share'].max()}",
        f"implied mean of the missing insights: {round(table2['implied_rest'].min(), 1)} to "
        f"{round(table2['implied_rest'].max(), 1)}",
    ])
