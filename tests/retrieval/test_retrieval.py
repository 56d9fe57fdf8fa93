"""lcrag.retrieval's own get_ranker (its ``__init__``): each ranker by name."""

from __future__ import annotations

import pytest

from lcrag.retrieval import BM25Retriever, CommonWordsRetriever, DenseRetriever, SVMRetriever, get_ranker


def test_get_ranker_names(embedder):
    chunks = ["alpha beta", "beta gamma"]
    assert isinstance(get_ranker("bm25", chunks), BM25Retriever)
    assert isinstance(get_ranker("naive", chunks), CommonWordsRetriever)
    assert isinstance(get_ranker("cosine", chunks, embedder), DenseRetriever)
    assert isinstance(get_ranker("svm", chunks, embedder), SVMRetriever)
    with pytest.raises(ValueError, match="unknown ranker"):
        get_ranker("tfidf", chunks)
