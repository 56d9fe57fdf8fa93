"""The figures of :mod:`lcrag.plots` as readers see them: no label printed over another (the Venn diagrams'
"none right" count under the Evidence label, issue 20), and an interval drawn wherever the data have one, on the
figure's own scale."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

from lcrag import plots  # noqa: E402
from lcrag.stats import bootstrap_ci  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _counts(values) -> pd.DataFrame:
    return pd.DataFrame({"pattern": list(plots.PATTERN_ORDER), "count": list(values), "n": sum(values)})


def _text_boxes(fig) -> list[tuple[str, object]]:
    """Every visible, non-empty text of the figure (titles, Venn labels, annotations) with its extent on the
    canvas as the renderer draws it."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = []
    for ax in fig.axes:
        for t in [ax.title, ax._left_title, ax._right_title, *ax.texts]:
            if t.get_visible() and t.get_text().strip():
                boxes.append((t.get_text(), t.get_window_extent(renderer)))
    return boxes


def _overlaps(fig) -> list[tuple[str, str]]:
    boxes = _text_boxes(fig)
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]


# the thesis's Fig. 6.3 configuration's shape (most cases none right) and a run where every region is empty
VENN_COUNTS = [(19, 8, 6, 24, 13, 2, 6, 80), (0,) * 8, (1, 0, 0, 0, 0, 0, 0, 7), (120, 3, 4, 5, 6, 7, 8, 1000)]


@pytest.mark.parametrize("values", VENN_COUNTS)
def test_the_venn_diagram_beside_the_bars_has_no_label_over_another(values):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    plots.pattern_bars(_counts(values), ax=a1, title="CQT, BAMBOO, n cases")
    plots.pattern_venn(_counts(values), ax=a2, title="the same counts as a Venn diagram")
    fig.tight_layout()
    texts = [t for t, _ in _text_boxes(fig)]
    assert f"none right (---): {values[-1]}" in texts and "Evidence" in texts
    assert _overlaps(fig) == []


@pytest.mark.parametrize("values", VENN_COUNTS[:2])
def test_a_grid_of_venn_diagrams_has_no_label_over_another(values):
    """The thesis's grid: five pipelines × three prompts, titles above each panel (a label under a diagram must
    neither cover its own Evidence label nor the title of the panel below), at most 9 inches wide (the book's
    page shows about 8: the earlier prompts × pipelines grid was 16.5 inches, shown at half size)."""
    runs = [(p, q) for p in ("CQT", "CQS", "BQT", "CET", "BET") for q in ("BAMBOO", "CTX1", "CTX2")]
    counts = pd.concat([_counts(values).assign(pipeline=p, prompt=q) for p, q in runs], ignore_index=True)
    fig = plots.pattern_grid(counts, plots.pattern_venn)
    assert fig.get_size_inches()[0] <= 9 and len([a for a in fig.axes if a.axison or a.texts]) == 15
    assert [a.get_title() for a in fig.axes[:3]] == [f"CQT / {q} (n={sum(values)})" for q in ("BAMBOO", "CTX1", "CTX2")]
    assert _overlaps(fig) == []
    # and every label lies on the canvas
    canvas = fig.bbox
    for text, box in _text_boxes(fig):
        assert box.x0 >= canvas.x0 - 1 and box.x1 <= canvas.x1 + 1, text
        assert box.y0 >= canvas.y0 - 1 and box.y1 <= canvas.y1 + 1, text


def test_a_grid_of_pattern_bars_shares_one_scale_and_stays_short():
    """The thesis's bar grid: one y scale for all 15 runs (runs of the same cases compare by height), panels
    0.55 of their width high (the grid was 13.5 inches high, 1.3 screens at the book's width)."""
    runs = [(p, q) for p in ("CQT", "CQS", "BQT", "CET", "BET") for q in ("BAMBOO", "CTX1", "CTX2")]
    counts = pd.concat([_counts(VENN_COUNTS[i % 2]).assign(pipeline=p, prompt=q) for i, (p, q) in enumerate(runs)],
                       ignore_index=True)
    fig = plots.pattern_grid(counts, plots.pattern_bars, aspect=0.55, sharey=True)
    assert tuple(fig.get_size_inches()) == pytest.approx((9, 0.55 * 3 * 5))
    assert len({a.get_ylim() for a in fig.axes}) == 1
    assert fig.axes[0].get_ylim()[1] >= max(max(v) for v in VENN_COUNTS[:2])
    unshared = plots.pattern_grid(counts, plots.pattern_bars)
    assert len({a.get_ylim() for a in unshared.axes}) == 2


def test_the_none_right_count_sits_under_the_evidence_label():
    ax = plots.pattern_venn(_counts(VENN_COUNTS[0]), title="t")
    ax.figure.canvas.draw()
    r = ax.figure.canvas.get_renderer()
    box = {t.get_text(): t.get_window_extent(r) for t in ax.texts}
    evidence, none_right = box["Evidence"], box["none right (---): 80"]
    assert none_right.y1 <= evidence.y0
    assert abs((none_right.x0 + none_right.x1) / 2 - (evidence.x0 + evidence.x1) / 2) < 1


def _longrag_answers(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"dataset": ds, "strategy": s, "question_id": q, "f1": float(rng.uniform(0, hi)), "em": 0.0,
             "input_tokens": 100}
            for ds in ("2wikimqa", "musique") for s, hi in (("R&B", 0.4), ("E&F", 0.2), ("Closed", 0.05))
            for q in range(12)]
    return pd.DataFrame(rows)


