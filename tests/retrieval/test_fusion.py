"""Reciprocal-rank fusion (lcrag.retrieval.fusion), by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from lcrag.retrieval import Hit, reciprocal_rank_fusion


def test_reciprocal_rank_fusion_by_hand():
    a = [Hit(2, 0.9, 1, "c"), Hit(0, 0.8, 2, "a"), Hit(1, 0.7, 3, "b")]
    b = [Hit(0, 12.0, 1, "a"), Hit(2, 11.0, 2, "c"), Hit(3, 1.0, 3, "d")]
    c = [Hit(3, 5.0, 1, "d")]
    fused = reciprocal_rank_fusion([a, b, c], k=60)
    expected = {
        0: Fraction(1, 62) + Fraction(1, 61),
        2: Fraction(1, 61) + Fraction(1, 62),  # ties with 0: the lower index wins
        3: Fraction(1, 63) + Fraction(1, 61),
        1: Fraction(1, 63),
    }
    assert [h.index for h in fused] == [0, 2, 3, 1]
    assert [h.rank for h in fused] == [1, 2, 3, 4]
    assert [h.text for h in fused] == ["a", "c", "d", "b"]
    for h in fused:
        assert h.score == pytest.approx(float(expected[h.index]), abs=1e-15)
    weighted = reciprocal_rank_fusion([a, b, c], k=60, weights=[2, 1, 1], top_k=2)
    assert [h.index for h in weighted] == [2, 0]
