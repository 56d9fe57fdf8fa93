"""Long²RAG's key-point entailment judge (lcrag.judges.entailment): the P6 answer parsers, Eq. 1's values and a
judge's agreement with binary human labels, on handmade values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lcrag import stats
from lcrag.judges import entailment


@pytest.mark.parametrize(
    "text, default, strict, words",
    [
        ("[yes] The document says so.", "yes", "yes", "yes"),
        ("Answer: [ Neutral ]", "neutral", "neutral", "neutral"),
        ("[no]. Also [yes] later", "no", "no", "no"),
        ("Yes, the document supports it.", "yes", None, "yes"),
        ("The document does not entail the claim.", None, None, "no"),
        ("The claim entails the document's details.", None, None, "yes"),
        ("[yes], [no], or [neutral]", None, None, None),
        ("I'm ready to help.", None, None, None),
        ("", None, None, None),
    ],
)
def test_p6_parsers(text, default, strict, words):
    assert entailment.parse_entailment(text) == default
    assert entailment.parse_entailment_strict(text) == strict
    assert entailment.parse_entailment_words(text) == words


def test_entailment_values_and_agreement():
    assert [entailment.entailment_value(x) for x in ("yes", "no", "neutral")] == [1.0, 0.0, 0.0]
    assert math.isnan(entailment.entailment_value(None))
    assert math.isnan(entailment.entailment_value(float("nan")))  # None as stored in a pandas string column
    a = entailment.binary_agreement([1, 0, np.nan, 1], [1, 0, 1, 0])
    assert a["accuracy"] == 0.5 and a["n_unparseable"] == 1
    assert stats.cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0
    assert stats.cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == 0.0
