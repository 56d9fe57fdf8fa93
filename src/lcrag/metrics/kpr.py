"""Key Point Recall (Long²RAG, Qi et al. 2024, §4), and its companions KPP / KPF (§6.4).

- Eq. 1: ``I(x, y) = 1`` if the response ``y`` entails the key point ``x``, else 0. With the entailment prompt P6
  the judge answers ``[yes]`` / ``[no]`` / ``[neutral]``: yes -> 1, no and neutral -> 0 (:func:`entailment_value`).
  An answer with none of the three labels is *unparseable*: it is counted (``n_unparseable``) and, by default,
  scored 0 like a "no" (``unparseable="zero"``) so every key point stays in the denominator; ``"drop"`` leaves it
  out of its question's fraction instead.
- Eq. 2: ``KPR = (1/|Q|) Σ_q (Σ_x I(x, y_q) / |x_q|)``: the per-question coverage, averaged over questions (macro,
  not pooled over key points: :func:`kpr` reports both, ``kpr`` and ``micro``).
- Per category / per domain: Eq. 2 restricted to that group's questions (:func:`kpr_by`), the reading under which
  Table 1's "Average" is the question-weighted mean of its category columns (checked in
  :mod:`lcrag.papers.long2rag.checks`).
- Per judge and document variant, the chapter's tables: KPR (:func:`kpr_table`), the KPR of each response
  (:func:`response_kpr`), and Eq. 2's mean over any groups of responses (:func:`group_kpr`, e.g. length bins).
- KPP: the share of the key points extracted *from a response* that the documents support; KPF combines KPP and
  KPR. The paper gives no formula; :func:`kpf` reports both readings: the mean of per-question F1s
  (``kpf_macro``, the only one that fits Table 4) and the F1 of the averages (``kpf_of_means``).

The deterministic judge's binary cut (:func:`fit_binary_threshold`) and agreement with human labels
(:func:`binary_agreement`: accuracy, Cohen's κ) are here too; the similarities come from
:mod:`lcrag.metrics.judges`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from lcrag.stats import cohen_kappa
from lcrag.text import as_text, is_missing

YES, NO, NEUTRAL = "yes", "no", "neutral"
UNPARSEABLE_POLICIES = ("zero", "drop")

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


def _check(judgments: pd.DataFrame, unparseable: str) -> None:
    missing = {"question_id", "value"} - set(judgments.columns)
    if missing:
        raise ValueError(f"judgments need columns question_id and value (Eq. 1: 1 / 0 / NaN); missing {missing}")
    if unparseable not in UNPARSEABLE_POLICIES:
        raise ValueError(f"unparseable must be one of {UNPARSEABLE_POLICIES}, not {unparseable!r}")
    bad = judgments["value"].dropna()
    if not bad.isin([0.0, 1.0]).all():
        raise ValueError(f"values must be 0, 1 or NaN, got {sorted(set(bad) - {0.0, 1.0})[:5]}")


def question_kpr(judgments: pd.DataFrame, unparseable: str = "zero") -> pd.DataFrame:
    """Per question: ``recall`` (the inner sum of Eq. 2 over |x_q|), ``n_key_points``, ``n_entailed``,
    ``n_unparseable``. ``judgments`` has one row per (question, key point) with ``value`` 1 / 0 / NaN.

    ``unparseable="zero"`` scores NaN as 0 (the key point stays in |x_q|); ``"drop"`` removes it from |x_q| (a
    question whose every answer is unparseable then has NaN recall).
    """
    _check(judgments, unparseable)
    v = judgments["value"]
    frame = pd.DataFrame(
        {
            "question_id": judgments["question_id"],
            "entailed": v.fillna(0.0),
            "judged": v.notna().astype(int),
            "unparseable": v.isna().astype(int),
        }
    )
    g = frame.groupby("question_id", sort=False)
    out = pd.DataFrame(
        {
            "n_key_points": g.size(),
            "n_entailed": g["entailed"].sum().astype(int),
            "n_unparseable": g["unparseable"].sum().astype(int),
        }
    )
    denominator = out["n_key_points"] if unparseable == "zero" else out["n_key_points"] - out["n_unparseable"]
    out["recall"] = out["n_entailed"] / denominator.where(denominator > 0)
    return out.reset_index()[["question_id", "recall", "n_key_points", "n_entailed", "n_unparseable"]]


def kpr(judgments: pd.DataFrame, unparseable: str = "zero") -> dict:
    """Eq. 2 over all questions: ``kpr`` (macro over questions), ``micro`` (pooled over key points, for
    contrast), ``n_questions``, ``n_key_points``, ``n_unparseable``."""
    q = question_kpr(judgments, unparseable)
    scored = q["recall"].dropna()
    n_pool = q["n_key_points"].sum() - (q["n_unparseable"].sum() if unparseable == "drop" else 0)
    return {
        "kpr": float(scored.mean()) if len(scored) else float("nan"),
        "micro": float(q["n_entailed"].sum() / n_pool) if n_pool else float("nan"),
        "n_questions": int(len(scored)),
        "n_key_points": int(q["n_key_points"].sum()),
        "n_unparseable": int(q["n_unparseable"].sum()),
    }


def kpr_by(judgments: pd.DataFrame, items: pd.DataFrame, by: str | Sequence[str], unparseable: str = "zero") -> pd.DataFrame:
    """Eq. 2 within each group of questions (``by`` = ``"category"``, ``"domain"``, or columns of ``items``): one
    row per group with ``kpr``, ``n_questions``, ``n_key_points``, ``n_unparseable``."""
    by = [by] if isinstance(by, str) else list(by)
    q = question_kpr(judgments, unparseable).merge(
        items[["question_id", *by]], on="question_id", how="left", validate="one_to_one"
    )
    if q[by].isna().any(axis=None):
        raise ValueError(f"questions without {by} in items: {list(q.loc[q[by].isna().any(axis=1), 'question_id'])}")
    g = q.groupby(by, sort=True)
    return pd.DataFrame(
        {
            "kpr": g["recall"].mean(),
            "n_questions": g["recall"].count(),
            "n_key_points": g["n_key_points"].sum(),
            "n_unparseable": g["n_unparseable"].sum(),
        }
    ).reset_index()


def kpr_table(judgments: pd.DataFrame, items: pd.DataFrame, by: str | None = None,
              unparseable: str = "zero") -> pd.DataFrame:
    """KPR per (judge, variant[, by]) from judged rows: kpr, n_questions, n_key_points, n_unparseable."""
    rows = []
    for (judge, variant), g in judgments.groupby(["judge", "variant"], sort=False):
        if by is None:
            rows.append({"judge": judge, "variant": variant, **kpr(g, unparseable)})
        else:
            t = kpr_by(g, items, by, unparseable)
            t.insert(0, "variant", variant)
            t.insert(0, "judge", judge)
            rows += t.to_dict("records")
    return pd.DataFrame(rows)


LENGTH_COLUMNS = ("input_tokens", "completion_tokens")


def response_kpr(judgments: pd.DataFrame, responses: pd.DataFrame | None = None,
                 unparseable: str = "zero") -> pd.DataFrame:
    """One row per judge and response (question, variant): its Key Point Recall (the inner sum of Eq. 2, with
    :func:`question_kpr`'s counts), and with ``responses`` the response's ``input_tokens`` and
    ``completion_tokens``. The unit of the length analyses, of the claims' intervals and of the synthesis."""
    q = []
    for (judge, variant), g in judgments.groupby(["judge", "variant"], sort=False):
        t = question_kpr(g, unparseable)
        t["judge"], t["variant"] = judge, variant
        q.append(t)
    per = pd.concat(q, ignore_index=True)
    if responses is None:
        return per
    return per.merge(responses[["question_id", "variant", *LENGTH_COLUMNS]], on=["question_id", "variant"])


def group_kpr(per_response: pd.DataFrame, by: str | Sequence[str], **more) -> pd.DataFrame:
    """Eq. 2's mean over the responses of each group (:func:`response_kpr` rows, grouped by ``by``; levels of a
    categorical without a response left out): ``kpr`` (the mean ``recall``, NaN left out), ``n`` (responses), and
    the further named aggregations ``more`` (``name=(column, function)``, as :meth:`pandas.DataFrame.agg`)."""
    return per_response.groupby(by, observed=True).agg(kpr=("recall", "mean"), n=("recall", "size"),
                                                       **more).reset_index()


def f1(precision: float, recall: float) -> float:
    """Harmonic mean; 0 when both are 0; NaN when either is NaN."""
    if np.isnan(precision) or np.isnan(recall):
        return float("nan")
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def kpf(per_question: pd.DataFrame) -> dict:
    """KPP, KPR and both KPF readings from per-question ``precision`` and ``recall`` columns.

    ``kpf_macro`` = mean over questions of F1(precision_q, recall_q); ``kpf_of_means`` = F1(mean precision, mean
    recall). Questions with a NaN precision (the response yielded no key point) or recall are left out of all
    four, and counted in ``n_skipped``.
    """
    ok = per_question[["precision", "recall"]].notna().all(axis=1)
    pq = per_question[ok]
    kpp, kpr_ = float(pq["precision"].mean()), float(pq["recall"].mean())
    macro = [f1(p, r) for p, r in zip(pq["precision"], pq["recall"], strict=True)]
    return {
        "kpp": kpp,
        "kpr": kpr_,
        "kpf_macro": float(np.mean(macro)) if macro else float("nan"),
        "kpf_of_means": f1(kpp, kpr_) if len(pq) else float("nan"),
        "n_questions": int(len(pq)),
        "n_skipped": int((~ok).sum()),
    }


# ============================================================================================ judge calibration


def fit_binary_threshold(scores: Sequence[float], human: Sequence[int]) -> float:
    """The cut ``t`` (label yes when score >= t) with the highest accuracy against binary ``human`` labels.

    Candidates are the distinct scores (and +inf, "never yes"); on ties the lowest cut wins, so the fit is
    deterministic.
    """
    s, h = np.asarray(scores, float), np.asarray(human, int)
    if s.shape != h.shape or s.size == 0:
        raise ValueError(f"need two equal-length non-empty sequences, got {s.shape} and {h.shape}")
    if not np.isin(h, [0, 1]).all():
        raise ValueError("human labels must be 0 or 1")
    best_t, best_acc = np.inf, float((h == 0).mean())
    for t in np.unique(s):
        acc = float(((s >= t).astype(int) == h).mean())
        if acc > best_acc:
            best_t, best_acc = float(t), acc
    return best_t


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
