"""Deterministic needle recall (RULER-style string match): the share of the needle's content words that
the answer contains. Kamradt's 1-10 LLM judge of the same answers is :mod:`lcrag.judges.kamradt`."""

from __future__ import annotations

import re

from lcrag.text import words
from lcrag.text.stopwords import RECALL_STOP_WORDS

#: The needle scorer's stop words (:data:`lcrag.text.stopwords.RECALL_STOP_WORDS`): function words carry no
#: evidence that the needle was found.
STOP_WORDS = RECALL_STOP_WORDS


def content_words(text: str) -> list[str]:
    """Lowercase word tokens of ``text`` without stop words, in order, unique (:func:`lcrag.text.words.content_words`
    with :data:`STOP_WORDS`)."""
    return words.content_words(text, STOP_WORDS)


def needle_recall(answer: str, needle: str) -> float:
    """Share of the needle's content words present in the answer (0..1): the lexical recall
    :func:`lcrag.text.words.word_recall` with :data:`STOP_WORDS`, under the needle's name."""
    if not content_words(needle):
        raise ValueError("the needle has no content words")
    return words.word_recall(answer, needle, STOP_WORDS)


def answer_words(needle: str, question: str) -> list[str]:
    """The needle's content words that the question does not already contain: the part of the needle an
    answer must bring (for the simple needle: eat, sandwich, sit, dolores, park, sunny, day)."""
    asked = set(content_words(question))
    wanted = [w for w in content_words(needle) if w not in asked]
    if not wanted:
        raise ValueError("every content word of the needle is in the question: nothing to recall")
    return wanted


def answer_recall(answer: str, needle: str, question: str) -> float:
    """Share of :func:`answer_words` present in the answer (0..1): a RULER-style string match that gives no
    credit for repeating the question ("The best thing to do in San Francisco is ..." alone scores 0)."""
    wanted = answer_words(needle, question)
    found = set(words.word_tokens(answer))
    return sum(w in found for w in wanted) / len(wanted)


def values_recall(answer: str, values: list[str]) -> float:
    """Share of ``values`` (RULER's needle values, e.g. 7-digit numbers) found verbatim in the answer."""
    if not values:
        raise ValueError("no values to recall")
    text = answer or ""
    return sum(re.search(rf"(?<![0-9A-Za-z]){re.escape(v)}(?![0-9A-Za-z])", text) is not None
               for v in values) / len(values)
