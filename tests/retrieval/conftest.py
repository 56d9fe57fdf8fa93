"""Fixtures of the rankers' tests: the MiniLM embedder, caching into the test's own dir."""

from __future__ import annotations

import pytest


@pytest.fixture
def embedder(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path))
    from lcrag.models.embeddings import get_embedder

    return get_embedder()
