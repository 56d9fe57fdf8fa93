"""How each experiment's answer moves with model size: every family's headline comparison (long-context arm minus
plain retrieval, with its 95 % interval) against the size of the model, for the models whose size the registry
knows (the embedded SmolLM2-135M, Gemma-3-270M, Qwen2.5-Coder 0.5B and 1.5B).

    size_table(syn)        # one row per family x sized model, smallest model first
    length_note(syn)       # the families whose long-context arm is not the same length for every model
    plot_size_axis(syn)    # one panel per family, then all families together
    claims_by_size(syn)    # each claim checked on our runs: its verdict per model size
    claims_legend()        # ... and what each of its cells can say
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from lcrag.book.claims import (
    CLAIMS_FILE,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    UNCHECKED_VERDICTS,
    read_claims,
)
from lcrag.book.verdicts import AT_FLOOR, NOT_RUN, OTHER_REASON, OUR_RUN, untestable_because
from lcrag.models.registry import parameters, size_of
from lcrag.plots import place_label, text_box
from lcrag.synthesis.family import NOT_RUN as NO_RUN_YET
from lcrag.synthesis.family import NOT_TESTABLE, UNCLEAR, UNCORROBORATED
from lcrag.synthesis.views import Synthesis, headline
from lcrag.text import count

SIZE_COLUMNS = ("family", "model", "size", "parameters", "comparison", "long_arm", "other_arm", "diff", "ci_low",
                "ci_high", "n", "scope", "n_to_decide", "units", "reading", "long_context", "source")


def items_to_decide(diff: float, lo: float, hi: float, n: int) -> float:
    """How many items a 95 % interval would need to exclude 0 if the difference and its spread stayed as observed:
    the half-width shrinks as 1/sqrt(n), so ``n * (half-width / |diff|) ** 2``, rounded up, and from 1,000 up to two
    significant figures (a planning number: 85,877 would claim a precision it has not). NaN without an interval or
    with a difference of 0 (no n decides it); at most about ``n`` when the interval already excludes 0."""
    if any(x is None or (isinstance(x, float) and math.isnan(x)) for x in (diff, lo, hi)) or diff == 0 or n <= 0:
        return float("nan")
    k = math.ceil(n * ((hi - lo) / 2 / abs(diff)) ** 2)
    step = 10 ** (len(str(k)) - 2) if k >= 1000 else 1
    return float(math.ceil(k / step) * step)


def exact_toward_zero(row) -> bool:
    """Whether a comparison row's bound toward 0 is the exact one of :func:`lcrag.stats.one_sided_bounds` (no item
    favoured the arm behind: the bound is the share of items that could, not a measured spread; it narrows as 1/n,
    not 1/sqrt(n), so :func:`items_to_decide` cannot plan from it): :func:`lcrag.stats.is_unseen_bound`."""
    from lcrag.stats import is_unseen_bound

    bound, end = (row["ci_high"], 1.0) if row["diff"] < 0 else (row["ci_low"], -1.0)
    return is_unseen_bound(bound, int(row["n"]), end)


def n_to_decide(row) -> int | None:
    """:func:`items_to_decide` for a comparison row (``diff``, ``ci_low``, ``ci_high``, ``n``, ``reading``) whose
    interval contains 0, or None: one already decided (its interval excludes 0), at the floor (more items do not lift
    a model off it), a difference no number of items decides, or one whose bound toward 0 was not measured
    (:func:`exact_toward_zero`)."""
    if row["reading"] != UNCLEAR or exact_toward_zero(row):
        return None
    k = items_to_decide(row["diff"], row["ci_low"], row["ci_high"], int(row["n"]))
    return None if math.isnan(k) else int(k)


def size_table(syn: Synthesis) -> pd.DataFrame:
    """The headline comparison of each family for each model of known size (:func:`lcrag.models.registry.
    size_of`), families in their order and models by size; models of unknown size (an API model, a GGUF given by
    path) are left out: :func:`unsized_models` names them."""
    h = headline(syn)
    h = h.assign(size=h["model"].map(size_of)) if len(h) else h.assign(size=pd.Series(dtype=object))
    h = h[h["size"].notna()].copy()
    h["parameters"] = h["size"].map(parameters)
    h["n_to_decide"] = pd.array([n_to_decide(r) for _, r in h.iterrows()], dtype="Int64")  # a missing one: a dash
    order = {f.name: i for i, f in enumerate(syn.families)}
    h = h.assign(_order=h["family"].map(order)).sort_values(["_order", "parameters"], kind="stable")
    return h[list(SIZE_COLUMNS)].reset_index(drop=True)


def size_view(sizes: pd.DataFrame) -> pd.DataFrame:
    """:func:`size_table` as the page shows it: indexed by family and size, the columns a reader needs, and
    ``n_to_decide`` with thousands separators (a dash where none applies)."""
    shown = sizes[["family", "size", "comparison", "long_context", "n", "scope", "n_to_decide", "reading"]]
    return shown.assign(n_to_decide=[f"{k:,}" if pd.notna(k) else "—" for k in shown["n_to_decide"]]).set_index(
        ["family", "size"])


def _run_model(claim_model: str, run_model: str) -> str:
    """The model a claim was checked on: its ledger's (``local/x (our runs)`` names ``local/x``; the needle run
    checks Gemma-3 inside SmolLM2's run), else the run's."""
    name = claim_model.split(" (")[0]
    return name if size_of(name) else run_model


#: What a size's cell says of a claim its run could not test, by the reason its evidence gives
#: (:func:`lcrag.book.verdicts.untestable_because`): a model at the floor, or a run that left the claim's arms out;
#: the chapter's own verdict (*not testable with this model*) with the reason in brackets.
UNTESTABLE_CELLS = {AT_FLOOR: f"{NOT_TESTABLE} (floor)", NOT_RUN: f"{NOT_TESTABLE} (arm not run)",
                    OTHER_REASON: NOT_TESTABLE, None: NOT_TESTABLE}


#: The column of :func:`claims_by_size` that holds each claim as the paper states it (with the paper's numbers).
PAPER_CLAIM = "the paper's claim"

#: What a size's cell says where that model has no verdict of its own on the claim: its run checks the claim on
#: another model (:func:`checked_on`), its run does not check it, or it has no run of the chapter.
CHECKED_ON = "checked on {size}"
NOT_CHECKED = "not checked"


def checked_on(size: str) -> str:
    """The cell of a model whose run checks the claim on a model of another ``size`` (SummHay's C15 on its judge)."""
    return CHECKED_ON.format(size=size)


def claims_legend() -> str:
    """What every value a cell of :func:`claims_by_size` can hold means: markdown, one item per value."""
    meaning = {
        REPRODUCED: "on this model's run, the test's interval lies entirely on the claim's side (the book's verdict "
                    "rules)",
        NOT_REPRODUCED: "the interval lies entirely on the other side",
        INCONCLUSIVE: "the interval contains both answers: with this many items the data cannot decide",
        UNTESTABLE_CELLS[AT_FLOOR]: "an arm the claim compares is at the floor for this model",
        UNTESTABLE_CELLS[NOT_RUN]: "its run left an arm of the claim out (no verdict)",
        NOT_TESTABLE: ("the run cannot test the claim for another reason, given in its chapter (e.g. a level of the "
                       "paper's own model, or the paper's embedding model)"),
        checked_on("1.5B"): ("(or another size) this model's run checks the claim on the model of that size, whose "
                             "column holds the verdict (e.g. a claim about the judge, whichever model summarizes; no "
                             "verdict)"),
        NOT_CHECKED: "this model ran the chapter, but its run does not check the claim (no verdict)",
        NO_RUN_YET: "this model has no run of the chapter (no verdict)",
    }
    return "\n".join(f"- *{cell}*: {what}." for cell, what in meaning.items())


def size_cell(verdict: str, evidence: str) -> str:
    """A claim's cell in :func:`claims_by_size`: its verdict, or for *not testable* why (:data:`UNTESTABLE_CELLS`),
    so that a model at the floor and a run that left the claim's arms out (a ``companion`` run) read apart."""
    return UNTESTABLE_CELLS[untestable_because(evidence)] if verdict == NOT_TESTABLE else verdict


def claims_by_size(syn: Synthesis) -> pd.DataFrame:
    """One row per claim checked on our runs (source "our run", verdict not in :data:`UNCHECKED_VERDICTS`), one
    column per model size (smallest first) holding its verdict (:func:`size_cell`) or why it has none
    (:func:`_no_verdict`), and ``reproduced from`` (:func:`_reproduced_from`): the size from which every larger
    model with a verdict reproduces the claim ("" when the largest does not). No cell is blank (:func:`claims_legend`)."""
    frames = []
    for r in syn.runs.itertuples():
        path = Path(r.run_dir) / CLAIMS_FILE
        if path.is_file():
            c = read_claims(path)
            frames.append(c.assign(model=[_run_model(m, r.model) for m in c["model"]], run_size=size_of(r.model)))
    claims = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["model", "source", "verdict"])
    claims = claims[(claims["source"] == OUR_RUN) & ~claims["verdict"].isin(UNCHECKED_VERDICTS)
                    & claims["model"].map(size_of).notna()]
    if claims.empty:
        return pd.DataFrame(columns=["chapter", "claim_id", PAPER_CLAIM, "reproduced from"])
    claims = claims.assign(size=claims["model"].map(size_of),
                           cell=[size_cell(v, e) for v, e in zip(claims["verdict"], claims["evidence"], strict=True)])
    sizes = sorted(claims["size"].unique(), key=parameters)
    table = claims.pivot_table(index=["chapter", "claim_id"], columns="size", values="cell", aggfunc="first",
                               fill_value="", sort=False)[sizes]
    for (chapter, claim_id), row in table.iterrows():
        for size in sizes:
            if row[size] == "":
                table.loc[(chapter, claim_id), size] = _no_verdict(syn, claims, chapter, claim_id, size)
    text = claims.drop_duplicates(["chapter", "claim_id"]).set_index(["chapter", "claim_id"])["text"]
    table.insert(0, PAPER_CLAIM, text.reindex(table.index))  # the paper's wording: its numbers are the paper's
    table["reproduced from"] = [_reproduced_from(row[sizes]) for _, row in table.iterrows()]
    table.columns.name = None
    return table.reset_index()


