"""Text: chunking (:mod:`lcrag.text.chunking`) and reading answers. Tokenizers live with the models (:mod:`lcrag.models.tokens`)."""

from __future__ import annotations

import math


def is_missing(value: object) -> bool:
    """None, or the NaN a pandas 3 string column holds for a missing value (NaN is truthy, so ``value or ""``
    does not catch it)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def as_text(value: object) -> str:
    """A model's answer as a string, ``""`` when it is missing (:func:`is_missing`)."""
    return "" if is_missing(value) else str(value)