def test_strategy_bars_draw_the_interval_of_every_bar_on_the_0_1_scale():
    from lcrag.papers.longrag.answering import f1_table

    answers = _longrag_answers()
    table = f1_table(answers)  # F1 x 100, as the chapter saves it
    ax = plots.strategy_bars(table, order=["R&B", "E&F", "Closed"], answers=answers)
    assert ax.get_ylim()[1] <= 1.0 and "0-1" in ax.get_ylabel()
    bars = [c for c in ax.containers if not isinstance(c, ErrorbarContainer)]
    errs = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2 and len(errs) == 2  # one colour per dataset, each with its whiskers
    for ds, container, err in zip(("2wikimqa", "musique"), bars, errs, strict=True):
        heights = [p.get_height() for p in container.patches]
        want = table[table["dataset"] == ds].set_index("strategy").loc[["R&B", "E&F", "Closed"], "f1"] / 100
        np.testing.assert_allclose(heights, want.to_numpy(), atol=1e-4)
        segments = err.lines[2][0].get_segments()
        for s, (h, seg) in zip(("R&B", "E&F", "Closed"), zip(heights, segments, strict=True), strict=True):
            lo, hi = bootstrap_ci(answers[(answers["dataset"] == ds) & (answers["strategy"] == s)]["f1"])
            np.testing.assert_allclose(sorted(seg[:, 1]), [min(lo, h), max(hi, h)], atol=1e-4)


def test_strategy_bars_without_answers_draw_no_interval():
    from lcrag.papers.longrag.answering import f1_table

    ax = plots.strategy_bars(f1_table(_longrag_answers()), order=["R&B", "E&F", "Closed"])
    assert ax.get_ylim()[1] <= 1.0
    assert all(c.lines[2] == () or not c.has_yerr for c in ax.containers if isinstance(c, ErrorbarContainer))


def test_the_accuracy_heatmap_prints_each_cell_s_interval():
    table = pd.DataFrame({"run": ["Full", "Full", "Evidence", "Evidence"], "prompt": ["A", "B", "A", "B"],
                          "accuracy": [0.625, 0.0, 0.125, 0.25], "ci_low": [0.25, 0.0, 0.0, 0.0],
                          "ci_high": [0.875, 0.0, 0.375, 0.5]})
    ax = plots.accuracy_heatmap(table)
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(["0.62\n[0.25, 0.88]", "0.00\n[0.00, 0.00]", "0.12\n[0.00, 0.38]",
                            "0.25\n[0.00, 0.50]"])
    assert _overlaps(ax.figure) == []
    table["at_floor"] = [False, True, True, True]  # a run at the floor says so in its cell
    texts = sorted(t.get_text() for t in plots.accuracy_heatmap(table).texts)
    assert texts == sorted(["0.62\n[0.25, 0.88]", "0.00\n[0.00, 0.00] floor", "0.12\n[0.00, 0.38] floor",
                            "0.25\n[0.00, 0.50] floor"])


def test_the_evaluator_legend_covers_no_value_and_no_bar():
    table = pd.DataFrame({"evaluator": ["GPT-4o", "lexical", "Qwen 1.5B", "SmolLM2"],
                          "cov_corr": [0.716, 0.70, 0.69, 0.68]})  # close values: long bars to the bottom
    ax = plots.evaluator_agreement(table, human=0.77)
    fig = ax.figure
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    values = [t.get_window_extent() for t in ax.texts]
    bars = [p.get_window_extent() for p in ax.patches]
    assert len(values) == 4 and not any(legend.overlaps(b) for b in values + bars)


def test_the_accuracy_heatmap_keeps_the_thesis_prompt_order():
    table = pd.DataFrame({"run": ["Full"] * 3, "prompt": ["BAMBOO", "CTX2", "CTX1"], "accuracy": [0.5, 0.25, 0.75]})
    ax = plots.accuracy_heatmap(table, column_order=["BAMBOO", "CTX1", "CTX2"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["BAMBOO", "CTX1", "CTX2"]
    assert [t.get_text() for t in ax.texts] == ["0.50", "0.75", "0.25"]


def test_the_depth_profile_has_an_error_bar_per_point_from_the_cells():
    rng = np.random.default_rng(1)
    cells = pd.DataFrame([{"model": f"local/{m}", "needle": n, "setting": "full", "depth": d,
                           "context_tokens": L, "recall": float(rng.integers(0, 2))}
                          for m in ("a", "b") for n in ("simple", "complex") for d in (0, 50, 100)
                          for L in (1000, 2000, 4000, 8000)])
    profile = cells.groupby(["model", "needle", "setting", "depth"], sort=False)["recall"].mean().reset_index()
    ax = plots.needle_depth_profile(profile, answers=cells)
    errs = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(errs) == 4 and all(c.has_yerr for c in errs)
    first = cells[(cells["model"] == "local/a") & (cells["needle"] == "simple") & (cells["depth"] == 0)]
    lo, hi = bootstrap_ci(first["recall"])
    seg = errs[0].lines[2][0].get_segments()[0]
    np.testing.assert_allclose(sorted(seg[:, 1]), [lo, hi], atol=1e-9)
