"""Figures, always drawn from the tidy result tables the chapters save."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.text import Text


def as_svg(fig):
    """``fig`` as an SVG image for the page (closed, so the notebook shows it once): its text kept as text
    (``svg.fonttype: none``, selectable and measurable in the browser), element ids and metadata fixed so that
    the same figure gives the same bytes."""
    import io

    from IPython.display import SVG

    out = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "lcrag"}):
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return SVG(out.getvalue())


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


def needle_heatmap(scores: pd.DataFrame, value: str = "recall", ax=None, title: str = "", vmin: float = 0,
                   vmax: float = 1, cmap=None, annot: bool = True, fmt: str = ".2f", cbar: bool = True,
                   x: str = "context_tokens"):
    """Kamradt-style heatmap: depth on y, context length (column ``x``; an ordered categorical keeps its order) on
    x, colour = score (``vmin``..``vmax``, default 0..1); columns labelled "RAG <length>" (BM25 answers) come
    after the full-context ones, set apart by a white rule."""
    ax = ax or plt.subplots(figsize=(5, 3))[1]
    grid = scores.pivot_table(index="depth", columns=x, values=value, aggfunc="mean", observed=True)
    mesh = annotated_mesh(ax, grid, vmin, vmax, cmap or sns.color_palette("RdYlGn", as_cmap=True), fmt if annot else None)
    rag = [i for i, c in enumerate(grid.columns) if str(c).startswith("RAG")]
    if rag and rag[0] > 0:  # the full-context columns, then the RAG ones: a rule between them
        ax.axvline(rag[0], color="white", linewidth=3)
    if cbar:
        ax.figure.colorbar(mesh, ax=ax, label=value).outline.set_linewidth(0)
    ax.set(xlabel="context length (tokens)", ylabel="needle depth (%)", title=title)
    return ax


def annotated_mesh(ax, grid: pd.DataFrame, vmin: float, vmax: float, cmap, fmt: str | None):
    """A heatmap as seaborn draws it (first row on top, values in dark or white by the cell's luminance) without
    seaborn's draw of the whole figure per heatmap (a figure of 8 took 30 s); x labels turned past 6 columns."""
    from seaborn.utils import relative_luminance

    values = np.ma.masked_invalid(grid.to_numpy(dtype=float))
    mesh = ax.pcolormesh(values, cmap=cmap, vmin=vmin, vmax=vmax)
    n_rows, n_cols = values.shape
    ax.set(xlim=(0, n_cols), ylim=(n_rows, 0))
    ax.set_xticks(np.arange(n_cols) + 0.5, [str(c) for c in grid.columns], rotation=90 if n_cols > 6 else 0)
    ax.set_yticks(np.arange(n_rows) + 0.5, [str(i) for i in grid.index])
    ax.spines[:].set_visible(False)
    for (i, j), v in np.ndenumerate(values.filled(np.nan)):
        if fmt is not None and not np.isnan(v):
            dark = relative_luminance(mesh.cmap(mesh.norm(v))) > 0.408
            ax.text(j + 0.5, i + 0.5, format(v, fmt), ha="center", va="center", color=".15" if dark else "w")
    return mesh


# ------------------------------------------------------------------------------ Summary of a Haystack


def paper_vs_ours(comparison: pd.DataFrame, ax=None, title: str = "", xlabel: str = "paper",
                  ylabel: str = "ours"):
    """One point per cell: the paper's value (x) against ours (y), one colour per metric; the diagonal is a match.

    Columns: paper, ours, metric (e.g. :func:`lcrag.papers.summhay.rescoring.compare_table2`)."""
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
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), fontsize=8, frameon=False)  # under the axis:
        # inside it, the legend covered the value printed beside a bar
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
    ax.set_xlabel("summarizer")
    ax.set_ylabel("Joint score")
    ax.set_title(title)
    ax.legend(fontsize=8, title="relevant documents")
    return ax


# ------------------------------------------------------------------------------ needle in a haystack (thesis)

#: Kamradt's heatmap colours (red = miss, yellow, green = found), as in his repository's visualisation.
KAMRADT_CMAP = LinearSegmentedColormap.from_list("kamradt", ["#F0496E", "#EBB839", "#0CD79F"])


