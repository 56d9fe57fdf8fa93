"""Serving the Qwen2.5-Coder models (issue 17): prompt and generation throughput against two references.

    python benchmarks/qwen_serving.py [--model local/qwen2.5-coder-1.5b-instruct] [--sizes 2048 8192 16384]
        [--agreement 4] [--out table.csv]

Prints the CPU model and, for each prompt size, in one run on the same prompts:

- **reference**: llama.cpp (llama-cpp-python, in-process) on the shipped GGUF with ``use_extra_bufts=False`` and
  otherwise default settings, 2 threads (the issue's reference: the setting that is safe on every CPU);
- with ``--safe``, **llama.cpp, safe setting**: the same with the extra buffers where this machine's probe
  allows them (``lcrag.models.llama_load``; identical to the reference on a CPU with AMX) and flash attention;
- **lcrag**: what the embedded server runs (``server_settings.serving_settings``): the bf16 copy (f32 on a CPU without
  bf16 products, ``server_settings.prefill_weights``) evaluated by the torch
  prefill (compiled), the KV cache written into llama.cpp, answers generated with the shipped file;
- **compute bound**: the machine's limit, ``FLOPs per prompt / peak``, with the peak measured here as the faster of
  torch's f32 and bf16 matrix-product rates on 2 threads (the fastest product this CPU offers) and the FLOPs counted from
  the model's shapes (2 per weight per token, plus causal attention).

Prompt tok/s: real essays, a random first line so that nothing is reused, one answer token; every engine first
evaluates one short prompt untimed (``--warmup``), as a running server has. Generation tok/s:
64 greedy tokens after a 256-token prompt. Agreement: on real book prompts through the model's chat template
(BAMBOO MeetingQA 4k with the thesis's prompt; needle prompts at 2k and 7k tokens, depths 10/50/90; as in
``serving_variants.py``), whether lcrag's greedy answer (24 tokens) equals the reference's and the largest
absolute difference of the first answer token's top-5 logprobs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from common import essay_prompt, isolate  # noqa: E402
from serving_variants import book_prompts, prompt_tokens  # noqa: E402

from lcrag.models import get_model, llama_load, server_settings  # noqa: E402
from lcrag.models.prefill import PrefillLlama  # noqa: E402
from lcrag.models.torch_gguf import GGUF, HParams  # noqa: E402

GEN_TOKENS, ANSWER_TOKENS = 64, 24


def peak_gflops(threads: int = 2) -> dict[str, float]:
    """torch matrix-product rates here (GFLOP/s), f32 and bf16, at the prefill's shapes."""
    import torch

    torch.set_num_threads(threads)
    out = {}
    for name, dt in (("f32", torch.float32), ("bf16", torch.bfloat16)):
        a, b = torch.randn(2048, 1536).to(dt), torch.randn(8960, 1536).to(dt)
        a @ b.T
        t0 = time.perf_counter()
        for _ in range(5):
            a @ b.T
        out[name] = 5 * 2 * 2048 * 1536 * 8960 / (time.perf_counter() - t0) / 1e9
    return out


def prompt_flops(hp: HParams, n_params_matrices: int, n: int) -> float:
    """FLOPs of evaluating an n-token prompt: 2 per matrix weight per token, plus causal attention."""
    attention = 2 * 2 * (n * (n + 1) / 2) * hp.n_head * hp.head_dim * hp.n_layer
    return 2.0 * n_params_matrices * n + attention


def matrix_params(g: GGUF) -> int:
    return sum(int(np.prod(shape)) for name, (_t, shape, _o) in g.tensors.items()
               if name.startswith("blk.") and name.endswith(".weight") and len(shape) == 2)


def ask(llm, tokens: list[int], n_out: int) -> tuple[float, list[int], np.ndarray]:
    """(seconds for the prompt, greedy answer tokens, first-token logits)."""
    llm.reset()
    t0 = time.perf_counter()
    llm.eval(tokens)
    dt = time.perf_counter() - t0
    first = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).copy()
    out = []
    for _ in range(n_out):
        nxt = int(np.argmax(np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))))
        out.append(nxt)
        if nxt == llm.token_eos():
            break
        llm.eval([nxt])
    return dt, out, first


def gen_rate(llm, tokens: list[int]) -> float:
    llm.reset()
    llm.eval(tokens)
    t0 = time.perf_counter()
    for _ in range(GEN_TOKENS):
        nxt = int(np.argmax(np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))))
        llm.eval([nxt])
    return GEN_TOKENS / (time.perf_counter() - t0)


