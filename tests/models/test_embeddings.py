"""Embeddings with the real local MiniLM model, and the on-disk cache."""

from __future__ import annotations

import numpy as np
import pytest

from lcrag.models import embeddings
from lcrag.models.embeddings import EmbeddingError, get_embedder

TEXTS = ["I like potatoes", "I love potatoes", "The stock market fell sharply today"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path))
    return tmp_path / "embeddings"


def test_local_embedder_shape_type_and_norm(cache):
    emb = get_embedder("local/all-minilm-l6-v2")
    vectors = emb.embed(TEXTS)
    assert emb.name == "local/all-minilm-l6-v2"
    assert emb.dim == 384
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_embeddings_equal_the_model_run_directly(cache):
    emb = get_embedder()
    vectors = emb.embed(TEXTS)
    direct = emb.model.encode(TEXTS, normalize_embeddings=True)
    assert np.allclose(vectors, direct, atol=1e-6)


def test_cosine_sanity(cache):
    like, love, market = get_embedder().embed(TEXTS)
    assert like @ love > 0.8
    assert like @ market < 0.2
    assert like @ love > like @ market + 0.5


def test_cache_hit_returns_identical_vectors_without_loading_the_model(cache):
    first = get_embedder()
    vectors = first.embed(TEXTS)
    assert first.stats == {"hits": 0, "misses": 3}
    assert len(list(cache.glob("*/*.npy"))) == 3

    loads_before = embeddings.LOADS["count"]
    fresh = get_embedder()
    again = fresh.embed(TEXTS)
    assert np.array_equal(again, vectors)
    assert fresh.model is None
    assert fresh.stats == {"hits": 3, "misses": 0}
    assert embeddings.LOADS["count"] == loads_before


def test_only_misses_are_computed_and_duplicates_once(cache):
    emb = get_embedder()
    emb.embed(TEXTS[:2])
    out = emb.embed([TEXTS[0], TEXTS[2], TEXTS[2], TEXTS[1]])
    # counted per distinct text: the second call has 2 hits (texts 0 and 1) and 1 miss (text 2)
    assert emb.stats == {"hits": 2, "misses": 2 + 1}
    assert out.shape == (4, 384)
    assert np.array_equal(out[1], out[2])


def test_model_is_loaded_once_per_process(cache):
    a, b = get_embedder(), get_embedder()
    a.embed(["first text"])
    b.embed(["second text"])
    assert a.model is b.model


def test_corrupt_cache_file_is_a_miss_and_is_repaired(cache):
    emb = get_embedder()
    good = emb.embed(["a sentence"])
    path = emb.path(emb.key("a sentence"))
    path.write_bytes(b"not a numpy file")
    fresh = get_embedder()
    assert np.allclose(fresh.embed(["a sentence"]), good, atol=1e-6)
    assert fresh.corrupt == [path]
    assert fresh.stats["misses"] == 1
    assert np.array_equal(np.load(path), good[0])


def test_empty_and_bad_input(cache):
    emb = get_embedder()
    assert emb.embed([]).shape == (0, 384)
    with pytest.raises(TypeError):
        emb.embed("a string, not a list")
    with pytest.raises(TypeError, match="item 1"):
        emb.embed(["ok", 3])


def test_embedder_is_a_callable_for_semantic_chunking(cache):
    emb = get_embedder()
    assert np.array_equal(emb(["x y z"]), emb.embed(["x y z"]))


@pytest.mark.parametrize(
    "spec", ["minilm", "local/no-such-model", "huggingface/all-minilm", "openai-compatible/x"]
)
def test_bad_specs_raise_clearly(spec, cache, monkeypatch):
    monkeypatch.delenv("LCRAG_BASE_URL", raising=False)
    with pytest.raises(EmbeddingError):
        get_embedder(spec)


def test_openai_without_a_key_raises_before_any_request(cache, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("LCRAG_API_KEY", raising=False)
    monkeypatch.delenv("LCRAG_OFFLINE", raising=False)
    emb = get_embedder("openai/text-embedding-3-small")
    assert emb.dim == 1536
    with pytest.raises(EmbeddingError, match="OPENAI_API_KEY"):
        emb.embed(["hello"])


def test_remote_cache_hit_needs_no_server_and_offline_miss_raises(cache, monkeypatch):
    monkeypatch.setenv("LCRAG_OFFLINE", "1")
    monkeypatch.setenv("LCRAG_API_KEY", "-".join(["sk", "secret", "should", "not", "be", "stored"]))  # fake
    emb = get_embedder("openai-compatible/nomic-embed@http://127.0.0.1:9/v1")
    vec = (np.arange(4) / np.linalg.norm(np.arange(4))).astype(np.float32)
    emb._write(emb.key("cached text"), vec)
    assert np.array_equal(emb.embed(["cached text"])[0], vec)
    assert emb._client is None
    with pytest.raises(EmbeddingError, match="LCRAG_OFFLINE"):
        emb.embed(["not cached"])
    stored = b"".join(p.read_bytes() for p in cache.rglob("*.npy"))
    assert b"sk-secret" not in stored
    assert "sk-secret" not in repr(emb.identity)


def test_embedding_in_a_notebook_kernel_writes_nothing_to_stderr(cache):
    """A chapter computes embeddings inside a Jupyter kernel: importing sentence-transformers there reaches
    ``tqdm.auto``, which warned "IProgress not found" onto the page (the LongRAG recording's page had it)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from lcrag.models.embeddings import get_embedder\n"
        "from lcrag.retrieval.rerank import CrossEncoderReranker\n"
        "print(get_embedder().embed(['a sentence to embed in a kernel']).shape)"
    )]
    NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    assert [o.get("name") for o in outputs] == ["stdout"], outputs
    assert outputs[0]["text"] == "(1, 384)\n"
