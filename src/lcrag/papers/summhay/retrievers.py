"""The live retrievers' scores: Random (seeded), Vector (MiniLM cosine) and Keywords (the released NLTK scoring with an
equivalent tokenizer), both built by :func:`lcrag.retrieval.get_ranker`, Oracle, and Full (stored order);
:func:`ranked` orders documents by score."""

from __future__ import annotations

import random
from collections.abc import Mapping

import numpy as np

from lcrag.retrieval import get_ranker

#: Live settings: retrievers (Table 2's columns we can run) and the position orders (Table 3).
LIVE_RETRIEVERS: dict[str, str] = {
    "random": "random scores, seeded per subtopic",
    "vector": "cosine of all-MiniLM-L6-v2 embeddings (the paper: all-mpnet-base-v2)",
    "keywords": "share of the query's keywords in the document (released NLTK scoring, our tokenizer)",
    "oracle": "number of the subtopic's insights in the document",
    "full": "the haystack in stored order, cut at the budget",
}

def retriever_query(subtopic: Mapping) -> str:
    """The text every released retriever scores against: ``query + " " + subtopic`` (its description)."""
    return f"{subtopic['query']} {subtopic['description']}"


def oracle_scores(haystack, subtopic_id: str) -> np.ndarray:
    """Per document (stored order): how many of the subtopic's insights it contains (``label_<subtopic_id>``)."""
    ids = set(haystack.insights.loc[haystack.insights["subtopic_id"] == subtopic_id, "insight_id"])
    return np.array([len(ids & set(inc)) for inc in haystack.documents["insights_included"]], dtype=float)


def retriever_scores(
    haystack, subtopic_id: str, retriever: str, *, seed: int = 0, embedder=None
) -> np.ndarray:
    """One score per document of ``haystack`` (stored order) for ``retriever`` (:data:`LIVE_RETRIEVERS`).

    ``random`` draws ``random.random()`` per document, as the released code, from a generator seeded with
    ``"<seed>:<subtopic_id>"`` (the released code sets no seed); ``vector`` and ``keywords`` are the rankers of
    :func:`lcrag.retrieval.get_ranker` (``vector`` is cosine, :class:`lcrag.retrieval.DenseRetriever`, with
    ``embedder``, by default :data:`lcrag.models.embeddings.DEFAULT_EMBEDDER`, MiniLM); ``full`` scores by stored
    position (first document highest).
    """
    sub = haystack.subtopics.set_index("subtopic_id").loc[subtopic_id]
    docs = list(haystack.documents["text"])
    query = retriever_query(sub)
    if retriever == "random":
        rng = random.Random(f"{seed}:{subtopic_id}")
        return np.array([rng.random() for _ in docs])
    if retriever in ("vector", "keywords"):
        return get_ranker(retriever, docs, embedder).scores(query)
    if retriever == "oracle":
        return oracle_scores(haystack, subtopic_id)
    if retriever == "full":
        return -np.arange(len(docs), dtype=float)
    raise ValueError(f"unknown live retriever {retriever!r}; use one of {', '.join(LIVE_RETRIEVERS)}")


def ranked(scores: np.ndarray) -> list[int]:
    """Positions by descending score; ties keep the stored order (Python's stable ``sorted``, as released)."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])
