"""Needle grid: the order of the calls and llama.cpp's prefix reuse.

    python benchmarks/needle_order.py [--model local/smollm2-135m-instruct] [--lengths 1000 2000 3000]
                                      [--depths 0 25 50 75 100]

The same needle cells (one needle, lengths x depths) are asked four ways, each on a freshly started server
(empty KV cache, nothing else calling it: this script runs its own server in a private state directory):

- ``no reuse``: each prompt starts with a random line, so no prefix can be reused (every call evaluates the
  whole haystack): the cost of the workload itself;
- ``kamradt``: Kamradt's loops, ascending length then ascending depth (the cache reuses what it can);
- ``length_depth``: for each length, descending depth;
- ``prefix``: the chapter's order, latest needle first across lengths (lcrag.papers.thesis.needle.plan.prefix_order).

Prints seconds per order, the haystack tokens each order makes llama.cpp evaluate (the model of
``prefill_cost``), and the speed-up of each order against ``no reuse``. Answers are 8 tokens (the timing is
about the prompts).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid

from common import isolate

from lcrag.data import load_essays
from lcrag.models import get_model, server
from lcrag.models.client import Model
from lcrag.models.registry import parse_spec
from lcrag.papers.thesis.needle import asking, plan
from lcrag.papers.thesis.needle import needles as needle_texts

ORDERS = ("no reuse", "kamradt", "length_depth", "prefix")


def ask_all(m, cells: list[dict], nonce: bool) -> float:
    """Seconds to ask every cell in order (greedy, 8 answer tokens)."""
    t0 = time.perf_counter()
    for c in cells:
        head = f"[{uuid.uuid4().hex}]\n" if nonce else ""
        method, kwargs = asking.request_for(m, head + c["haystack"].text, c["_needle"].question, 8)
        getattr(m, method)(**kwargs)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="local/smollm2-135m-instruct")
    ap.add_argument("--lengths", type=int, nargs="+", default=[1000, 2000, 3000])
    ap.add_argument("--depths", type=float, nargs="+", default=[0, 25, 50, 75, 100])
    ap.add_argument("--needle", default="simple")
    args = ap.parse_args()
    isolate()
    # a private server: no other process's calls replace its KV cache between ours (model files are shared)
    os.environ["LCRAG_STATE_DIR"] = tempfile.mkdtemp(prefix="lcrag-bench-state-")
    m = get_model(args.model)
    cells = plan.needle_grid(m, list(load_essays()["text"]), args.lengths, args.depths, needle_texts.needles_for([args.needle]))
    print(f"model {args.model}; {len(cells)} cells: lengths {args.lengths} x depths {args.depths}, "
          f"needle {args.needle}")
    results = {}
    try:
        for how in ORDERS:
            os.environ["LCRAG_CACHE_DIR"] = tempfile.mkdtemp(prefix="lcrag-bench-")  # no response cache hit
            server.stop(args.model)
            server.start(args.model)  # cold: empty KV cache
            m = Model(parse_spec(args.model))  # a client for the new server
            ordered = plan.prefix_order(cells, "kamradt" if how == "no reuse" else how)
            tokens = sum(c["haystack_tokens"] for c in cells) if how == "no reuse" else plan.prefill_cost(ordered)
            results[how] = (ask_all(m, ordered, nonce=how == "no reuse"), tokens)
            print(f"{how:>13}: {results[how][0]:7.1f} s   {tokens:7d} haystack tokens evaluated", flush=True)
    finally:
        server.stop(args.model)
    base = results["no reuse"][0]
    for how in ORDERS[1:]:
        print(f"speed-up {how:>13} vs no reuse: {base / results[how][0]:5.2f}x "
              f"(token model: {results['no reuse'][1] / results[how][1]:5.2f}x)")


if __name__ == "__main__":
    main()
