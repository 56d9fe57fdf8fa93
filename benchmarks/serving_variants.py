"""Serving variants of the embedded models: prompt and generation throughput, and output agreement.

    python benchmarks/serving_variants.py [--models local/smollm2-135m-instruct local/gemma3-270m]
        [--variants NAME ...] [--sizes 512 2048 7000] [--reps 3] [--agreement N_BAMBOO] [--out table.csv]

Every variant is the same model served by llama.cpp (llama-cpp-python, in-process, 2 threads) with other
settings or another weight format made from the shipped GGUF (``lcrag.models.weights``). Measured per variant:

- prompt tokens per second at 512 / 2 048 / 7 000 tokens (real essays, a random first line so that nothing is
  reused), one completion token, as the server does it;
- generation tokens per second (64 greedy tokens after a 256-token prompt);
- agreement with the shipped weights under llama.cpp's defaults, on real book prompts: BAMBOO MeetingQA 4k
  (full document, the thesis's prompt) and needle-in-a-haystack prompts (2k / 7k tokens, three depths):
  identical greedy answers, and the largest absolute difference of the first answer token's top-5 logprobs.

Hygiene on a shared 2-core machine: all variants of a model are loaded at once and measured in interleaved
rounds (round r runs every variant once on the same prompt), so a slow spell of the machine hits all variants
alike; a measurement during which other processes used more than 8 % of the CPU is discarded and repeated
(at most 4 times); medians over ``--reps`` rounds; the load average is printed. Ratios are given against the
issue's reference (llama.cpp defaults, measured when the issue was filed) and against "llama.cpp defaults"
measured in the same rounds.
"""

from __future__ import annotations

import argparse
import os

# OMP_WAIT_POLICY is inherited, as the embedded server inherits it (lcrag.models.prefill.main): PASSIVE helps
# torch on an oversubscribed machine and costs llama.cpp's generation about 3x on a quiet one.
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from common import isolate  # noqa: E402

from lcrag.data import load_bamboo, load_essays  # noqa: E402
from lcrag.models import get_model, model_files, weights  # noqa: E402
from lcrag.papers.thesis import prompts as thesis  # noqa: E402
from lcrag.papers.thesis.needle.asking import needle_messages  # noqa: E402
from lcrag.papers.thesis.needle.haystack import build_haystack  # noqa: E402
from lcrag.papers.thesis.needle.needles import SIMPLE_QUESTION  # noqa: E402

# The issue's reference: llama.cpp defaults, 2 threads, prompt tok/s at 512 / 2048 / 7000 tokens.
ISSUE_REFERENCE = {
    "local/smollm2-135m-instruct": {512: 230.0, 2048: 192.0, 7000: 116.0},
    "local/gemma3-270m": {512: 513.0, 2048: 419.0, 7000: 243.0},
}
BASELINE = "llama.cpp defaults"
MAX_OTHERS = 0.08  # share of the machine's CPU other processes may use during a measurement
N_CTX = 8192  # enough for every prompt here; the window does not change llama.cpp's speed


@dataclass(frozen=True)
class Variant:
    name: str
    weights: str = weights.SHIPPED  # weight format of the model that evaluates everything
    settings: dict = field(default_factory=dict)  # llama.cpp settings on top of BASE_SETTINGS
    prefill: str | None = None  # weight format of a second model that evaluates long prompt segments
    sizes: tuple[int, ...] | None = None  # prompt sizes to measure (None: all)
    runtime: str = "llama.cpp"  # what evaluates the long prompt segments with the prefill weights
    compile: bool = False  # torch runtime: the layers fused by torch.compile