def _no_verdict(syn: Synthesis, claims: pd.DataFrame, chapter: str, claim_id: str, size: str) -> str:
    """The cell of a size without a verdict of its own on a claim: its run checks the claim on another size
    (:func:`checked_on`), it ran the chapter without checking the claim (:data:`NOT_CHECKED`), or it has no run of
    the chapter (*not run yet*)."""
    of_chapter = claims[claims["chapter"] == chapter]
    elsewhere = of_chapter[(of_chapter["claim_id"] == claim_id) & (of_chapter["run_size"] == size)]
    if len(elsewhere):
        return checked_on(str(elsewhere["size"].iloc[0]))
    runs = syn.runs[syn.runs["chapter"] == chapter]
    if (runs["model"].map(size_of) == size).any() or (of_chapter["size"] == size).any():
        return NOT_CHECKED
    return NO_RUN_YET


#: The cells that say nothing of whether the model shows a finding: :func:`_reproduced_from` skips them. A model at
#: the floor cannot test the claim (not testable, never "not reproduced"), so it does not mark where a finding starts.
NO_VERDICT = (UNTESTABLE_CELLS[NOT_RUN], UNTESTABLE_CELLS[AT_FLOOR], NOT_CHECKED, NO_RUN_YET)


def _reproduced_from(verdicts: pd.Series) -> str:
    """The size from which a finding appears: every size with a verdict from it up (in increasing order) reads
    "reproduced", and either the size with a verdict just below it shows the finding absent (not reproduced) or it
    is the smallest of at least two sizes with verdicts, then marked "(no smaller size tests it)" where smaller sizes
    have no verdict (at the floor, or the arm not run): the finding may start lower. Empty otherwise: one size alone
    shows no threshold, an inconclusive size below cannot say where the finding starts."""
    ran = verdicts[~verdicts.isin(NO_VERDICT) & ~verdicts.str.startswith(CHECKED_ON.split("{")[0])]
    if ran.empty or ran.iloc[-1] != REPRODUCED:
        return ""
    first = len(ran) - 1
    while first > 0 and ran.iloc[first - 1] == REPRODUCED:
        first -= 1
    if first == 0:
        if len(ran) < 2:
            return ""
        untested_below = list(verdicts.index).index(ran.index[0]) > 0
        return str(ran.index[0]) + (" (no smaller size tests it)" if untested_below else "")
    below = ran.iloc[first - 1]
    return str(ran.index[first]) if below == NOT_REPRODUCED else ""


