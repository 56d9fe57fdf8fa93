"""The embedded server's KV snapshot on disk (lcrag.models.prefix_snapshot): the file and its checks, the server's
command line, and a restarted split-prefill model that loads the snapshot and answers as a fresh one."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from helpers import fetched_data_dir

from lcrag import config
from lcrag.models import llama_load, model_files, prefix_snapshot, server, server_settings, weights
from lcrag.models.prefix_snapshot import SnapshotError, shared_prefix, tokens_to_load
from lcrag.models.registry import LOCAL_MODELS, parse_spec

THREADS = min(2, config.available_cpus())
SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"
VALID = {"format": 1, "model": {"path": "/m/a.gguf", "size": 3, "mtime_ns": 5}, "n_ctx": 2048}


# --------------------------------------------------------------------------- pure checks and the file


def test_the_shared_prefix_never_takes_the_last_prompt_token_and_must_beat_the_cache():
    assert shared_prefix([1, 2, 3, 4], [1, 2, 9]) == 2 and shared_prefix([1, 2], [1, 2, 3]) == 2
    assert shared_prefix([], [1]) == 0 and shared_prefix([5], [6]) == 0
    snap = list(range(100))
    assert tokens_to_load(snap, list(range(60)) + [7, 8], n_cached=0, min_gain=10) == 60
    assert tokens_to_load(snap, list(range(50)), n_cached=0, min_gain=10) == 49  # the last prompt token: not loaded
    assert tokens_to_load(snap, list(range(150)), n_cached=0, min_gain=10) == 100  # the whole snapshot, then more
    assert tokens_to_load(snap, list(range(60)) + [7], n_cached=55, min_gain=10) == 0  # the context holds nearly as much
    assert tokens_to_load(snap, list(range(60)) + [7], n_cached=50, min_gain=10) == 60
    assert tokens_to_load(snap, [3, 4, 5], n_cached=0, min_gain=0) == 0  # nothing shared


def test_a_snapshot_reads_back_and_a_damaged_one_is_refused(tmp_path):
    path, state = tmp_path / "m.kv", bytes(range(256)) * 3
    size = prefix_snapshot.write(path, VALID, np.array([7, 8, 9]), state)
    assert size == path.stat().st_size and not [p for p in tmp_path.iterdir() if p != path]  # no temp file left
    snap = prefix_snapshot.read(path)
    assert snap.tokens.tolist() == [7, 8, 9] and snap.header["valid"] == VALID
    assert bytes(prefix_snapshot.read_state(path, snap)) == state
    assert prefix_snapshot.mismatch(snap.header["valid"], VALID) is None
    other = {**VALID, "model": {**VALID["model"], "path": "/m/b.gguf"}}
    assert prefix_snapshot.mismatch(snap.header["valid"], other).startswith("model:")
    assert prefix_snapshot.mismatch(None, VALID) == "no validity header"
    os.truncate(path, size - 10)
    with pytest.raises(SnapshotError, match="truncated"):
        prefix_snapshot.read(path)
    path.write_bytes(b"LCRAGKV1" + (5).to_bytes(8, "little") + b"{nope")
    with pytest.raises(SnapshotError, match="unreadable"):
        prefix_snapshot.read(path)
    path.write_bytes(b"not a snapshot at all")
    with pytest.raises(SnapshotError, match="not a prefix snapshot"):
        prefix_snapshot.read(path)


def test_the_server_gets_its_snapshot_file_on_the_command_line_but_not_in_its_settings(monkeypatch):
    """The snapshot changes no answer's computation: it is kept out of the recorded serving settings."""
    from lcrag.models.prefill import parse_server_options

    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_runtime": "torch", "prefill_compile": False}))
    info = LOCAL_MODELS["smollm2-135m-instruct"]
    s = server_settings.serving_settings(info)
    assert not any("snapshot" in k for k in s)
    kv = server._paths(info)[3]
    assert kv == config.state_dir() / "servers" / f"{info.slug}.kv"  # next to the server's .json and .log
    assert server._paths(info, logits_all=True)[3].name == f"{info.slug}+logprobs.kv"
    path, prefill = server_settings.serving_model_paths(info, s)
    opts = parse_server_options(server_settings._server_args(path, 1, s, prefill, kv)[4:])
    assert opts.split_kwargs()["prefix_snapshot"] == str(kv) and opts.prefix_snapshot_min_tokens == 4096
    assert not any("snapshot" in a for a in opts.server_argv)
    assert "--prefix_snapshot" not in server_settings._server_args(path, 1, s, prefill)


# --------------------------------------------------------------------------- a restarted model, in process


@pytest.fixture(scope="module")
def essays(mirror, tmp_path_factory):
    yield from fetched_data_dir(mirror, tmp_path_factory, ["paul_graham_essays"])


