"""The SummHay chapter in the synthesis: Full (the haystack, as far as the window holds it) against the Oracle
and the best real retriever (:data:`FAMILY`).

Reads the chapter's ``live_results.csv``: the live retrieval settings of our summarizer, lexical judge. The table
keeps micro-averages over insights, not per-summary scores, so the differences have no interval.
"""

from __future__ import annotations

import pandas as pd

from lcrag.synthesis import Family, bar_panel, comparison, load_table, score_floor

NAME = "summhay"


def settings(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Live retrieval settings of our summarizer (lexical judge): coverage, citation, joint on a 0-1 scale."""
    cols = ["judge", "kind", "setting", "coverage", "citation", "joint", "n_insights", "summaries"]
    df = load_table(runs, NAME, "live_results", cols, problems)
    df = df[(df["kind"] == "retrieval") & (df["judge"] == "lexical")].copy()
    for c in ("coverage", "citation", "joint"):
        df[c] = df[c] / 100
    return df[["model", "setting", "summaries", "n_insights", "coverage", "citation", "joint", "source"]]


def comparisons(settings: pd.DataFrame) -> list[dict]:
    """Full vs Oracle (the retrieval ceiling) and Full vs the best real retriever, on the Joint score.

    No interval: the chapter's table holds micro-averages over insights, not per-summary scores."""
    out = []
    for model, g in settings.groupby("model", sort=False):
        s = g.set_index("setting")
        if "full" not in s.index:
            continue
        others = [("oracle", "Oracle")] if "oracle" in s.index else []
        real = s.drop(index=[x for x in ("full", "oracle") if x in s.index])
        if len(real):
            best = real["joint"].idxmax()
            others.append((best, f"{best} (best retriever)"))
        for setting, label in others:
            diff = float(s.loc["full", "joint"] - s.loc[setting, "joint"])
            n = int(s.loc["full", "summaries"])
            out.append(comparison(
                NAME, model, f"Full vs {label} (Joint)", "Full", float(s.loc["full", "joint"]), setting,
                float(s.loc[setting, "joint"]), diff, float("nan"), float("nan"), n, "summaries",
                f"{n} summaries, {int(s.loc['full', 'n_insights'])} insights; micro-averages only, no interval",
                s.loc["full", "source"],
                floor=score_floor({"Full": s.loc["full", "joint"], setting: s.loc[setting, "joint"]})))  # fmt: skip
    return out


FAMILY = Family(
    name=NAME,
    title="Summary of a Haystack: Full vs Oracle vs retrievers",
    tables=lambda runs, problems, n_boot, seed: {NAME: settings(runs, problems)},
    compare=lambda runs, tables, problems, n_boot, seed: comparisons(tables[NAME]),
    headline=lambda arm: arm != "oracle",  # the best real retriever, not the Oracle ceiling
    detail_index=("model", "setting"),
    plot=bar_panel(NAME, "setting", "joint", "summhay: Joint (no interval)"),
)
