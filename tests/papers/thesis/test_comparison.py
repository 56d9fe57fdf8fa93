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


def test_full_vs_rag_says_when_the_gold_evidence_is_at_the_floor_too():
    """SmolLM2's case: Full 57 of 158 (above chance), RAG 42 and Evidence 44 (both at the floor): the Full vs RAG
    row says the oracle fails too, so the gap is not retrieval's alone; with Evidence at 143 of 158 it says nothing."""
    def arms(evidence_right):
        return pd.DataFrame({"arm": ["Full", "RAG CQT", "Evidence"], "accuracy": [57 / 158, 42 / 158,
                                                                               evidence_right / 158]})
    assert comparison._oracle_floor_note(arms(44), 158) == (
        "; the gold Evidence is at the floor too (44 of 158 right): this model fails on short contexts, not only on "
        "retrieved ones")
    assert comparison._oracle_floor_note(arms(143), 158) == ""
    assert comparison._oracle_floor_note(arms(143).iloc[:2], 158) == ""  # no Evidence arm
    gemma = arms(34).assign(accuracy=[33 / 158, 28 / 158, 34 / 158])
    assert comparison._oracle_floor_note(gemma, 158) == ""  # Full at the floor too: the row is not testable anyway
