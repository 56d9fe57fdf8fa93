"""The sentences section 3 prints about its rescoring tables: every number in them is read from the tables.

Each function takes one table of :mod:`lcrag.papers.summhay.rescoring` and returns plain text, so the chapter's
prose explains and the run states the numbers (the smoke profile, on two subtopics, prints its own).
"""

from __future__ import annotations

import pandas as pd

from lcrag.stats import signed


def table2_pattern(table2: pd.DataFrame, rates: pd.DataFrame) -> str:
    """Per score: in how many cells ours is above the paper's, the mean signed difference and the rank correlation
    of the systems (``rates`` from :func:`~lcrag.papers.summhay.rescoring.match_rates`)."""
    lines = []
    for metric, g in table2.dropna(subset=["ours", "paper"]).groupby("metric", sort=False):
        diff = g["ours"] - g["paper"]
        corr = rates.set_index("metric").loc[metric, "rank_corr"]
        lines.append(
            f"{metric}: ours higher in {int((diff > 0).sum())} of {len(g)} cells, mean {signed(diff.mean())} points, "
            f"rank correlation {corr:.2f}"
        )
    return "\n".join(lines)


def swap_verdict(swap: pd.DataFrame) -> str:
    """Which reading of the "Vect"/"LongE" headers the column differences support (from
    :func:`~lcrag.papers.summhay.rescoring.swap_check`), and by how much."""
    rows = swap.set_index("reading")
    lit, swp = rows.loc["literal headers"], rows.loc["swapped (inventory)"]

    def said(r):
        return f"{int(r['same_sign'])}/{int(r['pairs'])} (r {signed(r['difference_corr'], 2)})"

    if swp["difference_corr"] > lit["difference_corr"] and swp["same_sign"] > lit["same_sign"]:
        verdict = "supports the inventory: Vect = e5-base-4k, LongE = all-mpnet-base-v2"
    elif lit["difference_corr"] > swp["difference_corr"] and lit["same_sign"] > swp["same_sign"]:
        verdict = "supports the headers as printed"
    else:
        verdict = "does not decide between the two readings"
    return f"Vect/LongE gaps of the same sign, swapped: {said(swp)}; literal: {said(lit)}\n  -> the news half {verdict}"


def table5_pattern(table5: pd.DataFrame) -> str:
    """Table 5: where precision is higher on the news half and the range of the recall differences."""
    t = table5.dropna(subset=["ours", "paper"])
    prec, rec = t[t["metric"] == "precision"], t[t["metric"] == "recall"]
    return (
        f"Table 5: precision higher in {int((prec['diff'] > 0).sum())} of {len(prec)} cells; "
        f"recall {signed(rec['diff'].min())} to {signed(rec['diff'].max())} points from the paper's"
    )


def words_pattern(words: pd.DataFrame) -> str:
    """#Wb: how many summarizers write shorter bullets on the news half, and by how much."""
    w = words.dropna(subset=["ours", "paper"])
    shorter = w[w["diff"] < 0]
    out = f"#Wb: shorter for {len(shorter)} of {len(w)} summarizers"
    if len(shorter):
        out += f", by {-shorter['diff'].max():.1f} to {-shorter['diff'].min():.1f} words"
    return out


def position_pattern(position: pd.DataFrame) -> str:
    """Table 3: each summarizer's best order of the relevant documents (top or bottom), ours against the paper's."""
    if position.empty:
        return "no position-bias runs in this selection"
    ours = position["bottom"].gt(position["top"]).map({True: "bottom", False: "top"})
    paper = position["paper_bottom"].gt(position["paper_top"]).map({True: "bottom", False: "top"})
    parts = [f"{s} {o} | {p}" for s, o, p in zip(position["summarizer"], ours, paper, strict=True)]
    return (
        f"best place, ours | paper ({int((ours == paper).sum())} of {len(parts)} the same): {'; '.join(parts)}"
    )


def table4_pattern(table4_cmp: pd.DataFrame) -> str:
    """Table 4 (from :func:`~lcrag.papers.summhay.evaluator_study.compare_table4`): how many values match, which
    summarizer rows are reproduced, and in the other summarizer rows whether the paper's bias is larger than ours
    and by how much (the Average and correlation rows follow from those)."""
    derived = {"Average", "Length to Score Corr.", "Length to Delta Corr."}
    rows = table4_cmp[~table4_cmp["row"].isin(derived)]
    exact = rows.groupby("row", sort=False)["match"].all()
    out = [
        f"{int(table4_cmp['match'].sum())} of {len(table4_cmp)} Table 4 values reproduced at the printed precision",
        f"summarizer rows reproduced: {int(exact.sum())} of {len(exact)} ({', '.join(exact.index[exact]) or 'none'})",
    ]
    other = rows[rows["row"].isin(exact.index[~exact])]
    if len(other):
        gap = -other["diff"]  # the paper's bias minus ours
        out.append(
            f"the other {int((~exact).sum())} rows: the paper's bias is larger than ours in {int((gap > 0).sum())} of "
            f"their {len(other)} cells, by {signed(gap.min(), 3)} to {signed(gap.max(), 3)}"
        )
    return "\n".join(out)
