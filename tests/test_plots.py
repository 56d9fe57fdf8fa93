"""The figures of :mod:`lcrag.plots` as readers see them: no label printed over another (the Venn diagrams'
"none right" count under the Evidence label, issue 20), and an interval drawn wherever the data have one, on the
figure's own scale."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from figure_text import overlaps  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

from lcrag import plots  # noqa: E402
from lcrag.stats import bootstrap_ci  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


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
    assert ax.get_ylim()[1] <= 1.0 and "0-1" in ax.get_ylabel() and ax.get_xlabel() == "strategy"
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
    assert overlaps(ax.figure) == []
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


def test_the_accuracy_heatmap_names_both_axes():
    table = pd.DataFrame({"run": ["Full", "Evidence"], "prompt": ["BAMBOO"] * 2, "accuracy": [0.5, 0.75]})
    ax = plots.accuracy_heatmap(table)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("prompt", "run")


def test_the_position_bars_name_both_axes():
    table = pd.DataFrame({"summarizer": ["gpt-4o", "claude3-opus"], "top": [30.0, 28.0], "full": [32.0, 31.0],
                          "bottom": [35.0, 29.0]})
    ax = plots.position_joint(table)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("summarizer", "Joint score")
