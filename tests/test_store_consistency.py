"""The committed response store matches what the book's notebooks ask: no missing, no orphan entries.

Each chapter with a store file is executed with the book's profile, offline (a request the store does not
hold fails the run), and the keys it used must be exactly the keys stored for it.
"""

from __future__ import annotations

import os

import pytest
from conftest import ROOT

from lcrag.book.runner import run_chapter
from lcrag.data.fetch import fetch
from lcrag.models.registry import slug
from lcrag.models.store import ResponseStore

pytestmark = pytest.mark.slow

STORE = ROOT / "responses"
BOOK_MODEL = "local/smollm2-135m-instruct"
CHAPTERS = sorted(p.name for p in STORE.iterdir() if p.is_dir()) if STORE.exists() else []


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_store_matches_the_notebook(chapter, tmp_path, monkeypatch, mirror):
    monkeypatch.setenv("LCRAG_DATA_DIR", str(tmp_path / "data"))
    assert fetch(mirror=mirror).ok
    monkeypatch.setenv("LCRAG_STORE_DIR", str(STORE))
    monkeypatch.setenv("LCRAG_STORE", "read")
    monkeypatch.setenv("LCRAG_OFFLINE", "1")
    res = run_chapter(chapter, profile="default", model=BOOK_MODEL, out_dir=tmp_path / "run", progress=False)
    assert res.ok, res.error
    used = set((res.out_dir / "keys_used.txt").read_text().split())
    stored = ResponseStore(STORE).keys(chapter)  # every model the chapter calls (e.g. a second model or a judge)
    assert used, "the chapter made no model calls"
    assert used - stored == set(), "requests the store does not hold"
    assert stored - used == set(), "orphan store entries no request uses"


def test_there_is_a_store_for_the_quickstart():
    assert "quickstart" in CHAPTERS
    assert os.path.getsize(STORE / "quickstart" / f"{slug(BOOK_MODEL)}.jsonl") > 0
