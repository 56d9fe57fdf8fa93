"""BAMBOO's letter scorer (lcrag.metrics.multiple_choice), against BAMBOO's evaluate.py."""

from __future__ import annotations

import pytest

from lcrag.metrics.multiple_choice import bamboo_eval_letter


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("B", "B"),
        (" c. text", "C"),
        ("Answer: B", "A"),
        ("based on the text, D", "B"),
        ("\n\nD\nmore", "D"),
        ("The answer is B", None),
        ("", None),
        (None, None),
        ("[A]", None),
    ],
)
def test_bamboo_eval_letter_is_evaluate_py(answer, letter):
    assert bamboo_eval_letter(answer) == letter
