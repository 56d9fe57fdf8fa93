"""Serving speed-ups (issue 3): derived weight files, the split prefill, and the default server's answers."""

from __future__ import annotations

import json
import os
import threading

import numpy as np
import pytest

from lcrag.models import server, weights
from lcrag.models.client import Model
from lcrag.models.registry import LOCAL_MODELS, parse_spec

SMOL = "local/smollm2-135m-instruct"
GGML_F32, GGML_Q8_0 = 0, 8


@pytest.fixture()
def state_dir(tmp_path, monkeypatch):
    """A private state dir: derived files made here are made by this test."""
    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def shipped() -> os.PathLike:
    return server.gguf_path(LOCAL_MODELS["smollm2-135m-instruct"])


def test_derived_file_is_made_once_with_its_recorded_sha256(state_dir):
    results = []
    threads = [threading.Thread(target=lambda: results.append(weights.derive(shipped(), "q8_0"))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.path for r in results}) == 1 and len({r.sha256 for r in results}) == 1
    made = results[0]
    assert made.path.parent == state_dir / "models" / "derived"
    assert [p.name for p in made.path.parent.glob("*.gguf")] == [made.path.name]  # one file, no partial left
    assert weights.file_sha256(made.path) == made.sha256 and weights.verify(made)
    assert made.source_sha256 == weights.file_sha256(shipped())
    record = json.loads(made.path.with_suffix(".json").read_text())
    assert record["sha256"] == made.sha256 and record["format"] == "q8_0" and record["size"] == made.path.stat().st_size
    mtime = made.path.stat().st_mtime_ns
    again = weights.derive(shipped(), "q8_0")
    assert again == made and made.path.stat().st_mtime_ns == mtime  # not made a second time


def test_f32_copy_keeps_the_embedding_table_and_dequantizes_the_rest(state_dir):
    made = weights.derive(shipped(), "f32")
    src, out = weights.tensor_types(shipped()), weights.tensor_types(made.path)
    assert src.keys() == out.keys() and len(out) > 100
    assert src["token_embd.weight"] == out["token_embd.weight"] == GGML_Q8_0  # copied as shipped
    assert all(t == GGML_F32 for name, t in out.items() if name != "token_embd.weight")
    assert any(t not in (GGML_F32, GGML_Q8_0) for t in src.values())  # the source was quantized


def test_a_derived_file_that_lost_bytes_is_made_again(state_dir):
    made = weights.derive(shipped(), "q8_0")
    with open(made.path, "r+b") as fh:
        fh.truncate(1000)
    again = weights.derive(shipped(), "q8_0")
    assert again.sha256 == made.sha256 and weights.verify(again)


def test_unknown_format_and_non_gguf_input_are_clear_errors(tmp_path, state_dir):
    with pytest.raises(weights.WeightsError, match="unknown weight format 'q3_x'"):
        weights.derive(shipped(), "q3_x")
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"not a gguf at all")
    with pytest.raises(weights.WeightsError, match="not a GGUF file"):
        weights.tensor_types(bad)


def test_settings_record_the_weights_and_stay_overridable(state_dir, monkeypatch):
    info = LOCAL_MODELS["smollm2-135m-instruct"]
    s = server.serving_settings(info)
    assert s["flash_attn"] is True and s["weights"] == "shipped" and s["prefill_weights"] == "f32"
    assert s["weights_sha256"] == server.model_digest(shipped())
    assert s["prefill_sha256"] == weights.derive(shipped(), "f32").sha256
    assert not any("weights" in a or "sha256" in a for a in server._server_args(shipped(), 1, s))
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_weights": None, "weights": "q8_0"}))
    s = server.serving_settings(info)
    assert s["prefill_weights"] is None and "prefill_sha256" not in s
    assert s["weights_sha256"] == weights.derive(shipped(), "q8_0").sha256
    assert server.serving_model_paths(info, s) == (weights.derive(shipped(), "q8_0").path, None)


# --------------------------------------------------------------------------- split prefill, in process


