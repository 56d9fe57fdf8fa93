"""Second-stage reranking: reorder (and cut) the hits of a first-stage ranker.

A :class:`Reranker` takes the query and candidate hits and returns them reordered, with new scores and
ranks but the same chunk ``index`` and ``text``. Three are provided, built by name with :func:`make_reranker`:

* :class:`FusionReranker` (``fusion``, the offline default): BM25 and MiniLM cosine over the candidates, fused by
  reciprocal rank. Needs nothing beyond the packages already installed.
* :class:`KeepOrder` (``dense``): the first stage's order, cut to ``k``.
* :class:`CrossEncoderReranker` (a folder's path): a sentence-transformers cross-encoder read from a *local folder*.
  Hub downloads are not attempted (this project runs offline), so a missing folder is a clear error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from lcrag.models.embeddings import Embedder, get_embedder
from lcrag.retrieval.base import Hit
from lcrag.retrieval.bm25 import BM25Retriever
from lcrag.retrieval.dense import DenseRetriever
from lcrag.retrieval.fusion import reciprocal_rank_fusion


class RerankerError(RuntimeError):
    """A reranker cannot be built (e.g. no local model folder)."""


@runtime_checkable
class Reranker(Protocol):
    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        """``hits`` reordered best first, cut to ``k`` (all when None)."""
        ...


def reorder(hits: Sequence[Hit], scores: Sequence[float], k: int | None = None) -> list[Hit]:
    """Hits sorted by new ``scores`` (descending; ties keep the first-stage order), re-ranked from 1."""
    if len(scores) != len(hits):
        raise ValueError(f"{len(scores)} scores for {len(hits)} hits")
    idx = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")[:k]
    return [Hit(hits[i].index, float(scores[i]), r, hits[i].text) for r, i in enumerate(idx, start=1)]


class CrossEncoderReranker:
    """Score each (query, chunk) pair with a local sentence-transformers ``CrossEncoder`` (CPU)."""

    def __init__(self, model_path: str | Path | None = None, batch_size: int = 32):
        if model_path is None or not Path(model_path).expanduser().is_dir():
            raise RerankerError(
                f"CrossEncoderReranker needs a local cross-encoder folder (got {model_path!r}); Hugging Face "
                "downloads are not available here. Use FusionReranker for an offline reranker."
            )
        self.model_path = Path(model_path).expanduser()
        self.batch_size = batch_size
        self.model = None

    def _load(self):
        if self.model is None:
            from lcrag.models.embeddings import sentence_transformers

            self.model = sentence_transformers().CrossEncoder(str(self.model_path), device="cpu")
        return self.model

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        if not hits:
            return []
        pairs = [(query, h.text) for h in hits]
        scores = self._load().predict(pairs, batch_size=self.batch_size, show_progress_bar=False)
        return reorder(hits, np.asarray(scores, dtype=np.float64).reshape(len(hits)), k)


class FusionReranker:
    """Reciprocal-rank fusion of BM25 and dense cosine, computed over the candidate hits only.

    BM25's IDF is therefore taken over the candidates, not the whole document: a term shared by every
    candidate stops counting, which is what a second stage should look at.
    """

    def __init__(
        self, embedder: Embedder | None = None, weights: Sequence[float] = (1.0, 1.0), rrf_k: int = 60
    ):
        self.embedder = embedder or get_embedder()
        self.weights = list(weights)
        self.rrf_k = rrf_k

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        if not hits:
            return []
        texts = [h.text for h in hits]
        rankings = [
            BM25Retriever(texts).rank(query, None),
            DenseRetriever(texts, self.embedder).rank(query, None),
        ]
        fused = reciprocal_rank_fusion(rankings, self.rrf_k, self.weights)
        return [Hit(hits[f.index].index, f.score, r, f.text) for r, f in enumerate(fused[:k], start=1)]


class KeepOrder:
    """No second stage: the first stage's hits in their order, cut to ``k``."""

    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        return list(hits[:k])


#: The rerankers by name (else a cross-encoder folder): :func:`make_reranker`.
RERANKERS = ("fusion", "dense")


def make_reranker(name: str, embedder: Embedder | None = None) -> Reranker:
    """``fusion`` (:class:`FusionReranker`, the offline default: BM25 + dense cosine over the candidates,
    reciprocal-rank fused, with ``embedder``), ``dense`` (:class:`KeepOrder`: keep the first stage's order), or the
    path of a local sentence-transformers cross-encoder folder (:class:`CrossEncoderReranker`; e.g. LongRAG's
    ``mmarco-mMiniLMv2`` or its code's ``ms-marco-MiniLM-L-12-v2``, where one has been downloaded)."""
    if name == "fusion":
        return FusionReranker(embedder)
    if name == "dense":
        return KeepOrder()
    return CrossEncoderReranker(name)