BASE_SETTINGS = {"n_threads": 2, "n_batch": 512, "n_ubatch": 512, "logits_all": False}
FA = {"flash_attn": True}
VARIANTS = [
    Variant(BASELINE),
    Variant("server defaults (logits_all)", settings={"logits_all": True}, sizes=(512, 2048)),
    Variant("flash_attn", settings=FA),
    Variant("flash_attn, ubatch 2048", settings={**FA, "n_batch": 2048, "n_ubatch": 2048}),
    Variant("flash_attn, KV q8_0", settings={**FA, "type_k": 8, "type_v": 8}, sizes=(512, 2048)),
    Variant("1 thread", settings={**FA, "n_threads": 1, "n_threads_batch": 1}, sizes=(512, 2048)),
    Variant("no mmap, mlock", settings={**FA, "use_mmap": False, "use_mlock": True}, sizes=(512, 2048)),
    Variant("q8_0 weights", "q8_0", FA),
    Variant("f16 weights", "f16", FA),
    Variant("bf16 weights", "bf16", FA, sizes=(512, 2048)),
    Variant("q4_0 weights", "q4_0", FA),
    Variant("iq4_nl weights", "iq4_nl", FA),
    Variant("f32 weights", "f32", FA),
    Variant("f32 weights, no flash_attn", "f32", {}),
    Variant("f32 weights, KV f32", "f32", {**FA, "type_k": 0, "type_v": 0}),
    Variant("f32 weights, KV f32, no flash_attn", "f32", {"type_k": 0, "type_v": 0}),
    Variant("f32 weights, ubatch 2048", "f32", {**FA, "n_batch": 2048, "n_ubatch": 2048}),
    Variant("f32 weights, ubatch 1024", "f32", {**FA, "n_batch": 1024, "n_ubatch": 1024}),
    Variant("f32 prefill + shipped decode", weights.SHIPPED, FA, prefill="f32"),
    Variant("f32 prefill, ubatch 2048", weights.SHIPPED, {**FA, "n_batch": 2048, "n_ubatch": 2048}, prefill="f32"),
    Variant("f32 prefill, ubatch 2048, KV f32", weights.SHIPPED,
            {**FA, "n_batch": 2048, "n_ubatch": 2048, "type_k": 0, "type_v": 0}, prefill="f32"),
    Variant("torch prefill + shipped decode", weights.SHIPPED, FA, prefill="f32", runtime="torch"),
    Variant("torch prefill, no flash_attn", weights.SHIPPED, {}, prefill="f32", runtime="torch",
            sizes=(512, 2048)),
    Variant("torch prefill, compiled", weights.SHIPPED, FA, prefill="f32", runtime="torch", compile=True),
]


# --------------------------------------------------------------------------- CPU accounting


