"""One figure per model: each family draws its panels (:attr:`lcrag.synthesis.Family.plot`), three to a row.

A family whose panel is its detail table's arms as bars with their 95 % intervals uses :func:`bar_panel`; a
family without a run for the model draws a panel that says so (:func:`empty_panel`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from lcrag.synthesis.family import NOT_RUN
from lcrag.synthesis.views import Synthesis

COLUMNS = 3


def _rows(syn: Synthesis) -> int:
    return max(1, math.ceil(sum(f.panels for f in syn.families if f.plot is not None and f.panels > 0) / COLUMNS))


def plot_model(syn: Synthesis, model: str, fig=None):
    """One figure per model: every family's panels in the families' order (the needle's recall by length and
    depth, then the other families' arms with their 95 % intervals). A family without a run is a panel that
    says so. ``fig``: a (sub)figure to draw into (:func:`plot_models`); a new figure by default."""
    import matplotlib.pyplot as plt

    drawn = [f for f in syn.families if f.plot is not None and f.panels > 0]
    rows = _rows(syn)
    own = fig is None
    if own:
        fig = plt.figure(figsize=(13, 4 * rows))
    axes = list(np.ravel(fig.subplots(rows, COLUMNS)))
    i = 0
    for f in drawn:
        f.plot(axes[i : i + f.panels], syn, model)
        i += f.panels
    for ax in axes[i:]:
        ax.set_axis_off()
    fig.suptitle(model)
    if own:
        fig.tight_layout()
    return fig


def plot_models(syn: Synthesis, models):
    """Every model's figure (:func:`plot_model`) stacked in one figure, one block of panels per model under its
    name: the book shows it as one numbered figure with one caption."""
    import matplotlib.pyplot as plt

    models = list(models)
    fig = plt.figure(figsize=(13, 4 * _rows(syn) * max(len(models), 1)), layout="constrained")
    for sub, m in zip(np.ravel(fig.subfigures(max(len(models), 1), 1)), models, strict=False):
        plot_model(syn, m, fig=sub)
    return fig


def bar_panel(family: str, label: str, value: str | tuple[str, ...], title: str,
              reference: tuple[float, str] | None = None):
    """A family's plot: one panel of bars, ``value`` (or each of several values, side by side) per ``label`` of the
    model's rows of its detail table, with a dashed ``reference`` line (``(0.25, "chance")``) where given."""

    def plot(axes, syn: Synthesis, model: str) -> None:
        t = syn.tables[family]
        bars(axes[0], t[t["model"] == model], label, value, title, reference)

    return plot


def empty_panel(ax, family: str, text: str = NOT_RUN) -> None:
    """A panel that only says ``<family>: <text>``."""
    ax.text(0.5, 0.5, f"{family}: {text}", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


def bars(ax, table: pd.DataFrame, label: str, value: str | tuple[str, ...], title: str,
         reference: tuple[float, str] | None = None) -> None:
    """``value`` per ``label`` as bars, with the 95 % interval where the table has one (0-1 scale); several values
    side by side, with a legend (without intervals); a dashed ``reference`` line (value, name) where given."""
    if table.empty:
        empty_panel(ax, title.split(":")[0])
        return
    x = np.arange(len(table))
    if isinstance(value, str) and {"ci_low", "ci_high"} <= set(table.columns):
        v = table[value].to_numpy(dtype=float)
        err = np.vstack([v - table["ci_low"].to_numpy(float), table["ci_high"].to_numpy(float) - v]).clip(min=0)
        ax.bar(x, v, yerr=err, capsize=3, color="#4c72b0")
    else:
        values = [value] if isinstance(value, str) else list(value)
        width = 0.8 / len(values)
        for k, (name, colour) in enumerate(zip(values, ("#dd8452", "#937860", "#da8bc3"), strict=False)):
            ax.bar(x + (k - (len(values) - 1) / 2) * width, table[name].to_numpy(dtype=float), width, color=colour,
                   label=name if len(values) > 1 else None)
        if len(values) > 1:
            ax.legend(fontsize=7, loc="upper right")
    if reference is not None:
        ax.axhline(reference[0], ls="--", lw=0.8, color="grey")
        ax.text(x[-1] + 0.4, reference[0], reference[1], ha="right", va="bottom", fontsize=7, color="0.3", zorder=4,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    ax.set_xticks(x, table[label].astype(str), rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_title(title)
