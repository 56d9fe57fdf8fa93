"""Dense (embedding) retrieval: cosine similarity through a FAISS inner-product index.

The embedder returns unit-length rows, so the inner product is the cosine. ``IndexFlatIP`` is exact
(brute force), which is all a document of a few dozen chunks needs.
"""

from __future__ import annotations

from collections.abc import Sequence

import faiss
import numpy as np

from lcrag.models.embeddings import Embedder, normalise
from lcrag.retrieval.base import Hit, check_chunks, top_hits


class DenseRetriever:
    """Cosine ranking of chunks against a query, both embedded by ``embedder`` (cached)."""

    def __init__(self, chunks: Sequence[str], embedder: Embedder):
        self.chunks = check_chunks(chunks)
        if not self.chunks:
            raise ValueError("DenseRetriever needs at least one chunk")
        self.embedder = embedder
        self.vectors = normalise(embedder.embed(self.chunks))
        self.index = faiss.IndexFlatIP(self.vectors.shape[1])
        self.index.add(self.vectors)

    def scores(self, query: str) -> np.ndarray:
        """Cosine similarity of the query to every chunk, in chunk order."""
        q = normalise(self.embedder.embed([query]))
        sims, ids = self.index.search(q, len(self.chunks))
        out = np.empty(len(self.chunks), dtype=np.float64)
        out[ids[0]] = sims[0]
        return out

    def rank(self, query: str, k: int | None = 5) -> list[Hit]:
        return top_hits(self.scores(query), self.chunks, k)
