"""BM25 (Okapi) ranking, as in the thesis.

``rank_bm25.BM25Okapi`` with its defaults (k1 = 1.5, b = 0.75, epsilon = 0.25) over
:func:`thesis_tokenize` tokens reproduces every BM25 row of the thesis's Table 6.3 (MeetingQA cases 1 to
3, evidence as query, 512/50 chunks). LangChain's ``BM25Retriever`` default (``str.split``, no lowercasing,
punctuation kept) does not.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from lcrag.retrieval.base import Hit, check_chunks, top_hits


def thesis_tokenize(text: str) -> list[str]:
    """Split on whitespace, strip ASCII punctuation from both ends of each token, lowercase.

    Tokens that were only punctuation (e.g. ``"-"``) are dropped. (Keeping them as empty strings gives
    the same Table 6.3 rankings; dropping them is the cleaner choice.)

    >>> thesis_tokenize("Hello, World! It's (very) well-known -- OK?")
    ['hello', 'world', "it's", 'very', 'well-known', 'ok']
    """
    tokens = (t.strip(string.punctuation).lower() for t in text.split())
    return [t for t in tokens if t]


class BM25Retriever:
    """BM25Okapi over a document's chunks.

    >>> r = BM25Retriever(["the cat sat", "a dog barked", "the dog and the cat"])
    >>> [h.index for h in r.rank("dog", k=2)]
    [1, 2]
    """

    def __init__(
        self,
        chunks: Sequence[str],
        tokenizer: Callable[[str], list[str]] = thesis_tokenize,
        **bm25_params: float,
    ):
        self.chunks = check_chunks(chunks)
        if not self.chunks:
            raise ValueError("BM25Retriever needs at least one chunk")
        self.tokenizer = tokenizer
        self.bm25 = BM25Okapi([tokenizer(c) for c in self.chunks], **bm25_params)

    def scores(self, query: str) -> np.ndarray:
        return np.asarray(self.bm25.get_scores(self.tokenizer(query)), dtype=np.float64)

    def rank(self, query: str, k: int | None = 5) -> list[Hit]:
        return top_hits(self.scores(query), self.chunks, k)
