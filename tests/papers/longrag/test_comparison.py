"""LongRAG in the synthesis (lcrag.papers.longrag.comparison): it reads the columns the chapter's pipeline writes,
and the chapter's floor rule decides which datasets a comparison pools, so the synthesis and the chapter's claims
never disagree."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.papers.longrag import claims_common, comparison, differences
from lcrag.synthesis import NOT_TESTABLE

N = 30


def _questions(means: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """Per-question F1 rows of one model from {dataset: {strategy: [f1 per question]}}."""
    return pd.DataFrame([{"model": "local/m", "dataset": d, "question_id": f"{d}-{i}", "strategy": s, "f1": f,
                          "source": "longrag/answers.csv"}
                         for d, by_s in means.items() for s, vals in by_s.items() for i, f in enumerate(vals)])


def _alternating(hi: float, lo: float) -> list[float]:
    return [hi if i % 2 else lo for i in range(N)]


def test_a_dataset_with_an_arm_at_the_floor_decides_nothing_as_in_the_chapter():
    # as SmolLM2's run: Full and R&B above the floor on 2wikimqa; Full at 0.0375 on musique
    q = _questions({"2wikimqa": {"Full": _alternating(0.25, 0.0), "R&B": _alternating(0.4, 0.0)},
                    "musique": {"Full": _alternating(0.075, 0.0), "R&B": _alternating(0.2, 0.05)}})
    row = comparison.comparisons(q, n_boot=500)[0]
    deciding, floor, note = claims_common.dataset_floor(q, ("Full", "R&B"))  # the chapter's rule
    assert deciding == ["2wikimqa"] and floor is None
    assert row["n"] == N and row["long_value"] == pytest.approx(0.125) and row["other_value"] == pytest.approx(0.2)
    assert row["reading"] != NOT_TESTABLE
    assert row["evidence"] == f"paired bootstrap over {N} questions of 2wikimqa{note}"
    assert "not deciding (at the floor): Full on musique (mean F1): 3.7 points, below 5" in row["evidence"]
    assert row["scope"] == "2wikimqa only, musique left out at the floor"  # the headline says what n rests on


def test_no_scope_when_every_dataset_decides():
    q = _questions({"2wikimqa": {"Full": _alternating(0.25, 0.0), "R&B": _alternating(0.4, 0.0)},
                    "musique": {"Full": _alternating(0.3, 0.1), "R&B": _alternating(0.2, 0.05)}})
    row = comparison.comparisons(q, n_boot=200)[0]
    assert row["n"] == 2 * N and row["scope"] == ""


def test_every_dataset_at_the_floor_is_not_testable():
    q = _questions({"2wikimqa": {"Full": [0.0] * N, "R&B": _alternating(0.4, 0.0)},
                    "musique": {"Full": _alternating(0.075, 0.0), "R&B": _alternating(0.2, 0.05)}})
    row = comparison.comparisons(q, n_boot=500)[0]
    assert row["reading"] == NOT_TESTABLE and row["n"] == 2 * N  # every pair shown, none deciding
    assert row["scope"] == ""  # none left out: every pair is in n
    assert "at the floor: Full on 2wikimqa (mean F1): 0.0 points, below 5; Full on musique" in row["evidence"]


def test_the_full_arm_says_where_it_was_cut_to_the_models_window():
    """SmolLM2's 8K window cuts most LongBench contexts, Qwen's 32K none: the row says so (the size axis reads it),
    counting the questions of the datasets that decide; a run without the ``truncated`` column says nothing."""
    q = _questions({"2wikimqa": {"Full": _alternating(0.5, 0.2), "R&B": _alternating(0.4, 0.1)}})
    cut = q.assign(truncated=[q["strategy"].iloc[i] == "Full" and i % 3 == 0 for i in range(len(q))])
    row = comparison.comparisons(cut, n_boot=200)[0]
    assert row["long_context"] == f"cut to the window in {N // 3} of {N} questions"
    row = comparison.comparisons(cut.assign(truncated=False), n_boot=200)[0]
    assert row["long_context"] == "whole context"
    assert comparison.comparisons(q, n_boot=200)[0]["long_context"] == ""


def test_longrag_columns_match_the_pipelines_results():
    needed = {"dataset", "question_id", "generator", "strategy", "f1"}
    assert needed <= set(differences.RESULT_COLUMNS)
