"""Would prompt-lookup speculative decoding speed up the book's generations? Greedy answers with and without drafts.

    python benchmarks/prompt_lookup.py [--model local/qwen2.5-coder-1.5b-instruct] [--drafts 3 6 10]
        [--max-tokens 160]

Prompt lookup drafts the next tokens by finding the context's last 1-3 tokens earlier in the context and copying
what followed them; one batched llama.cpp evaluation then checks every drafted token, and greedy decoding keeps the
drafted tokens up to the first one the model would not have chosen. It pays off when answers copy their prompt
(extraction) and when a batch of k tokens costs little more than one token.

llama-cpp-python's own ``draft_model`` forces ``logits_all``, i.e. a float array of context x vocabulary (19 GB for
the 1.5B at 32k): unusable here. This script subclasses ``Llama`` instead: drafts are evaluated as one batch with
logits for every drafted position, and llama.cpp's sampler reads them in place (no copy).

The script prints the CPU model and, for three book-like tasks on about 1.2k tokens of essays (key points quoting
the text, a five-bullet summary, one quoted sentence), the generation time with no drafts and with drafts of each
size (the prompt is evaluated once before timing, so only generation is timed), and whether the greedy answer is
the same text. Pause other work on the machine first.

Measured (2026-11-26, Intel Xeon with AMX, 2 cores, quiet; the 1.5B, 160-token cap): 0.93x to 1.01x for drafts of
3, 6 and 10 tokens, i.e. no gain: a batch of 4 tokens costs about 1.8x one token on this CPU, and these answers copy
too little of their prompts. Batched verification also parted from one-token decoding on 2 of 3 answers (the batch
kernels round differently). The embedded server therefore does not draft.
"""

from __future__ import annotations

import argparse
import sys
import time

import llama_cpp
import numpy as np

from lcrag.data import load_essays
from lcrag.models import llama_load, model_files
from lcrag.models.registry import parse_spec

TASKS = (
    "List the key points of the document as bullet points, quoting its sentences.",
    "Summarize the document in five bullet points.",
    "Which sentence of the document mentions money? Quote it exactly.",
)


class Lookup:
    """Draft ``k`` tokens: those that followed the most recent earlier occurrence of the context's last ``n``
    tokens (the longest ``n <= n_max`` that occurs); none when nothing matches."""

    def __init__(self, k: int, n_max: int = 3):
        self.k, self.n_max = k, n_max

    def __call__(self, ids) -> np.ndarray:
        ids = np.asarray(ids)
        for n in range(min(self.n_max, len(ids) - 1), 0, -1):
            windows = np.lib.stride_tricks.sliding_window_view(ids[:-1], n)
            hits = np.nonzero((windows == ids[-n:]).all(axis=1))[0]
            if len(hits):
                start = hits[-1] + n
                return ids[start : start + self.k].astype(np.intc)
        return np.array([], dtype=np.intc)


class DraftingLlama(llama_cpp.Llama):
    """Greedy generation with :class:`Lookup` drafts (``lookup``; None: plain decoding)."""

    lookup: Lookup | None = None

    def eval(self, tokens):
        tokens = list(tokens)
        if self.draft_model is None or len(tokens) == 1 or len(tokens) > 32:
            return super().eval(tokens)
        # a drafted batch: logits for every position, which the sampler reads in place
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        self._batch.set_batch(batch=tokens, n_past=self.n_tokens, logits_all=True)
        self._ctx.decode(self._batch)
        self.input_ids[self.n_tokens : self.n_tokens + len(tokens)] = tokens
        self.n_tokens += len(tokens)

    def generate(self, tokens, **kw):
        greedy = kw.get("temp", 0.8) <= 0 and kw.get("repeat_penalty", 1.0) == 1.0 and not self._logits_all
        plain = kw.get("grammar") or kw.get("logits_processor") or kw.get("stopping_criteria")
        self.draft_model = self.lookup if greedy and not plain else None
        return super().generate(tokens, **kw)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="local/qwen2.5-coder-1.5b-instruct")
    ap.add_argument("--drafts", type=int, nargs="+", default=[3, 6, 10])
    ap.add_argument("--max-tokens", type=int, default=160)
    args = ap.parse_args()
    print(f"CPU: {llama_load.cpu_model()}; model {args.model}; 2 threads", flush=True)
    path = model_files.gguf_path(parse_spec(args.model))
    llm = llama_load.load(path, cls=DraftingLlama, n_ctx=8192, n_threads=2, n_batch=512, verbose=False,
                          flash_attn=False)
    text = "".join(load_essays()["text"])
    for i, task in enumerate(TASKS):
        doc = text[20000 * (i + 1) : 20000 * (i + 1) + 5000]
        msgs = [{"role": "user", "content": f"Document:\n{doc}\n\n{task}"}]
        llm.lookup = None
        llm.reset()
        llm.create_chat_completion(msgs, max_tokens=1, temperature=0.0)  # the prompt, evaluated once
        runs = {}
        for k in [0, *args.drafts]:
            llm.lookup = Lookup(k) if k else None
            t0 = time.perf_counter()
            r = llm.create_chat_completion(msgs, max_tokens=args.max_tokens, temperature=0.0)
            runs[k] = (r["choices"][0]["message"]["content"], r["usage"]["completion_tokens"], time.perf_counter() - t0)
        text0, n0, t0 = runs[0]
        cells = [f"no drafts {t0:.1f} s"] + [
            f"drafts of {k}: {t:.1f} s ({t0 / t:.2f}x{'' if out == text0 else ', other answer'})"
            for k, (out, _, t) in runs.items() if k
        ]
        print(f"task {i + 1}, prompt {r['usage']['prompt_tokens']} tokens, {n0} generated: " + "; ".join(cells),
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
