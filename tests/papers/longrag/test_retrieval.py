"""LongRAG's retrieval (lcrag.papers.longrag.retrieval): the source paragraphs of the retrieved chunks."""

from __future__ import annotations

from lcrag.papers.longrag.retrieval import source_paragraphs
from lcrag.retrieval.base import Hit


def test_source_paragraphs_follow_the_best_chunk_and_replace_long_paragraphs_by_their_chunk():
    paragraphs = ["P0 short", "P1 long long long", "P2 short"]
    chunk_paragraph = [0, 0, 1, 2]
    hits = [Hit(1, 0.9, 1, "c1"), Hit(3, 0.8, 2, "c3"), Hit(0, 0.7, 3, "c0"), Hit(2, 0.6, 4, "c2")]
    too_long = lambda text: "long" in text  # noqa: E731
    assert source_paragraphs(hits, chunk_paragraph, paragraphs, too_long) == ["P0 short", "P2 short", "c2"]
