"""Long²RAG's length bins (lcrag.papers.long2rag.lengths)."""

from __future__ import annotations

from lcrag.papers.long2rag import lengths, numbers


def test_length_bins():
    assert lengths.scaled_edges(numbers.PAPER_INPUT_EDGES, 32_000, 8192) == [2048, 4096, 6400, 8192]
    assert lengths.length_bins([100, 2048, 5000, 9000], [2048, 4096, 6400, 8192]) == [
        "<2048", "2048-4096", "4096-6400", ">8192"]
