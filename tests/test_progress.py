"""Progress bars (lcrag.progress): shown in a terminal, never written into an executed chapter's page."""

from __future__ import annotations

from tqdm import tqdm

from lcrag.progress import progress


def test_a_bar_outside_a_chapter_run(monkeypatch):
    monkeypatch.delenv("LCRAG_RUN_DIR", raising=False)
    bar = progress([1, 2, 3], desc="x", disable=True)
    assert isinstance(bar, tqdm) and list(bar) == [1, 2, 3]
    items = [1, 2]
    assert progress(items, enabled=False) is items


def test_no_bar_inside_a_chapter_run(monkeypatch, tmp_path):
    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path))
    items = [1, 2]
    assert progress(items, desc="x") is items