@pytest.fixture(scope="module")
def split_llm():
    from lcrag.models.prefill import PrefillLlama

    s = server.serving_settings(LOCAL_MODELS["smollm2-135m-instruct"])
    path, prefill = server.serving_model_paths(LOCAL_MODELS["smollm2-135m-instruct"], s)
    llm = PrefillLlama(str(path), prefill_model_path=str(prefill), n_ctx=4096, n_threads=2, n_batch=512,
                       flash_attn=True, verbose=False)
    yield llm
    llm.close()


def last_logits(llm) -> np.ndarray:
    import llama_cpp

    return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),)).copy()


def essay_tokens(llm, start: int, n: int) -> list[int]:
    from lcrag.data import load_essays

    text = "".join(load_essays()["text"])[start * 6 : (start + n) * 6 + 1000]
    return llm.tokenize(text.encode(), add_bos=False)[:n]


@pytest.mark.slow
def test_prefix_reuse_gives_the_same_logits_as_a_fresh_prompt(split_llm):
    """A second prompt sharing a document with the first: the KV it reuses is what a fresh evaluation makes."""
    llm = split_llm
    doc, q1, q2 = essay_tokens(llm, 0, 1500), essay_tokens(llm, 5000, 200), essay_tokens(llm, 9000, 200)
    bos = [llm.token_bos()]
    llm.reset()
    llm.create_completion(bos + doc + q1, max_tokens=4, temperature=0.0)
    reused = llm.create_completion(bos + doc + q2, max_tokens=8, temperature=0.0)
    reused_logits = last_logits(llm)  # logits of the last generated position
    llm.reset()
    fresh = llm.create_completion(bos + doc + q2, max_tokens=8, temperature=0.0)
    assert reused["choices"][0]["text"] == fresh["choices"][0]["text"]
    assert np.abs(last_logits(llm) - reused_logits).max() < 1e-3


@pytest.mark.slow
def test_split_prefill_agrees_with_the_shipped_weights(split_llm):
    """First-token logprobs of the split path vs the shipped weights alone, on a real BAMBOO prompt."""
    from llama_cpp import Llama

    from lcrag.data import load_bamboo
    from lcrag.pipelines import thesis

    row = load_bamboo("meetingqa", "4k").iloc[0]
    text = thesis.bamboo_prompt(row.question, list(row.options), [row.content])
    plain = Llama(str(shipped()), n_ctx=4096, n_threads=2, n_batch=512, verbose=False)
    outs = []
    for llm in (plain, split_llm):
        tokens = llm.tokenize(text.encode(), add_bos=True)
        llm.reset()
        llm.eval(tokens)
        z = last_logits(llm).astype(np.float64)
        outs.append(z - z.max() - np.log(np.exp(z - z.max()).sum()))
    plain.close()
    top5 = np.argsort(-outs[0])[:5]
    assert outs[0].argmax() == outs[1].argmax()
    assert np.abs(outs[0][top5] - outs[1][top5]).max() < 0.5  # benchmarks/serving_variants.py: max 0.xx


# --------------------------------------------------------------------------- real servers


@pytest.mark.slow
def test_default_server_answers_like_the_shipped_weights_server(monkeypatch):
    from lcrag.data import load_bamboo
    from lcrag.pipelines import thesis

    rows = load_bamboo("meetingqa", "4k").head(3)
    msgs = [
        [{"role": "system", "content": thesis.SYSTEM},
         {"role": "user", "content": thesis.bamboo_prompt(r.question, list(r.options), [r.content])}]
        for r in rows.itertuples()
    ]
    fast = [Model(parse_spec(SMOL)).chat(x, max_tokens=4) for x in msgs]
    assert fast[0].serving["prefill_weights"] == "f32" and fast[0].serving["flash_attn"] is True
    assert fast[0].serving["prefill_sha256"] == weights.derive(shipped(), "f32").sha256
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_weights": None, "flash_attn": False}))
    monkeypatch.setenv("LCRAG_CACHE_DIR", os.environ["LCRAG_CACHE_DIR"] + "-shipped")
    plain = [Model(parse_spec(SMOL)).chat(x, max_tokens=4) for x in msgs]
    assert plain[0].serving["prefill_weights"] is None and plain[0].source == "network"
    assert [r.text for r in fast] == [r.text for r in plain]
    monkeypatch.delenv("LCRAG_SERVING")
    server.start(SMOL)  # leave the default server running for the other tests