def logprobs(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64) - x.max()
    return x - np.log(np.exp(x).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="local/qwen2.5-coder-1.5b-instruct")
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 8192, 16384])
    ap.add_argument("--agreement", type=int, default=3, help="BAMBOO prompts for the agreement check (plus the "
                    "six needle prompts of serving_variants.py)")
    ap.add_argument("--safe", action="store_true", help="also measure llama.cpp alone with the probed setting")
    ap.add_argument("--warmup", type=int, default=512, help="tokens each engine evaluates once, untimed, before "
                    "the first measurement (a server's first request pays for first-touch allocations; 0: none)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    isolate()
    info = get_model(args.model).info
    settings = server_settings.serving_settings(info)
    shipped, prefill = server_settings.serving_model_paths(info, settings)
    n_ctx = max(args.sizes) + 512
    safe = llama_load.extra_bufts_safe(shipped)
    print(f"CPU: {llama_load.cpu_model()} (AMX: {llama_load.has_amx()}); extra buffers here: {safe.use_extra_bufts}"
          f" ({safe.how}: {safe.detail}); model {args.model}; torch prefill weights {settings['prefill_weights']}")
    peaks = peak_gflops()
    g = GGUF.open(prefill)
    hp, n_mat = HParams.from_gguf(g), matrix_params(g)
    print(f"peak (torch, 2 threads): bf16 {peaks['bf16']:.0f} GFLOP/s, f32 {peaks['f32']:.0f} GFLOP/s; "
          f"{n_mat / 1e9:.2f} G matrix weights = {2 * n_mat / 1e9:.2f} GFLOP per token before attention")

    base = {"n_ctx": n_ctx, "n_threads": 2, "n_batch": 512, "verbose": False}
    reference = llama_load.load(shipped, use_extra_bufts=False, **base)
    ours = llama_load.load(shipped, cls=PrefillLlama, use_extra_bufts=settings["use_extra_bufts"],
                           prefill_model_path=str(prefill), prefill_runtime=settings["prefill_runtime"],
                           prefill_compile=settings["prefill_compile"],
                           prefill_attention=settings["prefill_attention"] or "gemm", flash_attn=settings["flash_attn"],
                           **base)
    engines = {"reference": reference, "lcrag": ours}
    if args.safe:
        engines["llama.cpp, safe setting"] = llama_load.load(shipped, use_extra_bufts=safe.use_extra_bufts,
                                                             flash_attn=True, **base)
    if args.warmup:
        warm = reference.tokenize(essay_prompt(args.model, args.warmup).encode(), add_bos=False)[: args.warmup]
        for llm in engines.values():
            ask(llm, warm, 1)
    rows = []
    for n in args.sizes:
        tokens = reference.tokenize(essay_prompt(args.model, n).encode(), add_bos=False)[:n]
        bound = n / (prompt_flops(hp, n_mat, n) / (max(peaks.values()) * 1e9))
        row = {"size": n, "compute bound tok/s": round(bound)}
        for name, llm in engines.items():
            dt, _, _ = ask(llm, tokens, 0)
            row[f"{name} tok/s"] = round(n / dt, 1)
            print(f"  {n:>6} tokens  {name:<24} {n / dt:7.1f} tok/s", flush=True)
        row["lcrag / reference"] = round(row["lcrag tok/s"] / row["reference tok/s"], 2)
        rows.append(row)
    short = reference.tokenize(essay_prompt(args.model, 256).encode(), add_bos=False)[:256]
    gen = {name: gen_rate(llm, short) for name, llm in engines.items()}
    table = pd.DataFrame(rows)
    print()
    print(table.to_string(index=False))
    print("generation tok/s (64 greedy tokens after 256): "
          + ", ".join(f"{k} {v:.1f}" for k, v in gen.items())
          + f"; lcrag / reference {gen['lcrag'] / gen['reference']:.2f}")
    agree = []
    for label, prompt, _ in book_prompts(args.model, args.agreement):
        toks = prompt_tokens(reference, prompt)
        if len(toks) + ANSWER_TOKENS >= n_ctx:
            continue
        _, a_ref, l_ref = ask(reference, toks, ANSWER_TOKENS)
        _, a_our, l_our = ask(ours, toks, ANSWER_TOKENS)
        lr, lo = logprobs(l_ref), logprobs(l_our)
        top = np.argsort(-lr)[:5]
        agree.append({"prompt": label, "tokens": len(toks), "same greedy answer": a_ref == a_our,
                      "first token same": a_ref[:1] == a_our[:1],
                      "max |d logprob| top-5": round(float(np.abs(lr[top] - lo[top]).max()), 3)})
    if agree:
        print()
        print(pd.DataFrame(agree).to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
