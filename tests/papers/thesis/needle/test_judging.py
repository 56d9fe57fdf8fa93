"""Kamradt's judge in the needle chapter (lcrag.papers.thesis.needle.judging), on the embedded SmolLM2."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.models import get_model
from lcrag.papers.thesis.needle import judging
from lcrag.papers.thesis.needle import needles as needle_texts

SMOL = "local/smollm2-135m-instruct"


@pytest.mark.slow
def test_smollm2_judge_scores_handmade_answers(essays):
    judge = get_model(SMOL)
    s = needle_texts.NEEDLES["simple"]
    df = pd.DataFrame([{"needle": "simple", "_needle": s, "response": r} for r in
                       (s.text, "Eat a sandwich in Dolores Park.", "Paul Graham writes essays about startups.")])
    out = judging.judge_cells(judge, df)
    assert out["judge_parse"].eq("forced").all()
    assert out["judge_score"].between(1, 10).all()
    assert out["judge_text"].str.startswith("Rating: [[").all()
    assert out["judge_expected"].between(1, 10).all() and out["judge_mass"].between(0.01, 1.0001).all()