def unsized_models(syn: Synthesis) -> list[str]:
    """The models of ``syn`` that the size axis leaves out (the registry does not know their size)."""
    return [m for m in syn.models if size_of(m) is None]


def _varies(part: pd.DataFrame, column: str) -> bool:
    """Whether a family's rows hold more than one (non-empty) value of ``column``."""
    return part[column].fillna("").astype(str).replace("", np.nan).dropna().nunique() > 1


def _short(text: str) -> str:
    """A label without its parenthesis: ``7.3 documents (as many as fit the context budget)`` -> ``7.3 documents``."""
    return text.split(" (")[0]


def _label(text: str) -> str:
    """A point's label in the figure: :func:`_short`, and a list of token lengths as its range (``1000, 2000, 4000,
    8000 tokens`` -> ``1k–8k tokens``: the longest is what differs between models)."""
    text = _short(text)
    n = [int(x) for x in re.findall(r"\d+", text)] if re.fullmatch(r"\d+(, \d+)* tokens", text) else []
    return f"{n[0] / 1000:g}k{f'–{n[-1] / 1000:g}k' * (n[-1] != n[0])} tokens" if n else text


def length_note(syn: Synthesis) -> str:
    """The families whose long-context arm was not the same length for every model of known size (each
    comparison's ``long_context``, from the chapters' tables), with each length's sizes: on those, a difference
    between sizes mixes model size with context length. Markdown, one sentence (or two)."""
    t = size_table(syn)
    differ, unknown = [], []
    for f in syn.families:
        part = t[t["family"] == f.name]
        if part.empty:
            continue
        if (part["long_context"].fillna("") == "").all():
            unknown.append(f.in_prose)
        elif _varies(part, "long_context"):
            sizes = [f"{_short(ctx)} at {', '.join(g['size'])}"
                     for ctx, g in part.groupby("long_context", sort=False) if ctx]
            differ.append(f"{f.in_prose} ({'; '.join(sizes)})")
    if differ:
        text = (f"The long-context arm is not the same length for every model in {'; in '.join(differ)}: there, "
                "a difference between sizes mixes model size with context length.")
    else:
        text = "The long-context arm held the same context for every model of known size, where the tables say."
    if unknown:
        text += f" The tables of {', '.join(unknown)} do not say how long it was."
    scoped = []
    for f in syn.families:
        part = t[t["family"] == f.name]
        scope = part["scope"].fillna("").astype(str).replace("", "all items")
        if scope.nunique() > 1:
            items = [f"{s} at {', '.join(g['size'])}" for s, g in part.groupby(scope, sort=False)]
            scoped.append(f"{f.in_prose} ({'; '.join(items)})")
    if scoped:
        text += (" Where a chapter's floor rule left some items out, the items compared differ between models, in "
                 f"{'; in '.join(scoped)}: there, a difference between sizes also mixes in the items.")
    return text


