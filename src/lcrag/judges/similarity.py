"""The judges without an LLM: lexical and embedding similarity, turned into labels by thresholds.

Scored like SummHay's LLM evaluators (its Table 1), and, with one binary cut, as Long²RAG's deterministic
entailment judge (:func:`fit_binary_threshold`, used by :mod:`lcrag.papers.long2rag.judges`).

A SummHay judge reads one reference insight and the bullets of a summary, and answers a coverage label
(``FULL_COVERAGE`` / ``PARTIAL_COVERAGE`` / ``NO_COVERAGE``) and the bullet that covers the insight. The paper's
judges are LLMs; this module has judges that need none, as a floor every LLM judge of this book must beat:

- :func:`embedding_similarity`: cosine of sentence embeddings (MiniLM by default) of the insight and each bullet;
- :func:`lexical_similarity`: the share of the insight's content words that a bullet contains (its citations
  ``[12]`` removed, so document ids never count as words).

Either gives an insight x bullet matrix. The judge links the most similar bullet (:func:`best_bullets`) and
turns the best similarity into a label with two thresholds (:func:`apply_thresholds`), which are fitted to human
labels by :func:`fit_thresholds`: the pair that maximises the Pearson correlation with the human scores, the very
number Table 1 reports, on data that the judge is then *not* evaluated on.

Like an LLM judge that answers ``NO_COVERAGE`` with bullet ``"NA"``, a deterministic judge links no bullet for an
insight it labels uncovered (:func:`judge`), so its linking accuracy is computed on the same terms as Table 1's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lcrag.metrics.summhay import CITATION_PATTERN, FULL, NONE, PARTIAL
from lcrag.text.stopwords import RECALL_STOP_WORDS
from lcrag.text.words import word_recall

#: A similarity: (insights, bullets) -> array of shape (len(insights), len(bullets)), larger = more similar.
Similarity = Callable[[Sequence[str], Sequence[str]], np.ndarray]


def strip_citations(bullet: str) -> str:
    """``bullet`` without its citation brackets (``"Calm helps [3][8, 9]."`` -> ``"Calm helps ."``)."""
    return CITATION_PATTERN.sub(" ", bullet)


def lexical_similarity(insights: Sequence[str], bullets: Sequence[str]) -> np.ndarray:
    """Insight x bullet matrix: the share of the insight's content words (lowercase word tokens, stop words
    removed: :func:`lcrag.text.words.word_recall` with :data:`lcrag.text.stopwords.RECALL_STOP_WORDS`) found in the
    bullet, citations removed. 0..1."""
    clean = [strip_citations(b) for b in bullets]
    return np.array([[word_recall(b, i, RECALL_STOP_WORDS) for b in clean] for i in insights], dtype=float).reshape(
        len(insights), len(bullets)
    )


def embedding_similarity(insights: Sequence[str], bullets: Sequence[str], embedder) -> np.ndarray:
    """Insight x bullet matrix of cosine similarities of ``embedder``'s vectors (citations removed from bullets).

    ``embedder`` is an :class:`lcrag.models.embeddings.Embedder` (unit-length rows, so cosine = dot product)."""
    if not len(insights) or not len(bullets):
        return np.zeros((len(insights), len(bullets)))
    vectors = embedder.embed([*insights, *(strip_citations(b) for b in bullets)]).astype(float)
    return vectors[: len(insights)] @ vectors[len(insights) :].T


def best_bullets(similarity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per insight (row): the highest similarity and the 0-based index of its bullet (first on ties)."""
    sim = np.asarray(similarity, float)
    if sim.ndim != 2 or sim.shape[1] == 0:
        raise ValueError(f"need an insight x bullet matrix with at least one bullet, got shape {sim.shape}")
    return sim.max(axis=1), sim.argmax(axis=1)


@dataclass(frozen=True)
class Thresholds:
    """Best similarity >= ``full``: full coverage; >= ``partial``: partial; below: none (``partial <= full``)."""

    partial: float
    full: float

    def __post_init__(self):
        if not self.partial <= self.full:
            raise ValueError(f"thresholds need partial <= full, got partial={self.partial}, full={self.full}")


def apply_thresholds(best: Sequence[float], thresholds: Thresholds) -> list[str]:
    """Coverage labels of best similarities under ``thresholds``."""
    return [
        FULL if s >= thresholds.full else PARTIAL if s >= thresholds.partial else NONE
        for s in np.asarray(best, float)
    ]


def threshold_scores(best: Sequence[float], thresholds: Thresholds) -> np.ndarray:
    """Coverage scores (1 / 0.5 / 0) of best similarities under ``thresholds``."""
    b = np.asarray(best, float)
    return np.where(b >= thresholds.full, 1.0, np.where(b >= thresholds.partial, 0.5, 0.0))


def fit_thresholds(best: Sequence[float], human: Sequence[float], n_grid: int = 99) -> Thresholds:
    """The thresholds whose coverage scores correlate best (Pearson) with the ``human`` scores.

    Candidates are the ``n_grid`` evenly spaced quantiles of ``best`` (1 %, 2 %, ..., 99 % for 99), every pair
    with ``partial <= full`` (equal: the judge never says partial). Pairs that give one label to everything
    (correlation undefined) are skipped; on ties the first pair wins (lowest ``partial``, then lowest ``full``),
    so the fit is deterministic.
    """
    b, h = np.asarray(best, float), np.asarray(human, float)
    if b.shape != h.shape or b.size < 2:
        raise ValueError(f"need two equal-length sequences of at least 2 values, got {b.shape} and {h.shape}")
    grid = np.unique(np.quantile(b, np.linspace(0, 1, n_grid + 2)[1:-1]))
    best_r, best_t = -np.inf, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for i, lo in enumerate(grid):
            for hi in grid[i:]:
                t = Thresholds(float(lo), float(hi))
                scores = threshold_scores(b, t)
                if scores.std() == 0:
                    continue
                r = np.corrcoef(scores, h)[0, 1]
                if r > best_r:
                    best_r, best_t = r, t
    if best_t is None:
        raise ValueError("no threshold pair separates the similarities: all values are equal")
    return best_t


def judge(similarity: np.ndarray, thresholds: Thresholds) -> list[tuple[str, int | None]]:
    """Per insight: ``(label, linked bullet)``; the bullet is the most similar one, None when not covered."""
    best, link = best_bullets(similarity)
    labels = apply_thresholds(best, thresholds)
    return [(lab, None if lab == NONE else int(k)) for lab, k in zip(labels, link, strict=True)]


def fit_binary_threshold(scores: Sequence[float], human: Sequence[int]) -> float:
    """The cut ``t`` (label yes when score >= t) with the highest accuracy against binary ``human`` labels.

    Candidates are the distinct scores (and +inf, "never yes"); on ties the lowest cut wins, so the fit is
    deterministic.
    """
    s, h = np.asarray(scores, float), np.asarray(human, int)
    if s.shape != h.shape or s.size == 0:
        raise ValueError(f"need two equal-length non-empty sequences, got {s.shape} and {h.shape}")
    if not np.isin(h, [0, 1]).all():
        raise ValueError("human labels must be 0 or 1")
    best_t, best_acc = np.inf, float((h == 0).mean())
    for t in np.unique(s):
        acc = float(((s >= t).astype(int) == h).mean())
        if acc > best_acc:
            best_t, best_acc = float(t), acc
    return best_t

