"""SummHay's keyword retriever (its released ``retrieve_from_keywords``): the share of the query's keywords that
occur in a chunk, with NLTK's stop words and a Treebank-style tokenizer (an offline stand-in for
``nltk.word_tokenize``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from lcrag.retrieval.base import Hit, check_chunks, top_hits
from lcrag.text.stopwords import NLTK_STOPWORDS

# A Treebank-style tokenizer (what nltk.word_tokenize applies to each sentence): contractions split ("don't" ->
# "do", "n't"; "firm's" -> "firm", "'s"), every punctuation mark its own token, hyphenated words, decimals and
# thousands ("3.5", "1,000") kept whole. Differences to word_tokenize: no Punkt sentence model, so a period
# after an abbreviation ("Inc.") is split off where Punkt might keep it.
_CONTRACTION = re.compile(r"(?i)(\w)(n't|'s|'m|'d|'ll|'re|'ve)\b")
_TOKEN = re.compile(r"n't|'(?:s|m|d|ll|re|ve)\b|\w+(?:[-.,/'&]\w+)*|\.\.\.|--|[^\w\s]", re.I)


def keyword_tokenize(text: str) -> list[str]:
    """Lowercase Treebank-style tokens of ``text`` (an offline stand-in for ``nltk.word_tokenize(text.lower())``).

    >>> keyword_tokenize("Foot Locker's Q4 sales: $2.33 billion, don't panic?")
    ['foot', 'locker', "'s", 'q4', 'sales', ':', '$', '2.33', 'billion', ',', 'do', "n't", 'panic', '?']
    """
    return _TOKEN.findall(_CONTRACTION.sub(r"\1 \2", text.lower()))


def _keywords(query: str) -> list[str]:
    return [t for t in keyword_tokenize(query) if t not in NLTK_STOPWORDS]


def _share(keywords: list[str], tokens: set[str]) -> float:
    return sum(1 for k in keywords if k in tokens) / len(keywords) if keywords else 0.0


class KeywordRetriever:
    """The released ``retrieve_from_keywords``: a chunk's score is the share of the query's non-stop-word tokens
    (punctuation such as "?" included, repeats counted) that occur among the chunk's tokens (0 for a query with no
    keyword); ties go to the earlier chunk."""

    def __init__(self, chunks: Sequence[str]):
        self.chunks = check_chunks(chunks)
        self._tokens = [set(keyword_tokenize(c)) for c in self.chunks]

    def scores(self, query: str) -> np.ndarray:
        keywords = _keywords(query)
        return np.array([_share(keywords, tokens) for tokens in self._tokens], dtype=np.float64)

    def rank(self, query: str, k: int | None = 5) -> list[Hit]:
        return top_hits(self.scores(query), self.chunks, k)
