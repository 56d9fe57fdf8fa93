"""LongBench's qa_f1_score and exact match (lcrag.metrics.qa), as LongBench normalises answers."""

from __future__ import annotations

import pytest

from lcrag.metrics.qa import dataset_f1, exact_match, normalize_answer, qa_f1


def test_normalisation_and_f1_as_longbench():
    assert normalize_answer("An  apple, the PIE.") == "apple pie"
    assert qa_f1("The Eiffel Tower!", ["eiffel tower"]) == 1.0
    assert qa_f1("Paris, France", ["Paris"]) == pytest.approx(2 / 3)
    assert qa_f1("Paris, France", ["Lyon", "France"]) == pytest.approx(2 / 3)  # best gold answer
    assert qa_f1("", ["x"]) == 0.0 and qa_f1(None, ["x"]) == 0.0
    assert qa_f1("the the cat", ["cat cat"]) == pytest.approx(2 / 3)  # bags: one "cat" in common: p 1, r 1/2
    assert exact_match("  The Beatles.", ["beatles"]) == 1.0 and exact_match("Beatles band", ["beatles"]) == 0.0
    assert dataset_f1([1.0, 0.5, 0.0]) == 50.0
    with pytest.raises(ValueError):
        qa_f1("x", [])
