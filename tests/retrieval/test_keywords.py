"""lcrag.retrieval.keywords: SummHay's released keyword retriever (NLTK stop words, a Treebank-style tokenizer)."""

from __future__ import annotations

import pytest

from lcrag.retrieval import KeywordRetriever
from lcrag.retrieval.keywords import keyword_tokenize
from lcrag.text.stopwords import NLTK_STOPWORDS


def test_keyword_tokenizer_splits_like_treebank():
    assert keyword_tokenize("Are Foot Locker's Q4 results discussed? Sales fell 0.3%, didn't they.") == [
        "are", "foot", "locker", "'s", "q4", "results", "discussed", "?", "sales", "fell", "0.3", "%", ",",
        "did", "n't", "they", ".",
    ]  # fmt: skip
    assert keyword_tokenize("well-known 1,000 stores...") == ["well-known", "1,000", "stores", "..."]
    assert len(NLTK_STOPWORDS) == 179 and {"the", "are", "didn't", "ma"} <= NLTK_STOPWORDS


def test_a_chunks_score_is_the_share_of_query_keywords_in_it():
    # query keywords: financial, results, q4, 2022, discussed, ? (6; "are", "for" are stop words)
    q = "Are financial results for Q4 2022 discussed?"
    doc = KeywordRetriever(["Foot Locker posted Q4 results in 2022. Were they good?"])
    assert doc.scores(q)[0] == pytest.approx(4 / 6)  # results, q4, 2022, ?
    assert doc.scores("the and of")[0] == 0.0


def test_the_retriever_ranks_chunks_by_score_ties_to_the_earlier():
    chunks = ["Q4 results", "nothing here", "Foot Locker posted Q4 results in 2022", "results Q4"]
    r = KeywordRetriever(chunks)
    q = "Are financial results for Q4 2022 discussed?"
    assert r.scores(q).tolist() == [2 / 6, 0.0, 3 / 6, 2 / 6]
    assert [h.index for h in r.rank(q, k=3)] == [2, 0, 3]
    assert r.scores("the and of").tolist() == [0.0] * 4
