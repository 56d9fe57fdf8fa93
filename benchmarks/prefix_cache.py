"""Repeated-prefix workload: the same ~6k-token document, 10 different questions at the end.

    python benchmarks/prefix_cache.py [--model local/smollm2-135m-instruct]

Baseline: each prompt starts with a different random line, so no prefix can be reused (every call processes
the whole document). Cached: the same document first, so the server's KV prompt cache serves the prefix.
Prints total seconds of both and the speed-up. Target >= 2x.
"""

from __future__ import annotations

import argparse
import uuid

from common import essay_prompt, isolate, timed

from lcrag.models import get_model, server

QUESTIONS = [f"Question {i}: in one word, what is the main topic of essay part {i}?" for i in range(10)]


def run(m, doc: str, fresh_prefix: bool) -> float:
    total = 0.0
    for q in QUESTIONS:
        head = f"[{uuid.uuid4().hex}]\n" if fresh_prefix else ""
        _, dt = timed(m.chat, [{"role": "user", "content": head + doc + "\n\n" + q}], max_tokens=4)
        total += dt
    return total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="local/smollm2-135m-instruct")
    ap.add_argument("--tokens", type=int, default=6000)
    args = ap.parse_args()
    isolate()
    m = get_model(args.model)
    server.start(args.model)
    doc = essay_prompt(args.model, args.tokens, nonce=False)
    base = run(m, doc, fresh_prefix=True)
    cached = run(m, doc, fresh_prefix=False)
    print(f"model {args.model}, document {m.count_tokens(doc)} tokens, {len(QUESTIONS)} questions")
    print(f"no prefix reuse: {base:7.1f} s")
    print(f"prefix cache:    {cached:7.1f} s")
    print(f"speed-up:        {base / cached:7.2f}x")


if __name__ == "__main__":
    main()
