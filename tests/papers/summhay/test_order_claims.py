"""SummHay's order claims (lcrag.papers.summhay.order_claims): the cells on draws of the subtopics.

(The claims on the released artefacts themselves: tests/metrics/test_summhay.py.)"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lcrag.papers.summhay import order_claims
from lcrag.stats import cluster_weights


def _scores() -> pd.DataFrame:
    return pd.DataFrame({
        "haystack": ["news1"] * 6, "subtopic_id": ["a", "a", "b", "b", "c", "c"],
        "summarizer": ["gpt-4o"] * 6, "setting": ["oracle", "full"] * 3,
        "coverage": [1.0, 0.5, 0.0, 1.0, 0.5, 0.0], "joint": [0.8, 0.2, 0.0, 0.6, 0.4, 0.0],
        "f1": [0.9, 0.5, 0.3, 0.7, 0.6, 0.2], "precision": [1.0, 0.5, 0.2, 0.8, 0.6, 0.1],
        "recall": [0.8, 0.5, 0.4, 0.6, 0.6, 0.3]})


def test_the_cells_on_draws_of_the_subtopics_keep_their_numbers():
    """Three subtopics drawn three times (seed 2: lcrag.stats.cluster_weights' [[0, 1, 2], [2, 0, 1], [1, 1, 1]]):
    pinned on the cells as computed before the draws moved to lcrag.stats."""
    columns, values = order_claims.resampled_cells(_scores(), n_draws=3, seed=2)
    picked = values[:, [columns[("gpt-4o", "oracle", "joint")], columns[("gpt-4o", "full", "citation")]]]
    assert picked.tolist() == [[26.666666666666668, 70.0], [66.66666666666666, 50.0], [40.00000000000001, 60.0]]
    _, given = order_claims.resampled_cells(_scores(), weights=cluster_weights(3, 3, seed=2))
    assert np.array_equal(given, values)
    _, ours = order_claims.resampled_cells(_scores(), weights=np.ones((1, 3)))  # every subtopic once: our cells
    assert ours[0, columns[("gpt-4o", "oracle", "joint")]] == 100 * (0.8 + 0.0 + 0.4) / 3
