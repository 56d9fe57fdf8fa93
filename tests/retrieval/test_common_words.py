"""The naive ranker (lcrag.retrieval.common_words): distinct shared words, and the thesis's Table 6.3 on real data."""

from __future__ import annotations

from helpers import chunk_numbers, meetingqa_case

from lcrag.papers.thesis.numbers import THESIS_TABLE_6_3
from lcrag.retrieval import CommonWordsRetriever


def test_common_words_reproduces_table_6_3_case_1():
    chunks, evidence = meetingqa_case(1)
    assert chunk_numbers(CommonWordsRetriever(chunks).rank(evidence)) == THESIS_TABLE_6_3[1]["naive"]


def test_common_words_counts_distinct_shared_words():
    r = CommonWordsRetriever(["The cat, the CAT!", "a dog and a cat", "nothing here"])
    assert list(r.scores("the cat and a dog")) == [2.0, 3.0, 0.0]  # "a" is too short to count