def needle_heatmap_grid(table: pd.DataFrame, value: str = "recall", rows: str = "model", cols: str = "needle",
                        vmin: float = 0, vmax: float = 1, annot: bool = False, title: str = "",
                        x: str = "context_tokens"):
    """One Kamradt heatmap per (row, column) value pair (default: models x needles), depth on y, context length
    on x, colour = ``value``; Kamradt's colour map. Each panel has its own x axis (models have different grids)."""
    rv, cv = list(dict.fromkeys(table[rows])), list(dict.fromkeys(table[cols]))
    fig, axes = plt.subplots(len(rv), len(cv), figsize=(4.6 * len(cv), 2.6 * len(rv)), squeeze=False)
    for i, r in enumerate(rv):
        for j, c in enumerate(cv):
            ax = axes[i][j]
            sub = table[(table[rows] == r) & (table[cols] == c)]
            if sub.empty:
                ax.axis("off")
                continue
            needle_heatmap(sub, value=value, ax=ax, title=f"{r}\n{c}", vmin=vmin, vmax=vmax, cmap=KAMRADT_CMAP,
                           annot=annot, fmt=".1f" if vmax > 1 else ".2f", cbar=j == len(cv) - 1, x=x)
            ax.tick_params(labelsize=7)
            ax.title.set_fontsize(9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def needle_depth_profile(profile: pd.DataFrame, value: str = "recall", ax=None, title: str = "",
                         answers: pd.DataFrame | None = None, n_boot: int = 2000, seed: int = 0):
    """Mean score by needle depth, one line per model, needle and setting (columns: model, needle, setting,
    depth, ``value``): the lost-in-the-middle view of the heatmaps.

    With the per-cell ``answers`` (the same columns, one row per answered cell), each point has an error bar:
    the 95 % bootstrap interval (:func:`lcrag.stats.bootstrap_ci`) of the mean over that depth's cells; the
    series are then dodged by a little along x so that their bars stay apart, and the legend sits beside the
    axes."""
    ax = ax or plt.subplots(figsize=(6, 3.2))[1]

    def series(t: pd.DataFrame) -> pd.Series:
        return t["model"].str.split("/").str[-1] + " · " + t["needle"] + " · " + t["setting"]

    data = profile.assign(series=series(profile))
    order = list(dict.fromkeys(data["series"]))
    if answers is None or not len(answers):
        sns.lineplot(data=data, x="depth", y=value, hue="series", marker="o", ax=ax)
        legend = {"loc": "best"}
    else:
        from lcrag.stats import bootstrap_ci

        cells = answers.assign(series=series(answers))
        step = 0.012 * (float(data["depth"].max() - data["depth"].min()) or 1.0)
        for k, (name, colour) in enumerate(zip(order, sns.color_palette(n_colors=len(order)), strict=True)):
            line = data[data["series"] == name].sort_values("depth")
            bounds = [bootstrap_ci(cells.loc[(cells["series"] == name) & (cells["depth"] == d), value]
                                   .to_numpy(float), n_boot=n_boot, seed=seed) for d in line["depth"]]
            v = line[value].to_numpy(float)
            err = [[max(m - lo, 0.0) if lo == lo else 0.0 for m, (lo, _) in zip(v, bounds, strict=True)],
                   [max(hi - m, 0.0) if hi == hi else 0.0 for m, (_, hi) in zip(v, bounds, strict=True)]]
            ax.errorbar(line["depth"] + (k - (len(order) - 1) / 2) * step, v, yerr=err, color=colour,
                        marker="o", ms=4, lw=1.3, capsize=2, elinewidth=0.8, label=name)
        legend = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}
    ax.set_xlabel("needle depth (%)")
    ax.set_ylabel(f"mean {value} over lengths")
    ax.set_title(title)
    ax.legend(fontsize=7, **legend)
    return ax


# ------------------------------------------------------------------------------ thesis (BAMBOO)


