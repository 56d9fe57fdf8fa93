"""The rescoring tables as the chapter shows them: a cell without a run is a dash, never a bare NaN."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lcrag.papers.summhay import rescoring


def test_table2_side_by_side_marks_the_cell_without_a_run():
    comparison = pd.DataFrame({
        "summarizer": ["gpt3.5", "gpt3.5", "gpt-4o", "gpt-4o"],
        "setting": ["oracle", "full", "oracle", "full"],
        "metric": ["joint"] * 4,
        "ours": [30.04, np.nan, 40.0, 20.55],
        "paper": [25.0, np.nan, 35.0, np.nan],
    })
    t = rescoring.side_by_side(comparison, "joint")
    assert t.loc["gpt3.5", "oracle"] == "30.0 | 25.0"
    assert t.loc["gpt3.5", "full"] == rescoring.NO_RUN  # neither ours nor the paper's: no run
    assert t.loc["gpt-4o", "full"] == f"20.6 | {rescoring.NO_RUN}"
    assert not t.isna().any(axis=None)


def test_table5_display_marks_gpt35_full_and_keeps_the_numbers():
    table5 = pd.DataFrame({
        "summarizer": ["gpt3.5", "gpt-4o", "gpt-4o"],
        "setting": ["oracle", "oracle", "full"],
        "metric": ["precision"] * 3,
        "paper": [46.7, 65.7, 28.0],
        "ours": [53.44, 71.2, 37.2],
    })
    t = rescoring.table5_display(table5)
    assert t.loc["gpt3.5", ("ours", "precision", "full")] == rescoring.NO_RUN
    assert t.loc["gpt3.5", ("paper", "precision", "full")] == rescoring.NO_RUN
    assert t.loc["gpt3.5", ("ours", "precision", "oracle")] == "53.4"
    assert t.loc["gpt-4o", ("paper", "precision", "full")] == "28.0"
