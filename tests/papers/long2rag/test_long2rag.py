"""Long²RAG: the loader (lcrag.data.long2rag, on our fixture), the SummHay-derived items (on the real mirror),
KPR / KPP / KPF and the P6 parsers (lcrag.metrics.kpr) on handmade values, none of which has a test file of its own,
and the chapter's smoke profile executed end to end (slow: real model calls on the embedded model). The chapter's
modules are tested in tests/papers/long2rag/test_<module>.py.

Expected values come from the paper (Tables 1-4, Fig. 11), the inventory, or hand computation, not from the code.
"""

from __future__ import annotations

import json
import math
import os
import warnings

import helpers
import numpy as np
import pandas as pd
import pytest

from lcrag import stats
from lcrag.data import long2rag as D
from lcrag.data.records import DataWarning
from lcrag.data.summhay import load_haystack
from lcrag.metrics import kpr as K
from lcrag.papers.long2rag import judges

FIXTURES = helpers.FIXTURES / "long2rag"


# ============================================================================================ loader


def test_loader_reads_the_fixture():
    df = D.load_long2rag(FIXTURES / "long2rag_sample.jsonl")
    assert list(df["question_id"]) == ["q1", "q2", "q3"]
    assert list(df["domain"]) == ["Biology", "Others", "Economics"]  # "others" canonicalised
    assert list(df["category"]) == ["Comparative", "Hypothetical", "Predictive"]  # from "type": "hypothetical"
    assert list(df["n_documents"]) == [5, 5, 3]
    assert list(df["n_key_points"]) == [2, 3, 1]
    assert df.loc[0, "doc_titles"][0] == "Bird song" and df.loc[0, "doc_titles"][1] is None
    assert df.loc[0, "key_points"][1].startswith("The nightingale's song")  # from an object key point
    assert df.loc[0, "doc_words"][0] == 11
    assert df.attrs["not_five_documents"] == ["q3"]
    report = df.attrs["report"]
    assert (report.n_read, report.n_kept, report.dropped) == (3, 3, [])


def test_loader_raises_naming_file_and_line():
    with pytest.raises(ValueError, match=r"long2rag_bad\.jsonl, line 2: unknown category 'Rhetorical'"):
        D.load_long2rag(FIXTURES / "long2rag_bad.jsonl")


def test_loader_drops_and_reports_every_bad_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = D.load_long2rag(FIXTURES / "long2rag_bad.jsonl", errors="drop")
    assert list(df["question_id"]) == ["q1", "q7"]
    report = df.attrs["report"]
    assert report.n_read == 5 and report.n_kept == 2
    assert [line for line, _ in report.dropped] == [2, 3, 4]
    assert "category" in report.dropped[0][1] and "key_points" in report.dropped[2][1]
    assert any(issubclass(w.category, DataWarning) for w in caught)


def test_loader_rejects_missing_file_and_duplicates(tmp_path):
    with pytest.raises(FileNotFoundError, match="not public"):
        D.load_long2rag(tmp_path / "nope.jsonl")
    line = (FIXTURES / "long2rag_sample.jsonl").read_text().splitlines()[0]
    dup = tmp_path / "dup.jsonl"
    dup.write_text(line + "\n" + line + "\n")
    with pytest.raises(ValueError, match="duplicate question ids"):
        D.load_long2rag(dup)
    with pytest.raises(ValueError, match="errors must be"):
        D.load_long2rag(dup, errors="ignore")


def test_key_points_table():
    df = D.load_long2rag(FIXTURES / "long2rag_sample.jsonl")
    kp = D.key_points_table(df)
    assert len(kp) == 6 and list(kp["key_point_id"][:2]) == ["q1#0", "q1#1"]


def test_category_rule():
    assert D.assign_category("Did they compare Salesforce to competitors?") == ("Comparative", "compare")
    assert D.assign_category("Plans for future electric models?")[0] == "Predictive"
    assert D.assign_category("Impact of fuel types on performance?") == ("Causal", "impact")
    assert D.assign_category("Are they discussing lab tests?") == ("Factual", "")
    assert set(c for c, _ in D.CATEGORY_RULES) < set(D.CATEGORIES)


# ============================================================================================ SummHay items


@pytest.fixture(scope="module")
def haystacks(mirror):
    return {
        "news1": load_haystack("news1", mirror / "summhay" / "topic_news1.json"),
        "conv5": load_haystack("conv5", mirror / "summhay" / "harlyndn_data_cleaned" / "topic_conv5.json"),
    }


