"""The thesis chapter's figures, drawn from its tables: the Full/RAG/Evidence patterns as bars and Venn diagrams
(Fig. 6.3-6.6, 7.6-7.10), the F-E tile grid (Fig. 6.7), and composites of :mod:`lcrag.plots`' panels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from lcrag import plots
from lcrag.papers.thesis.numbers import PATTERNS

#: The ranking-distance grid: (k, alpha) rows, as the thesis's Fig. 6.10 arranges its panels.
DISTANCE_ROWS = ((5, 0.05), (5, 0.5), (10, 0.05), (10, 0.5))
DISTANCE_QUERIES = ("question", "evidence")
_CRITICAL = {"FRE", "F-E", "-RE", "--E"}  # the thesis's "critical" columns (the others are "noise")
#: The SVG group id of every label of a Venn diagram (set names, counts, the "none right" count): the browser
#: test finds them in the book's SVG figures and checks that none is drawn over another as the browser renders it.
VENN_LABEL = "venn-label"


def pattern_bars(counts: pd.DataFrame, ax=None, title: str = "", reference: dict | None = None):
    """The eight Full/RAG/Evidence patterns of one run as bars, in the thesis's order (Fig. 6.3).

    ``counts``: columns pattern, count (one run). ``reference``: the thesis's counts, drawn as black ticks
    scaled to the same number of cases."""
    ax = ax or plt.subplots(figsize=(4.5, 3))[1]
    c = counts.set_index("pattern")["count"].reindex(PATTERNS, fill_value=0)
    colours = [sns.color_palette()[0] if p in _CRITICAL else sns.color_palette()[7] for p in PATTERNS]
    ax.bar(range(8), c.values, color=colours)
    ticks = [0.0] * 8
    if reference:
        total = sum(reference.values())
        scale = c.sum() / total if total else 1.0
        ticks = [reference.get(p, 0) * scale for p in PATTERNS]
        ax.scatter(range(8), ticks, marker="_", s=200, c="black", label="thesis (scaled)", zorder=3)
        ax.legend(fontsize=7, loc="upper right")
    for x, (v, tick) in enumerate(zip(c.values, ticks, strict=True)):
        # the count above its bar, and above the thesis's tick where the tick would cross it
        y = tick if v < tick <= v + 0.06 * max(max(c.values), max(ticks), 1) else v
        ax.text(x, y, str(int(v)), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(8), PATTERNS, fontsize=7)
    ax.set_ylabel("cases")
    ax.set_title(title, fontsize=9)
    return ax


def pattern_venn(counts: pd.DataFrame, ax=None, title: str = ""):
    """The same eight counts as a 3-set Venn diagram of the cases Full, RAG and Evidence get right (unweighted
    layout; the "---" count, outside every set, is written under the diagram's lowest label).

    The "---" count is anchored to the bounding box of the lowest label (the "Evidence" set label) as the renderer
    measures it at draw time, so it stays below that label whatever size the axes end up with after a
    ``tight_layout`` (``tests/papers/thesis/test_figures.py`` checks that no two labels overlap as matplotlib
    draws them; ``tests/built_book/test_browser.py`` as the browser shows them, in the page's SVG, each label
    an SVG group :data:`VENN_LABEL`)."""
    from matplotlib_venn import venn3
    from matplotlib_venn.layout.venn3 import DefaultLayoutAlgorithm

    ax = ax or plt.subplots(figsize=(3.2, 3.2))[1]
    c = counts.set_index("pattern")["count"].reindex(PATTERNS, fill_value=0)
    # venn3 subset order: F only, R only, F∩R, E only, F∩E, R∩E, F∩R∩E
    subsets = tuple(int(c[p]) for p in ("F--", "-R-", "FR-", "--E", "F-E", "-RE", "FRE"))
    v = venn3(subsets, set_labels=("Full", "RAG", "Evidence"), ax=ax,
              layout_algorithm=DefaultLayoutAlgorithm(fixed_subset_sizes=(1,) * 7))
    ax.set_title(title, fontsize=9)
    labels = [t for t in (*(v.set_labels or ()), *(v.subset_labels or ())) if t is not None and t.get_text()]
    for t in labels:
        t.set_gid(VENN_LABEL)
    # the label with the lowest anchor in data coordinates (the "Evidence" set label, under the bottom circle)
    lowest = min(labels, key=lambda t: t.get_position()[1]) if labels else None
    none_right = f"none right (---): {int(c['---'])}"
    if lowest is not None:
        note = ax.annotate(none_right, xy=(0.5, 0), xycoords=lowest, xytext=(0, -2), textcoords="offset points",
                           ha="center", va="top", fontsize=7)
    else:
        note = ax.text(0.5, 0, none_right, transform=ax.transAxes, ha="center", va="top", fontsize=7)
    note.set_gid(VENN_LABEL)
    return ax


def pattern_grid(counts: pd.DataFrame, draw, rows: str = "pipeline", cols: str = "prompt", width: float = 3.0,
                 aspect: float = 0.9, sharey: bool = False):
    """One panel per (``rows``, ``cols``) run of the pattern counts, drawn by ``draw`` (:func:`pattern_bars` or
    :func:`pattern_venn`), titled with the run and its number of cases. Pipelines go down and the three prompts
    across, so the grid stays about ``3 * width`` inches wide: readable at the book's page width (a
    prompts x pipelines grid was 16 inches wide). Panels are ``aspect * width`` high; ``sharey`` puts bars of
    every panel on one scale (runs of the same cases compare by height)."""
    rv, cv = list(dict.fromkeys(counts[rows])), list(dict.fromkeys(counts[cols]))
    fig, axes = plt.subplots(len(rv), len(cv), figsize=(width * len(cv), aspect * width * len(rv)), squeeze=False,
                             sharey=sharey)
    for i, r in enumerate(rv):
        for j, c in enumerate(cv):
            sub = counts[(counts[rows] == r) & (counts[cols] == c)]
            if len(sub):
                draw(sub, ax=axes[i, j], title=f"{r} / {c} (n={int(sub['n'].max())})")
            else:
                axes[i, j].set_axis_off()
    fig.tight_layout()
    return fig


def tile_grid(grid: pd.DataFrame, ax=None, title: str = "", label: str = "F-E"):
    """Runs (rows) × cases (columns) of a tile table (:func:`lcrag.papers.thesis.patterns.fe_grid`, cases as its
    rows): coloured where the case is ``label`` in that run, grey where it is not, white where the run did not ask
    the case (Fig. 6.7, turned so that many cases make the figure wider, not taller)."""
    tiles = grid.T
    ax = ax or plt.subplots(figsize=(0.2 * max(len(tiles.columns), 4) + 2.5, 0.22 * max(len(tiles), 4) + 1.7))[1]
    if grid.empty:
        ax.text(0.5, 0.5, f"no {label} case", ha="center", va="center")
        ax.set_axis_off()
        return ax
    from matplotlib.colors import ListedColormap

    sns.heatmap(tiles.astype(float), cmap=ListedColormap(["#dddddd", sns.color_palette()[3]]), vmin=0, vmax=1,
                cbar=False, linewidths=0.5, linecolor="white", ax=ax)
    ax.set_xlabel("case")
    ax.set_ylabel("pipeline / prompt")
    ax.set_title(title or f"{label} cases per run", fontsize=10)
    ax.tick_params(axis="x", labelsize=7, rotation=90)
    ax.tick_params(axis="y", labelsize=7, rotation=0)
    return ax


def distance_grid(dist: pd.DataFrame, n_cases: int):
    """The distance of each ranker to BM25-with-evidence: one panel per (k, alpha) row and query column."""
    fig, axes = plt.subplots(len(DISTANCE_ROWS), len(DISTANCE_QUERIES), figsize=(9, 5.8), sharey="row")
    for row, (k, alpha) in enumerate(DISTANCE_ROWS):
        for col, query in enumerate(DISTANCE_QUERIES):
            d = dist[(dist["k"] == k) & (dist["alpha"] == alpha) & (dist["query"] == query)]
            plots.distance_distributions(d, ax=axes[row, col], title=f"k={k}, α={alpha}, query = {query}")
    for ax in axes[-1]:
        ax.set_xlabel("ranker")
    fig.suptitle(f"Distance to BM25-with-evidence, {n_cases} cases", y=1.0)
    fig.tight_layout()
    return fig


def pattern_overview(counts: pd.DataFrame, pipeline: str, prompt: str, reference: dict | None = None):
    """One run's Full/RAG/Evidence patterns as bars (with the thesis's counts, scaled, as ticks) beside the same
    counts as a Venn diagram."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    run = counts[(counts["pipeline"] == pipeline) & (counts["prompt"] == prompt)]
    n = int(run["n"].max()) if len(run) else 0
    pattern_bars(run, ax=a1, title=f"{pipeline}, {prompt}, {n} cases", reference=reference)
    pattern_venn(run, ax=a2, title="the same counts as a Venn diagram")
    fig.tight_layout()
    return fig
