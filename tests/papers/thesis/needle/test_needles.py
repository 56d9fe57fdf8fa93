"""The needle chapter's needles (lcrag.papers.thesis.needle.needles) and their deterministic recall
(lcrag.metrics.needle) on handmade answers."""

from __future__ import annotations

import pytest

from lcrag.metrics import needle as metrics
from lcrag.papers.thesis.needle import needles as needle_texts


def test_deterministic_recall_on_handmade_answers():
    s = needle_texts.NEEDLES["simple"]
    assert metrics.answer_words(s.text, s.question) == ["eat", "sandwich", "sit", "dolores", "park", "sunny", "day"]
    assert s.score("Eat a sandwich and sit in Dolores Park on a sunny day.") == 1.0
    assert s.score("The best thing to do in San Francisco is to visit it.") == 0.0  # repeating the question
    assert s.score("eat a sandwich in Dolores Park") == pytest.approx(4 / 7)
    assert s.score("") == 0.0 and s.score(None) == 0.0
    c = needle_texts.NEEDLES["complex"]
    words = metrics.answer_words(c.text, c.question)
    assert len(words) == 25 and "laser" not in words and "diode" not in words and "ghz" in words
    assert c.score(needle_texts.COMPLEX_NEEDLE) == 1.0
    assert c.score("It can amplify one sideband of a seed laser.") == pytest.approx(4 / 25)
    mv = needle_texts.ruler_needle("multi_value")
    assert mv.score(f"They are {mv.values[0]}, {mv.values[2]} and 1234567.") == 0.5
    assert metrics.values_recall("x 12345678 y", ["1234567"]) == 0.0  # digits must match whole
