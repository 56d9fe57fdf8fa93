"""SummHay's loaders (lcrag.data.summhay) on the real files (copied from the mirror into a tmp data dir; no
network). Expected counts come from the data MANIFEST.md and the paper, not from the loaders themselves."""

from __future__ import annotations

import pytest

from lcrag.data import load_eval_benchmark, load_haystack, load_haystacks

pytestmark = pytest.mark.usefixtures("data_dir")

RETRIEVERS = ("keywords", "vector", "oracle", "dwzhu/e5-base-4k", "random", "rerank3")


@pytest.fixture(scope="module")
def haystacks():
    return load_haystacks()


def test_ten_haystacks_with_the_published_totals(haystacks):
    assert len(haystacks) == 10
    assert sum(len(h.documents) for h in haystacks.values()) == 1000
    assert sum(len(h.subtopics) for h in haystacks.values()) == 92
    assert sum(len(h.insights) for h in haystacks.values()) == 621
    per = {n: (len(h.subtopics), len(h.insights)) for n, h in haystacks.items()}
    assert per == {  # MANIFEST.md table
        "news1": (9, 65), "news2": (9, 72), "news3": (9, 79), "news4": (8, 66), "news5": (7, 54),
        "conv1": (10, 58), "conv2": (10, 56), "conv3": (10, 57), "conv4": (10, 59), "conv5": (10, 55),
    }  # fmt: skip


def test_haystack_tables_are_consistent(haystacks):
    for name, h in haystacks.items():
        assert h.kind == name[:4] and h.topic and h.topic_id
        assert sorted(h.documents["idx"]) == list(range(100))
        assert h.subtopics["n_insights"].sum() == len(h.insights)
        assert set(h.insights["subtopic_id"]) == set(h.subtopics["subtopic_id"])
        included = {i for ids in h.documents["insights_included"] for i in ids}
        assert included <= set(h.insights["insight_id"])
        assert set(h.retriever_scores["retriever"]) == set(RETRIEVERS)
        in_haystack = h.retriever_scores[h.retriever_scores.in_haystack]
        assert len(in_haystack) == 6 * 100 * len(h.subtopics)


def test_news_have_summaries_and_judgments_conv_do_not(haystacks):
    news1, conv1 = haystacks["news1"], haystacks["conv1"]
    assert news1.summaries.groupby("subtopic_id").size().eq(78).all()  # 78 summary keys per subtopic
    assert set(news1.judgments["coverage"]) == {"NO_COVERAGE", "PARTIAL_COVERAGE", "FULL_COVERAGE"}
    assert str(news1.judgments["bullet_id"].dtype) == "Int64"
    assert news1.judgments["bullet_id"].isna().any()
    assert conv1.summaries.empty and conv1.judgments.empty
    assert conv1.insights["query"].notna().all() and news1.insights["query"].isna().all()
    # the news oracle dicts also score 100 ids that are not documents of the haystack: kept, marked
    outside = news1.retriever_scores[~news1.retriever_scores.in_haystack]
    assert set(outside["retriever"]) == {"oracle"} and len(outside) == 100 * len(news1.subtopics)
    assert news1.notes


def test_unknown_haystack_name():
    with pytest.raises(ValueError, match="unknown SummHay haystack 'news6'"):
        load_haystack("news6")


def test_eval_benchmark_200_records(haystacks):
    df = load_eval_benchmark()
    assert len(df) == 200 and df.attrs["report"].n_kept == 200
    assert df["topic_fn"].notna().sum() == 114 and df["topic_id"].notna().sum() == 86
    predictions = [c for c in df.columns if c.startswith("predictions_")]
    assert len(predictions) == 6 and "predictions_9fs_gpt-4o" in predictions
    assert (df["topic_fn"] == "data/topic_664eac18d68e5dd3b795fd6c.json").sum() == 56
    # MANIFEST.md cross-check: the 58 conv1 (doctor-patient) records use conv1's insights
    doctor = df[df["topic_fn"] == "data/topic_doctor_patient.json"]
    assert len(doctor) == 58
    ids = {i["insight_id"] for refs in doctor["reference_insights"] for i in refs}
    assert ids <= set(haystacks["conv1"].insights["insight_id"])