def _cpu() -> tuple[float, float, float]:
    """(busy seconds of the machine, total seconds of the machine, CPU seconds of this process)."""
    with open("/proc/stat") as fh:
        v = [int(x) for x in fh.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    t = os.times()
    return (sum(v) - v[3] - v[4]) / hz, sum(v) / hz, t.user + t.system


def others_share(a: tuple, b: tuple) -> float:
    """Share of the machine's CPU that other processes used between two :func:`_cpu` snapshots."""
    busy, total, own = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    return max(0.0, (busy - own) / max(total, 1e-9))


RETRIES = 4  # --retries


def clean_timing(fn, retries: int | None = None) -> tuple[float, float, object]:
    """Run ``fn`` until other processes stayed below MAX_OTHERS of the CPU: (seconds, others' share, result)."""
    retries = RETRIES if retries is None else retries
    for attempt in range(retries + 1):
        a = _cpu()
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        share = others_share(a, _cpu())
        if share <= MAX_OTHERS or attempt == retries:
            return dt, share, out
        time.sleep(2.0)
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------- models


def open_variant(spec: str, v: Variant):
    """A ``llama_cpp.Llama`` for a variant (``PrefillLlama`` when it has a prefill model), with llama.cpp's
    extra buffers only where they are safe on this CPU (``lcrag.models.llama_load``)."""
    from lcrag.models import llama_load

    info = get_model(spec).info
    shipped = model_files.gguf_path(info)
    path = shipped if v.weights == weights.SHIPPED else weights.derive(shipped, v.weights).path
    kwargs = {**BASE_SETTINGS, "n_ctx": N_CTX, "verbose": False, **v.settings}
    if v.prefill is None:
        return llama_load.load(path, **kwargs)
    from lcrag.models.prefill import PrefillLlama

    prefill = shipped if v.prefill == weights.SHIPPED else weights.derive(shipped, v.prefill).path
    return llama_load.load(path, cls=PrefillLlama, prefill_model_path=str(prefill), prefill_runtime=v.runtime,
                           prefill_compile=v.compile, **kwargs)


# --------------------------------------------------------------------------- measurements


def essay_tokens(llm, n_tokens: int) -> list[int]:
    """``n_tokens`` tokens: BOS, a random first line (nothing reusable), then Paul Graham essays."""
    text = "".join(load_essays()["text"])
    head = llm.tokenize(f"[{uuid.uuid4().hex}]\n".encode(), add_bos=True)
    return head + llm.tokenize(text[: n_tokens * 8].encode(), add_bos=False)[: n_tokens - len(head)]


def prompt_rate(llm, tokens: list[int]) -> tuple[float, float]:
    def call():
        llm.reset()
        return llm.create_completion(tokens, max_tokens=1, temperature=0.0)

    dt, share, out = clean_timing(call)
    return out["usage"]["prompt_tokens"] / dt, share


def generation_rate(llm, tokens: list[int], n: int = 64) -> tuple[float, float]:
    """Greedy tokens per second after the prompt (end-of-text does not stop it)."""

    def call():
        llm.reset()
        stamps = []
        for _tok in llm.generate(tokens, temp=0.0, top_k=1):
            stamps.append(time.perf_counter())
            if len(stamps) > n:
                break
        return stamps

    _, share, stamps = clean_timing(call)
    return n / (stamps[-1] - stamps[0]), share


def speed_table(spec: str, variants: list[Variant], sizes: list[int], reps: int) -> pd.DataFrame:
    models = {v.name: open_variant(spec, v) for v in variants}
    warm = essay_tokens(next(iter(models.values())), 300)
    for m in models.values():  # first calls allocate buffers and fault the weights in: not measured
        prompt_rate(m, warm)
    rows = []
    for r in range(reps):
        for size in sizes:
            tokens = essay_tokens(next(iter(models.values())), size)
            for v in variants:
                if v.sizes is None or size in v.sizes:
                    rate, share = prompt_rate(models[v.name], tokens)
                    rows.append(
                        {
                            "model": spec,
                            "variant": v.name,
                            "measure": f"prompt {size}",
                            "tok/s": rate,
                            "others": share,
                            "rep": r,
                        }
                    )
                    print(
                        f"  {spec} {v.name:34} prompt {size:5}: {rate:7.1f} tok/s (others {share:.0%})",
                        flush=True,
                    )
        tokens = essay_tokens(next(iter(models.values())), 256)
        for v in variants:
            rate, share = generation_rate(models[v.name], tokens)
            rows.append(
                {
                    "model": spec,
                    "variant": v.name,
                    "measure": "generation",
                    "tok/s": rate,
                    "others": share,
                    "rep": r,
                }
            )
            print(f"  {spec} {v.name:34} generation: {rate:7.1f} tok/s (others {share:.0%})", flush=True)
        print(f"  round {r + 1}/{reps} done, load average {os.getloadavg()[0]:.2f}", flush=True)
    for m in models.values():
        m.close()
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- agreement


def book_prompts(spec: str, n_bamboo: int) -> list[tuple[str, list[dict] | str, int]]:
    """(name, chat messages or plain prompt, max answer tokens): BAMBOO MeetingQA 4k + needle prompts."""
    m = get_model(spec)
    chat = m.info.kind == "chat"
    out = []
    for row in load_bamboo("meetingqa", "4k").head(n_bamboo).itertuples():
        user = thesis.bamboo_prompt(row.question, list(row.options), [row.content])
        prompt = (
            [{"role": "system", "content": thesis.SYSTEM}, {"role": "user", "content": user}]
            if chat
            else user
        )
        out.append((f"bamboo meetingqa_4k {row.case}", prompt, 8))
    essays = list(load_essays()["text"])
    for ctx in (2000, 7000):
        for depth in (10, 50, 90):
            hay = build_haystack(m, essays, ctx, depth)
            msgs = needle_messages(hay)
            prompt = msgs if chat else f"{hay}\n\n{SIMPLE_QUESTION} Answer:"
            out.append((f"needle {ctx} depth {depth}", prompt, 32))
    return out


def prompt_tokens(llm, prompt: list[dict] | str) -> list[int]:
    """Token ids as the server builds them (the GGUF's chat template for messages)."""
    if isinstance(prompt, str):
        return llm.tokenize(prompt.encode(), add_bos=True)
    from llama_cpp import llama_chat_format

    fmt = llama_chat_format.Jinja2ChatFormatter(
        template=llm.metadata["tokenizer.chat_template"],
        eos_token=llm._model.token_get_text(llm.token_eos()),
        bos_token=llm._model.token_get_text(llm.token_bos()),
        stop_token_ids=[llm.token_eos()],
    )
    res = fmt(messages=prompt)
    return llm.tokenize(res.prompt.encode(), add_bos=not res.added_special, special=True)


def answer(llm, tokens: list[int], max_tokens: int) -> tuple[str, np.ndarray]:
    """The greedy answer and the first answer token's logprobs (the whole vocabulary)."""
    import llama_cpp

    llm.reset()
    llm.eval(tokens)
    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),))
    logits = logits.astype(np.float64)
    logp = logits - logits.max() - np.log(np.exp(logits - logits.max()).sum())
    out = llm.create_completion(tokens, max_tokens=max_tokens, temperature=0.0)
    return out["choices"][0]["text"], logp.astype(np.float32)


