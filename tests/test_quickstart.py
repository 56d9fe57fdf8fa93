"""lcrag.quickstart: the first chapter's accuracy table carries its baselines."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag import quickstart as qs


def test_the_accuracy_table_gives_the_wilson_interval_chance_the_letter_prior_and_the_floor():
    answers = pd.DataFrame({"setting": ["full"] * 8 + ["rag"] * 8, "answer": list("ABCDABCD") * 2,
                            "response": ["A", "B", "C", "D", "A", "B", "C", "A"] + ["A. yes"] * 8,
                            "prompt_tokens": 100, "latency_s": 1.0})
    acc = qs.accuracy_table(qs.score_choices(answers)).set_index("setting")
    assert acc.loc["full", "accuracy"] == 7 / 8 and acc.loc["rag", "accuracy"] == 2 / 8
    assert acc.loc["full", "ci_low"] == pytest.approx(0.529, abs=1e-3)  # Wilson, 7 of 8
    assert (acc["chance"] == 0.25).all()
    assert acc.loc["rag", "letter_prior"] == 0.25  # always "A", A the answer of a quarter of the questions
    assert acc.loc["full", "letter_prior"] == pytest.approx((3 * 2 + 2 * 2 + 2 * 2 + 1 * 2) / 64)
    assert not acc.loc["full", "at_floor"] and acc.loc["rag", "at_floor"]


def test_the_needle_answer_scores_the_needle_words_the_question_does_not_already_hold():
    """Three 135M answers only repeated the question ("The best thing to do in San Francisco is not to give
    information ...") and scored 0.22 with the needle's every content word; the needle chapter's recall gives 0."""
    answers = pd.DataFrame({"response": [
        "The best thing to do in San Francisco is not to give information outside the document.",
        "Eat a sandwich and sit in Dolores Park on a sunny day.",
        "Sit in Dolores Park.",
    ]})
    assert qs.score_needle(answers)["recall"].round(3).tolist() == [0.0, 1.0, 0.429]
