"""The thesis's pattern figures as readers see them (lcrag.papers.thesis.figures): no Venn label printed over
another as matplotlib draws them (the "none right" count under the Evidence label, issue 20; the browser test
checks the same in the page's SVG), grids that fit the book's width, and the SVG the page shows."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from figure_text import overlaps, text_boxes  # noqa: E402

from lcrag.papers.thesis import figures  # noqa: E402
from lcrag.papers.thesis.numbers import PATTERNS  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _counts(values) -> pd.DataFrame:
    return pd.DataFrame({"pattern": list(PATTERNS), "count": list(values), "n": sum(values)})


# the thesis's Fig. 6.3 configuration's shape (most cases none right) and a run where every region is empty
VENN_COUNTS = [(19, 8, 6, 24, 13, 2, 6, 80), (0,) * 8, (1, 0, 0, 0, 0, 0, 0, 7), (120, 3, 4, 5, 6, 7, 8, 1000)]


@pytest.mark.parametrize("values", VENN_COUNTS)
def test_the_venn_diagram_beside_the_bars_has_no_label_over_another(values):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    figures.pattern_bars(_counts(values), ax=a1, title="CQT, BAMBOO, n cases")
    figures.pattern_venn(_counts(values), ax=a2, title="the same counts as a Venn diagram")
    fig.tight_layout()
    texts = [t for t, _ in text_boxes(fig)]
    assert f"none right (---): {values[-1]}" in texts and "Evidence" in texts
    assert overlaps(fig) == []


@pytest.mark.parametrize("values", VENN_COUNTS[:2])
def test_a_grid_of_venn_diagrams_has_no_label_over_another(values):
    """The thesis's grid: five pipelines × three prompts, titles above each panel (a label under a diagram must
    neither cover its own Evidence label nor the title of the panel below), at most 9 inches wide (the book's
    page shows about 8: the earlier prompts × pipelines grid was 16.5 inches, shown at half size)."""
    runs = [(p, q) for p in ("CQT", "CQS", "BQT", "CET", "BET") for q in ("BAMBOO", "CTX1", "CTX2")]
    counts = pd.concat([_counts(values).assign(pipeline=p, prompt=q) for p, q in runs], ignore_index=True)
    fig = figures.pattern_grid(counts, figures.pattern_venn)
    assert fig.get_size_inches()[0] <= 9 and len([a for a in fig.axes if a.axison or a.texts]) == 15
    assert [a.get_title() for a in fig.axes[:3]] == [f"CQT / {q} (n={sum(values)})" for q in ("BAMBOO", "CTX1", "CTX2")]
    assert overlaps(fig) == []
    # and every label lies on the canvas
    canvas = fig.bbox
    for text, box in text_boxes(fig):
        assert box.x0 >= canvas.x0 - 1 and box.x1 <= canvas.x1 + 1, text
        assert box.y0 >= canvas.y0 - 1 and box.y1 <= canvas.y1 + 1, text


def test_a_grid_of_pattern_bars_shares_one_scale_and_stays_short():
    """The thesis's bar grid: one y scale for all 15 runs (runs of the same cases compare by height), panels
    0.55 of their width high (the grid was 13.5 inches high, 1.3 screens at the book's width)."""
    runs = [(p, q) for p in ("CQT", "CQS", "BQT", "CET", "BET") for q in ("BAMBOO", "CTX1", "CTX2")]
    counts = pd.concat([_counts(VENN_COUNTS[i % 2]).assign(pipeline=p, prompt=q) for i, (p, q) in enumerate(runs)],
                       ignore_index=True)
    fig = figures.pattern_grid(counts, figures.pattern_bars, aspect=0.55, sharey=True)
    assert tuple(fig.get_size_inches()) == pytest.approx((9, 0.55 * 3 * 5))
    assert len({a.get_ylim() for a in fig.axes}) == 1
    assert fig.axes[0].get_ylim()[1] >= max(max(v) for v in VENN_COUNTS[:2])
    unshared = figures.pattern_grid(counts, figures.pattern_bars)
    assert len({a.get_ylim() for a in unshared.axes}) == 2


def test_the_none_right_count_sits_under_the_evidence_label():
    ax = figures.pattern_venn(_counts(VENN_COUNTS[0]), title="t")
    ax.figure.canvas.draw()
    r = ax.figure.canvas.get_renderer()
    box = {t.get_text(): t.get_window_extent(r) for t in ax.texts}
    evidence, none_right = box["Evidence"], box["none right (---): 80"]
    assert none_right.y1 <= evidence.y0
    assert abs((none_right.x0 + none_right.x1) / 2 - (evidence.x0 + evidence.x1) / 2) < 1


def test_the_page_shows_the_venn_diagram_as_svg_with_its_labels_as_text_the_browser_can_measure():
    from lcrag import plots

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    figures.pattern_bars(_counts(VENN_COUNTS[0]), ax=a1, title="CQT, BAMBOO, n cases")
    figures.pattern_venn(_counts(VENN_COUNTS[0]), ax=a2, title="the same counts as a Venn diagram")
    svg = plots.as_svg(fig).data
    assert plt.get_fignums() == []  # closed: the notebook shows the SVG alone
    # 3 set names, the non-empty region counts, the none-right count: each a group of the browser test's id
    regions = sum(1 for v in VENN_COUNTS[0][:-1] if v)
    assert svg.count(f'<g id="{figures.VENN_LABEL}"') == 3 + regions + 1
    assert ">none right (---): 80</text>" in svg and ">Evidence</text>" in svg  # text, not glyph paths
    again = plt.subplots(1, 2, figsize=(9, 3.4))[0]
    figures.pattern_bars(_counts(VENN_COUNTS[0]), ax=again.axes[0], title="CQT, BAMBOO, n cases")
    figures.pattern_venn(_counts(VENN_COUNTS[0]), ax=again.axes[1], title="the same counts as a Venn diagram")
    assert plots.as_svg(again).data == svg  # the same figure, the same bytes (no date, fixed ids)


def test_a_count_sits_above_the_thesis_tick_that_would_cross_it():
    """Fig. 6.3's -RE bar (7 cases) under the thesis's scaled tick (about 10): the count is written above the
    tick, not through it; a tick level with its bar leaves the count on the bar."""
    values = (81, 1, 21, 3, 7, 3, 10, 32)  # the 1.5B's CQT/BAMBOO counts
    reference = dict(zip(PATTERNS, (81, 1, 21, 3, 8, 3, 10, 32), strict=True))  # -RE one above: crosses its 7
    ax = figures.pattern_bars(_counts(values), title="t", reference=reference)
    total, n = sum(reference.values()), sum(values)
    at = {t.get_text(): t.get_position()[1] for t in ax.texts}
    assert at["7"] == pytest.approx(8 * n / total)  # on the tick
    assert at["81"] == 81 and at["32"] == 32


def test_the_tile_grid_puts_runs_in_rows_and_cases_in_columns_so_many_cases_widen_it():
    """Fig. 6.7 on every kept case: 51 F-E cases as rows made the page's longest figure (900 px tall); turned, the
    15 runs are its rows and the cases its columns, a wide and short figure."""
    runs = [f"{p} / {q}" for p in ("CQT", "CQS", "BQT", "CET", "BET") for q in ("BAMBOO", "CTX1", "CTX2")]
    cases = [f"meetingqa {i}" for i in range(51)]
    tiles = pd.DataFrame([[float((i + j) % 3 == 0) for j in range(len(runs))] for i in range(len(cases))],
                         index=cases, columns=runs)
    ax = figures.tile_grid(tiles, title="t")
    width, height = ax.figure.get_size_inches()
    assert width > 2 * height
    assert [t.get_text() for t in ax.get_yticklabels()] == runs
    assert [t.get_text() for t in ax.get_xticklabels()] == cases
    assert ax.get_xlabel() == "case" and ax.get_ylabel() == "pipeline / prompt"
    assert figures.tile_grid(pd.DataFrame()).texts[0].get_text() == "no F-E case"


def test_the_distance_grid_names_its_axes():
    """The box plots of the ranking distance: the rankers on x (named under the bottom row), the distance on y."""
    rows = [{"k": k, "alpha": a, "query": q, "ranker": r, "distance": d / 10, "case": d}
            for k, a in figures.DISTANCE_ROWS for q in figures.DISTANCE_QUERIES
            for r in ("cosine", "bm25") for d in range(4)]
    fig = figures.distance_grid(pd.DataFrame(rows), 4)
    axes = fig.axes
    assert [a.get_xlabel() for a in axes[-2:]] == ["ranker", "ranker"]
    assert all(a.get_ylabel() == "distance" for a in axes[::2])