def agreement_table(spec: str, variants: list[Variant], n_bamboo: int, reference: str = BASELINE) -> pd.DataFrame:
    """Answers and first-token logprobs of each variant against those of the ``reference`` variant."""
    prompts = book_prompts(spec, n_bamboo)
    rows = []
    ref = None
    first = next(v for v in VARIANTS if v.name == reference)
    for v in [first] + [v for v in variants if v.name != reference]:
        llm = open_variant(spec, v)
        results = [answer(llm, prompt_tokens(llm, p), k) for _, p, k in prompts]
        llm.close()
        if ref is None:
            ref = results
        same = [a == b for (a, _), (b, _) in zip(results, ref, strict=True)]
        diffs = []  # over the reference's top-5 first answer tokens
        for (_, lp), (_, lp_ref) in zip(results, ref, strict=True):
            top5 = np.argsort(-lp_ref)[:5]
            diffs.append(float(np.abs(lp[top5] - lp_ref[top5]).max()))
        top1 = [int(lp.argmax()) == int(r.argmax()) for (_, lp), (_, r) in zip(results, ref, strict=True)]
        rows.append(
            {
                "model": spec,
                "variant": v.name,
                "reference": reference,
                "prompts": len(prompts),
                "identical answers": sum(same),
                "same first token": sum(top1),
                "max |dlogprob| top-5": max(diffs),
                "median |dlogprob| top-5": statistics.median(diffs),
                "differing": "; ".join(
                    f"{n}: {a!r} vs {b!r}"
                    for (n, _, _), (a, _), (b, _), s in zip(prompts, results, ref, same, strict=True)
                    if not s
                ),
            }
        )
        print(
            f"  {spec} {v.name:34} identical {sum(same)}/{len(prompts)}, max |dlogprob| {max(diffs):.3f}",
            flush=True,
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- report


def summarize(speed: pd.DataFrame) -> pd.DataFrame:
    med = speed.groupby(["model", "variant", "measure"], sort=False)["tok/s"].median().unstack("measure")
    cols = [c for c in med.columns if c.startswith("prompt")] + ["generation"]
    med = med[cols]
    out = []
    for (model, variant), row in med.iterrows():
        rec = {"model": model, "variant": variant}
        base = med.loc[(model, BASELINE)]
        for c in cols:
            rec[c] = row[c]
            if c.startswith("prompt"):
                size = int(c.split()[1])
                rec[f"x ref {size}"] = row[c] / ISSUE_REFERENCE[model][size]
                rec[f"x base {size}"] = row[c] / base[c]
        rec["gen x base"] = row["generation"] / base["generation"]
        mine = speed[(speed["model"] == model) & (speed["variant"] == variant)]
        rec["others (median)"] = mine["others"].median()  # CPU share other processes took while measuring
        out.append(rec)
    return pd.DataFrame(out)


def main() -> None:
    global RETRIES
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=list(ISSUE_REFERENCE))
    ap.add_argument("--variants", nargs="+", help="variant names (default: all)")
    ap.add_argument("--sizes", nargs="+", type=int, default=[512, 2048, 7000])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--agreement", type=int, default=10, help="BAMBOO prompts in the agreement check (0: skip)"
    )
    ap.add_argument("--agreement-variants", nargs="+", help="variants checked for agreement (default: all)")
    ap.add_argument("--reference", default=BASELINE, help="the variant the others are compared with")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--retries", type=int, default=RETRIES, help="repeats of a measurement disturbed by others")
    ap.add_argument("--out", type=Path, help="write the tables as CSV with this stem")
    args = ap.parse_args()
    isolate()
    RETRIES = args.retries
    variants = [v for v in VARIANTS if not args.variants or v.name in args.variants or v.name == BASELINE]
    pd.set_option("display.width", 250, "display.max_columns", 40, "display.max_colwidth", 120)
    print(f"load average at start: {os.getloadavg()}")
    for spec in args.models:
        if not args.no_speed:
            speed = speed_table(spec, variants, args.sizes, args.reps)
            table = summarize(speed)
            print(table.round(2).to_string(index=False))
            if args.out:
                speed.to_csv(f"{args.out}.{get_model(spec).info.slug}.speed-raw.csv", index=False)
                table.to_csv(f"{args.out}.{get_model(spec).info.slug}.speed.csv", index=False)
        if args.agreement:
            names = args.agreement_variants
            av = [v for v in variants if not names or v.name in names]
            agree = agreement_table(spec, av, args.agreement, args.reference)
            print(agree.drop(columns="differing").round(4).to_string(index=False))
            for _, r in agree.iterrows():
                if r["differing"]:
                    print(f"  {r['variant']}: {r['differing']}")
            if args.out:
                agree.to_csv(f"{args.out}.{get_model(spec).info.slug}.agreement.csv", index=False)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
