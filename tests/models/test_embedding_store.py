"""The committed embedding store (lcrag.models.embedding_store): recorded vectors are read back exactly, without
loading the model, and a killed append loses nothing but its own batch."""

from __future__ import annotations

import numpy as np
import pytest

from lcrag.models import embedding_store
from lcrag.models.embeddings import get_embedder

TEXTS = ["The needle is in the haystack.", "Retrieval or long context?", "A third, longer sentence about BM25."]


@pytest.fixture()
def store_env(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE_DIR", str(tmp_path / "responses"))
    monkeypatch.setenv("LCRAG_CHAPTER", "thesis")
    monkeypatch.setattr(embedding_store, "_STORES", {})
    return tmp_path


def fresh_embedder(tmp_path, name: str):
    embedding_store._STORES.clear()  # another process: nothing loaded yet
    return get_embedder(cache_root=tmp_path / name)  # an empty local cache


def test_recorded_vectors_are_read_back_exactly_without_the_model(store_env, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "record")
    first = fresh_embedder(store_env, "cache1")
    recorded = first.embed(TEXTS + TEXTS[:1])
    assert first.stats == {"hits": 0, "misses": 3}
    folder = next((store_env / "responses" / "embeddings").iterdir())
    assert folder.name.startswith("local--all-minilm-l6-v2-")
    assert sorted(p.name for p in folder.iterdir() if p.suffix != ".lock") == [
        "embedder.json", "thesis.f32", "thesis.keys"]  # fmt: skip
    assert (folder / "thesis.f32").stat().st_size == 3 * 384 * 4
    assert (folder / "thesis.keys").read_text().splitlines() == [first.key(t) for t in TEXTS]

    monkeypatch.setenv("LCRAG_STORE", "read")
    second = fresh_embedder(store_env, "cache2")
    again = second.embed(TEXTS + TEXTS[:1])
    assert second.stats == {"hits": 3, "misses": 0} and second.model is None  # the model was never needed
    assert np.array_equal(again, recorded)
    assert (folder / "thesis.f32").stat().st_size == 3 * 384 * 4  # read mode appends nothing

    monkeypatch.setenv("LCRAG_STORE", "off")
    third = fresh_embedder(store_env, "cache3")
    third.embed(TEXTS[:1])
    assert third.stats == {"hits": 0, "misses": 1}  # off: the store is not read


def test_a_killed_append_is_cut_back_to_whole_rows(store_env, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "record")
    emb = fresh_embedder(store_env, "cache1")
    emb.embed(TEXTS[:2])
    folder = next((store_env / "responses" / "embeddings").iterdir())
    with open(folder / "thesis.f32", "ab") as fh:  # a run killed mid-append: half a row, half a key
        fh.write(b"\x00" * 700)
    with open(folder / "thesis.keys", "a") as fh:
        fh.write("abc")
    emb = fresh_embedder(store_env, "cache2")
    assert emb.embed(TEXTS[:2]).shape == (2, 384) and emb.stats["hits"] == 2  # the whole rows are read
    emb.embed(TEXTS)  # appends the third text after cutting the torn tail
    assert (folder / "thesis.f32").stat().st_size == 3 * 384 * 4
    assert (folder / "thesis.keys").read_text().splitlines() == [emb.key(t) for t in TEXTS]
    reader = fresh_embedder(store_env, "cache3")
    monkeypatch.setenv("LCRAG_STORE", "read")
    got = reader.embed(TEXTS)
    assert reader.stats == {"hits": 3, "misses": 0}
    monkeypatch.setenv("LCRAG_STORE", "off")
    computed = fresh_embedder(store_env, "cache4").embed(TEXTS)
    assert np.abs(got - computed).max() < 1e-6  # every row is its own text's vector (batching moves ~1e-7)


def test_record_mode_also_stores_the_vectors_of_the_local_cache(store_env, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "off")
    fresh_embedder(store_env, "warm").embed(TEXTS)  # computed into the local cache only
    assert not (store_env / "responses").exists()
    monkeypatch.setenv("LCRAG_STORE", "record")
    emb = fresh_embedder(store_env, "warm")
    emb.embed(TEXTS)
    assert emb.stats == {"hits": 3, "misses": 0} and emb.model is None
    (folder,) = (store_env / "responses" / "embeddings").iterdir()
    assert (folder / "thesis.keys").read_text().splitlines() == [emb.key(t) for t in TEXTS]
