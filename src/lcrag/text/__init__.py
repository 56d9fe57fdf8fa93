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


def one_line(value: object, width: int | None = None) -> str:
    """A model's answer as a table shows it: its line breaks and runs of spaces as single spaces (no ``\\n`` escapes
    in a printed table), cut to ``width`` characters with an ellipsis; ``""`` when it is missing."""
    flat = " ".join(as_text(value).split())
    return flat if width is None or len(flat) <= width else flat[: width - 1].rstrip() + "…"


def counts_in_words(values, words: dict[str, str]) -> str:
    """How many of ``values`` (e.g. a ``source`` column) take each value, each value put in ``words``: "all 624 from
    the committed response store" when one value covers them all, else "600 from …, 24 from …" (most first); a
    value without words is shown as itself."""
    import pandas as pd

    counts = pd.Series(values).value_counts()
    if len(counts) == 1:
        return f"all {int(counts.iloc[0])} {words.get(counts.index[0], counts.index[0])}"
    return ", ".join(f"{int(n)} {words.get(k, k)}" for k, n in counts.items())
