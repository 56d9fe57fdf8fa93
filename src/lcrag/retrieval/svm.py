"""Exemplar-SVM ranking (Karpathy's "knn vs svm" notebook; LangChain's ``SVMRetriever``).

Train a linear SVM with the query embedding as the only positive and every chunk as a negative, then rank
the chunks by the SVM's decision value. Unlike plain cosine, the SVM learns which dimensions separate
the query from *this* document's chunks, so it weighs what is distinctive about the query.

Settings as in the notebook: ``LinearSVC(class_weight="balanced", C=0.1, max_iter=10000, tol=1e-6)`` on
L2-normalised embeddings. ``random_state=0`` is added so that a ranking is repeatable.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lcrag.models.embeddings import Embedder, normalise
from lcrag.retrieval.base import Hit, check_chunks, top_hits


def svm_scores(query_vector: np.ndarray, chunk_vectors: np.ndarray, *, C: float = 0.1) -> np.ndarray:
    """Decision values of an exemplar SVM (query positive, chunks negative) for every chunk."""
    x = normalise(np.vstack([np.asarray(query_vector).reshape(1, -1), chunk_vectors]))
    y = np.zeros(len(x), dtype=int)
    y[0] = 1
    # imported here: scikit-learn takes 2 s to import, and most chapters never fit an SVM
    from sklearn.svm import LinearSVC

    clf = LinearSVC(class_weight="balanced", C=C, max_iter=10000, tol=1e-6, random_state=0)
    clf.fit(x, y)
    return clf.decision_function(x)[1:].astype(np.float64)


class SVMRetriever:
    """Exemplar-SVM ranking of chunks embedded by ``embedder``."""

    def __init__(self, chunks: Sequence[str], embedder: Embedder, C: float = 0.1):
        self.chunks = check_chunks(chunks)
        if not self.chunks:
            raise ValueError("SVMRetriever needs at least one chunk")
        self.embedder = embedder
        self.C = C
        self.vectors = embedder.embed(self.chunks)

    def scores(self, query: str) -> np.ndarray:
        return svm_scores(self.embedder.embed([query])[0], self.vectors, C=self.C)

    def rank(self, query: str, k: int | None = 5) -> list[Hit]:
        return top_hits(self.scores(query), self.chunks, k)
