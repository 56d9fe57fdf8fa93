"""Long²RAG's loader (lcrag.data.long2rag) on our fixture, and its SummHay-derived items on the real mirror."""

from __future__ import annotations

import warnings

import helpers
import pytest

from lcrag.data import long2rag as D
from lcrag.data.records import DataWarning
from lcrag.data.summhay import load_haystack

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
