"""BM25 (lcrag.retrieval.bm25): the thesis's tokenizer, and its Table 6.3 reproduced on real data."""

from __future__ import annotations

import pytest
from helpers import chunk_numbers, meetingqa_case

from lcrag.papers.thesis.numbers import THESIS_TABLE_6_3
from lcrag.retrieval import BM25Retriever, thesis_tokenize


def test_thesis_tokenize():
    assert thesis_tokenize("Hello, World! It's (very) well-known -- OK?") == [
        "hello",
        "world",
        "it's",
        "very",
        "well-known",
        "ok",
    ]
    assert thesis_tokenize("  \n ") == []


# Table 6.3 of the thesis (tables/table_6_3.csv): top-5 chunk numbers, evidence as query.
TABLE_6_3_BM25 = {case: rankers["bm25"] for case, rankers in THESIS_TABLE_6_3.items()}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_bm25_reproduces_table_6_3(n):
    chunks, evidence = meetingqa_case(n)
    assert chunk_numbers(BM25Retriever(chunks).rank(evidence, k=5)) == TABLE_6_3_BM25[n]


def test_bm25_scores_of_the_top_chunks():
    tops = []
    for n in (1, 2, 3):
        chunks, evidence = meetingqa_case(n)
        tops.append(round(BM25Retriever(chunks).rank(evidence, k=1)[0].score, 3))
    assert tops == [146.107, 92.468, 28.786]


def test_bm25_with_langchains_default_tokenizer_does_not_reproduce_the_table():
    chunks, evidence = meetingqa_case(1)
    assert chunk_numbers(BM25Retriever(chunks, tokenizer=str.split).rank(evidence)) != TABLE_6_3_BM25[1]


def test_bm25_ties_go_to_the_lower_index_and_k_limits():
    r = BM25Retriever(["x y", "a b", "x y", "c d", "e f"])
    hits = r.rank("x", k=None)
    assert [h.index for h in hits] == [0, 2, 1, 3, 4]
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert hits[0].score == hits[1].score > 0 == hits[2].score
    assert hits[0].text == "x y"
    assert r.rank("x", k=2) == hits[:2]
    assert r.rank("x", k=0) == []
    with pytest.raises(ValueError):
        r.rank("x", k=-1)
