"""The thesis's scoring of answers (lcrag.papers.thesis.solver)."""

from __future__ import annotations

import pandas as pd

from lcrag.papers.thesis import solver


def test_score_reads_three_ways_and_counts_refusals():
    df = pd.DataFrame(
        {
            "answer": ["B", "B", "C", "A"],
            "response": ["The answer is B", "B.", "None of the options", "xyz"],
            "pred_logprob": ["B", None, "C", "D"],
        }
    )
    s = solver.score(df)
    assert s["pred_raw"].fillna("-").tolist() == ["-", "B", "-", "-"]
    assert s["pred_lenient"].fillna("-").tolist() == ["B", "B", "-", "-"]
    assert s["correct"].tolist() == [True, True, False, False]
    assert s["correct_logprob"].tolist() == [True, False, True, False]
    assert s["status"].tolist() == ["letter", "letter", "refusal", "unparseable"]
