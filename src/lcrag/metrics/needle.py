"""Deterministic needle recall (RULER-style string match): the share of the needle's content words that
the answer contains. Kamradt's 1-10 LLM judge of the same answers is :mod:`lcrag.judges.kamradt`."""

from __future__ import annotations

import re

# A small English stop-word list: function words carry no evidence that the needle was found.
STOP_WORDS = frozenset(
    "a an and are as at be by do for from has have in is it its of on or that the this to was were with "
    "what which who when where why how best thing".split()
)


def content_words(text: str) -> list[str]:
    """Lowercase word tokens of ``text`` without stop words, in order, unique."""
    seen: dict[str, None] = {}
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w not in STOP_WORDS:
            seen.setdefault(w, None)
    return list(seen)


def needle_recall(answer: str, needle: str) -> float:
    """Share of the needle's content words present in the answer (0..1)."""
    words = content_words(needle)
    if not words:
        raise ValueError("the needle has no content words")
    found = set(re.findall(r"[a-z0-9]+", (answer or "").lower()))
    return sum(w in found for w in words) / len(words)


def answer_words(needle: str, question: str) -> list[str]:
    """The needle's content words that the question does not already contain: the part of the needle an
    answer must bring (for the simple needle: eat, sandwich, sit, dolores, park, sunny, day)."""
    asked = set(content_words(question))
    words = [w for w in content_words(needle) if w not in asked]
    if not words:
        raise ValueError("every content word of the needle is in the question: nothing to recall")
    return words


def answer_recall(answer: str, needle: str, question: str) -> float:
    """Share of :func:`answer_words` present in the answer (0..1): a RULER-style string match that gives no
    credit for repeating the question ("The best thing to do in San Francisco is ..." alone scores 0)."""
    words = answer_words(needle, question)
    found = set(re.findall(r"[a-z0-9]+", (answer or "").lower()))
    return sum(w in found for w in words) / len(words)


def values_recall(answer: str, values: list[str]) -> float:
    """Share of ``values`` (RULER's needle values, e.g. 7-digit numbers) found verbatim in the answer."""
    if not values:
        raise ValueError("no values to recall")
    text = answer or ""
    return sum(re.search(rf"(?<![0-9A-Za-z]){re.escape(v)}(?![0-9A-Za-z])", text) is not None
               for v in values) / len(values)
