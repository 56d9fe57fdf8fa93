"""Reciprocal-rank fusion of several rankings into one (Cormack, Clarke & Büttcher, SIGIR 2009), what
:class:`lcrag.retrieval.rerank.FusionReranker` uses to fuse BM25 and cosine.

Each ranker votes ``w / (k + rank)`` for every chunk it ranks (rank is 1-based; ``k = 60`` by default damps the
head so no single ranker dominates). Uses ranks only, so BM25's unbounded scores and cosine's [-1, 1] mix without
calibration. Ties go to the lower chunk index, as everywhere in :mod:`lcrag.retrieval`.
"""

from __future__ import annotations

from collections.abc import Sequence

from lcrag.retrieval.base import Hit


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
