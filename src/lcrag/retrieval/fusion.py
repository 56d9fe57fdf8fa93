"""Fuse several rankers into one ranking.

Two standard ways:

* **Reciprocal-rank fusion** (Cormack, Clarke & Büttcher, SIGIR 2009). Each ranker votes
  ``w / (k + rank)`` for every chunk it ranks (rank is 1-based; ``k = 60`` by default damps the head so
  no single ranker dominates). Uses ranks only, so BM25's unbounded scores and cosine's [-1, 1] mix
  without calibration.
* **Weighted score fusion.** Each ranker's scores over all chunks are min-max scaled to [0, 1] and
  summed with weights. Uses score gaps, so a clear winner for one ranker counts for more than in RRF.

Ties go to the lower chunk index, as everywhere in :mod:`lcrag.retrieval`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lcrag.retrieval.base import Hit, Ranker, top_hits


def _weights(n: int, weights: Sequence[float] | None) -> list[float]:
    if weights is None:
        return [1.0] * n
    if len(weights) != n:
        raise ValueError(f"{len(weights)} weights for {n} rankings")
    return [float(w) for w in weights]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Hit]],
    k: int = 60,
    weights: Sequence[float] | None = None,
    top_k: int | None = None,
) -> list[Hit]:
    """Fuse rankings (lists of hits, best first) by ``score(d) = sum_r w_r / (k + rank_r(d))``.

    A chunk missing from a ranking gets nothing from it. The fused hits carry the fused score and a new
    1-based rank.

    >>> a = [Hit(0, 9.0, 1, "x"), Hit(1, 5.0, 2, "y")]
    >>> b = [Hit(1, 0.9, 1, "y"), Hit(2, 0.8, 2, "z")]
    >>> [(h.index, round(h.score, 4)) for h in reciprocal_rank_fusion([a, b], k=1)]
    [(1, 0.8333), (0, 0.5), (2, 0.3333)]
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, not {k}")
    fused: dict[int, float] = {}
    texts: dict[int, str] = {}
    for w, ranking in zip(_weights(len(rankings), weights), rankings, strict=True):
        for hit in ranking:
            fused[hit.index] = fused.get(hit.index, 0.0) + w / (k + hit.rank)
            texts.setdefault(hit.index, hit.text)
    best = sorted(fused, key=lambda i: (-fused[i], i))[:top_k]
    return [Hit(i, fused[i], r, texts[i]) for r, i in enumerate(best, start=1)]


def minmax(scores: np.ndarray) -> np.ndarray:
    """Scores scaled to [0, 1]; all-equal scores become all zeros (they carry no preference)."""
    s = np.asarray(scores, dtype=np.float64)
    span = s.max() - s.min() if len(s) else 0.0
    return (s - s.min()) / span if span > 0 else np.zeros_like(s)


def weighted_score_fusion(
    score_lists: Sequence[np.ndarray], weights: Sequence[float] | None = None
) -> np.ndarray:
    """``sum_r w_r * minmax(scores_r)``, one fused score per chunk."""
    if not score_lists:
        raise ValueError("nothing to fuse")
    lengths = {len(s) for s in score_lists}
    if len(lengths) != 1:
        raise ValueError(f"score lists have different lengths: {sorted(lengths)}")
    return sum(w * minmax(s) for w, s in zip(_weights(len(score_lists), weights), score_lists, strict=True))


class HybridRetriever:
    """Any rankers over the same chunks, fused by ``method="rrf"`` (default) or ``"weighted"``.

    ``depth`` limits how many hits of each ranker enter RRF (``None``: all chunks).
    """

    def __init__(
        self,
        rankers: Sequence[Ranker],
        method: str = "rrf",
        weights: Sequence[float] | None = None,
        rrf_k: int = 60,
        depth: int | None = None,
    ):
        if not rankers:
            raise ValueError("HybridRetriever needs at least one ranker")
        if method not in {"rrf", "weighted"}:
            raise ValueError(f"method must be 'rrf' or 'weighted', not {method!r}")
        self.chunks = list(rankers[0].chunks)
        for r in rankers[1:]:
            if list(r.chunks) != self.chunks:
                raise ValueError(
                    f"{type(r).__name__} ranks different chunks from {type(rankers[0]).__name__}"
                )
        self.rankers = list(rankers)
        self.method = method
        self.weights = _weights(len(rankers), weights)
        self.rrf_k = rrf_k
        self.depth = depth

    def scores(self, query: str) -> np.ndarray:
        if self.method == "weighted":
            return weighted_score_fusion([r.scores(query) for r in self.rankers], self.weights)
        fused = reciprocal_rank_fusion(
            [r.rank(query, self.depth) for r in self.rankers], self.rrf_k, self.weights
        )
        out = np.zeros(len(self.chunks))
        for h in fused:
            out[h.index] = h.score
        return out

    def rank(self, query: str, k: int | None = 5) -> list[Hit]:
        return top_hits(self.scores(query), self.chunks, k)
