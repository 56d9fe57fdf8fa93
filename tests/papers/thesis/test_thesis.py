"""The thesis chapter (BAMBOO Full / RAG / Evidence) executed (smoke profile). The chapter's modules are tested in
tests/papers/thesis/test_<module>.py (fixtures: conftest.py), the statistics in tests/stats/, BAMBOO's letter
scorer in tests/metrics/test_multiple_choice.py.

Expected values come from the thesis inventory (``../shared/papers/thesis.md``) or are computed by hand, never from
the chapter's code. Exact chunk and BM25 tests (Table 6.3) are in tests/text/test_chunking.py and
tests/retrieval/test_bm25.py; the loader's parsing tests in tests/data/test_bamboo.py.
"""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import ROOT, notebook_errors

from lcrag.book.claims import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED


@pytest.mark.slow
def test_the_chapter_runs_in_the_smoke_profile(bamboo_data, tmp_path_factory, monkeypatch):
    from lcrag.book.runner import run_chapter

    # the committed store: the MiniLM vectors of these cases' chunks (the book embedded them); the smoke
    # profile's short prompts are not in it: its answers are the model's, live
    monkeypatch.setenv("LCRAG_STORE", "read")
    monkeypatch.setenv("LCRAG_STORE_DIR", str(ROOT / "responses"))
    run = run_chapter("thesis", profile="smoke", out_dir=tmp_path_factory.mktemp("run"), progress=False)
    assert run.ok, run.error
    assert notebook_errors(run.notebook) == []
    out = run.out_dir
    cleaning = pd.read_csv(out / "cleaning.csv").set_index("task")
    assert cleaning["kept"].to_dict() == {"meetingqa": 84, "paperqa": 74}
    answers = pd.read_csv(out / "answers.csv")
    assert len(answers) == 4 * 3  # 2 cases per task x Full, Evidence, CQT
    assert set(answers["setting"]) == {"full", "rag", "evidence"} and answers["response"].notna().all()
    t63 = pd.read_csv(out / "table_6_3.csv")
    assert t63[t63["ranker"] == "bm25"]["exact"].all()
    claims = pd.read_csv(out / "claims.csv")
    assert ({f"H{i}" for i in range(1, 17)} - {"H4", "H13"}) | {"H13a", "H13b"} <= set(claims["claim_id"])
    assert set(claims["verdict"]) <= {REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTABLE}
    h6 = claims.set_index("claim_id").loc["H6", "verdict"]
    assert h6 == REPRODUCED
    for name in ("pattern_counts", "ranking_distance", "tokens", "paired_tests", "table_6_1", "table_6_2"):
        assert (out / f"{name}.csv").exists(), name
