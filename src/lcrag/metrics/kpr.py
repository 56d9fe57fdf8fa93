"""Key Point Recall (Long²RAG, Qi et al. 2024, §4), and its companions KPP / KPF (§6.4).

- Eq. 1: ``I(x, y) = 1`` if the response ``y`` entails the key point ``x``, else 0: the entailment judge's value
  (:mod:`lcrag.judges.entailment`: with the prompt P6 it answers ``[yes]`` / ``[no]`` / ``[neutral]``, yes -> 1,
  no and neutral -> 0), the ``value`` column KPR is computed from. An answer with none of the three labels is
  *unparseable* (NaN): it is counted (``n_unparseable``) and, by default, scored 0 like a "no"
  (``unparseable="zero"``) so every key point stays in the denominator; ``"drop"`` leaves it out of its question's
  fraction instead.
- Eq. 2: ``KPR = (1/|Q|) Σ_q (Σ_x I(x, y_q) / |x_q|)``: the per-question coverage, averaged over questions (macro,
  not pooled over key points: :func:`kpr` reports both, ``kpr`` and ``micro``).
- Per category / per domain: Eq. 2 restricted to that group's questions (:func:`kpr_by`), the reading under which
  Table 1's "Average" is the question-weighted mean of its category columns (checked in
  :mod:`lcrag.papers.long2rag.checks`).
- Per judge and document variant, the chapter's tables: KPR (:func:`kpr_table`), the KPR of each response
  (:func:`response_kpr`), each question's KPR per variant (:func:`question_kpr_wide`), and Eq. 2's mean over any
  groups of responses (:func:`group_kpr`, e.g. length bins).
- KPP: the share of the key points extracted *from a response* that the documents support; KPF combines KPP and
  KPR. The paper gives no formula; :func:`kpf` reports both readings: the mean of per-question F1s
  (``kpf_macro``, the only one that fits Table 4) and the F1 of the averages (``kpf_of_means``).

The judges themselves, and their agreement with human labels, are :mod:`lcrag.judges`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

UNPARSEABLE_POLICIES = ("zero", "drop")


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


def question_kpr_wide(per_response: pd.DataFrame, judge: str) -> pd.DataFrame:
    """One row per question, one column per variant: the mean KPR (0-1) of each question's responses by ``judge``
    (:func:`response_kpr`'s rows), the unit Long²RAG's claims on our runs and its synthesis rows pair over."""
    mine = per_response[per_response["judge"] == judge]
    return mine.pivot_table(index="question_id", columns="variant", values="recall", aggfunc="mean")


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
