"""Generation speed at long context: llama.cpp's flash-attention kernel against its plain attention.

    python benchmarks/decode_context.py [--models local/smollm2-135m-instruct ...] [--sizes 256 4096 8000]
        [--tokens 32] [--out table.csv]

The embedded server evaluates long prompts in PyTorch and generates every answer token with llama.cpp; after a
long prompt, each generated token attends over the whole KV cache. This script prints the CPU model and, per model
and context size, in one run: the generation rate (greedy tokens per second after a prompt of that many tokens)
with ``flash_attn`` on and off, everything else as the server runs it (``server_settings.serving_settings``: the
torch prefill writes the cache, the shipped file generates), and whether the two greedy answers are the same
tokens. Prompts: Paul Graham essays (``common.essay_prompt``), each size in the model's window.

Pause other work on the machine first: llama.cpp's threads spin while they wait, so a busy machine distorts
generation rates far more than prompt rates.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import llama_cpp
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from common import essay_prompt, isolate  # noqa: E402

from lcrag.models import get_model, llama_load, server_settings  # noqa: E402
from lcrag.models.prefill import PrefillLlama  # noqa: E402

MODELS = ["local/smollm2-135m-instruct", "local/gemma3-270m", "local/qwen2.5-coder-0.5b-instruct",
          "local/qwen2.5-coder-1.5b-instruct"]


def load(spec: str, flash_attn: bool, n_ctx: int) -> PrefillLlama:
    info = get_model(spec).info
    s = server_settings.serving_settings(info)
    shipped, prefill = server_settings.serving_model_paths(info, s)
    return llama_load.load(shipped, cls=PrefillLlama, use_extra_bufts=s["use_extra_bufts"],
                           prefill_model_path=str(prefill), prefill_runtime=s["prefill_runtime"],
                           prefill_compile=s["prefill_compile"], prefill_attention=s["prefill_attention"] or "gemm",
                           flash_attn=flash_attn, n_ctx=n_ctx, n_threads=2,
                           n_batch=512, verbose=False)


def generate(llm: PrefillLlama, prompt: list[int], n: int) -> tuple[float, list[int]]:
    """(greedy tokens per second after ``prompt``, the tokens); the prompt's evaluation is not timed."""
    llm.reset()
    llm.eval(prompt)
    out, t0 = [], time.perf_counter()
    for _ in range(n):
        last = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),))
        out.append(int(last.argmax()))
        llm.eval([out[-1]])
    return n / (time.perf_counter() - t0), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 4096, 8000])
    ap.add_argument("--tokens", type=int, default=32, help="greedy tokens generated and timed per prompt")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    isolate()
    print(f"CPU: {llama_load.cpu_model()} (AMX: {llama_load.has_amx()}); 2 threads; {args.tokens} greedy tokens")
    rows = []
    for spec in args.models:
        window = get_model(spec).info.context_window
        sizes = [n for n in args.sizes if n + args.tokens < window]
        n_ctx = max(sizes) + args.tokens + 64
        prompts = {n: get_model(spec).tokenizer.encode(essay_prompt(spec, n))[:n] for n in sizes}
        runs = {}
        for fa in (True, False):
            llm = load(spec, fa, n_ctx)
            generate(llm, prompts[sizes[0]], 4)  # warm-up: first-touch allocations, torch.compile
            runs[fa] = {n: generate(llm, p, args.tokens) for n, p in prompts.items()}
            llm.close()
        for n in sizes:
            (on, a_on), (off, a_off) = runs[True][n], runs[False][n]
            rows.append({"model": spec.split("/")[-1], "context": n, "flash tok/s": round(on, 1),
                         "plain tok/s": round(off, 1), "plain / flash": round(off / on, 2),
                         "same greedy tokens": a_on == a_off})
            print(f"  {rows[-1]}", flush=True)
    table = pd.DataFrame(rows)
    print()
    print(table.to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
