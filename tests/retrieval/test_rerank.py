"""Reranking (lcrag.retrieval.rerank): the fusion reranker on MiniLM, and the cross-encoder's local folder."""

from __future__ import annotations

import pytest
from helpers import meetingqa_case

from lcrag.retrieval import BM25Retriever, Hit
from lcrag.retrieval.rerank import CrossEncoderReranker, FusionReranker, Reranker, RerankerError


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