def accuracy_heatmap(table: pd.DataFrame, ax=None, title: str = "", value: str = "accuracy",
                     rows: str = "run", columns: str = "prompt", column_order=None):
    """Accuracy over runs (rows: Full, the RAG pipelines, Evidence) × prompts (columns, in ``column_order`` where
    given, else as they first appear), annotated; where the table has ``ci_low``/``ci_high`` each cell also shows
    its 95 % interval under the value, and a cell the table marks ``at_floor`` says "floor"."""
    grid = table.pivot_table(index=rows, columns=columns, values=value, aggfunc="first", sort=False)
    if column_order is not None:
        grid = grid[[c for c in column_order if c in grid.columns] + [c for c in grid.columns if c not in column_order]]
    annot, fmt, kws = True, ".2f", {}
    if {"ci_low", "ci_high"} <= set(table.columns):
        lo, hi, floor = (table.pivot_table(index=rows, columns=columns, values=b, aggfunc="first", sort=False,
                                           dropna=False).reindex(index=grid.index, columns=grid.columns)
                         for b in ("ci_low", "ci_high", "at_floor" if "at_floor" in table else "ci_low"))
        annot = grid.apply(lambda col: [f"{v:.2f}\n[{a:.2f}, {b:.2f}]{' floor' if isinstance(f, (bool, np.bool_)) and f else ''}"
                                        if pd.notna(a) and pd.notna(b) else (f"{v:.2f}" if pd.notna(v) else "")
                                        for v, a, b, f in zip(col, lo[col.name], hi[col.name], floor[col.name],
                                                              strict=True)])
        annot, fmt, kws = annot.to_numpy(), "", {"fontsize": 7}
    ax = ax or plt.subplots(figsize=(4.5, 3.5) if fmt else (5, 4.2))[1]
    sns.heatmap(grid, vmin=0, vmax=1, annot=annot, fmt=fmt, annot_kws=kws, cmap="viridis",
                cbar_kws={"label": value}, ax=ax)
    ax.set(xlabel=columns, ylabel=rows)
    ax.set_title(title, fontsize=10)
    return ax


def distance_distributions(dist: pd.DataFrame, ax=None, title: str = "", order=("cosine", "svm", "bm25", "naive")):
    """Distributions of the ranking distance to the target, one box (with the cases as points) per ranker."""
    ax = ax or plt.subplots(figsize=(4, 3))[1]
    order = [r for r in order if r in set(dist["ranker"])]
    sns.boxplot(data=dist, x="ranker", y="distance", order=order, ax=ax, color=sns.color_palette()[0],
                showfliers=False, width=0.5)
    sns.stripplot(data=dist, x="ranker", y="distance", order=order, ax=ax, size=2, color="black", alpha=0.35)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("")
    ax.set_title(title, fontsize=9)
    return ax


def strategy_bars(table: pd.DataFrame, order=None, value: str = "f1", ax=None, title: str = "",
                  answers: pd.DataFrame | None = None, scale: float = 100, n_boot: int = 2000, seed: int = 0):
    """Mean ``value`` per strategy on the 0-1 scale, one group of bars per strategy and one colour per dataset,
    each bar with its 95 % bootstrap interval over the questions where the per-question ``answers`` are given.

    ``table``: columns dataset, strategy, ``value``, as :func:`lcrag.papers.longrag.answering.f1_table` saves it
    (x ``scale``: x 100, as the paper prints F1; divided here, so that bars and intervals share the 0-1 scale of
    the book's other figures). ``answers``: one row per question and strategy (dataset, strategy, ``value`` on
    0-1); the interval is :func:`lcrag.stats.bootstrap_ci` of the mean over a bar's questions."""
    from lcrag.stats import bootstrap_ci

    ax = ax or plt.subplots(figsize=(6, 3))[1]
    datasets = list(dict.fromkeys(table["dataset"]))
    order = list(order) if order is not None else list(dict.fromkeys(table["strategy"]))
    order = [s for s in order if s in set(table["strategy"])]
    width = 0.8 / max(len(datasets), 1)
    top = 0.0
    for i, ds in enumerate(datasets):
        rows = table[table["dataset"] == ds].set_index("strategy")
        xs = [j for j, s in enumerate(order) if s in rows.index]
        heights = [float(rows.loc[order[j], value]) / scale for j in xs]
        err = None
        if answers is not None:
            lo, hi = [], []
            for j, h in zip(xs, heights, strict=True):
                sel = answers[(answers["dataset"] == ds) & (answers["strategy"] == order[j])][value]
                low, high = bootstrap_ci(sel.to_numpy(float), n_boot=n_boot, seed=seed)
                lo.append(max(h - low, 0.0) if low == low else 0.0)  # NaN bounds (no answers): no bar
                hi.append(max(high - h, 0.0) if high == high else 0.0)
            err = [lo, hi]
            top = max(top, *(h + e for h, e in zip(heights, hi, strict=True)), 0.0)
        top = max(top, *heights, 0.0)
        ax.bar([j - 0.4 + width * (i + 0.5) for j in xs], heights, width=width, yerr=err, capsize=3,
               color=sns.color_palette()[i], label=ds)
    ax.set_xticks(range(len(order)), order)
    ax.set_ylim(0, min(1.0, max(top * 1.1, 0.05)))
    ax.set_ylabel(f"{value.upper() if value in ('f1', 'em') else value} (0-1)")
    ax.set(xlabel="strategy", title=title)
    ax.legend(title="dataset", fontsize=8)
    return ax


