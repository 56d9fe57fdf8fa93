"""Ranking a document's chunks against a query.

Every ranker is built over a list of chunks and answers ``rank(query, k) -> list[Hit]`` (best first,
1-based ``rank``, ties to the lower chunk index) and ``scores(query)`` (one score per chunk):

| name            | class                    | what it measures                                     |
|-----------------|--------------------------|------------------------------------------------------|
| ``bm25``        | :class:`BM25Retriever`   | term overlap weighted by rarity (Okapi BM25)         |
| ``cosine``      | :class:`DenseRetriever`  | cosine of embeddings (FAISS, exact)                  |
| ``svm``         | :class:`SVMRetriever`    | exemplar SVM on embeddings (query vs chunks)         |
| ``naive``       | :class:`CommonWordsRetriever` | number of distinct shared words                 |
| ``keywords``    | :class:`KeywordRetriever` | share of the query's keywords in the chunk (NLTK stop words) |

Other names (:data:`ALIASES`): ``dense`` and SummHay's ``vector`` for ``cosine``, ``common_words`` for ``naive``.
:func:`get_ranker` builds any of them by name; :func:`needs_embedder` says which compare embeddings, and
:func:`embedder_for` gives those the default embedder once for many documents.

Second stages live in :mod:`lcrag.retrieval.rerank`, built by name with
:func:`~lcrag.retrieval.rerank.make_reranker` (LongRAG's hybrid retriever is
:class:`lcrag.papers.longrag.retrieval.Retriever` with its :class:`~lcrag.retrieval.rerank.FusionReranker`, which fuses
rankings by :func:`reciprocal_rank_fusion`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lcrag.retrieval.base import Hit, Ranker, top_hits
from lcrag.retrieval.bm25 import BM25Retriever, thesis_tokenize
from lcrag.retrieval.common_words import CommonWordsRetriever
from lcrag.retrieval.dense import DenseRetriever
from lcrag.retrieval.fusion import reciprocal_rank_fusion
from lcrag.retrieval.keywords import KeywordRetriever
from lcrag.retrieval.svm import SVMRetriever

#: The rankers by name: each class is built over the chunks, and with an embedder where it compares embeddings
#: (:data:`EMBEDDING_RANKERS`).
RANKER_CLASSES: dict[str, type] = {
    "bm25": BM25Retriever,
    "cosine": DenseRetriever,
    "svm": SVMRetriever,
    "naive": CommonWordsRetriever,
    "keywords": KeywordRetriever,
}
RANKERS = tuple(RANKER_CLASSES)
#: The rankers that compare embeddings: they need an embedder.
EMBEDDING_RANKERS = frozenset({"cosine", "svm"})
#: Other names of the rankers: ``dense`` and SummHay's ``vector`` (cosine), ``common_words`` (naive).
ALIASES = {"dense": "cosine", "vector": "cosine", "common_words": "naive", "common-words": "naive"}


def ranker_name(name: str) -> str:
    """The ranker's name in :data:`RANKERS` (lower case, an alias resolved); an unknown name comes back as given,
    lower case."""
    key = name.lower()
    return ALIASES.get(key, key)


def needs_embedder(name: str) -> bool:
    """Whether the ranker ``name`` (any of its names) compares embeddings: ``cosine`` and ``svm``."""
    return ranker_name(name) in EMBEDDING_RANKERS


def embedder_for(names: Iterable[str], embedder=None, *, needed: bool = False):
    """``embedder``; when none is given and a ranker of ``names`` needs one (or ``needed``, e.g. for semantic
    chunking), the default :func:`lcrag.models.embeddings.get_embedder`, built once for many documents; else None."""
    if embedder is None and (needed or any(needs_embedder(n) for n in names)):
        from lcrag.models.embeddings import get_embedder

        embedder = get_embedder()
    return embedder


def get_ranker(name: str, chunks: Sequence[str], embedder=None) -> Ranker:
    """A ranker by name (:data:`RANKERS` or an alias, :data:`ALIASES`): ``bm25``, ``cosine`` (or ``dense``,
    ``vector``), ``svm``, ``naive`` (or ``common_words``), ``keywords``.

    ``cosine`` and ``svm`` need an embedder; the default is :func:`lcrag.models.embeddings.get_embedder`.
    """
    key = ranker_name(name)
    if key not in RANKER_CLASSES:
        raise ValueError(f"unknown ranker {name!r}; use one of {', '.join(RANKERS)}")
    if key in EMBEDDING_RANKERS:
        return RANKER_CLASSES[key](chunks, embedder_for([key], embedder))
    return RANKER_CLASSES[key](chunks)


__all__ = [
    "ALIASES",
    "EMBEDDING_RANKERS",
    "RANKERS",
    "RANKER_CLASSES",
    "BM25Retriever",
    "CommonWordsRetriever",
    "DenseRetriever",
    "Hit",
    "KeywordRetriever",
    "Ranker",
    "SVMRetriever",
    "embedder_for",
    "get_ranker",
    "needs_embedder",
    "ranker_name",
    "reciprocal_rank_fusion",
    "thesis_tokenize",
    "top_hits",
]
