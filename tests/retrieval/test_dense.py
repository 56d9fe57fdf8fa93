"""The dense ranker (lcrag.retrieval.dense) on MiniLM: its scores are cosines."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import meetingqa_case

from lcrag.retrieval import DenseRetriever


def test_dense_finds_an_exact_copy_at_rank_1(embedder):
    chunks, _ = meetingqa_case(3)
    dense = DenseRetriever(chunks, embedder)
    hits = dense.rank(chunks[13], k=5)
    assert hits[0].index == 13 and hits[0].rank == 1
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[1].score < 0.95


def test_dense_scores_are_cosines(embedder):
    chunks = ["potatoes are tasty", "I enjoy eating potatoes", "stock markets fell"]
    dense = DenseRetriever(chunks, embedder)
    q = embedder.embed(["I like potatoes"])[0]
    assert np.allclose(dense.scores("I like potatoes"), embedder.embed(chunks) @ q, atol=1e-6)
    assert dense.rank("I like potatoes", k=None)[-1].index == 2
