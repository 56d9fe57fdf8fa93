"""The SVM ranker (lcrag.retrieval.svm) on MiniLM."""

from __future__ import annotations

from helpers import meetingqa_case

from lcrag.retrieval import SVMRetriever


def test_svm_ranks_the_query_identical_chunk_first(embedder):
    chunks, _ = meetingqa_case(2)
    hits = SVMRetriever(chunks, embedder).rank(chunks[20], k=3)
    assert hits[0].index == 20
    assert hits[0].score > hits[1].score
