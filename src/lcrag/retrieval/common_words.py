"""The thesis's "naive" ranker: how many distinct words a chunk shares with the query.

Words are lowercase ``\\b\\w\\w+\\b`` matches (two or more word characters, as in scikit-learn's default
token pattern). The thesis does not give its exact rule; this set-intersection count reproduces its
Table 6.3 "Naive" row for case 1 only (the inventory marks it "not exactly reconstructed").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from lcrag.retrieval.base import Hit, check_chunks, top_hits

WORD = re.compile(r"\b\w\w+\b")


def words(text: str) -> set[str]:
    """The distinct lowercase words (2+ word characters) of ``text``."""
    return set(WORD.findall(text.lower()))


class CommonWordsRetriever:
    """Score = number of distinct words shared by query and chunk; ties go to the earlier chunk."""

    def __init__(self, chunks: Sequence[str]):
        self.chunks = check_chunks(chunks)
        self._words = [words(c) for c in self.chunks]

    def scores(self, query: str) -> np.ndarray:
        q = words(query)
        return np.array([len(q & w) for w in self._words], dtype=np.float64)

    def rank(self, query: str, k: int | None = 5) -> list[Hit]:
        return top_hits(self.scores(query), self.chunks, k)
