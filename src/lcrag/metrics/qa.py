"""Open-answer QA scores as LongBench computes them (used by LongRAG's released ``metric.py``).

``qa_f1_score``: both strings normalised (lower case, punctuation removed, the articles *a*, *an*, *the*
removed, whitespace collapsed), then the token-level F1 of the bags of words; a prediction is scored against
each gold answer and the best is kept. The dataset score is the mean over questions, times 100, rounded to two
decimals (:func:`dataset_f1`). Exact match is the same normalisation and string equality (not in the paper;
shown beside F1 because a 135M model's answers are often a correct name inside a sentence).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

from lcrag.text import as_text

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """LongBench's normalisation: lower, drop punctuation, drop articles, collapse whitespace (in that order)."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: Sequence[str], truth: Sequence[str]) -> float:
    """F1 of two token lists as bags (a token counts as often as it occurs in both)."""
    same = sum((Counter(prediction) & Counter(truth)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(prediction), same / len(truth)
    return 2 * precision * recall / (precision + recall)


def qa_f1(prediction: str | None, answers: Sequence[str]) -> float:
    """Best token F1 of the normalised prediction against any gold answer (0 for a missing prediction)."""
    if not answers:
        raise ValueError("a question needs at least one gold answer")
    pred = normalize_answer(as_text(prediction)).split()
    return max(token_f1(pred, normalize_answer(a).split()) for a in answers)


def exact_match(prediction: str | None, answers: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals a normalised gold answer."""
    pred = normalize_answer(as_text(prediction))
    return float(any(pred == normalize_answer(a) for a in answers))


def dataset_f1(scores: Sequence[float]) -> float:
    """A dataset's score as the paper prints it: mean per-question F1 x 100, two decimals."""
    if not scores:
        raise ValueError("no scores")
    return round(100 * sum(scores) / len(scores), 2)
