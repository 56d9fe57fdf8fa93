"""Scoring multiple-choice answers (BAMBOO): three scorers, from strict to format-proof.

- :func:`bamboo_letter`: BAMBOO's own scorer: the first character of the first line of the answer.
- :func:`lenient_letter`: a letter however the model wraps it ("Answer: (B)", "The answer is B.", "b)").
- :func:`logprob_letter`: argmax over A-D of the first generated position's top logprobs (where the
  endpoint returns them), so a model that would have said "B" but wrote "The" still gets scored.
"""

from __future__ import annotations

import re

LETTERS = ("A", "B", "C", "D")

_LENIENT_PATTERNS = [
    re.compile(r"^\s*\(?([A-D])\)?(?:[.):,\s]|$)"),  # "B", "B.", "(B)", "B) text"
    re.compile(r"\b(?:answer|option|choice)\s*(?:is|:)?\s*\(?([A-D])\b", re.IGNORECASE),
    re.compile(r"\b([A-D])\s*[.)]\s"),  # "... B. apple"
    re.compile(r"\b([A-D])\b"),  # a lone capital letter anywhere
]


def bamboo_letter(answer: str) -> str | None:
    """BAMBOO's scorer: the first character of the first line (None when the answer is empty)."""
    first = (answer or "").strip().split("\n")[0].strip()
    return first[0] if first else None


def lenient_letter(answer: str) -> str | None:
    """The first A-D letter the answer commits to, trying patterns from the most to the least explicit."""
    text = (answer or "").strip()
    if not text:
        return None
    if len(text) == 1 and text.upper() in LETTERS:
        return text.upper()
    for pattern in _LENIENT_PATTERNS:
        m = pattern.search(text)
        if m:
            return m.group(1).upper()
    return None


def logprob_letter(top_logprobs: dict[str, float]) -> str | None:
    """Argmax over A-D among the top alternatives at the first position (tokens stripped, any case)."""
    best: dict[str, float] = {}
    for token, lp in (top_logprobs or {}).items():
        t = token.strip().strip("(").upper()
        if t in LETTERS:
            best[t] = max(lp, best.get(t, float("-inf")))
    return max(best, key=best.get) if best else None


# ----------------------------------------------------------------------------- BAMBOO's evaluate.py, exactly


def bamboo_eval_letter(answer: str) -> str | None:
    """BAMBOO's ``evaluate.py`` (``qa_accuracy``) exactly: the first character of the first line, any case.

    ``pred.strip().split('\\n')[0].strip(' ')[0]`` is mapped to ``X`` when it is ``X`` or ``x`` (the released
    ``"[X" in pred`` test can never hold for one character). So "Answer: B" scores as A and "based on" as B:
    this is the raw scorer of the thesis's Table 6.1 row 1 (BAMBOO's published numbers) and of its reproduction.
    None where evaluate.py says "F" (or crashes, on an empty answer). :func:`bamboo_letter` is the same without the case folding.
    """
    first = (answer or "").strip().split("\n")[0].strip(" ")
    if not first:
        return None
    c = first[0].upper()
    return c if c in LETTERS else None