def _testable(t: pd.DataFrame) -> pd.Series:
    return t["reading"] != NOT_TESTABLE


def _draw(ax, t: pd.DataFrame, colour, label: str | None = None, offset: float = 1.0, floor_colour="grey") -> None:
    """One family's points: the difference in percentage points with its interval; filled where the interval
    excludes 0 (and no rule withholds the verdict: :data:`~lcrag.synthesis.family.UNCORROBORATED`), hollow where not, crosses (``floor_colour``) where an arm is at the floor (not testable).
    ``label`` names the family in a legend, whether its points are testable or all at the floor."""
    x = t["parameters"].to_numpy(float) * offset
    y = 100 * t["diff"].to_numpy(float)
    lo, hi = 100 * t["ci_low"].to_numpy(float), 100 * t["ci_high"].to_numpy(float)
    err = np.vstack([y - lo, hi - y])
    err = np.where(np.isnan(err), 0, err).clip(min=0)
    ok = _testable(t).to_numpy()
    if ok.any():
        ax.plot(x[ok], y[ok], color=colour, lw=1, alpha=0.6, label=label)
        ax.errorbar(x[ok], y[ok], yerr=err[:, ok], fmt="none", ecolor=colour, capsize=3)
        clear = ok & ((lo > 0) | (hi < 0)) & (t["reading"] != UNCORROBORATED).to_numpy()  # a decided difference
        ax.scatter(x[clear], y[clear], color=colour, zorder=3, s=30)
        ax.scatter(x[ok & ~clear], y[ok & ~clear], facecolors="white", edgecolors=colour, zorder=3, s=30)
    if (~ok).any():
        ax.scatter(x[~ok], y[~ok], marker="x", color=floor_colour, zorder=3, s=30,
                   label=label if label and not ok.any() else None)


