"""Deterministic needle recall (RULER-style string match): the share of the needle's content words that
the answer contains."""

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
