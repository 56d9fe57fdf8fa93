"""The needle-in-a-haystack chapter as a whole: its smoke profile executed end to end (its modules are tested in
tests/papers/thesis/needle/test_<module>.py, fixtures in conftest.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from lcrag.book.claims import VERDICTS
from lcrag.book.runner import run_chapter
from lcrag.papers.thesis.needle import needles as needle_texts
from lcrag.text.stopwords import english_content_words

SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"


@pytest.mark.slow
def test_smoke_profile_runs_end_to_end(essays, tmp_path):
    res = run_chapter("needle", profile="smoke", out_dir=tmp_path / "run", progress=False)  # data: `essays`
    assert res.ok, res.error
    out = res.out_dir
    answers = pd.read_csv(out / "answers.csv")
    # full: 2 models x 2 needles x 2 lengths x 2 depths; rag: the longest length only
    assert len(answers) == 16 + 8
    assert set(answers.loc[answers["setting"] == "rag", "context_tokens"]) == {700}
    assert set(answers["model"]) == {SMOL, GEMMA} and set(answers["setting"]) == {"full", "rag"}
    assert answers["recall"].between(0, 1).all() and answers["judge_score"].between(1, 10).all()
    assert (answers["judge_parse"] == "forced").all()
    assert (answers["haystack_tokens"] == answers["context_tokens"] - 200).all()
    full = answers[answers["setting"] == "full"]
    assert full["prompt_tokens"].between(full["context_tokens"] - 200, full["context_tokens"]).all()
    grid = pd.read_csv(out / "grid.csv")
    assert len(grid) == 16 and (grid.loc[grid["depth"] == 0, "needle_at"] == 0).all()
    orders = pd.read_csv(out / "prefix_orders.csv").set_index(["model", "order"])["tokens_evaluated"]
    for m in (SMOL, GEMMA):
        assert orders[(m, "prefix")] < orders[(m, "no reuse")]
    claims = pd.read_csv(out / "claims.csv")
    assert sorted(claims["claim_id"]) == ["H4a", "H4a", "H4b", "H4b", "H4c", "H4c", "H4d", "H4d"]
    assert set(claims["model"]) == {SMOL, GEMMA} and claims["verdict"].isin(VERDICTS).all()
    variants = pd.read_csv(out / "variants.csv")
    assert len(variants) == 2 and set(variants["needle"]) == {"multi_key"}
    freq = pd.read_csv(out / "word_frequencies.csv")
    assert list(freq.loc[freq["needle"] == "simple", "word"]) == english_content_words(needle_texts.SIMPLE_NEEDLE)
    assert freq.loc[(freq["needle"] == "complex") & (freq["word"] == "sideband"), "count"].iloc[0] == 0
    ranks = pd.read_csv(out / "bm25_needle_rank.csv")
    assert len(ranks) == 8 and (ranks["rank"] >= 1).all()  # 2 models x 2 needles x 2 lengths
    agreement = pd.read_csv(out / "scorer_agreement.csv")
    assert agreement["n"].sum() == 24
    rescue = pd.read_csv(out / "full_vs_rag.csv")
    assert len(rescue) == 4 and (rescue["cells"] == 2).all()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "ok" and manifest["profile"] == "smoke"