def _annotate(ax, part: pd.DataFrame) -> None:
    """Label each point with what differs between the family's models: the other arm its headline picked, how
    long the long-context arm was (``long_context``, without its parenthesis), and how many items it pairs, in small text kept inside the
    panel (:func:`lcrag.plots.place_label`: right of the point, or left of it near the right edge, above or below it, on two lines
    if need be) and clear of the other labels and of every point and whisker (:func:`_marks`), with a thin line to
    its point, so that no label reads as its neighbour's."""
    shown = [c for c in ("other_arm", "long_context") if _varies(part, c)]
    items = {"n", "units"} <= set(part.columns) and _varies(part, "n")  # the items paired, where the models ran different numbers (a needle grid, a subset)
    if not shown and not items:
        return
    placed = [_marks(ax, r) for r in part.itertuples()]  # no label over a point or its whisker
    renderer = ax.figure.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    for i, r in enumerate(part.itertuples()):  # every other label below its point first
        words = [_label(str(getattr(r, c))) for c in shown if str(getattr(r, c) or "")]
        n = count(int(r.n), str(r.units)) if items else ""
        text = ", ".join([*words, *([n] if n and not any(n in w for w in words) else [])])  # the count once
        xy = (r.parameters, 100 * r.diff)
        label = ax.annotate(text, xy, xytext=(4, 5), textcoords="offset points", fontsize=6.5, clip_on=True,
                            arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.6, "shrinkA": 1, "shrinkB": 3})
        place_label(label, renderer, inside, placed, first_dy=5 if i % 2 == 0 else -11)
        placed.append(text_box(label, renderer))


def _marks(ax, r, pad: float = 4.0):
    """The display box a point and its whisker cover (``pad`` pixels around them; a cross has no whisker)."""
    from matplotlib.transforms import Bbox

    whisker = (getattr(r, "ci_low", None), getattr(r, "ci_high", None)) if getattr(r, "reading", "") != NOT_TESTABLE else ()
    ys = [100 * v for v in (r.diff, *whisker) if not pd.isna(v)]
    (x0, y0), (x1, y1) = ax.transData.transform([(r.parameters, min(ys)), (r.parameters, max(ys))])
    return Bbox([[x0 - pad, y0 - pad], [x1 + pad, y1 + pad]])


def _title(f, part: pd.DataFrame) -> str:
    """``needle: Full − RAG``; where the headline's other arm differs between models, the family's name for it
    (``summhay: Full − best retriever``)."""
    arms = list(dict.fromkeys(part["other_arm"]))
    other = arms[0] if len(arms) == 1 else (f.headline_name or "other arm")
    return f"{f.name}: {part['long_arm'].iloc[0]} − {other}"


def _axis(ax, sizes: pd.DataFrame, title: str) -> None:
    """Every panel on the same sizes (log scale, a margin either side) and at least +-10 pp around 0."""
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xscale("log")
    ticks = sizes.drop_duplicates("size").sort_values("parameters")
    ax.set_xticks(ticks["parameters"], ticks["size"])
    ax.minorticks_off()
    ax.set_xlim(ticks["parameters"].min() / 1.5, ticks["parameters"].max() * 1.5)
    lo, hi = ax.get_ylim()
    ax.set_ylim(min(lo, -10), max(hi, 10))
    ax.set_xlabel("model size (parameters)")
    ax.set_ylabel("long context − other arm (pp)")
    ax.set_title(title, fontsize=10)


def plot_size_axis(syn: Synthesis, columns: int = 3):
    """One panel per family with a sized model (its headline difference against model size, 95 % intervals as
    whiskers; each point labelled with its other arm and its long-context length where these differ between the
    family's models, inside its panel: :func:`_annotate`), then one panel with every family (crosses in the
    family's colour); the legend, naming every family's colour, lies under the panels, outside all of them. None
    when no family has a model of known size."""
    import matplotlib.pyplot as plt

    t = size_table(syn)
    fams = [f for f in syn.families if (t["family"] == f.name).any()]
    if not fams:
        return None
    n = len(fams) + 1
    rows = -(-n // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(13, 3.6 * rows), squeeze=False)
    axes = list(axes.ravel())
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, f in enumerate(fams):
        part = t[t["family"] == f.name]
        _draw(axes[i], part, colours[i % len(colours)])
        _axis(axes[i], t, _title(f, part))
        _annotate(axes[i], part)  # after the axis's limits: where the labels land
    together = axes[len(fams)]
    for i, f in enumerate(fams):  # spread the families a little along x so their whiskers do not overlap
        spread = 1.0 + 0.06 * (i - (len(fams) - 1) / 2)
        colour = colours[i % len(colours)]
        _draw(together, t[t["family"] == f.name], colour, label=f.name, offset=spread, floor_colour=colour)
    _axis(together, t, "every experiment")
    if (~_testable(t)).any():
        together.scatter([], [], marker="x", color="grey", label="×: not testable (an arm at the floor)")
    for ax in axes[n:]:
        ax.set_axis_off()
    legend_in = 0.45  # inches under the panels for the legend: outside every panel, no point hidden under it
    fig.tight_layout(rect=(0, legend_in / fig.get_figheight(), 1, 1))
    handles, labels = together.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0), ncol=len(labels), fontsize=8,
               frameon=False)
    return fig
