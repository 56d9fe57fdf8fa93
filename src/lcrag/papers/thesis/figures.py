"""The thesis chapter's composite figures, drawn from its tables with :mod:`lcrag.plots`' panels."""

from __future__ import annotations

import pandas as pd

from lcrag import plots

#: The ranking-distance grid: (k, alpha) rows, as the thesis's Fig. 6.10 arranges its panels.
DISTANCE_ROWS = ((5, 0.05), (5, 0.5), (10, 0.05), (10, 0.5))
DISTANCE_QUERIES = ("question", "evidence")


def distance_grid(dist: pd.DataFrame, n_cases: int):
    """The distance of each ranker to BM25-with-evidence: one panel per (k, alpha) row and query column."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(DISTANCE_ROWS), len(DISTANCE_QUERIES), figsize=(9, 5.8), sharey="row")
    for row, (k, alpha) in enumerate(DISTANCE_ROWS):
        for col, query in enumerate(DISTANCE_QUERIES):
            d = dist[(dist["k"] == k) & (dist["alpha"] == alpha) & (dist["query"] == query)]
            plots.distance_distributions(d, ax=axes[row, col], title=f"k={k}, α={alpha}, query = {query}")
    fig.suptitle(f"Distance to BM25-with-evidence, {n_cases} cases", y=1.0)
    fig.tight_layout()
    return fig


def pattern_overview(counts: pd.DataFrame, pipeline: str, prompt: str, reference: dict | None = None):
    """One run's Full/RAG/Evidence patterns as bars (with the thesis's counts, scaled, as ticks) beside the same
    counts as a Venn diagram."""
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    run = counts[(counts["pipeline"] == pipeline) & (counts["prompt"] == prompt)]
    n = int(run["n"].max()) if len(run) else 0
    plots.pattern_bars(run, ax=a1, title=f"{pipeline}, {prompt}, {n} cases", reference=reference)
    plots.pattern_venn(run, ax=a2, title="the same counts as a Venn diagram")
    fig.tight_layout()
    return fig
