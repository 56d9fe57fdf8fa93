"""Reranking (lcrag.retrieval.rerank): the fusion reranker on MiniLM, the cross-encoder's local folder, and
make_reranker's names."""

from __future__ import annotations

import pytest
from helpers import meetingqa_case

from lcrag.retrieval import BM25Retriever, Hit
from lcrag.retrieval.rerank import (
    RERANKERS,
    CrossEncoderReranker,
    FusionReranker,
    KeepOrder,
    Reranker,
    RerankerError,
    make_reranker,
)


def test_fusion_reranker_reorders_the_candidates(embedder):
    chunks, evidence = meetingqa_case(3)
    first = BM25Retriever(chunks).rank(evidence, k=10)
    reranker = FusionReranker(embedder)
    assert isinstance(reranker, Reranker)
    second = reranker.rerank(evidence, first)
    assert sorted(h.index for h in second) == sorted(h.index for h in first)
    assert [h.rank for h in second] == list(range(1, 11))
    assert all(h.text == chunks[h.index] for h in second)
    assert reranker.rerank(evidence, first, k=3) == second[:3]
    assert reranker.rerank(evidence, []) == []


def test_fusion_reranker_puts_the_lexical_and_semantic_match_first(embedder):
    texts = ["the stock market fell", "potatoes are tasty", "I like potatoes very much", "rain in Wales"]
    first = [Hit(10 + i, 1.0 - i / 10, i + 1, t) for i, t in enumerate(texts)]
    second = FusionReranker(embedder).rerank("I like potatoes", first, k=2)
    assert [h.index for h in second] == [12, 11]
    assert [h.rank for h in second] == [1, 2]


@pytest.mark.parametrize("path", [None, "/nonexistent/cross-encoder"])
def test_cross_encoder_needs_a_local_folder(path):
    with pytest.raises(RerankerError, match="local cross-encoder folder"):
        CrossEncoderReranker(path)


def test_make_reranker_builds_each_by_name(embedder, tmp_path):
    first = [Hit(7, 0.9, 1, "b"), Hit(3, 0.8, 2, "a"), Hit(5, 0.1, 3, "c")]
    fusion = make_reranker("fusion", embedder)
    assert isinstance(fusion, FusionReranker) and fusion.embedder is embedder
    keep = make_reranker("dense")
    assert isinstance(keep, KeepOrder) and isinstance(keep, Reranker)
    assert keep.rerank("q", first, 2) == first[:2] and keep.rerank("q", first) == first
    assert RERANKERS == ("fusion", "dense")
    with pytest.raises(RerankerError, match="local cross-encoder folder"):
        make_reranker(str(tmp_path / "no-such-model"))
