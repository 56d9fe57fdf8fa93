"""What every ranker returns: a list of :class:`Hit`, best first.

A *ranker* is built over a document's chunks and answers ``rank(query, k)``; it also exposes
``scores(query)``, one score per chunk (higher is better), which fusion needs. Ties are broken by the lower
chunk index, so every ranking is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk.

    ``index`` is the chunk's 0-based position in the document (the thesis's "chunk n°" is ``index + 1``),
    ``rank`` is 1-based, ``score`` is the ranker's own score (higher is better; scales differ by ranker).
    """

    index: int
    score: float
    rank: int
    text: str


@runtime_checkable
class Ranker(Protocol):
    """Ranks a fixed list of chunks against a query."""

    chunks: list[str]

    def scores(self, query: str) -> np.ndarray:
        """One score per chunk, higher is better."""
        ...

    def rank(self, query: str, k: int | None = 5) -> list[Hit]:
        """The ``k`` best chunks (all when ``k`` is None), best first."""
        ...


def order(scores: np.ndarray) -> np.ndarray:
    """Chunk indices by descending score; equal scores keep the lower index first."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def top_hits(scores: np.ndarray, chunks: Sequence[str], k: int | None = 5) -> list[Hit]:
    """The ``k`` highest-scoring chunks as hits (``k=None``: all of them)."""
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) != len(chunks):
        raise ValueError(f"{len(scores)} scores for {len(chunks)} chunks")
    if k is not None and k < 0:
        raise ValueError(f"k must be >= 0 or None, not {k}")
    idx = order(scores)[: None if k is None else k]
    return [Hit(int(i), float(scores[i]), r, chunks[i]) for r, i in enumerate(idx, start=1)]


def check_chunks(chunks: Sequence[str]) -> list[str]:
    """The chunks as a list of strings; a non-string names its position."""
    chunks = list(chunks)
    for i, c in enumerate(chunks):
        if not isinstance(c, str):
            raise TypeError(f"chunk {i} is {type(c).__name__}, not str")
    return chunks
