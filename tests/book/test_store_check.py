"""The committed response store matches what the book's notebooks ask: no missing, no orphan entries.

The whole book is built once per session from the store, offline (``built_book`` in ``conftest.py``: a request
the store does not hold fails the chapter), and the keys a chapter's runs used (its page's run and its companion
runs, ``notebooks/companions.yml``) must be exactly the keys stored for it. A chapter with a store but not in ``_toc.yml`` yet is executed on its own the same way.
"""

from __future__ import annotations

import os

import pytest
from bookbuild import BOOK_MODEL
from helpers import ROOT

from lcrag.book.runner import run_chapter
from lcrag.data.fetch import fetch
from lcrag.models.registry import slug
from lcrag.models.store import ResponseStore, read_entries, recordings_in_progress

pytestmark = pytest.mark.slow

STORE = ROOT / "responses"
CHAPTERS = sorted(p.name for p in STORE.iterdir() if p.is_dir() and p.name not in ("embeddings", "tokens")) if STORE.exists() else []


def _run_alone(chapter, tmp_path, monkeypatch, mirror):
    """Execute one chapter from the store, offline, outside the book build."""
    monkeypatch.setenv("LCRAG_DATA_DIR", str(tmp_path / "data"))
    assert fetch(mirror=mirror).ok
    monkeypatch.setenv("LCRAG_STORE_DIR", str(STORE))
    monkeypatch.setenv("LCRAG_STORE", "read")
    monkeypatch.setenv("LCRAG_OFFLINE", "1")
    return run_chapter(chapter, profile="default", model=BOOK_MODEL, out_dir=tmp_path / "run", progress=False)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_store_matches_the_notebook(chapter, built_book, tmp_path, monkeypatch, mirror):
    # the chapter's page run and its companion runs (notebooks/companions.yml: another model, its own profile)
    runs = [built_book.runs.get(chapter) or _run_alone(chapter, tmp_path, monkeypatch, mirror)]
    runs += [r for r in built_book.companion_runs if r.chapter == chapter]
    for res in runs:
        assert res.ok, f"{res.model} ({res.profile}): {res.error}"
    used = {k for res in runs for k in (res.out_dir / "keys_used.txt").read_text().split()}
    # every model the chapter calls (e.g. a second model or a judge)
    store = ResponseStore(STORE)
    assert used, "the chapter made no model calls"
    assert used - store.keys(chapter, in_progress=True) == set(), "requests the store does not hold"
    # a recording in progress (responses/recordings.yml) adds keys no book run reads yet: not orphans
    assert store.keys(chapter) - used == set(), "orphan store entries no request uses"


def test_the_book_computes_no_embedding(built_book):
    """Every vector the chapters read is in the committed embedding store (responses/embeddings): the build from
    the store, with an empty local cache, writes a vector to that cache only when it had to compute it."""
    assert built_book.runs and all(r.ok for r in built_book.runs.values())
    computed = sorted(p.name for p in (built_book.cache / "embeddings").rglob("*.npy"))
    assert computed == [], f"{len(computed)} vectors computed: record them (LCRAG_STORE=record lcrag book)"


def test_recordings_in_progress_are_readable_and_hold_their_models_answers():
    """A recording committed as it goes (responses/recordings.yml) serves requests but is left out of the orphan
    check above; every line must parse and come from the declared model, with the serving record that produced it."""
    for (chapter, model_slug), entry in recordings_in_progress(STORE).items():
        path = STORE / chapter / f"{model_slug}.jsonl"
        skipped: list = []
        entries = read_entries(path, skipped) if path.exists() else []
        assert skipped == [], f"unreadable lines in {path}: {skipped}"
        assert {e.get("model") for e in entries} <= {entry["model"]}
        assert all(e["response"].get("serving", {}).get("weights_sha256") for e in entries)
    assert ResponseStore(STORE).keys() <= ResponseStore(STORE).keys(in_progress=True)


def test_there_is_a_store_for_the_quickstart():
    assert "quickstart" in CHAPTERS
    assert os.path.getsize(STORE / "quickstart" / f"{slug(BOOK_MODEL)}.jsonl") > 0