def kpr_radar(table: pd.DataFrame, axis: str, value: str = "kpr", series: str = "judge", ax=None, title: str = "",
              rmax: float | None = None):
    """Radar plot in the style of Long²RAG's Figs 4/5: one spoke per ``axis`` value (domain or category), one
    closed line per ``series`` value (a judge, a model or a variant); ``value`` is the radius; the legend below."""
    spokes = list(dict.fromkeys(table[axis]))
    angles = np.linspace(0, 2 * np.pi, len(spokes), endpoint=False).tolist()
    if ax is None:
        ax = plt.subplots(figsize=(4.5, 4.5), subplot_kw={"polar": True})[1]
    for name, g in table.groupby(series, sort=False):
        r = g.set_index(axis)[value].reindex(spokes).fillna(0).tolist()
        ax.plot([*angles, angles[0]], [*r, r[0]], label=str(name), linewidth=1.2)
        ax.fill([*angles, angles[0]], [*r, r[0]], alpha=0.08)
    ax.set_xticks(angles)
    ax.set_xticklabels(spokes, fontsize=8)
    ax.set_ylim(0, rmax if rmax is not None else max(0.05, float(table[value].max()) * 1.1))
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)  # below: clear of the spokes
    ax.set_title(title, fontsize=10)
    return ax


def kpr_radars(by_domain: pd.DataFrame, by_category: pd.DataFrame, variant: str):
    """Long²RAG's Figs 4 and 5 for one document ``variant`` (``none`` named whole documents): by domain, category."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 5.4), subplot_kw={"polar": True})
    name = "whole documents" if variant == "none" else variant
    for ax, table, axis in ((axes[0], by_domain, "domain"), (axes[1], by_category, "category")):
        kpr_radar(table[table["variant"] == variant], axis, ax=ax, title=f"KPR by {axis} ({name})")
    plt.tight_layout()
    return fig


# ------------------------------------------------------------------ labels that stay inside their panel


def _offsets(first: float, step: float = 10, n: int = 6) -> list[float]:
    """Vertical offsets (points) to try for a label, nearest ``first`` first: ``first``, ``first - step``,
    ``first + step``, ..."""
    return [first + sign * k * step for k in range(n + 1) for sign in ((1,) if k == 0 else (-1, 1))]


def _fits(box, inside, placed) -> bool:
    """A label's ``box`` lies within the axes' box ``inside`` and overlaps no label ``placed`` before it."""
    within = inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1
    return within and not any(box.overlaps(b) for b in placed)


def text_box(label, renderer):
    """A label's text box where it now stands, without its line to the point (an annotation's own box has both)."""
    label.update_positions(renderer)
    return Text.get_window_extent(label, renderer)


def place_label(label, renderer, inside, placed, first_dy: float) -> None:
    """Move ``label`` to the first position that :func:`_fits`: right of its point, then left of it (a point near
    the panel's right edge), then the same on two lines, each at the offsets of :func:`_offsets`; where none fits,
    the first that overlaps no other label (the axes clip what would run outside)."""
    text = label.get_text()
    words = text.split()
    two_lines = (" ".join(words[: len(words) // 2]) + "\n" + " ".join(words[len(words) // 2:])) if len(words) > 1 else text
    fallback = None
    for lines in dict.fromkeys((text, two_lines)):
        for right in (True, False):
            for dy in _offsets(first_dy):
                label.set_text(lines)
                label.set_horizontalalignment("left" if right else "right")
                label.xyann = (4 if right else -4, dy)
                box = text_box(label, renderer)
                if _fits(box, inside, placed):
                    return
                if fallback is None and not any(box.overlaps(b) for b in placed):
                    fallback = (lines, right, dy)
    lines, right, dy = fallback or (text, True, first_dy)
    label.set_text(lines)
    label.set_horizontalalignment("left" if right else "right")
    label.xyann = (4 if right else -4, dy)
