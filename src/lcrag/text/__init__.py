"""Text: chunking (:mod:`lcrag.text.chunking`), word tokens and lexical recall (:mod:`lcrag.text.words`), stop-word
lists (:mod:`lcrag.text.stopwords`), reading answers, and the small helpers that put numbers and lists into sentences
(:func:`join_words`, :func:`count`, :func:`counts_in_words`). Tokenizers live with the models
(:mod:`lcrag.models.tokens`)."""

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


def join_words(items) -> str:
    """Items of a sentence: ``a``, ``a and b``, ``a, b and c`` (no Oxford comma)."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def count(n: int, units: str) -> str:
    """``n`` items in words, ``units`` given in the plural: ``3 questions``, ``1 question``, ``1 summary``."""
    if n != 1:
        return f"{n} {units}"
    return f"{n} {units[:-3] + 'y' if units.endswith('ies') else units.removesuffix('s')}"


def counts_in_words(values, words: dict[str, str]) -> str:
    """How many of ``values`` (e.g. a ``source`` column) take each value, each value put in ``words``: "all 624 from
    the committed response store" when one value covers them all, else "600 from …, 24 from …" (most first); a
    value without words is shown as itself."""
    import pandas as pd

    counts = pd.Series(values).value_counts()
    if len(counts) == 1:
        return f"all {int(counts.iloc[0])} {words.get(counts.index[0], counts.index[0])}"
    return ", ".join(f"{int(n)} {words.get(k, k)}" for k, n in counts.items())