def test_summhay_items_follow_the_protocol(haystacks):
    items = D.summhay_items(haystacks)
    assert len(items) == 9 + 10  # news1 has 9 subtopics, conv5 10
    assert items["n_documents"].eq(5).all()
    h = haystacks["news1"]
    first = items.iloc[0]
    assert first["question"] == "Impact of fuel types on performance?"
    assert first["domain"] == "Cars" and first["category"] == "Causal"
    # every key point is an insight of the subtopic contained in one of the 5 chosen documents
    docs = h.documents.set_index("document_id").loc[first["document_ids"]]
    contained = {i for inc in docs["insights_included"] for i in inc}
    sub = h.insights[h.insights["subtopic_id"] == first["subtopic_id"]]
    assert set(first["key_point_ids"]) == contained & set(sub["insight_id"])
    # the 5 documents carry the highest oracle scores of the subtopic
    oracle = h.retriever_scores.query("retriever == 'oracle' and in_haystack and subtopic_id == @first.subtopic_id")
    assert sorted(first["oracle_scores"], reverse=True) == first["oracle_scores"]
    assert min(first["oracle_scores"]) >= oracle["score"].nlargest(5).min()
    assert items["n_key_points"].le(items["n_subtopic_insights"]).all() and items["n_key_points"].ge(1).all()
    # same columns as the real loader gives
    assert set(D.ITEM_COLUMNS) <= set(items.columns)


def test_items_summary_and_max_subtopics(haystacks):
    items = D.summhay_items(haystacks, max_subtopics=2)
    assert len(items) == 4
    s = D.items_summary(items).set_index("quantity")
    assert s.loc["documents per question", "ours"] == 5 and s.loc["key points", "paper"] == 2055


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


def test_kpf_both_ways():
    pq = pd.DataFrame({"precision": [1.0, 0.0, np.nan], "recall": [0.5, 0.5, 1.0]})
    r = K.kpf(pq)
    assert r["kpp"] == pytest.approx(0.5) and r["kpr"] == pytest.approx(0.5)
    assert r["kpf_macro"] == pytest.approx((2 / 3 + 0) / 2)
    assert r["kpf_of_means"] == pytest.approx(0.5)
    assert r["n_skipped"] == 1
    assert K.f1(0.323, 0.579) == pytest.approx(0.4147, abs=1e-4)


@pytest.mark.parametrize(
    "text, default, strict, words",
    [
        ("[yes] The document says so.", "yes", "yes", "yes"),
        ("Answer: [ Neutral ]", "neutral", "neutral", "neutral"),
        ("[no]. Also [yes] later", "no", "no", "no"),
        ("Yes, the document supports it.", "yes", None, "yes"),
        ("The document does not entail the claim.", None, None, "no"),
        ("The claim entails the document's details.", None, None, "yes"),
        ("[yes], [no], or [neutral]", None, None, None),
        ("I'm ready to help.", None, None, None),
        ("", None, None, None),
    ],
)
def test_p6_parsers(text, default, strict, words):
    assert K.parse_entailment(text) == default
    assert K.parse_entailment_strict(text) == strict
    assert K.parse_entailment_words(text) == words


def test_entailment_values_and_agreement():
    assert [K.entailment_value(x) for x in ("yes", "no", "neutral")] == [1.0, 0.0, 0.0]
    assert math.isnan(K.entailment_value(None))
    assert math.isnan(K.entailment_value(float("nan")))  # None as stored in a pandas string column
    judged = pd.DataFrame({"raw": ["[yes]", "I cannot tell", "[no]"], "judge": ["llm", "llm", "llm"]})
    again = judges.reparse(judged, "strict")  # an unparseable answer among parsed ones (the quick profile's case)
    assert again["value"].tolist()[::2] == [1.0, 0.0] and math.isnan(again["value"].iloc[1])
    a = K.binary_agreement([1, 0, np.nan, 1], [1, 0, 1, 0])
    assert a["accuracy"] == 0.5 and a["n_unparseable"] == 1
    assert stats.cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0
    assert stats.cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == 0.0
    assert K.fit_binary_threshold([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1]) == 0.6


# ============================================================================================ the chapter


@pytest.mark.slow
def test_chapter_smoke(mirror, tmp_path):
    from lcrag.book.runner import run_chapter
    from lcrag.data.fetch import fetch

    os.environ["LCRAG_DATA_DIR"] = str(tmp_path / "data")
    try:
        assert fetch(datasets=["summhay"], mirror=mirror, download=False).ok
        run = run_chapter("long2rag", profile="smoke", out_dir=tmp_path / "run", progress=False)
    finally:
        os.environ.pop("LCRAG_DATA_DIR")
    assert run.ok
    nb = json.loads(run.notebook.read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    out = run.out_dir
    items = pd.read_csv(out / "items.csv")
    assert len(items) == 2 and set(items["haystack"]) == {"news3", "conv5"}
    kpr = pd.read_csv(out / "kpr.csv")
    assert set(kpr["variant"]) == {"trunc512"} and len(kpr) == 2  # P6 judge + lexical
    assert kpr["n_key_points"].eq(4).all() and kpr["kpr"].between(0, 1).all()
    judged = pd.read_csv(out / "judgments.csv")
    assert len(judged) == 8  # 2 items x 2 key points x 2 judges
    agreement = pd.read_csv(out / "judge_agreement.csv")
    assert {"lexical"} < set(agreement["judge"])
    claims = pd.read_csv(out / "claims.csv")
    assert len(claims) == 21 + 5
    assert pd.read_csv(out / "paper_checks.csv")["agrees"].sum() == 13
