"""The thesis's claims decided without a language model (lcrag.papers.thesis.claims_retrieval): H14 on paired
bootstrap intervals of the ranking distances, H6b and H16 not testable with another embedding model than the
thesis's davinci-002. Expected values are set by construction here."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lcrag.book.claims import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, ClaimsLedger
from lcrag.book.verdicts import NO_MODEL
from lcrag.papers.thesis import claims_retrieval

RANKERS = ("cosine", "svm", "bm25", "naive")


def _distances(shift: dict[str, float], spread: float, concentrate: float, n: int = 158, seed: int = 0) -> pd.DataFrame:
    """Per-case distances, question as query: ranker r at k = 5, α = 0.05 is a broad case-specific base
    (uniform over ``spread``) plus its own noise plus ``shift[r]``; k = 10 and α = 0.5 scale the spread around the
    median by ``concentrate``."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.05, 0.05 + spread, n)
    rows = []
    for r in RANKERS:
        d5 = base + shift[r] + rng.normal(0, spread / 3, n)
        for k, a in ((5, 0.05), (10, 0.05), (5, 0.5), (10, 0.5)):
            d = d5 if (k, a) == (5, 0.05) else np.median(d5) + concentrate * (d5 - np.median(d5))
            rows += [{"task": "meetingqa", "case": c, "query": "question", "ranker": r, "k": k, "alpha": a,
                      "distance": float(d[c])} for c in range(n)]
    return pd.DataFrame(rows)


def _h14(dist: pd.DataFrame):
    ledger = ClaimsLedger("thesis", paper="thesis", model=NO_MODEL)
    claims_retrieval.check_retrieval_claims(ledger, distances=dist, n_boot=1000)
    return ledger.table().set_index("claim_id").loc["H14"]


def test_h14_median_gaps_inside_the_spread_are_inconclusive():
    """Medians 0.01 apart against an IQR of about 0.13 (what the chapter measured): the ordering is not shown."""
    h14 = _h14(_distances({"cosine": 0.0, "svm": 0.0, "bm25": 0.01, "naive": 0.02}, spread=0.2, concentrate=0.5))
    assert h14["verdict"] == INCONCLUSIVE and h14["source"] == NO_MODEL
    assert "BM25 − SVM +0.0" in h14["our_value"] and "paired bootstrap over 158 cases" in h14["evidence"]


def test_h14_clear_gaps_and_concentration_are_reproduced_and_a_reversal_is_not():
    clear = _distances({"cosine": 0.0, "svm": 0.005, "bm25": 0.1, "naive": 0.12}, spread=0.2, concentrate=0.5)
    assert _h14(clear)["verdict"] == REPRODUCED
    reversed_ = _distances({"cosine": 0.0, "svm": 0.1, "bm25": 0.0, "naive": 0.0}, spread=0.2, concentrate=0.5)
    assert _h14(reversed_)["verdict"] == NOT_REPRODUCED  # BM25 and Naive clearly below SVM
    spread_out = _distances({"cosine": 0.0, "svm": 0.005, "bm25": 0.1, "naive": 0.12}, spread=0.2, concentrate=1.5)
    assert _h14(spread_out)["verdict"] == NOT_REPRODUCED  # k = 10 and α = 0.5 widen the distributions


def _sanity(values, embedder):
    return pd.DataFrame({"a": ["I like potatoes"] * 2, "b": ["I hate potatoes", "I don't hate potatoes"],
                         "paper_cosine": [0.9226, 0.9185], "ours": values, "embedder": embedder})


def test_h16_and_h6b_are_not_testable_with_another_embedding_model():
    """The chapter's MiniLM gives 0.8415 > 0.8051: the thesis's order, other values. The check identifies the
    embedding model, so with MiniLM it is not testable (the reason in the evidence), never "not reproduced"."""
    ledger = ClaimsLedger("thesis", paper="thesis", model=NO_MODEL)
    t63 = pd.DataFrame({"case": [1, 2, 3], "ranker": "cosine", "exact": False, "top2": [True, True, False],
                        "chunk11_top3": [None, None, False], "embedder": "local/all-minilm-l6-v2"})
    claims_retrieval.check_retrieval_claims(ledger, t63=t63, sanity=_sanity([0.8415, 0.8051], "local/all-minilm-l6-v2"))
    t = ledger.table().set_index("claim_id")
    for claim in ("H16", "H6b"):
        assert t.loc[claim, "verdict"] == NOT_TESTABLE, claim
        assert "davinci-002" in t.loc[claim, "evidence"] and "local/all-minilm-l6-v2" in t.loc[claim, "evidence"]
        assert "not testable: " in t.loc[claim, "evidence"] and "floor" not in t.loc[claim, "evidence"]
    assert t.loc["H16", "our_value"] == "0.8415 > 0.8051" and "the order holds" in t.loc["H16", "evidence"]


def test_h16_is_decided_with_the_thesis_embedding_model():
    ledger = ClaimsLedger("thesis", paper="thesis", model=NO_MODEL)
    claims_retrieval.check_retrieval_claims(ledger, sanity=_sanity([0.9224, 0.9187], "openai/text-embedding-ada-002"))
    assert ledger.table().set_index("claim_id").loc["H16", "verdict"] == REPRODUCED
    ledger = ClaimsLedger("thesis", paper="thesis", model=NO_MODEL)
    claims_retrieval.check_retrieval_claims(ledger, sanity=_sanity([0.90, 0.93], "openai/text-embedding-ada-002"))
    assert ledger.table().set_index("claim_id").loc["H16", "verdict"] == NOT_REPRODUCED
