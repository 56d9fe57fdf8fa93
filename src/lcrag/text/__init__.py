"""Text: tokens (:mod:`lcrag.text.tokens`), chunking (:mod:`lcrag.text.chunking`), and reading answers."""

from __future__ import annotations

import math


def as_text(value: object) -> str:
    """A model's answer as a string, ``""`` when it is missing.

    A missing answer may be None, or NaN once it went through a pandas 3 string column (which stores a missing
    value as NaN, and NaN is truthy, so ``value or ""`` does not catch it)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)
