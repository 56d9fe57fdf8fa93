"""Peak memory of the torch prefill (issue 17): how much a long prompt adds to the serving process.

    python benchmarks/prefill_memory.py                                # SmolLM2, 2k prefix + 6k new tokens
    python benchmarks/prefill_memory.py --tokens 16000 --prefix 4000
    python benchmarks/prefill_memory.py --before /path/to/older/src    # the same, also with an older package
    python benchmarks/prefill_memory.py --rounds 6 --before OLD/src    # six different prompts, one after another

Each measurement is a fresh process that loads the model the way the embedded server does (``PrefillLlama``:
llama.cpp for decoding, the server's prefill runtime for prompts, uncompiled), evaluates a prefix (cached), then the new tokens on top
of it, and reports its resident set before that second evaluation and its peak during it (Linux: ``VmRSS``, then
``VmHWM`` after resetting it through ``/proc/self/clear_refs``): the growth is what the prompt costs beyond the
loaded model and its cached prefix. With ``--rounds N`` the process then evaluates N - 1 more prompts (other
text, the cache reset between them, as a recording's needle prompts come) and reports its resident set after each:
a server whose freed memory is not given back grows with every prompt. Runs one after another, so ratios within
one run compare. The CPU model is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
from lcrag.data import load_essays
from lcrag.models import llama_load, server_settings
from lcrag.models.prefill import PrefillLlama
from lcrag.models.registry import LOCAL_MODELS
spec, n_prefix, n_new, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
info = LOCAL_MODELS[spec]
s = server_settings.serving_settings(info)
path, prefill = server_settings.serving_model_paths(info, s)
llm = llama_load.load(path, cls=PrefillLlama, prefill_model_path=str(prefill), n_ctx=n_prefix + n_new + 64,
                      prefill_runtime=s["prefill_runtime"], prefill_attention=s["prefill_attention"] or "gemm",
                      n_threads=2, n_batch=512, flash_attn=True, verbose=False)
text = " ".join(load_essays()["text"])
every = llm.tokenize(text.encode(), add_bos=True)
tokens = every[: n_prefix + n_new]
assert len(tokens) == n_prefix + n_new, len(tokens)
llm.eval(tokens[:n_prefix])
def status_kb(field):
    line = next(l for l in open("/proc/self/status") if l.startswith(field + ":"))
    return int(line.split()[1])
loaded = status_kb("VmRSS")
open("/proc/self/clear_refs", "w").write("5")  # Linux: the peak (VmHWM) starts again from the current size
t0 = time.perf_counter()
llm.eval(tokens[n_prefix:])
wall = time.perf_counter() - t0
peak = status_kb("VmHWM")
after = [status_kb("VmRSS") / 1024]
for r in range(1, rounds):  # other prompts of the same size, from later in the essays
    start = (r * 997) % max(1, len(every) - n_prefix - n_new)
    llm.reset()
    llm.eval(every[start : start + n_prefix + n_new])
    after.append(status_kb("VmRSS") / 1024)
print(json.dumps({"loaded_mb": loaded / 1024, "peak_mb": peak / 1024, "wall_s": wall, "after_mb": after,
                  "overall_peak_mb": status_kb("VmHWM") / 1024}))
llm.close()
"""


def measure(src: Path, spec: str, n_prefix: int, n_new: int, rounds: int = 1) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", CHILD, spec, str(n_prefix), str(n_new), str(rounds)], env=env,
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    from lcrag.models.llama_load import cpu_model

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="smollm2-135m-instruct", help="an embedded model's name")
    ap.add_argument("--prefix", type=int, default=2000, help="tokens evaluated first (the cached prefix)")
    ap.add_argument("--tokens", type=int, default=6000, help="new tokens evaluated on top of the prefix")
    ap.add_argument("--before", type=Path, default=None, help="an older package's src dir to compare with")
    ap.add_argument("--rounds", type=int, default=1, help="prompts evaluated one after another in one process")
    args = ap.parse_args()
    print(f"CPU: {cpu_model()}; cores: {len(os.sched_getaffinity(0))}; model {args.model}; "
          f"prefix {args.prefix} + {args.tokens} new tokens")
    trees = ([("before", args.before)] if args.before else []) + [("this tree", ROOT / "src")]
    rows = [(label, measure(src, args.model, args.prefix, args.tokens, args.rounds)) for label, src in trees]
    print(f"\n{'package':12s} {'loaded MB':>10s} {'peak MB':>9s} {'prompt adds MB':>15s} {'wall s':>7s}")
    for label, r in rows:
        print(f"{label:12s} {r['loaded_mb']:10.0f} {r['peak_mb']:9.0f} {r['peak_mb'] - r['loaded_mb']:15.0f} "
              f"{r['wall_s']:7.1f}")
    if args.rounds > 1:
        print(f"\n{'package':12s} resident set after each prompt (MB), then the peak over all of them")
        for label, r in rows:
            print(f"{label:12s} " + " ".join(f"{v:6.0f}" for v in r["after_mb"]) + f"   peak {r['overall_peak_mb']:.0f}")
    if len(rows) == 2:
        (_, a), (_, b) = rows
        print(f"\nthe prompt's extra memory: {(b['peak_mb'] - b['loaded_mb']) / (a['peak_mb'] - a['loaded_mb']):.2f}x "
              "of before")
        if args.rounds > 1:
            print(f"resident set after the last prompt: {b['after_mb'][-1] / a['after_mb'][-1]:.2f}x of before")


if __name__ == "__main__":
    main()
