"""Serving speed-ups (issue 3): derived weight files, the split prefill, and the default server's answers."""

from __future__ import annotations

import json
import os
import shutil
import threading

import numpy as np
import pytest
from helpers import ROOT, fetched_data_dir

from lcrag import config
from lcrag.models import llama_load, model_files, server, server_settings, weights
from lcrag.models.client import Model
from lcrag.models.registry import LOCAL_MODELS, parse_spec

THREADS = min(2, config.available_cpus())  # as the server does: never more threads than cores this lane has

SMOL = "local/smollm2-135m-instruct"
GGML_F32, GGML_Q8_0 = 0, 8


@pytest.fixture(scope="module", autouse=True)
def book_data(mirror, tmp_path_factory):
    """The real book prompts (BAMBOO, essays) come from the mirror: a clean clone has no data/files."""
    yield from fetched_data_dir(mirror, tmp_path_factory, ["bamboo", "paul_graham_essays"])


@pytest.fixture()
def models_dir(tmp_path, monkeypatch):
    """A private models dir: derived files made here are made (or damaged) by this test alone. Tests that only
    read a derived file use the machine's shared one, as the server does."""
    monkeypatch.setenv("LCRAG_MODELS_DIR", str(tmp_path / "models"))
    return tmp_path / "models"


def shipped() -> os.PathLike:
    return model_files.gguf_path(LOCAL_MODELS["smollm2-135m-instruct"])


def test_derived_file_is_made_once_with_its_recorded_sha256(models_dir):
    results = []
    threads = [threading.Thread(target=lambda: results.append(weights.derive(shipped(), "q8_0"))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.path for r in results}) == 1 and len({r.sha256 for r in results}) == 1
    made = results[0]
    assert made.path.parent == models_dir / "derived"
    assert abs(made.path.stat().st_size - weights.expected_size(shipped(), "q8_0")) < 0.02 * made.path.stat().st_size
    assert [p.name for p in made.path.parent.glob("*.gguf")] == [made.path.name]  # one file, no partial left
    assert weights.file_sha256(made.path) == made.sha256 and weights.verify(made)
    assert made.source_sha256 == weights.file_sha256(shipped())
    record = json.loads(made.path.with_suffix(".json").read_text())
    assert record["sha256"] == made.sha256 and record["format"] == "q8_0" and record["size"] == made.path.stat().st_size
    mtime = made.path.stat().st_mtime_ns
    again = weights.derive(shipped(), "q8_0")
    assert again == made and made.path.stat().st_mtime_ns == mtime  # not made a second time


def test_f32_copy_keeps_the_embedding_table_and_dequantizes_the_rest():
    made = weights.derive(shipped(), "f32")
    src, out = weights.tensor_types(shipped()), weights.tensor_types(made.path)
    assert src.keys() == out.keys() and len(out) > 100
    assert src["token_embd.weight"] == out["token_embd.weight"] == GGML_Q8_0  # copied as shipped
    assert all(t == GGML_F32 for name, t in out.items() if name != "token_embd.weight")
    assert any(t not in (GGML_F32, GGML_Q8_0) for t in src.values())  # the source was quantized


def test_a_derived_file_that_lost_bytes_is_made_again(models_dir):
    made = weights.derive(shipped(), "q8_0")
    with open(made.path, "r+b") as fh:
        fh.truncate(1000)
    again = weights.derive(shipped(), "q8_0")
    assert again.sha256 == made.sha256 and weights.verify(again)


def test_a_full_disk_is_named_before_anything_is_written(models_dir, monkeypatch):
    free = weights.expected_size(shipped(), "f32") // 2
    monkeypatch.setattr(weights.shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**12, 10**12 - free, free))
    with pytest.raises(weights.WeightsError, match=r"not enough disk space in .*derived: .* needs about 4\d\d MiB"):
        weights.derive(shipped(), "f32")
    assert not list((models_dir / "derived").glob("*.gguf")) and not list((models_dir / "derived").glob(".*partial"))


