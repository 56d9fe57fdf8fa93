"""The chapter's worked examples (lcrag.papers.summhay.worked_examples): the paper's figures, scored as the
metrics' tests score them."""

from __future__ import annotations

from lcrag.papers.summhay import worked_examples


def test_the_chapter_shows_the_same_worked_examples():
    t = worked_examples.worked_examples()
    assert t["match"].all() and len(t) == 3
    assert list(t["joint"].round(1)) == [21.6, 46.0, 12.9]
    assert t["paper_figure"].str.startswith("Fig. ").all()  # the paper's figure, not the book's own numbers
