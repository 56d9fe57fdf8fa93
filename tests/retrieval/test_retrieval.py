"""lcrag.retrieval's own registry (its ``__init__``): each ranker by name and alias, which need an embedder, and
the default embedder they are given."""

from __future__ import annotations

import numpy as np
import pytest

from lcrag.retrieval import (
    BM25Retriever,
    CommonWordsRetriever,
    DenseRetriever,
    KeywordRetriever,
    SVMRetriever,
    embedder_for,
    get_ranker,
    needs_embedder,
    ranker_name,
)


def test_get_ranker_names(embedder):
    chunks = ["alpha beta", "beta gamma"]
    assert isinstance(get_ranker("bm25", chunks), BM25Retriever)
    assert isinstance(get_ranker("naive", chunks), CommonWordsRetriever)
    assert isinstance(get_ranker("keywords", chunks), KeywordRetriever)
    assert isinstance(get_ranker("cosine", chunks, embedder), DenseRetriever)
    assert isinstance(get_ranker("svm", chunks, embedder), SVMRetriever)
    with pytest.raises(ValueError, match="unknown ranker 'tfidf'; use one of bm25, cosine, svm, naive, keywords"):
        get_ranker("tfidf", chunks)


def test_aliases_build_the_same_ranker(embedder):
    assert [ranker_name(n) for n in ("dense", "vector", "Cosine", "common_words", "common-words", "BM25", "x")] == [
        "cosine", "cosine", "cosine", "naive", "naive", "bm25", "x"]
    chunks = ["the cat sat on the mat", "a dog barked", "cats and dogs"]
    vector = get_ranker("vector", chunks, embedder)
    assert isinstance(vector, DenseRetriever) and vector.embedder is embedder
    assert np.array_equal(vector.scores("a cat"), get_ranker("cosine", chunks, embedder).scores("a cat"))
    assert isinstance(get_ranker("common_words", chunks), CommonWordsRetriever)


def test_only_the_embedding_rankers_need_an_embedder():
    assert [n for n in ("bm25", "cosine", "svm", "naive", "keywords", "dense", "vector", "tfidf")
            if needs_embedder(n)] == ["cosine", "svm", "dense", "vector"]


def test_the_default_embedder_is_built_only_when_a_ranker_needs_one(embedder, monkeypatch):
    from lcrag.models import embeddings

    built = []
    monkeypatch.setattr(embeddings, "get_embedder", lambda: built.append(1) or "minilm")
    assert embedder_for(["bm25", "naive"]) is None and built == []
    assert embedder_for(["bm25", "svm"], embedder) is embedder and built == []
    assert embedder_for(["bm25", "vector"]) == "minilm" and built == [1]
    assert embedder_for(["bm25"], needed=True) == "minilm" and built == [1, 1]