def test_unknown_format_and_non_gguf_input_are_clear_errors(tmp_path, models_dir):
    with pytest.raises(weights.WeightsError, match="unknown weight format 'q3_x'"):
        weights.derive(shipped(), "q3_x")
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"not a gguf at all")
    with pytest.raises(weights.WeightsError, match="not a GGUF file"):
        weights.tensor_types(bad)


def test_settings_record_the_weights_and_stay_overridable(models_dir, monkeypatch):
    # no extra-buffer probe of the files this private models dir derives (test_llama_load.py tests the probe)
    monkeypatch.setenv(llama_load.ENV_FORCE, "0")
    info = LOCAL_MODELS["smollm2-135m-instruct"]
    s = server_settings.serving_settings(info)
    # SmolLM2 generates faster without llama.cpp's flash kernel after long prompts; Gemma-3 keeps it
    assert s["flash_attn"] is False and s["weights"] == "shipped" and s["prefill_weights"] == "f32"
    assert server_settings.serving_settings(LOCAL_MODELS["gemma3-270m"])["flash_attn"] is True
    assert s["weights_sha256"] == model_files.model_digest(shipped())
    assert s["prefill_sha256"] == weights.derive(shipped(), "f32").sha256
    assert not any("weights" in a or "sha256" in a for a in server_settings._server_args(shipped(), 1, s))
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_weights": None, "weights": "q8_0"}))
    s = server_settings.serving_settings(info)
    assert s["prefill_weights"] is None and "prefill_sha256" not in s
    assert s["weights_sha256"] == weights.derive(shipped(), "q8_0").sha256
    assert server_settings.serving_model_paths(info, s) == (weights.derive(shipped(), "q8_0").path, None)


# --------------------------------------------------------------------------- split prefill, in process


@pytest.fixture(scope="module")
def split_llm():
    from lcrag.models.prefill import PrefillLlama

    s = server_settings.serving_settings(LOCAL_MODELS["smollm2-135m-instruct"])
    path, prefill = server_settings.serving_model_paths(LOCAL_MODELS["smollm2-135m-instruct"], s)
    llm = llama_load.load(path, cls=PrefillLlama, prefill_model_path=str(prefill), n_ctx=4096, n_threads=THREADS,
                          n_batch=512, flash_attn=s["flash_attn"], verbose=False)
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
    """A second prompt sharing a document with the first: the KV it reuses is what a fresh evaluation makes (a
    document of two 512-token batches; each question is longer than PREFILL_MIN_TOKENS, so it is split too)."""
    llm = split_llm
    doc, q1, q2 = essay_tokens(llm, 0, 600), essay_tokens(llm, 5000, 200), essay_tokens(llm, 9000, 200)
    bos = [llm.token_bos()]
    llm.reset()
    llm.create_completion(bos + doc + q1, max_tokens=4, temperature=0.0)
    reused = llm.create_completion(bos + doc + q2, max_tokens=8, temperature=0.0)
    reused_logits = last_logits(llm)  # logits of the last generated position
    llm.reset()
    fresh = llm.create_completion(bos + doc + q2, max_tokens=8, temperature=0.0)
    assert reused["choices"][0]["text"] == fresh["choices"][0]["text"]
    assert np.abs(last_logits(llm) - reused_logits).max() < 1e-3


# --------------------------------------------------------------------------- real servers


# Greedy answers of two numerically different servers (f32 torch prefill vs the shipped quantized weights) may part
# at a near tie, and where they part depends on the order of floating-point sums (threads, batch splits, cached
# prefixes). What must hold: the same text up to the first difference, and there the other server's token is
# within this many nats of the reference's choice (benchmarks/serving_variants.py measures the first-token
# logprobs of the split prefill against the shipped weights).
SERVER_LOGPROB_TOL = 0.5


