"""Word tokens and the lexical recall built on them, in one place: the lowercase ``[a-z0-9]+`` tokens
(:func:`word_tokens`: "cost-effective" is two, "Dolores" is "dolores"), a text's content words (:func:`content_words`:
its tokens minus a stop-word list, each once, in order), and the share of a reference's content words that a text
contains (:func:`word_recall`).

The same recall is the needle's deterministic score (:func:`lcrag.metrics.needle.needle_recall`), the lexical judge
of SummHay and Long²RAG (:func:`lcrag.judges.similarity.lexical_similarity`) and the check that a synthetic SummHay
document states its insights; each passes its stop-word list (:mod:`lcrag.text.stopwords`). The tokenisation and
the lists decide every recorded score: do not change them.
"""

from __future__ import annotations

import re
from collections.abc import Collection

_WORD = re.compile(r"[a-z0-9]+")


def word_tokens(text: str | None) -> list[str]:
    """The lowercase ``[a-z0-9]+`` tokens of ``text``, in order, repeats kept (``[]`` for None or ``""``).

    >>> word_tokens("Eat a sandwich in Dolores Park, cost-effective: 15 GHz!")
    ['eat', 'a', 'sandwich', 'in', 'dolores', 'park', 'cost', 'effective', '15', 'ghz']
    """
    return _WORD.findall((text or "").lower())


def content_words(text: str | None, stop_words: Collection[str]) -> list[str]:
    """The :func:`word_tokens` of ``text`` that are not in ``stop_words``, each once, in order."""
    return list(dict.fromkeys(w for w in word_tokens(text) if w not in stop_words))


def word_recall(text: str | None, reference: str, stop_words: Collection[str]) -> float:
    """The share (0..1) of ``reference``'s :func:`content_words` found among the :func:`word_tokens` of ``text``.

    >>> word_recall("They ate a sandwich.", "Eat a sandwich", {"a"})
    0.5
    """
    words = content_words(reference, stop_words)
    if not words:
        raise ValueError(f"no content words in {reference!r}")
    found = set(word_tokens(text))
    return sum(w in found for w in words) / len(words)
