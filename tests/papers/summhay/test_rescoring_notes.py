"""The sentences section 3 prints: numbers read from the tables, verdicts that follow the numbers."""

from __future__ import annotations

import pandas as pd

from lcrag.papers.summhay import rescoring_notes as notes


def test_table2_pattern_counts_cells_above_and_the_mean_difference():
    table2 = pd.DataFrame({
        "metric": ["coverage"] * 3 + ["joint"] * 2,
        "ours": [50.0, 60.0, 40.0, 10.0, 12.0],
        "paper": [40.0, 50.0, 45.0, 10.0, None],
    })
    rates = pd.DataFrame({"metric": ["coverage", "joint"], "rank_corr": [0.5, 1.0]})
    lines = notes.table2_pattern(table2, rates).splitlines()
    assert lines == [
        "coverage: ours higher in 2 of 3 cells, mean +5.0 points, rank correlation 0.50",
        "joint: ours higher in 0 of 1 cells, mean +0.0 points, rank correlation 1.00",
    ]


def _swap(literal, swapped):
    return pd.DataFrame([
        {"reading": "literal headers", "difference_corr": literal[0], "same_sign": literal[1], "pairs": 27},
        {"reading": "swapped (inventory)", "difference_corr": swapped[0], "same_sign": swapped[1], "pairs": 27},
    ])


def test_swap_verdict_follows_the_gaps():
    assert "supports the inventory" in notes.swap_verdict(_swap((-0.84, 7), (0.84, 20)))
    assert "swapped: 20/27 (r +0.84)" in notes.swap_verdict(_swap((-0.84, 7), (0.84, 20)))
    assert "as printed" in notes.swap_verdict(_swap((0.6, 18), (-0.6, 9)))
    # the correlation says one thing, the signs the other: no verdict
    assert "does not decide" in notes.swap_verdict(_swap((0.3, 15), (0.2, 16)))


def test_table5_words_and_position_patterns():
    table5 = pd.DataFrame({
        "metric": ["precision", "precision", "recall", "recall"],
        "ours": [50.0, 30.0, 20.0, 40.0], "paper": [40.0, 35.0, 25.0, 38.0], "diff": [10.0, -5.0, -5.0, 2.0],
    })
    assert notes.table5_pattern(table5) == "Table 5: precision higher in 1 of 2 cells; recall -5.0 to +2.0 points from the paper's"
    words = pd.DataFrame({"ours": [20.0, 30.0, 25.0], "paper": [23.0, 29.0, 35.0], "diff": [-3.0, 1.0, -10.0]})
    assert notes.words_pattern(words) == "#Wb: shorter for 2 of 3 summarizers, by 3.0 to 10.0 words"
    position = pd.DataFrame({
        "summarizer": ["a", "b"], "top": [10.0, 30.0], "bottom": [20.0, 25.0],
        "paper_top": [5.0, 10.0], "paper_bottom": [9.0, 12.0],
    })
    assert notes.position_pattern(position) == "best place, ours | paper (1 of 2 the same): a bottom | bottom; b top | bottom"
    assert notes.position_pattern(pd.DataFrame()) == "no position-bias runs in this selection"


def test_table4_pattern_counts_reproduced_rows_and_the_sign_of_the_gap():
    rows = []
    for row, diffs in {"a": [0.0, 0.0], "b": [-0.02, -0.011], "c": [0.0, 0.004]}.items():
        rows += [{"row": row, "evaluator": e, "paper": 0.1, "ours": 0.1 + d, "diff": d, "match": d == 0.0}
                 for e, d in zip(["x", "y"], diffs, strict=True)]
    rows.append({"row": "Average", "evaluator": "x", "paper": 0.1, "ours": 0.2, "diff": 0.1, "match": False})
    lines = notes.table4_pattern(pd.DataFrame(rows)).splitlines()
    assert lines == [
        "3 of 7 Table 4 values reproduced at the printed precision",
        "summarizer rows reproduced: 1 of 3 (a)",
        "the other 2 rows: the paper's bias is larger than ours in 2 of their 4 cells, by -0.004 to +0.020",
    ]


def test_differences_that_round_to_zero_print_without_a_minus():
    """A mean difference of -0.02 points, a recall gap of -0.04 and a correlation of -0.001 read +0.0 / +0.00."""
    table2 = pd.DataFrame({"metric": ["coverage"] * 2, "ours": [50.0, 49.98], "paper": [50.0, 50.02]})
    rates = pd.DataFrame({"metric": ["coverage"], "rank_corr": [0.5]})
    assert notes.table2_pattern(table2, rates) == "coverage: ours higher in 0 of 2 cells, mean +0.0 points, rank " \
                                                 "correlation 0.50"
    table5 = pd.DataFrame({"metric": ["recall", "recall"], "ours": [1.0, 2.0], "paper": [1.0, 2.0],
                           "diff": [-0.04, 1.26]})
    assert notes.table5_pattern(table5).endswith("recall +0.0 to +1.3 points from the paper's")
    assert "(r +0.00)" in notes.swap_verdict(_swap((-0.001, 7), (0.84, 20)))
