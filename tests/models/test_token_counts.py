"""The committed store of token counts (lcrag.models.token_counts): a recording stores the counts of long texts,
a rebuild reads them back without tokenizing, another model file never reads them, and a half-written line is
cut off by the next append."""

from __future__ import annotations

import pytest

from lcrag.models import model_files, token_counts
from lcrag.models.registry import LOCAL_MODELS
from lcrag.models.tokens import GGUFTokenizer

LONG = "The needle is in the haystack, and the haystack is long. " * 60  # 3,480 characters
SHORT = "Retrieval or long context?"


@pytest.fixture()
def store_env(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE_DIR", str(tmp_path / "responses"))
    monkeypatch.setenv("LCRAG_CHAPTER", "longrag")
    monkeypatch.setattr(token_counts, "_STORES", {})
    return tmp_path / "responses" / "tokens"


@pytest.fixture(scope="module")
def smol():
    return GGUFTokenizer(str(model_files.gguf_path(LOCAL_MODELS["smollm2-135m-instruct"])))


class NoTokenizing:
    """A tokenizer standing in for ``smol`` that must not be asked: every count has to come from the store."""

    def __init__(self, like):
        self.name, self.identity = like.name, like.identity

    def encode(self, text):
        raise AssertionError(f"tokenized {len(text)} characters")


def test_a_recording_stores_long_texts_counts_and_a_rebuild_reads_them_without_tokenizing(store_env, smol,
                                                                                         monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "record")
    n = token_counts.count(smol, LONG)
    assert n == len(smol._encode(LONG)) > 500
    assert token_counts.count(smol, SHORT) == len(smol._encode(SHORT))
    (folder,) = store_env.iterdir()
    assert folder.name.startswith("SmolLM2-135M-Instruct.Q4_1.gguf-")
    assert (folder / "longrag.tsv").read_text() == f"{token_counts.text_key(LONG)}\t{n}\n"  # the short one: not

    monkeypatch.setenv("LCRAG_STORE", "read")
    monkeypatch.setattr(token_counts, "_STORES", {})  # another process
    assert token_counts.count(NoTokenizing(smol), LONG) == n
    token_counts.count(smol, LONG + " more")  # read mode: counted, not stored
    assert len((folder / "longrag.tsv").read_text().splitlines()) == 1

    monkeypatch.setenv("LCRAG_STORE", "off")
    with pytest.raises(AssertionError, match="tokenized"):
        token_counts.count(NoTokenizing(smol), LONG)


def test_another_model_file_never_reads_the_counts(store_env, smol, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "record")
    token_counts.count(smol, LONG)
    other = NoTokenizing(smol)
    other.identity = {"gguf_sha256": "0" * 64}
    with pytest.raises(AssertionError, match="tokenized"):
        token_counts.count(other, LONG)


def test_a_half_written_line_is_cut_off_and_the_next_count_lands(store_env, smol, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "record")
    n = token_counts.count(smol, LONG)
    (folder,) = store_env.iterdir()
    with open(folder / "longrag.tsv", "a") as fh:
        fh.write("3f2a")  # a run killed mid-append
    monkeypatch.setattr(token_counts, "_STORES", {})
    second = LONG.replace("needle", "pin")
    m = token_counts.count(smol, second)
    monkeypatch.setattr(token_counts, "_STORES", {})
    store = token_counts.counts_for(smol.name, smol.identity)
    assert len(store) == 2 and store.get(LONG) == n and store.get(second) == m  # not merged with the stub
    assert "3f2a" not in (folder / "longrag.tsv").read_text()
