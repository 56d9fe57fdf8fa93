"""The thesis's ranking distance (lcrag.papers.thesis.distance), by hand and on real cases."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.papers.thesis import cases as thesis_cases
from lcrag.papers.thesis import distance


def test_ranking_distance_by_hand():
    assert distance.ranking_distance([3, 7, 1], [3, 7, 1], 10, 0.05) == 0.0
    # A = [1, 2], B = [2, 1], m = 11. Identity pairing: each term (1 - a) * 1/10; swapped: each a * 1/1.
    assert distance.ranking_distance([1, 2], [2, 1], 11, 0.5) == pytest.approx(0.05)  # identity: 0.5 * 0.1
    assert distance.ranking_distance([1, 2], [2, 1], 11, 0.05) == pytest.approx(0.05)  # swap: 0.05 * 1
    assert distance.ranking_distance([1, 2], [2, 1], 11, 0.9) == pytest.approx(0.01)  # identity: 0.1 * 0.1
    assert distance.ranking_distance([1], [11], 11, 0.3) == pytest.approx(0.7)
    assert distance.ranking_distance([1], [1], 1, 0.5) == 0.0  # one chunk: no division by zero
    with pytest.raises(ValueError, match="same length"):
        distance.ranking_distance([1, 2], [1], 5, 0.5)


def test_distance_study_bm25_with_evidence_is_the_target(cases):
    kept = cases[cases["kept"]]
    d = distance.distance_study(thesis_cases.first_cases(kept, 2), rankers=("bm25", "naive"))
    assert len(d) == 4 * 2 * 2 * 2 * 2  # cases x queries x rankers x k x alpha
    assert d[(d["ranker"] == "bm25") & (d["query"] == "evidence")]["distance"].eq(0).all()
    assert (d[d["query"] == "question"]["distance"] > 0).any()
    s = distance.distance_summary(d)
    assert set(s.columns) >= {"median", "iqr", "n"} and s["n"].eq(4).all()


def test_the_cached_distance_study_is_the_study_and_a_second_run_reads_it(cases, monkeypatch):
    first = thesis_cases.first_cases(cases[cases["kept"]], 1)
    params = {"rankers": ("bm25", "naive"), "chunk_size": 512, "chunk_overlap": 50}
    direct = distance.distance_study(first, **params)
    pd.testing.assert_frame_equal(distance.cached_distance_study(first, **params), direct)
    monkeypatch.setattr(distance, "distance_study", lambda *a, **k: pytest.fail("computed again"))
    pd.testing.assert_frame_equal(distance.cached_distance_study(first, **params), direct)
    with pytest.raises(pytest.fail.Exception, match="computed again"):  # other parameters: another table
        distance.cached_distance_study(first, **{**params, "chunk_size": 256})
