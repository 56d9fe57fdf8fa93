"""Long²RAG's key-point entailment judge (Qi et al. 2024, Eq. 1): does the response entail the key point?

The judge answers the entailment prompt P6 (:data:`lcrag.papers.long2rag.prompts.P6_ENTAILMENT`) with ``[yes]`` /
``[no]`` / ``[neutral]``, read by one of :data:`PARSERS` (strict, default, words); :func:`entailment_value` turns the
label into Eq. 1's value: yes -> 1, no and neutral -> 0, an answer with none of the three labels (*unparseable*)
-> NaN. :func:`binary_agreement` measures a judge's 1 / 0 / NaN values against binary human labels (accuracy,
Cohen's κ). Key Point Recall, computed from these values, is :mod:`lcrag.metrics.kpr`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from lcrag.stats import cohen_kappa
from lcrag.text import as_text, is_missing

YES, NO, NEUTRAL = "yes", "no", "neutral"

#: A label in square brackets, as P6 asks for ("[yes], [no], or [neutral]"), any case and inner spaces.
_BRACKETED = re.compile(r"\[\s*(yes|no|neutral)\s*\]", re.IGNORECASE)
#: The fallback: the answer's first word is a bare label ("Yes, the document ...").
_LEADING = re.compile(r"^\W*(yes|no|neutral)\b", re.IGNORECASE)


def parse_entailment(text: str | None) -> str | None:
    """The P6 judge's label: ``"yes"``, ``"no"``, ``"neutral"``, or None when the answer has none.

    The first bracketed label wins (the prompt's own wording, ``[yes], [no], or [neutral]``, never appears in an
    answer that follows the instruction; a judge that *copies* the whole list gets its first item, which is why
    answers are counted as unparseable when they contain all three, see :func:`parse_entailment_strict`). Without
    brackets, a bare label as the answer's first word is accepted ("Yes, ..."). Anything else: None.
    """
    text = as_text(text)
    if not text:
        return None
    found = _BRACKETED.findall(text)
    if found:
        labels = {f.lower() for f in found}
        if labels == {YES, NO, NEUTRAL}:
            return None  # the judge echoed the instruction: no decision
        return found[0].lower()
    m = _LEADING.match(text)
    return m.group(1).lower() if m else None


def parse_entailment_strict(text: str | None) -> str | None:
    """Only a bracketed label counts (``[yes]``), as the prompt demands; a bare "Yes" is unparseable."""
    text = as_text(text)
    if not text:
        return None
    found = {f.lower() for f in _BRACKETED.findall(text)}
    if found == {YES, NO, NEUTRAL} or not found:
        return None
    return _BRACKETED.search(text).group(1).lower()


_WORDS = (
    (NO, re.compile(r"\b(does not|doesn't|do not|is not|not) (entail|support)", re.IGNORECASE)),
    (NEUTRAL, re.compile(r"\bneutral\b", re.IGNORECASE)),
    (YES, re.compile(r"\b(entails|entailed|does entail|supports)\b", re.IGNORECASE)),
)


def parse_entailment_words(text: str | None) -> str | None:
    """:func:`parse_entailment`, then, when that finds nothing, a fallback on the answer's words: a negated
    "entail"/"support" -> no, "neutral" -> neutral, "entails"/"does entail"/"supports" -> yes (checked in that
    order). Not the paper's format: a reading for small judges that ignore the brackets, reported separately."""
    text = as_text(text)
    label = parse_entailment(text)
    if label is not None or not text or _BRACKETED.search(text):
        return label  # a bracketed answer (even an echoed list) is read by the bracket rule only
    for name, pattern in _WORDS:
        if pattern.search(text):
            return name
    return None


PARSERS = {"strict": parse_entailment_strict, "default": parse_entailment, "words": parse_entailment_words}


def entailment_value(label: str | None) -> float:
    """Eq. 1 of a parsed label: yes -> 1.0; no, neutral -> 0.0; None (unparseable) -> NaN.

    A missing label read back from a pandas string column is NaN, not None (pandas 3): also unparseable."""
    if is_missing(label):
        return float("nan")
    key = str(label).strip().lower()
    if key == YES:
        return 1.0
    if key in (NO, NEUTRAL):
        return 0.0
    raise ValueError(f"unknown entailment label {label!r}; expected yes / no / neutral or None")


def binary_agreement(judge: Sequence[float], human: Sequence[int]) -> dict:
    """Accuracy and Cohen's κ of a judge's 1 / 0 / NaN values against binary human labels.

    NaN (unparseable) counts as the judge's "no" (what KPR scores it as), and is counted in ``n_unparseable``.
    Also the judge's and the humans' yes rates, and recall / precision of the judge's yes.
    """
    j = np.asarray(judge, float)
    h = np.asarray(human, int)
    unparseable = int(np.isnan(j).sum())
    jj = np.nan_to_num(j, nan=0.0).astype(int)
    tp = int(((jj == 1) & (h == 1)).sum())
    return {
        "n": int(h.size),
        "accuracy": float((jj == h).mean()) if h.size else float("nan"),
        "kappa": cohen_kappa(jj, h) if h.size else float("nan"),
        "judge_yes_rate": float(jj.mean()) if h.size else float("nan"),
        "human_yes_rate": float(h.mean()) if h.size else float("nan"),
        "yes_recall": tp / int(h.sum()) if h.sum() else float("nan"),
        "yes_precision": tp / int(jj.sum()) if jj.sum() else float("nan"),
        "n_unparseable": unparseable,
    }
