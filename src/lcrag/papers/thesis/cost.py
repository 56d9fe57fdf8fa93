"""Tokens and cost per run: prompt tokens and context characters, the Full/RAG ratios, and what a run would cost
at the GPT-3.5-turbo-0125 prices the thesis quotes (with our token counts).
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.thesis.accuracy import RUN, run_label
from lcrag.papers.thesis.numbers import GPT35_USD_PER_M


def token_table(scored: pd.DataFrame, n_cases: int = 158) -> pd.DataFrame:
    """Per run: mean prompt tokens and context characters, the Full/RAG ratios (per case, same prompt) and
    what the run would cost on ``n_cases`` cases at GPT-3.5-turbo-0125 prices (with our token counts)."""
    kept = scored[scored["kept"]]
    full = kept[kept["setting"] == "full"].set_index(["task", "case", "prompt"])
    rows = []
    for (setting, pipeline, prompt), g in kept.groupby(RUN, sort=False):
        ratio_t = ratio_c = float("nan")
        if setting == "rag":
            idx = [k for k in zip(g["task"], g["case"], g["prompt"], strict=True) if k in full.index]
            if idx:
                gg = g.set_index(["task", "case", "prompt"]).loc[idx]
                ratio_t = float((full.loc[idx, "prompt_tokens"] / gg["prompt_tokens"]).mean())
                ratio_c = float((full.loc[idx, "context_chars"] / gg["context_chars"]).mean())
        pt, ct = g["prompt_tokens"].mean(), g["completion_tokens"].mean()
        cost = n_cases * (pt * GPT35_USD_PER_M["input"] + ct * GPT35_USD_PER_M["output"]) / 1e6
        rows.append(
            {
                "run": run_label(setting, pipeline),
                "setting": setting,
                "pipeline": pipeline,
                "prompt": prompt,
                "n": len(g),
                "prompt_tokens": pt,
                "context_chars": g["context_chars"].mean(),
                "full_over_rag_tokens": ratio_t,
                "full_over_rag_chars": ratio_c,
                f"usd_per_{n_cases}_cases_gpt35": cost,
            }
        )
    return pd.DataFrame(rows)
