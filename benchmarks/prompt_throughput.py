"""Prompt throughput of the embedded models: through lcrag (HTTP server + client + cache layers) vs
llama-cpp-python in-process, on the same prompts (512 / 2k / 7k tokens), 2 threads.

    python benchmarks/prompt_throughput.py [--models local/smollm2-135m-instruct local/gemma3-270m] [--reps 2]

Prints prompt tokens per second (median of reps) and lcrag's overhead. Target: overhead <= 10 %.
Reference (issue 2, llama.cpp defaults): SmolLM2 ~ 230 / 192 / 116 tok/s, Gemma-3-270M ~ 513 / 419 / 243.
"""

from __future__ import annotations

import argparse
import statistics

from common import essay_prompt, isolate, timed

from lcrag.models import get_model, model_files, server, server_settings

SIZES = (512, 2048, 7000)


def in_process(spec: str, prompts: list[str], settings: dict) -> list[float]:
    from lcrag.models import llama_load

    info = get_model(spec).info
    llm = llama_load.load(model_files.gguf_path(info), n_ctx=settings["n_ctx"], n_threads=settings["n_threads"],
                n_batch=settings["n_batch"], logits_all=False, verbose=False)
    rates = []
    for p in prompts:
        llm.reset()
        out, dt = timed(llm.create_completion, p, max_tokens=1, temperature=0.0)
        rates.append(out["usage"]["prompt_tokens"] / dt)
    llm.close()
    return rates


def through_lcrag(spec: str, prompts: list[str]) -> list[float]:
    m = get_model(spec)
    server.start(spec)  # started before timing: we measure calls, not the start
    rates = []
    for p in prompts:
        r, dt = timed(m.complete, p, max_tokens=1)
        rates.append(r.prompt_tokens / dt)
    return rates


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["local/smollm2-135m-instruct", "local/gemma3-270m"])
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    isolate()
    print(f"{'model':32} {'tokens':>7} {'in-process tok/s':>17} {'lcrag tok/s':>12} {'overhead':>9}")
    for spec in args.models:
        info = get_model(spec).info
        settings = server_settings.serving_settings(info)
        for size in SIZES:
            prompts = [essay_prompt(spec, size) for _ in range(args.reps)]
            a = statistics.median(in_process(spec, prompts, settings))
            prompts = [essay_prompt(spec, size) for _ in range(args.reps)]
            b = statistics.median(through_lcrag(spec, prompts))
            print(f"{spec:32} {size:7d} {a:17.1f} {b:12.1f} {100 * (a - b) / a:8.1f}%", flush=True)
    print("settings:", settings)


if __name__ == "__main__":
    main()
