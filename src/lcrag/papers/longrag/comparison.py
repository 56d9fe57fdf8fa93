"""The LongRAG chapter in the synthesis: the Full LongBench context against the paper's RAG strategies
(:data:`FAMILY`).

Reads the chapter's ``answers.csv`` (one row per dataset x question x generator x strategy, with its F1) and
pairs the Full arm with each of the paper's five strategies over (dataset, question), on the datasets the
chapter's floor rule lets decide (:func:`lcrag.papers.longrag.claims_common.dataset_floor`); Closed is shown, not
compared.
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.longrag.claims_common import dataset_floor
from lcrag.stats import bootstrap_diff
from lcrag.synthesis import Family, bar_panel, comparison, group_means, load_table, window_cut
from lcrag.text import join_words

NAME = "longrag"


def questions(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Per-question F1 (0-1) per generator, dataset and strategy (the paper's five and the Full / Closed arms)."""
    cols = ["dataset", "question_id", "generator", "strategy", "f1"]
    df = load_table(runs, NAME, "answers", cols, problems, model_column="generator")
    if "truncated" not in df:  # older runs: whether a prompt was cut to the window is not known
        df["truncated"] = pd.NA
    return df[["model", "dataset", "question_id", "strategy", "f1", "truncated", "source"]]


def summary(questions: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Mean F1 per model and strategy, pooled over datasets, with a bootstrap interval over questions."""
    out = group_means(questions, ["model", "strategy"], "f1", "f1",
                      lambda g: {"questions": len(g), "datasets": ", ".join(sorted(g["dataset"].unique())),
                                 "source": g["source"].iloc[0]}, n_boot, seed)
    return out.reindex(columns=["model", "strategy", "questions", "datasets", "f1", "ci_low", "ci_high", "source"])


def comparisons(questions: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> list[dict]:
    """The Full arm vs each of the paper's strategies, paired over (dataset, question), under the chapter's floor
    rule (:func:`lcrag.papers.longrag.claims_common.dataset_floor`, the one its claims use): a dataset where either
    arm's mean F1 is at the floor decides nothing and is left out of the pairs (the evidence names it); with every
    dataset at the floor the comparison is *not testable with this model*. ``long_context``: :func:`full_context`;
    ``scope``: the datasets the difference rests on where some were left out (:func:`dataset_scope`)."""
    out = []
    for model, g in questions.groupby("model", sort=False):
        wide = g.pivot_table(
            index=["dataset", "question_id"], columns="strategy", values="f1", aggfunc="mean"
        )
        if "Full" not in wide:
            continue
        for strategy in [s for s in g["strategy"].unique() if s not in ("Full", "Closed")]:
            both = wide[["Full", strategy]].dropna()
            if both.empty:
                continue
            deciding, floor, note = dataset_floor(g, ("Full", strategy))
            scope = ""
            if not floor:  # the datasets above the floor decide; with none, every pair is shown, not testable
                scope = dataset_scope(list(dict.fromkeys(both.index.get_level_values("dataset"))), deciding)
                both = both[both.index.get_level_values("dataset").isin(deciding)]
            diff, lo, hi = bootstrap_diff(both["Full"], both[strategy], n_boot=n_boot, seed=seed)
            out.append(comparison(
                NAME, model, f"Full vs {strategy} (F1)", "Full", float(both["Full"].mean()), strategy,
                float(both[strategy].mean()), diff, lo, hi, len(both), "questions",
                f"paired bootstrap over {len(both)} questions"
                f" of {', '.join(dict.fromkeys(both.index.get_level_values('dataset')))}{note}",
                g["source"].iloc[0], floor=floor, long_context=full_context(g, both.index), scope=scope))  # fmt: skip
    return out


def dataset_scope(ran: list[str], deciding: list[str]) -> str:
    """The comparison's ``scope`` where the floor rule left datasets out: ``2wikimqa only, musique left out at the
    floor``; "" when every dataset that ran decides."""
    left_out = [d for d in ran if d not in deciding]
    if not left_out:
        return ""
    return f"{join_words(deciding)} only, {join_words(left_out)} left out at the floor"


def full_context(g: pd.DataFrame, pairs: pd.Index) -> str:
    """What the Full arm held on the ``pairs`` (dataset, question) of one model: ``whole context``, or ``cut to
    the window in 40 of 60 questions`` (the chapter's ``truncated`` column); "" where the run does not say."""
    if "truncated" not in g:
        return ""
    full = g[g["strategy"] == "Full"].set_index(["dataset", "question_id"])["truncated"]
    full = full[full.index.isin(pairs)]
    if full.empty or full.isna().any():
        return ""
    cut = int(full.astype(str).str.lower().isin(["true", "1", "1.0"]).sum())
    return window_cut(cut, len(full), "questions", "whole context")


def _tables(runs, problems, n_boot, seed):
    q = questions(runs, problems)
    return {NAME: summary(q, n_boot, seed), f"{NAME}_questions": q}


FAMILY = Family(
    name=NAME,
    title="LongRAG: the full-context arm vs the paper's RAG strategies",
    tables=_tables,
    compare=lambda runs, tables, problems, n_boot, seed: comparisons(tables[f"{NAME}_questions"], n_boot, seed),
    headline=lambda arm: arm == "R&B",  # vanilla RAG, as in the other families
    headline_rule="the Full context against vanilla R&B, the paper's plain RAG",
    detail_index=("model", "strategy"),
    plot=bar_panel(NAME, "strategy", "f1", "longrag: F1 (all datasets)"),
)
