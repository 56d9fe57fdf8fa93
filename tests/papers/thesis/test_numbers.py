"""The thesis's printed numbers (lcrag.papers.thesis.numbers), read back from its tables as data.

The literals here check the transcription itself (tables/*.csv against the thesis's text), so they repeat printed
values on purpose; the other tests read the tables."""

from __future__ import annotations

import pytest
from helpers import MQ_REMOVED

from lcrag.papers.tables import paper_table
from lcrag.papers.thesis import numbers

THESIS_TABLES = ("table_6_1", "table_6_2", "table_6_3", "fig_6_3", "accuracy_text", "embedding_sanity", "prices",
                 "needle_text")


@pytest.mark.parametrize("name", THESIS_TABLES)
def test_every_thesis_table_says_where_each_value_was_printed(name):
    t = paper_table("thesis", name)
    assert len(t) and (t["source"].str.len() > 0).all()


def test_table_6_1_reads_back_as_printed():
    t = paper_table("thesis", "table_6_1").set_index(["row", "prompt"])
    assert t.loc[("clean & parsed", "CTX1"), "meetingqa"] == "83.33"
    assert t.loc[("clean & parsed", "CTX2"), "paperqa"] == "77.02"
    assert t.loc[("original & raw", "CTX1"), "paperqa"] == "-"  # printed "-": not generated
    assert numbers.THESIS_TABLE_6_1[("original & raw", "BAMBOO")] == (75.0, 78.0, None)
    assert numbers.THESIS_TABLE_6_1[("clean & parsed", "CTX1")] == (83.33, 85.13, 84.18)


def test_table_6_2_reads_back_the_removed_and_the_19_wrong_cases():
    t = paper_table("thesis", "table_6_2")
    assert list(t["case"]) == list(range(1, 101))
    assert list(t.loc[t["gt"] == "-", "case"]) == MQ_REMOVED
    wrong = numbers.THESIS_TABLE_6_2_WRONG
    assert len(wrong) == 19 and wrong[55] is None and wrong[28] == "A" and wrong[99] == "B"


def test_the_text_accuracies_agree_with_their_counts():
    """65/84 (§6.3) and Fig. 6.3's counts, Full 129, RAG 119, Evidence 143 of 158 (§6.5), give the accuracies the
    text prints, two decimals as printed."""
    assert round(100 * 65 / 84, 2) == numbers.THESIS_CQT_MEETINGQA
    assert list(numbers.THESIS_ACCURACY) == ["full", "rag", "evidence"]
    assert numbers.THESIS_REPRODUCTION_RAW == {"meetingqa": 77.0, "paperqa": 75.0}
    for setting, correct in {"full": 129, "rag": 119, "evidence": 143}.items():
        assert round(100 * correct / 158, 2) == numbers.THESIS_ACCURACY[setting]
        assert f"{100 * correct / 158:.2f}" == numbers.printed_accuracy(setting)


def test_table_6_3_sanity_and_prices_read_back():
    assert numbers.THESIS_TABLE_6_3[3]["bm25"] == [5, 11, 6, 1, 26]
    assert numbers.THESIS_TABLE_6_3[2]["svm"] == [10, 11, 4, 6, 7]
    assert list(numbers.THESIS_TABLE_6_3[1]) == ["bm25", "cosine", "naive", "svm"]
    assert numbers.THESIS_SANITY[("I like potatoes", "I don't hate potatoes")] == 0.9185
    assert numbers.GPT35_USD_PER_M == {"input": 0.5, "output": 1.5}
    assert numbers.THESIS_FIG_6_3["F-E"] == 16 and numbers.THESIS_FIG_6_3["---"] == 10


def test_the_needle_share_reads_back():
    """§6.2: the simple needle failed only when more than 30% of the context was used (the transcription)."""
    from lcrag.papers.thesis.needle.claims import EARLY_SHARE

    assert EARLY_SHARE == 0.3
