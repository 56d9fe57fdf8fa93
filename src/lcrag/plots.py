"""Figures, always drawn from the tidy result tables the chapters save."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns


def accuracy_bars(table: pd.DataFrame, ax=None, title: str = ""):
    """Accuracy per setting with its 95 % interval (columns: setting, accuracy, ci_low, ci_high)."""
    ax = ax or plt.subplots(figsize=(4, 3))[1]
    err = [table["accuracy"] - table["ci_low"], table["ci_high"] - table["accuracy"]]
    ax.bar(table["setting"], table["accuracy"], yerr=err, capsize=4, color=sns.color_palette()[: len(table)])
    ax.axhline(0.25, ls="--", c="grey", lw=1, label="chance (4 options)")
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.legend(loc="upper right", fontsize=8)
    return ax


def tokens_vs_latency(answers: pd.DataFrame, ax=None, title: str = ""):
    """Prompt tokens against latency of the call that produced each answer, one colour per setting."""
    ax = ax or plt.subplots(figsize=(4, 3))[1]
    sns.scatterplot(data=answers, x="prompt_tokens", y="latency_s", hue="setting", ax=ax)
    ax.set_xlabel("prompt tokens")
    ax.set_ylabel("latency (s)")
    ax.set_title(title)
    return ax


def needle_heatmap(scores: pd.DataFrame, value: str = "recall", ax=None, title: str = ""):
    """Kamradt-style heatmap: depth on y, context length on x, colour = score (0..1)."""
    ax = ax or plt.subplots(figsize=(5, 3))[1]
    grid = scores.pivot_table(index="depth", columns="context_tokens", values=value, aggfunc="mean")
    sns.heatmap(grid, vmin=0, vmax=1, cmap=sns.color_palette("RdYlGn", as_cmap=True), annot=True, fmt=".2f",
                cbar_kws={"label": value}, ax=ax)
    ax.set_xlabel("context length (tokens)")
    ax.set_ylabel("needle depth (%)")
    ax.set_title(title)
    return ax


# ------------------------------------------------------------------------------ Summary of a Haystack


def paper_vs_ours(comparison: pd.DataFrame, ax=None, title: str = "", xlabel: str = "paper",
                  ylabel: str = "ours"):
    """One point per cell: the paper's value (x) against ours (y), one colour per metric; the diagonal is a match.

    Columns: paper, ours, metric (e.g. :func:`lcrag.pipelines.summhay.compare_table2`)."""
    ax = ax or plt.subplots(figsize=(4.2, 4))[1]
    data = comparison.dropna(subset=["paper", "ours"])
    sns.scatterplot(data=data, x="paper", y="ours", hue="metric", ax=ax, s=18)
    lo = min(data["paper"].min(), data["ours"].min(), 0)
    hi = max(data["paper"].max(), data["ours"].max())
    ax.plot([lo, hi], [lo, hi], c="grey", lw=1, ls="--", label="equal")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return ax


def evaluator_agreement(table: pd.DataFrame, ax=None, title: str = "", human: float | None = None):
    """Coverage correlation with the human labels per evaluator (horizontal bars, best first), with the human
    inter-annotator value as a line. Columns: evaluator, cov_corr."""
    ax = ax or plt.subplots(figsize=(5, 3))[1]
    data = table.dropna(subset=["cov_corr"]).sort_values("cov_corr", ascending=False)
    ax.barh(data["evaluator"], data["cov_corr"], color=sns.color_palette()[0])
    for y, v in enumerate(data["cov_corr"]):
        ax.text(v + 0.01, y, f"{v:.3f}", va="center", fontsize=8)
    if human is not None:
        ax.axvline(human, ls="--", c="grey", lw=1, label=f"human inter-annotator ({human:.2f})")
        ax.legend(loc="lower right", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("Pearson r with human coverage labels")
    ax.set_title(title)
    return ax


def position_joint(table: pd.DataFrame, orders=("top", "full", "middle", "bottom"), ax=None, title: str = ""):
    """Joint score by document order, one group of bars per summarizer (columns: summarizer and the orders)."""
    ax = ax or plt.subplots(figsize=(5, 3))[1]
    cols = [o for o in orders if o in table.columns]
    long = table.melt(id_vars="summarizer", value_vars=cols, var_name="order", value_name="joint")
    sns.barplot(data=long, x="summarizer", y="joint", hue="order", ax=ax)
    ax.set_xlabel("")
    ax.set_ylabel("Joint score")
    ax.set_title(title)
    ax.legend(fontsize=8, title="relevant documents")
    return ax
