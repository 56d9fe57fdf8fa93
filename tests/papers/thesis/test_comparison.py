"""The thesis chapter in the synthesis (lcrag.papers.thesis.comparison): the Full arm says whether its documents
were cut to the model's window."""

from __future__ import annotations

import pandas as pd

from lcrag.papers.thesis import comparison
from lcrag.synthesis import RUN_COLUMNS


def test_the_full_arm_says_whether_its_documents_were_cut(tmp_path):
    runs = []
    for model, cut in (("a", 0), ("b", 3)):
        d = tmp_path / model
        d.mkdir()
        pd.DataFrame([{"run": "Full", "prompt": "BAMBOO", "n": 158, "truncated": cut},
                      {"run": "RAG CQT", "prompt": "BAMBOO", "n": 158, "truncated": 0}]).to_csv(
            d / "accuracy.csv", index=False)
        runs.append({"chapter": "thesis", "model": model, "slug": model, "profile": "default", "finished": "2026",
                     "book": True, "run_dir": d})
    context = comparison.full_context(pd.DataFrame(runs, columns=list(RUN_COLUMNS)))
    assert context == {("a", "BAMBOO", 158): "whole document", ("b", "BAMBOO", 158): "cut to the window in 3 of 158 cases"}