def assert_same_up_to_a_tie(text: str, ref, tol: float) -> None:
    """``text`` equals ``ref.text`` (a completion with per-token logprobs), or parts from it at a token where the
    reference had ``text``'s next token among its alternatives, less than ``tol`` below its own choice."""
    done = ""
    for step in ref.logprobs:
        if not text.startswith(done + step["token"]):
            rest = text[len(done):]
            rivals = {t: lp for t, lp in step["top"].items() if t and rest.startswith(t)}
            assert rivals, f"{text!r} parts from {ref.text!r} after {done!r} at no alternative the reference had"
            gap = step["logprob"] - max(rivals.values())
            assert gap < tol, f"{text!r} parts from {ref.text!r} after {done!r}: not a tie ({gap:.2f} nats)"
            return
        done += step["token"]
    assert text == done == ref.text


@pytest.mark.slow
def test_default_server_answers_like_the_shipped_weights_server(monkeypatch):
    from lcrag.data import load_bamboo
    from lcrag.papers.thesis import prompts as thesis

    # one BAMBOO prompt, its meeting cut to the first half (about 2k tokens: the shipped-weights server reads a 4k
    # one in 20 s on one core)
    rows = load_bamboo("meetingqa", "4k").head(1)
    msgs = [
        [{"role": "system", "content": thesis.SYSTEM},
         {"role": "user", "content": thesis.bamboo_prompt(r.question, list(r.options), [r.content[: len(r.content) // 2]])}]
        for r in rows.itertuples()
    ]
    fast = [Model(parse_spec(SMOL)).chat(x, max_tokens=4) for x in msgs]
    assert fast[0].serving["prefill_weights"] == "f32" and fast[0].serving["flash_attn"] is False
    assert fast[0].serving["prefill_sha256"] == weights.derive(shipped(), "f32").sha256
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_weights": None, "flash_attn": False}))
    monkeypatch.setenv("LCRAG_CACHE_DIR", os.environ["LCRAG_CACHE_DIR"] + "-shipped")
    plain = [Model(parse_spec(SMOL)).chat(x, max_tokens=4, logprobs=True, top_logprobs=5) for x in msgs]
    assert plain[0].serving["prefill_weights"] is None and plain[0].source == "network"
    for f, p in zip(fast, plain, strict=True):
        assert_same_up_to_a_tie(f.text, p, SERVER_LOGPROB_TOL)
    monkeypatch.delenv("LCRAG_SERVING")
    server.start(SMOL)  # leave the default server running for the other tests


# --------------------------------------------------------------------------- torch prefill (lcrag.models.torch_prefill, lcrag.models.kv_state)

GEMMA = "local/gemma3-270m"
RUNTIME_CASES = [SMOL, GEMMA]


def f32_path(spec: str):
    info = parse_spec(spec)
    return weights.derive(model_files.gguf_path(info), "f32").path


def served_flash_attn(spec: str) -> bool:
    """The attention kernel the server generates with for this model (server_settings.FLASH_ATTN)."""
    return server_settings.serving_settings(parse_spec(spec))["flash_attn"]


def split_model(spec: str, runtime: str, n_ctx: int = 8192, **kw):
    from lcrag.models.prefill import PrefillLlama

    info = parse_spec(spec)
    return llama_load.load(model_files.gguf_path(info), cls=PrefillLlama, prefill_model_path=str(f32_path(spec)),
                           prefill_runtime=runtime, n_ctx=n_ctx, n_threads=THREADS, n_batch=512,
                           flash_attn=served_flash_attn(spec), verbose=False, **kw)


def logprobs(llm) -> np.ndarray:
    z = last_logits(llm).astype(np.float64)
    return z - z.max() - np.log(np.exp(z - z.max()).sum())


def test_settings_record_the_prefill_runtime_and_pass_it_to_the_server(monkeypatch):
    info = LOCAL_MODELS["smollm2-135m-instruct"]
    s = server_settings.serving_settings(info)
    assert s["prefill_runtime"] in ("torch", "llama.cpp")
    args = server_settings._server_args(shipped(), 1, s, prefill=f32_path(SMOL))
    assert args[args.index("--prefill_runtime") + 1] == s["prefill_runtime"]
    assert args[args.index("--prefill_compile") + 1] == str(s["prefill_compile"]).lower()
    assert args[args.index("--prefill_compile_min_tokens") + 1] == str(s["prefill_compile_min_tokens"])
    assert "--prefill_runtime" not in server_settings._server_args(shipped(), 1, s)[4:]  # no split: plain llama.cpp server
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_runtime": "llama.cpp"}))
    s = server_settings.serving_settings(info)
    assert s["prefill_runtime"] == "llama.cpp"
    args = server_settings._server_args(shipped(), 1, s, prefill=f32_path(SMOL))
    assert args[args.index("--prefill_runtime") + 1] == "llama.cpp" and args.count("--prefill_runtime") == 1



def test_the_server_reads_back_the_options_the_settings_give_it(monkeypatch):
    """server_settings writes the command line, prefill.parse_server_options reads it: lcrag's options are taken
    out, llama-cpp-python's are passed on in order."""
    from lcrag.models.prefill import ServerOptions, parse_server_options

    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_runtime": "torch", "prefill_compile": False}))
    s = server_settings.serving_settings(LOCAL_MODELS["smollm2-135m-instruct"])
    args = server_settings._server_args(shipped(), 1, s, prefill=f32_path(SMOL))
    opts = parse_server_options(args[args.index("lcrag.models.prefill") + 1:])
    assert (opts.prefill_model, opts.prefill_runtime, opts.prefill_compile) == (str(f32_path(SMOL)), "torch", False)
    assert opts.split_kwargs()["prefill_compile_min_tokens"] == s["prefill_compile_min_tokens"] == 2048
    assert opts.use_extra_bufts is s["use_extra_bufts"]
    assert opts.server_argv[opts.server_argv.index("--model") + 1] == str(shipped())
    assert not any(a.startswith(("--prefill", "--use_extra")) for a in opts.server_argv)
    assert parse_server_options(["--model", "m.gguf", "--port", "8"]) == ServerOptions(
        server_argv=("--model", "m.gguf", "--port", "8"))
    assert parse_server_options(["--prefill_model", "f.gguf"]).split_kwargs()["prefill_attention"] == "gemm"
    for bad in (["--prefill_runtime", "onnx"], ["--prefill_compile", "yes"], ["--prefill_attention", "flash"]):
        with pytest.raises(SystemExit):
            parse_server_options(bad)


# Op by op for every model; fused by torch.compile where the server compiles (Gemma-3; the server runs SmolLM2 op
# by op, as fast, so its compiled graph is not checked). Checked against the server's settings in
# test_the_server_and_the_torch_prefill_agree_on_the_compile_threshold.
KV_CASES = [(SMOL, False), (GEMMA, False), (GEMMA, True)]


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "compiled"), KV_CASES, ids=[f"{s}-{'compiled' if c else 'eager'}" for s, c in KV_CASES])
def test_torch_keys_and_values_are_what_llama_cpp_stores(spec, compiled):
    """The torch forward pass (op by op, and fused by torch.compile) against llama.cpp's own f32 evaluation of
    the same 700 real tokens, cache cell by cache cell (Gemma-3: global and sliding-window caches); and the
    state codec reproduces llama.cpp's bytes, in the cache layout the server uses for the model (SmolLM2: V
    transposed, without flash attention; Gemma-3: V rows, with it)."""
    from lcrag.models import kv_state
    from lcrag.models.torch_prefill import TorchPrefill

    flash = served_flash_attn(spec)
    llm = llama_load.load(f32_path(spec), n_ctx=1024, n_threads=THREADS, n_batch=512, flash_attn=flash, verbose=False)
    tokens = [llm.token_bos()] + essay_tokens(llm, 0, 699)
    llm.eval(tokens)
    raw = kv_state.get_seq_state(llm._ctx.ctx)
    model = TorchPrefill(f32_path(spec), n_threads=THREADS, compile=compiled, compile_min_tokens=0)  # 700 tokens
    caches = kv_state.read_seq_state(raw, len(kv_state._layer_caches(model.hp)))
    assert {c.v_trans for c in caches} == {not flash}
    assert kv_state.write_seq_state(caches) == raw
    llm.close()
    new = model.forward(tokens, 0, [None] * model.hp.n_layer)
    for c, layers in zip(caches, kv_state._layer_caches(model.hp), strict=True):
        window = model.hp.n_swa if model.hp.swa_layers[layers[0]] else 0
        assert sorted(c.positions) == list(range(700 - window if window else 0, 700))
        for j, il in enumerate(layers):
            for mine, theirs in ((new[il].k, c.k[j]), (new[il].v, c.v[j])):
                theirs = theirs.astype(np.float32)
                err = np.abs(mine.float().numpy()[c.positions] - theirs).max() / np.abs(theirs).max()
                assert err < 5e-3, (il, err)  # f16 cache rounding is 5e-4; a wrong graph is O(1)


# The real book prompt each model's torch prefill is checked on against llama.cpp's (one each: llama.cpp's f32
# reference prefill is most of the test's time): SmolLM2, a chat model, on the thesis's BAMBOO MeetingQA 4k
# (about 2k tokens); Gemma-3, a base model, on the 2k needle at depth 50 (four 512-token batches, where the answer
# must find the needle). The benchmark (benchmarks/serving_variants.py) compares both models on 8 prompts each,
# the 7k needles included (llama.cpp's f32 reference takes minutes on them, too long for the test lane).
AGREEMENT_PROMPT = {SMOL: "bamboo meetingqa_4k", GEMMA: "needle 2000 depth 50"}


def book_prompt_tokens(llm, spec: str) -> tuple[str, list[int], int]:
    """(name, token ids, answer tokens) of the model's agreement prompt (:data:`AGREEMENT_PROMPT`), built as
    the benchmark builds it."""
    sys_path = str(ROOT / "benchmarks")
    import sys

    sys.path.insert(0, sys_path)
    import serving_variants as sv

    name, prompt, k = next(p for p in sv.book_prompts(spec, n_bamboo=1) if p[0].startswith(AGREEMENT_PROMPT[spec]))
    return name, sv.prompt_tokens(llm, prompt), k


# Top-5 first-token logprob tolerance, torch vs llama.cpp prefill. Both are f32 math on the same f16 cache, but
# llama.cpp's own two attention kernels (flash / not) differ by up to 0.11 on these prompts, and the benchmark
# (benchmarks/serving_variants.py --reference "f32 prefill + shipped decode") measured torch within 0.19
# (SmolLM2) / 0.28 (Gemma-3) of llama.cpp over 8 book prompts each.
TORCH_LOGPROB_TOL = 0.3


@pytest.mark.slow
@pytest.mark.parametrize("spec", RUNTIME_CASES)
def test_torch_prefill_answers_like_the_llama_cpp_prefill(spec):
    """Torch prefill + shipped last token vs llama.cpp f32 prefill + shipped last token on a real book prompt
    (:data:`AGREEMENT_PROMPT`): same first answer token up to a tie (on an Intel Xeon with AMX, Gemma-3's needle
    prompt has "  " and " eat" 0.15 apart in llama.cpp's f32 prefill and 0.02 apart, swapped, in torch's), top-5
    logprobs within the tolerance; SmolLM2's (chat) greedy answer identical up to a tie; Gemma-3's (a base model
    continuing the text for 32 tokens, where llama.cpp's own flash and non-flash kernels already disagree on later
    tokens) finds the needle in both."""
    results = {}
    for runtime in ("llama.cpp", "torch"):
        llm = split_model(spec, runtime, prefill_compile=runtime == "torch")  # torch: as the server runs it
        name, tokens, k = book_prompt_tokens(llm, spec)
        llm.reset()
        llm.eval(tokens)
        lp = logprobs(llm)
        answer = greedy(llm, k)
        if runtime == "torch" and spec == SMOL:  # where the answers part, the torch run's own logprobs
            assert_parts_at_a_tie(llm, tokens, answer, results["llama.cpp"][0], name)
        results[runtime] = (answer, lp, llm.detokenize(answer).decode(errors="replace"))
        llm.close()
    (_, ref_lp, ref_text), (_, lp, text) = results["llama.cpp"], results["torch"]
    top5 = np.argsort(-ref_lp)[:5]
    first = int(lp.argmax())  # the same first token, or one the reference puts within the tolerance of its own
    assert ref_lp.max() - ref_lp[first] < TORCH_LOGPROB_TOL, (name, "a first token the reference does not near-tie")
    assert np.abs(lp[top5] - ref_lp[top5]).max() < TORCH_LOGPROB_TOL, name
    if spec == GEMMA:
        assert "Dolores Park" in text and "Dolores Park" in ref_text, (name, text, ref_text)


def greedy(llm, k: int) -> list[int]:
    """Up to ``k`` greedy tokens after what ``llm`` has evaluated, and the end-of-generation token if it came."""
    import llama_cpp

    out = []
    for _ in range(k):
        t = int(last_logits(llm).argmax())
        out.append(t)
        if llama_cpp.llama_vocab_is_eog(llm._model.vocab, t):
            break
        llm.eval([t])
    return out


def assert_parts_at_a_tie(llm, prompt: list[int], answer: list[int], ref: list[int], name: str) -> None:
    """``answer`` equals ``ref`` (the other runtime's greedy answer), or the two part where ``llm`` (which gave
    ``answer``) puts ``ref``'s token within the tolerance of its own: greedy decoding then follows another path,
    and the order of floating-point sums decides which (it did differ between CI and a developer's machine)."""
    cut = next((j for j, (a, b) in enumerate(zip(answer, ref, strict=False)) if a != b), None)
    if cut is None:
        assert len(answer) == len(ref), (name, answer, ref)
        return
    llm.reset()
    llm.eval(prompt + answer[:cut])
    here = logprobs(llm)
    assert here[answer[cut]] - here[ref[cut]] < TORCH_LOGPROB_TOL, (name, "parted at no tie", cut)


@pytest.mark.slow
@pytest.mark.parametrize("spec", RUNTIME_CASES)
def test_torch_prefill_reuses_a_prefix_like_a_fresh_evaluation(spec):
    """A document, then two questions after it, then a shorter shared prefix: every reuse gives the logits of a
    fresh evaluation (Gemma-3's window cache keeps 512 positions: the shorter prefix is evaluated again)."""
    llm = split_model(spec, "torch", n_ctx=4096)
    doc, q1, q2 = essay_tokens(llm, 0, 800), essay_tokens(llm, 5000, 200), essay_tokens(llm, 9000, 200)
    bos = [llm.token_bos()]
    llm.reset()
    llm.create_completion(bos + doc + q1, max_tokens=4, temperature=0.0)
    reused = []
    for p in (bos + doc + q2, bos + doc[:600] + q2):  # reuses 801, then 601 positions (both past Gemma's 512)
        text = llm.create_completion(p, max_tokens=8, temperature=0.0)["choices"][0]["text"]
        reused.append((p, text, last_logits(llm)))
    for p, text, z in reused:
        llm.reset()
        assert llm.create_completion(p, max_tokens=8, temperature=0.0)["choices"][0]["text"] == text
        assert np.abs(last_logits(llm) - z).max() < 1e-3
    llm.close()


@pytest.mark.slow
def test_the_logprobs_model_splits_and_its_answer_logprobs_are_the_shipped_weights_ones():
    """With ``logits_all`` (the logprobs server) the long prompt still goes through the torch prefill; the top
    logprobs of the answer's first token are llama.cpp's own on the whole prompt (shipped weights) within the
    torch tolerance, the same first token up to a tie; prompt logprobs (echo), which it cannot give, are refused."""
    llm = split_model(SMOL, "torch", n_ctx=1024, logits_all=True)
    prompt = [llm.token_bos()] + essay_tokens(llm, 0, 300)  # a needle judge's prompt is about 300 tokens
    calls = []
    prefill = llm._prefill_torch
    llm._prefill_torch = lambda head: calls.append(len(head)) or prefill(head)
    got = llm.create_completion(prompt, max_tokens=2, temperature=0.0, logprobs=5)["choices"][0]
    assert calls == [300]  # every prompt token but the last went through torch
    with pytest.raises(ValueError, match="echo with logprobs"):
        llm.create_completion(prompt, max_tokens=1, temperature=0.0, logprobs=5, echo=True)
    llm.close()

    ref_llm = llama_load.load(model_files.gguf_path(parse_spec(SMOL)), n_ctx=1024, n_threads=THREADS, n_batch=512,
                              flash_attn=served_flash_attn(SMOL), logits_all=True, verbose=False)
    ref = ref_llm.create_completion(prompt, max_tokens=2, temperature=0.0, logprobs=5)["choices"][0]
    ref_llm.close()
    top, ref_top = got["logprobs"]["top_logprobs"][0], ref["logprobs"]["top_logprobs"][0]
    assert len(set(top) & set(ref_top)) >= 4
    for token in set(top) & set(ref_top):
        assert abs(top[token] - ref_top[token]) < TORCH_LOGPROB_TOL, (token, top[token], ref_top[token])
    first, ref_first = got["logprobs"]["tokens"][0], ref["logprobs"]["tokens"][0]
    assert first == ref_first or ref_top[ref_first] - ref_top.get(first, -np.inf) < TORCH_LOGPROB_TOL


def test_the_server_and_the_torch_prefill_agree_on_the_compile_threshold():
    from lcrag.models import torch_prefill

    assert server_settings.PREFILL_COMPILE_MIN_TOKENS == torch_prefill.COMPILE_MIN_TOKENS
    smol, gemma = (server_settings.serving_settings(LOCAL_MODELS[m]) for m in ("smollm2-135m-instruct", "gemma3-270m"))
    assert smol["prefill_compile"] is False  # op by op as fast: no 10 s compile
    assert gemma["prefill_compile"] is (gemma["prefill_runtime"] == "torch")
    compiled = {spec for spec, s in ((SMOL, smol), (GEMMA, gemma)) if s["prefill_compile"]}
    assert compiled == {spec for spec, c in KV_CASES if c}  # the compiled graph is checked where it runs


@pytest.mark.slow
def test_only_long_prompts_use_the_compiled_layers_and_short_ones_do_not_depend_on_them():
    """Compiling costs seconds: a compiling TorchPrefill compiles for the first prompt that reaches its
    threshold, not before, and a short prompt's keys and values are the same bytes before and after."""
    import torch

    from lcrag.models.torch_prefill import TorchPrefill

    model = TorchPrefill(f32_path(GEMMA), n_threads=THREADS, compile=True, compile_min_tokens=300)
    llm = split_model(GEMMA, "torch", n_ctx=1024)
    short, long = essay_tokens(llm, 0, 120), essay_tokens(llm, 1000, 400)
    llm.close()
    before = model.forward(short, 0, [None] * model.hp.n_layer)
    assert model._compiled_layers is None and model.layers_for(299)[2] is False
    model.forward(long, 0, [None] * model.hp.n_layer)
    assert model._compiled_layers is not None and model.layers_for(300)[2] is True
    after = model.forward(short, 0, [None] * model.hp.n_layer)
    for a, b in zip(before, after, strict=True):
        assert torch.equal(a.k, b.k) and torch.equal(a.v, b.v)


def test_activity_counts_idle_time_from_the_end_of_the_last_call_and_none_while_one_runs():
    from lcrag.models.prefill import Activity

    now = [100.0]
    activity = Activity(clock=lambda: now[0])
    now[0] = 130.0
    assert activity.idle_for() == 30.0  # unused since the server started
    with activity.call():
        now[0] = 2000.0  # a 30-minute summary is not idleness
        assert activity.idle_for() == 0.0
        with activity.call():  # a chat completion calls create_completion inside
            pass
        assert activity.idle_for() == 0.0
    now[0] = 2010.0
    assert activity.idle_for() == 10.0
    with pytest.raises(RuntimeError), activity.call():
        raise RuntimeError("a failed call ends too")
    assert activity.busy == 0 and activity.idle_for() == 0.0
