"""The needle chapter in the synthesis: the whole haystack against BM25's top chunks, per model (:data:`FAMILY`).

Reads the chapter's ``answers.csv`` (one row per model x needle x setting x length x depth, a second model inside
the run included) and pairs the Full and RAG cells of the same needle, length and depth; whether an arm is at the
floor is the chapter's own rule (:func:`lcrag.papers.thesis.needle.claims.recall_floor`), as for its claims.
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.thesis.needle.claims import recall_floor
from lcrag.stats import bootstrap_diff
from lcrag.synthesis import NOT_RUN, Family, comparison, empty_panel, group_means, load_table
from lcrag.text import join_words

NAME = "needle"


def cells(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """One row per needle cell: model, needle, setting (full / rag), context_tokens, depth, recall (0-1)."""
    cols = ["needle", "setting", "context_tokens", "depth", "recall"]
    df = load_table(runs, NAME, "answers", cols, problems, model_column="model")
    return df[["model", *cols, "source"]]


def summary(cells: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Mean recall per model, needle and setting, with a bootstrap interval over the cells."""
    out = group_means(cells, ["model", "needle", "setting"], "recall", "recall",
                      lambda g: {"cells": len(g)}, n_boot, seed)
    return out.reindex(columns=["model", "needle", "setting", "cells", "recall", "ci_low", "ci_high"])


def comparisons(cells: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> list[dict]:
    """Full haystack vs RAG on the cells both ran (same needle, length and depth): the difference of mean recall
    (0-1; the chapter's section 6 counts cells found instead), paired bootstrap; *not testable
    with this model* when either arm's mean recall on those cells is at the floor (:func:`lcrag.papers.thesis.
    needle.claims.recall_floor`, the chapter's rule). ``long_context``: the haystack lengths of the paired cells
    (every length of the model's grid with the chapter's ``rag="all"``, its longest with ``rag="longest"``)."""
    out = []
    keys = ["needle", "context_tokens", "depth"]
    for model, g in cells.groupby("model", sort=False):
        wide = g.pivot_table(index=keys, columns="setting", values="recall", aggfunc="mean")
        if not {"full", "rag"} <= set(wide.columns):
            continue
        both = wide[["full", "rag"]].dropna()
        if both.empty:
            continue
        diff, lo, hi = bootstrap_diff(both["full"], both["rag"], n_boot=n_boot, seed=seed)
        lengths = sorted(both.index.get_level_values("context_tokens").unique())
        out.append(comparison(
            NAME, model, "full haystack vs BM25 RAG (mean recall)", "Full", float(both["full"].mean()), "RAG",
            float(both["rag"].mean()), diff, lo, hi, len(both), "cells",
            f"mean recall per cell, on 0-1, not the share of cells found; paired bootstrap over {len(both)} cells "
            f"(needles x depths at {', '.join(map(str, lengths))} tokens)",
            g["source"].iloc[0], floor=recall_floor({"Full": both["full"], "RAG": both["rag"]}),
            floored=[a for a, s in (("Full", "full"), ("RAG", "rag")) if recall_floor({a: both[s]})],
            long_context=f"{', '.join(map(str, lengths))} tokens"))  # fmt: skip
    return out


def rag_cells_note(tables: dict[str, pd.DataFrame]) -> str:
    """The detail table's note when some model ran the RAG setting on fewer cells than the full haystack (the
    chapter's ``rag="longest"``: its longest length only), naming each with its counts; "" when every model that
    ran RAG ran it on every cell (``rag="all"``) or none did."""
    t = tables.get(NAME, pd.DataFrame())
    if t.empty or not {"full", "rag"} <= set(t["setting"]):
        return ""
    from lcrag.models.registry import title_of

    n = t.pivot_table(index="model", columns="setting", values="cells", aggfunc="sum", sort=False).fillna(0)
    short = n[(n["rag"] > 0) & (n["rag"] < n["full"])]
    if short.empty:
        return ""
    who = join_words([f"{title_of(m)} on {int(r['rag'])} of its {int(r['full'])} cells" for m, r in short.iterrows()])
    return (f"The RAG setting ran only at some lengths ({who}), so the Full-vs-RAG comparison above pairs only the "
            "cells both ran.")


def same_recall_note(tables: dict[str, pd.DataFrame]) -> str:
    """The detail table's note on its rows whose cells all have the same recall (inside (0, 1)): their interval
    is the exact one on recall's 0-1 scale (:func:`lcrag.stats.bootstrap_ci`), so it reaches above that value
    even where the answers cannot (the complex needle's answers stop at the chapter's answer cap); "" when none."""
    t = tables.get(f"{NAME}_cells", pd.DataFrame())
    if t.empty:
        return ""
    from lcrag.models.registry import title_of

    g = t.groupby(["model", "needle", "setting"], sort=False)["recall"].agg(["nunique", "first"]).reset_index()
    same = g[(g["nunique"] == 1) & (g["first"] > 0) & (g["first"] < 1)]
    if same.empty:
        return ""
    rows = join_words([f"{title_of(m)}'s {needle} needle ({join_words(list(r['setting']))}, every cell "
                       f"{r['first'].iloc[0]:.2f})" for (m, needle), r in same.groupby(["model", "needle"], sort=False)])
    return (f"Every cell of some rows has the same recall, below 1: {rows}. There is nothing to resample, so their interval "
            "is the exact one on recall's 0-1 scale, whose upper end lies above the value even where no answer can "
            "score more (the complex needle's answers stop at the chapter's answer cap).")


def detail_note(tables: dict[str, pd.DataFrame]) -> str:
    """The detail table's notes (:func:`rag_cells_note`, :func:`same_recall_note`), "" when neither applies."""
    return " ".join(n for n in (rag_cells_note(tables), same_recall_note(tables)) if n)


def plot(axes, syn, model: str) -> None:
    """Two panels: the recall of the first two needles by context length and depth, full haystack."""
    from lcrag import plots

    table = syn.tables[f"{NAME}_cells"]
    table = table[(table["model"] == model) & (table["setting"] == "full")]
    needles = list(table["needle"].unique())[:2]
    for ax, needle in zip(axes[:2], needles + [None] * (2 - len(needles)), strict=True):
        if needle is None:
            empty_panel(ax, NAME, "no (other) needle run" if needles else NOT_RUN)
            continue
        # the needle chapter's orientation and colours (plots.needle_heatmap): depth down, context length across
        plots.needle_heatmap(table[table["needle"] == needle], value="recall", ax=ax, cmap=plots.KAMRADT_CMAP,
                             title=f"needle ({needle}): recall, full haystack")


def _tables(runs, problems, n_boot, seed):
    c = cells(runs, problems)
    return {f"{NAME}_cells": c, NAME: summary(c, n_boot, seed)}


FAMILY = Family(
    name=NAME,
    title="Needle in a haystack: full haystack vs BM25 RAG, mean recall",
    prose_name="the needle-in-a-haystack test",
    tables=_tables,
    compare=lambda runs, tables, problems, n_boot, seed: comparisons(tables[f"{NAME}_cells"], n_boot, seed),
    headline=lambda arm: arm == "RAG",
    headline_rule="the whole haystack against BM25's top chunks (RAG), on the cells both ran: every cell of the "
                  "model's grid, which is not the same for every model",
    detail_index=("model", "needle", "setting"),
    rows_table=f"{NAME}_cells",
    plot=plot,
    panels=2,
    detail_note=detail_note,
)
