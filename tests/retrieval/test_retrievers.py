"""Rankers: the thesis's Table 6.3 on real data, hand-computed fusion, and the MiniLM-based rankers."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from lcrag.retrieval import (
    BM25Retriever,
    CommonWordsRetriever,
    DenseRetriever,
    Hit,
    SVMRetriever,
    get_ranker,
    reciprocal_rank_fusion,
    thesis_tokenize,
)
from lcrag.retrieval.rerank import CrossEncoderReranker, FusionReranker, Reranker, RerankerError
from lcrag.text.chunking import recursive_split

MEETINGQA = Path(os.environ.get("LCRAG_DATA_MIRROR", "/work/shared/data")) / "bamboo" / "meetingqa_4k.jsonl"


def case(n: int) -> tuple[list[str], str]:
    """512/50 chunks and evidence of 1-based MeetingQA case ``n``."""
    if not MEETINGQA.exists():
        pytest.skip(f"data mirror not found: {MEETINGQA}")
    record = json.loads(MEETINGQA.read_text(encoding="utf-8").splitlines()[n - 1])
    return recursive_split(record["content"], 512, 50), record["evidence"]


def chunk_numbers(hits: list[Hit]) -> list[int]:
    """The thesis's 1-based chunk numbers."""
    return [h.index + 1 for h in hits]


@pytest.fixture
def embedder(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path))
    from lcrag.models.embeddings import get_embedder

    return get_embedder()


# --------------------------------------------------------------------------- BM25 and the naive ranker


def test_thesis_tokenize():
    assert thesis_tokenize("Hello, World! It's (very) well-known -- OK?") == [
        "hello",
        "world",
        "it's",
        "very",
        "well-known",
        "ok",
    ]
    assert thesis_tokenize("  \n ") == []


# Table 6.3 of the thesis: top-5 chunk numbers, evidence as query.
TABLE_6_3_BM25 = {1: [17, 18, 5, 6, 13], 2: [10, 11, 18, 29, 20], 3: [5, 11, 6, 1, 26]}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_bm25_reproduces_table_6_3(n):
    chunks, evidence = case(n)
    assert chunk_numbers(BM25Retriever(chunks).rank(evidence, k=5)) == TABLE_6_3_BM25[n]


def test_bm25_scores_of_the_top_chunks():
    tops = []
    for n in (1, 2, 3):
        chunks, evidence = case(n)
        tops.append(round(BM25Retriever(chunks).rank(evidence, k=1)[0].score, 3))
    assert tops == [146.107, 92.468, 28.786]


def test_bm25_with_langchains_default_tokenizer_does_not_reproduce_the_table():
    chunks, evidence = case(1)
    assert chunk_numbers(BM25Retriever(chunks, tokenizer=str.split).rank(evidence)) != TABLE_6_3_BM25[1]


def test_bm25_ties_go_to_the_lower_index_and_k_limits():
    r = BM25Retriever(["x y", "a b", "x y", "c d", "e f"])
    hits = r.rank("x", k=None)
    assert [h.index for h in hits] == [0, 2, 1, 3, 4]
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert hits[0].score == hits[1].score > 0 == hits[2].score
    assert hits[0].text == "x y"
    assert r.rank("x", k=2) == hits[:2]
    assert r.rank("x", k=0) == []
    with pytest.raises(ValueError):
        r.rank("x", k=-1)


def test_common_words_reproduces_table_6_3_case_1():
    chunks, evidence = case(1)
    assert chunk_numbers(CommonWordsRetriever(chunks).rank(evidence)) == [17, 18, 5, 12, 6]


def test_common_words_counts_distinct_shared_words():
    r = CommonWordsRetriever(["The cat, the CAT!", "a dog and a cat", "nothing here"])
    assert list(r.scores("the cat and a dog")) == [2.0, 3.0, 0.0]  # "a" is too short to count


# --------------------------------------------------------------------------- fusion, by hand


def test_reciprocal_rank_fusion_by_hand():
    a = [Hit(2, 0.9, 1, "c"), Hit(0, 0.8, 2, "a"), Hit(1, 0.7, 3, "b")]
    b = [Hit(0, 12.0, 1, "a"), Hit(2, 11.0, 2, "c"), Hit(3, 1.0, 3, "d")]
    c = [Hit(3, 5.0, 1, "d")]
    fused = reciprocal_rank_fusion([a, b, c], k=60)
    expected = {
        0: Fraction(1, 62) + Fraction(1, 61),
        2: Fraction(1, 61) + Fraction(1, 62),  # ties with 0: the lower index wins
        3: Fraction(1, 63) + Fraction(1, 61),
        1: Fraction(1, 63),
    }
    assert [h.index for h in fused] == [0, 2, 3, 1]
    assert [h.rank for h in fused] == [1, 2, 3, 4]
    assert [h.text for h in fused] == ["a", "c", "d", "b"]
    for h in fused:
        assert h.score == pytest.approx(float(expected[h.index]), abs=1e-15)
    weighted = reciprocal_rank_fusion([a, b, c], k=60, weights=[2, 1, 1], top_k=2)
    assert [h.index for h in weighted] == [2, 0]


# --------------------------------------------------------------------------- embedding-based rankers


def test_dense_finds_an_exact_copy_at_rank_1(embedder):
    chunks, _ = case(3)
    dense = DenseRetriever(chunks, embedder)
    hits = dense.rank(chunks[13], k=5)
    assert hits[0].index == 13 and hits[0].rank == 1
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[1].score < 0.95


def test_dense_scores_are_cosines(embedder):
    chunks = ["potatoes are tasty", "I enjoy eating potatoes", "stock markets fell"]
    dense = DenseRetriever(chunks, embedder)
    q = embedder.embed(["I like potatoes"])[0]
    assert np.allclose(dense.scores("I like potatoes"), embedder.embed(chunks) @ q, atol=1e-6)
    assert dense.rank("I like potatoes", k=None)[-1].index == 2


def test_svm_ranks_the_query_identical_chunk_first(embedder):
    chunks, _ = case(2)
    hits = SVMRetriever(chunks, embedder).rank(chunks[20], k=3)
    assert hits[0].index == 20
    assert hits[0].score > hits[1].score


def test_get_ranker_names(embedder):
    chunks = ["alpha beta", "beta gamma"]
    assert isinstance(get_ranker("bm25", chunks), BM25Retriever)
    assert isinstance(get_ranker("naive", chunks), CommonWordsRetriever)
    assert isinstance(get_ranker("cosine", chunks, embedder), DenseRetriever)
    assert isinstance(get_ranker("svm", chunks, embedder), SVMRetriever)
    with pytest.raises(ValueError, match="unknown ranker"):
        get_ranker("tfidf", chunks)


# --------------------------------------------------------------------------- reranking


def test_fusion_reranker_reorders_the_candidates(embedder):
    chunks, evidence = case(3)
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


