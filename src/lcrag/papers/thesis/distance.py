"""The ranking-distance study (§6.4.2, Fig. 6.2; appendix Figs. 7.3-7.5): how far each ranker's top-k is from the
target (BM25 with the evidence as query), with the thesis's distance minimised over pairings (Hungarian method).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lcrag.progress import progress as bar
from lcrag.retrieval import embedder_for, get_ranker
from lcrag.text.chunking import recursive_split


def ranking_distance(target: Sequence[int], ranking: Sequence[int], m: int, alpha: float) -> float:
    """The thesis's distance between two top-n lists of chunk numbers (1..m), minimised over pairings:

    ``D = min_σ (1/n) Σ_i [ α |i − σ(i)| / (n − 1) + (1 − α) |A_i − B_σ(i)| / (m − 1) ]``

    solved exactly with the Hungarian method (``scipy.optimize.linear_sum_assignment``). 0 = the same chunks
    in the same order; a term whose denominator would be 0 (n = 1 or m = 1) is 0.
    """
    from scipy.optimize import linear_sum_assignment

    a = np.asarray(target, dtype=np.float64)
    b = np.asarray(ranking, dtype=np.float64)
    n = len(a)
    if len(b) != n:
        raise ValueError(f"both rankings must have the same length, got {n} and {len(b)}")
    if n == 0:
        return 0.0
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], not {alpha}")
    i = np.arange(n, dtype=np.float64)
    rank_term = np.abs(i[:, None] - i[None, :]) / (n - 1) if n > 1 else np.zeros((n, n))
    pos_term = np.abs(a[:, None] - b[None, :]) / (m - 1) if m > 1 else np.zeros((n, n))
    cost = alpha * rank_term + (1.0 - alpha) * pos_term
    rows, cols = linear_sum_assignment(cost)
    return float(cost[rows, cols].sum() / n)


def distance_study(
    cases: pd.DataFrame,
    embedder=None,
    *,
    ks: Sequence[int] = (5, 10),
    alphas: Sequence[float] = (0.05, 0.5),
    queries: Sequence[str] = ("question", "evidence"),
    rankers: Sequence[str] = ("bm25", "cosine", "svm", "naive"),
    chunk_size: int = 512,
    chunk_overlap: int = 50,
    progress: bool = False,
) -> pd.DataFrame:
    """Distance of each ranker's top-k to the target (BM25, the evidence as query), per case, k, α and query.

    Fixed-length chunks; n = min(k, number of chunks). One row per case × query × ranker × k × α.
    """
    embedder = embedder_for(rankers, embedder)
    rows = []
    items = bar(list(cases.itertuples(index=False)), enabled=progress, desc="ranking distance")
    for item in items:
        chunks = recursive_split(item.content, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
        m = len(chunks)
        built = {r: get_ranker(r, chunks, embedder) for r in rankers}
        target_full = [
            h.index + 1 for h in (built.get("bm25") or get_ranker("bm25", chunks)).rank(item.evidence, None)
        ]
        for query in queries:
            for ranker, r in built.items():
                full = [h.index + 1 for h in r.rank(getattr(item, query), None)]
                for k in ks:
                    n = min(k, m)
                    for alpha in alphas:
                        rows.append(
                            {
                                "task": item.task,
                                "case": item.case,
                                "query": query,
                                "ranker": ranker,
                                "k": k,
                                "alpha": alpha,
                                "n": n,
                                "m": m,
                                "distance": ranking_distance(target_full[:n], full[:n], m, alpha),
                            }
                        )
    return pd.DataFrame(rows)


def cached_distance_study(cases: pd.DataFrame, embedder=None, **params) -> pd.DataFrame:
    """:func:`distance_study`, computed once per cache directory for these cases, embedder and parameters: the
    same for every model the thesis chapter runs on (a cold book build runs it for four), so the others read it
    (:func:`lcrag.models.cache.cached_table`)."""
    from lcrag.models.cache import cached_table

    if embedder is None:
        from lcrag.models.embeddings import get_embedder

        embedder = get_embedder()
    read = ["task", "case", "content", "question", "evidence"]
    inputs = {"cases": cases[read].to_numpy().tolist(), "embedder": embedder.identity, "params": params}  # JSON
    return cached_table("thesis-ranking-distance", inputs, lambda: distance_study(cases, embedder, **params))


def distance_summary(dist: pd.DataFrame) -> pd.DataFrame:
    """Median, quartiles and IQR of the distances per k × α × query × ranker."""
    g = dist.groupby(["k", "alpha", "query", "ranker"], sort=False)["distance"]
    out = g.agg(
        n="size", median="median", q1=lambda s: s.quantile(0.25), q3=lambda s: s.quantile(0.75), mean="mean"
    ).reset_index()
    out["iqr"] = out["q3"] - out["q1"]
    return out
