"""Kamradt's 1-10 needle judge (lcrag.judges.kamradt): its prompt, the written score and the expected rating."""

from __future__ import annotations

import math

import pytest

from lcrag.judges import kamradt


def test_rating_parser():
    assert kamradt.parse_rating("The answer is right. Rating: [[7]]") == (7, "strict")
    assert kamradt.parse_rating("[[10]]") == (10, "strict")
    assert kamradt.parse_rating("Rating: [[3") == (3, "loose")
    assert kamradt.parse_rating("Score: 8/10") == (8, "loose")
    assert kamradt.parse_rating("[[11]]") == (None, "none")
    assert kamradt.parse_rating("I cannot judge this.") == (None, "none")


def test_judge_prompt_is_langchains_with_kamradts_rubric():
    msgs = kamradt.judge_messages("Q?", "the needle", "an answer")
    assert msgs[0] == {"role": "system", "content": "You are a helpful assistant."}
    user = msgs[1]["content"]
    assert user.startswith("[Instruction]\nPlease act as an impartial judge")
    assert "criteria:\naccuracy: \n                Score 1: The answer is completely unrelated" in user
    assert "Only respond with a numberical score\n[Ground truth]\nthe needle\nBegin your evaluation" in user
    assert user.endswith("[Question]\nQ?\n\n[The Start of Assistant's Answer]\nan answer\n[The End of Assistant's Answer]")


def _lp(probs: dict) -> dict:
    return {t: math.log(p) for t, p in probs.items()}


def test_the_rating_distribution_splits_a_one_into_1_and_10():
    """Digit-by-digit tokenizers start 1 and 10 alike: the token after "1" decides (values from a real 1.5B
    judge's top logprobs, rounded)."""
    first = _lp({"5": 0.48, "7": 0.21, "1": 0.14, "3": 0.08, "R": 0.05})
    dist = kamradt.rating_distribution(first, _lp({"0": 0.88, "]]": 0.08, "]]\n\n": 0.04}))
    assert dist[10] == pytest.approx(0.14 * 0.88) and dist[1] == pytest.approx(0.14 * 0.12)
    assert dist[5] == pytest.approx(0.48) and dist[2] == 0.0 and "R" not in dist
    expected, mass = kamradt.expected_rating(dist)
    assert mass == pytest.approx(0.91)
    assert expected == pytest.approx((5 * 0.48 + 7 * 0.21 + 10 * 0.1232 + 0.0168 + 3 * 0.08) / 0.91)
    assert kamradt.rating_distribution(first)[1] == pytest.approx(0.14)  # no token after it: a bare "1" is a 1
    whole = kamradt.rating_distribution(_lp({"10": 0.5, "7]]": 0.25, " 3": 0.25}))
    assert (whole[10], whole[7], whole[3]) == pytest.approx((0.5, 0.25, 0.25))
    assert math.isnan(kamradt.expected_rating(kamradt.rating_distribution(_lp({"Yes": 1.0})))[0])
