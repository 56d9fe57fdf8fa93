"""Ranking a document's chunks against a query.

Every ranker is built over a list of chunks and answers ``rank(query, k) -> list[Hit]`` (best first,
1-based ``rank``, ties to the lower chunk index) and ``scores(query)`` (one score per chunk):

| name            | class                    | what it measures                                     |
|-----------------|--------------------------|------------------------------------------------------|
| ``bm25``        | :class:`BM25Retriever`   | term overlap weighted by rarity (Okapi BM25)         |
| ``cosine``      | :class:`DenseRetriever`  | cosine of embeddings (FAISS, exact)                  |
| ``svm``         | :class:`SVMRetriever`    | exemplar SVM on embeddings (query vs chunks)         |
| ``naive``       | :class:`CommonWordsRetriever` | number of distinct shared words                 |
| (SummHay)       | :class:`KeywordRetriever` | share of the query's keywords in the chunk (NLTK stop words) |

Second stages live in :mod:`lcrag.retrieval.rerank` (LongRAG's hybrid retriever is
:class:`lcrag.papers.longrag.retrieval.Retriever` with its :class:`~lcrag.retrieval.rerank.FusionReranker`, which fuses
rankings by :func:`reciprocal_rank_fusion`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lcrag.retrieval.base import Hit, Ranker, top_hits
from lcrag.retrieval.bm25 import BM25Retriever, thesis_tokenize
from lcrag.retrieval.common_words import CommonWordsRetriever
from lcrag.retrieval.dense import DenseRetriever
from lcrag.retrieval.fusion import reciprocal_rank_fusion
from lcrag.retrieval.keywords import KeywordRetriever
from lcrag.retrieval.svm import SVMRetriever

RANKERS = ("bm25", "cosine", "svm", "naive")
_ALIASES = {"dense": "cosine", "common_words": "naive", "common-words": "naive"}


def get_ranker(name: str, chunks: Sequence[str], embedder=None) -> Ranker:
    """A ranker by its thesis name: ``bm25``, ``cosine`` (or ``dense``), ``svm``, ``naive`` (or ``common_words``).

    ``cosine`` and ``svm`` need an embedder; the default is :func:`lcrag.models.embeddings.get_embedder`.
    """
    key = _ALIASES.get(name.lower(), name.lower())
    if key == "bm25":
        return BM25Retriever(chunks)
    if key == "naive":
        return CommonWordsRetriever(chunks)
    if key in {"cosine", "svm"}:
        if embedder is None:
            from lcrag.models.embeddings import get_embedder

            embedder = get_embedder()
        return DenseRetriever(chunks, embedder) if key == "cosine" else SVMRetriever(chunks, embedder)
    raise ValueError(f"unknown ranker {name!r}; use one of {', '.join(RANKERS)}")


__all__ = [
    "RANKERS",
    "BM25Retriever",
    "CommonWordsRetriever",
    "DenseRetriever",
    "Hit",
    "KeywordRetriever",
    "Ranker",
    "SVMRetriever",
    "get_ranker",
    "reciprocal_rank_fusion",
    "thesis_tokenize",
    "top_hits",
]