def split_model(spec: str, runtime: str = "torch", **kw):
    from lcrag.models.prefill import PrefillLlama

    shipped = model_files.gguf_path(parse_spec(spec))
    s = server_settings.serving_settings(parse_spec(spec))
    return llama_load.load(shipped, cls=PrefillLlama, prefill_model_path=str(weights.derive(shipped, "f32").path),
                           prefill_runtime=runtime, prefill_compile=False, n_ctx=2048, n_threads=THREADS,
                           n_batch=512, flash_attn=s["flash_attn"], verbose=False, **kw)


def essay_tokens(llm, start: int, n: int) -> list[int]:
    from lcrag.data import load_essays

    text = "".join(load_essays()["text"])[start * 6 : (start + n) * 6 + 1000]
    return llm.tokenize(text.encode(), add_bos=False)[:n]


def answer(llm, prompt: list[int]) -> tuple[str, np.ndarray]:
    import llama_cpp

    text = llm.create_completion(prompt, max_tokens=8, temperature=0.0)["choices"][0]["text"]
    return text, np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),)).copy()


def answer_of_fresh_model(runtime: str, prompt: list[int]) -> tuple[str, np.ndarray]:
    llm = split_model(SMOL, runtime)
    try:
        return answer(llm, prompt)
    finally:
        llm.close()


@pytest.mark.slow
@pytest.mark.parametrize("runtime", ["torch", "llama.cpp"])
def test_a_restarted_model_loads_the_snapshot_and_answers_as_a_fresh_one(essays, tmp_path, capsys, runtime):
    """A model evaluates a 400-token document and a question, and is closed; a new one (a restarted server) asked
    another question on the same document loads the document's cache from the snapshot, evaluates only the new
    question, and answers (greedy text and last logits) as a model that evaluated the whole prompt."""
    kv = tmp_path / "smol.kv"
    first = split_model(SMOL, runtime, prefix_snapshot=str(kv), prefix_snapshot_min_tokens=128)
    doc, q1, q2 = essay_tokens(first, 0, 400), essay_tokens(first, 5000, 40), essay_tokens(first, 9000, 60)
    bos = [first.token_bos()]
    answer(first, bos + doc + q1)
    assert first.snapshots.saved == 1 and first.prefill_tokens == len(bos + doc + q1) - 1
    first.close()
    assert "lcrag prefix snapshot: saved" in capsys.readouterr().out

    prompt = bos + doc + q2
    shared = shared_prefix(bos + doc + q1, prompt)
    assert shared >= len(bos + doc)
    again = split_model(SMOL, runtime, prefix_snapshot=str(kv), prefix_snapshot_min_tokens=128)
    text, logits = answer(again, prompt)
    assert again.snapshots.loaded == shared and again.prefill_tokens == len(prompt) - 1 - shared
    assert f"lcrag prefix snapshot: loaded {shared} of its {len(bos + doc + q1) - 1} tokens" in capsys.readouterr().out
    fresh_text, fresh_logits = answer_of_fresh_model(runtime, prompt)
    assert text == fresh_text and np.abs(logits - fresh_logits).max() < 1e-3

    # a snapshot made for another model file, then a truncated one: ignored, the whole prompt evaluated
    snap = prefix_snapshot.read(kv)
    valid, state = snap.header["valid"], bytes(prefix_snapshot.read_state(kv, snap))
    other = {**valid, "model": {**valid["model"], "path": "/elsewhere/other.gguf"}}

    def truncated():
        os.truncate(kv, prefix_snapshot.write(kv, valid, snap.tokens, state) - 1000)

    for damage, why in ((lambda: prefix_snapshot.write(kv, other, snap.tokens, state), "made for another setting (model:"),
                        (truncated, "truncated")):
        damage()
        again.reset()
        before = again.prefill_tokens
        assert answer(again, prompt)[0] == fresh_text
        assert again.snapshots.loaded == shared and again.prefill_tokens - before == len(prompt) - 1
        out = capsys.readouterr().out
        assert f"lcrag prefix snapshot {kv} ignored: {why}" in out and "saved" in out  # replaced by a good one
    again.close()


@pytest.mark.slow
def test_a_sliding_window_model_keeps_no_snapshot(tmp_path, capsys):
    """Gemma-3's window cache holds only the last window's cells, which a shorter shared prefix may lack."""
    llm = split_model(GEMMA, prefix_snapshot=str(tmp_path / "g.kv"), prefix_snapshot_min_tokens=16)
    try:
        assert llm.snapshots is None and "not used" in capsys.readouterr().out
        llm.create_completion([llm.token_bos()] + llm.tokenize(b" word" * 80, add_bos=False), max_tokens=1)
        assert not (tmp_path / "g.kv").exists()
    finally:
        llm.close()
