"""Long²RAG's KPR / KPP / KPF (lcrag.metrics.kpr) on handmade values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcrag.metrics import kpr as K

# ============================================================================================ KPR metrics


def judgments(rows):
    return pd.DataFrame(rows, columns=["question_id", "value"])


def test_kpr_is_macro_over_questions():
    # q1: 1 of 4 entailed; q2: 2 of 2 -> macro (0.25 + 1) / 2 = 0.625, micro 3/6 = 0.5
    j = judgments([("q1", 1), ("q1", 0), ("q1", 0), ("q1", 0), ("q2", 1), ("q2", 1)])
    r = K.kpr(j)
    assert r["kpr"] == pytest.approx(0.625) and r["micro"] == pytest.approx(0.5)
    assert (r["n_questions"], r["n_key_points"], r["n_unparseable"]) == (2, 6, 0)


def test_unparseable_counted_and_scored_by_policy():
    j = judgments([("q1", 1), ("q1", np.nan), ("q2", 0), ("q2", 1)])
    assert K.kpr(j)["kpr"] == pytest.approx(0.5)  # (1/2 + 1/2) / 2
    assert K.kpr(j)["n_unparseable"] == 1
    assert K.kpr(j, unparseable="drop")["kpr"] == pytest.approx(0.75)  # (1/1 + 1/2) / 2
    with pytest.raises(ValueError, match="0, 1 or NaN"):
        K.kpr(judgments([("q1", 0.5)]))


def test_kpr_by_category():
    j = judgments([("a", 1), ("a", 0), ("b", 1), ("c", 0)])
    items = pd.DataFrame({"question_id": ["a", "b", "c"], "category": ["Causal", "Causal", "Factual"]})
    t = K.kpr_by(j, items, "category").set_index("category")
    assert t.loc["Causal", "kpr"] == pytest.approx(0.75) and t.loc["Causal", "n_questions"] == 2
    assert t.loc["Factual", "kpr"] == 0


def test_question_kpr_wide_is_one_judges_mean_recall_per_question_and_variant():
    per = pd.DataFrame({"judge": ["j", "j", "j", "j", "other"], "question_id": ["q1", "q1", "q2", "q1", "q1"],
                        "variant": ["none", "trunc512", "none", "none", "none"],
                        "recall": [0.5, 0.25, 1.0, 1.0, 0.0]})
    wide = K.question_kpr_wide(per, "j")
    assert list(wide.index) == ["q1", "q2"] and list(wide.columns) == ["none", "trunc512"]
    assert wide.loc["q1", "none"] == pytest.approx(0.75)  # two responses of q1 by j; the other judge's left out
    assert wide.loc["q1", "trunc512"] == 0.25 and wide.loc["q2", "none"] == 1.0 and np.isnan(wide.loc["q2", "trunc512"])


def test_kpf_both_ways():
    pq = pd.DataFrame({"precision": [1.0, 0.0, np.nan], "recall": [0.5, 0.5, 1.0]})
    r = K.kpf(pq)
    assert r["kpp"] == pytest.approx(0.5) and r["kpr"] == pytest.approx(0.5)
    assert r["kpf_macro"] == pytest.approx((2 / 3 + 0) / 2)
    assert r["kpf_of_means"] == pytest.approx(0.5)
    assert r["n_skipped"] == 1
    assert K.f1(0.323, 0.579) == pytest.approx(0.4147, abs=1e-4)
