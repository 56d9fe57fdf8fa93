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
