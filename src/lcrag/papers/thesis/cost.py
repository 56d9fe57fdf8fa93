"""Tokens and cost per run: prompt tokens and context characters, the Full/RAG ratios, and what a run would cost
at the GPT-3.5-turbo-0125 prices the thesis quotes (with our token counts); what a pipeline saves against Full at
what accuracy (:func:`token_saving`, :func:`best_saving`: claim H15).
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.thesis.accuracy import RUN, paired_difference, run_label
from lcrag.papers.thesis.numbers import GPT35_USD_PER_M, NO_PIPELINE
from lcrag.stats import bootstrap_ci


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


def token_saving(scored: pd.DataFrame, pipeline: str, prompt: str, *, n_boot: int = 2000, seed: int = 0,
                 level: float = 0.95) -> dict:
    """What RAG ``pipeline`` saves against Full under ``prompt``, on the cases of ``scored`` both answered: the mean
    per-case ratio Full / RAG of prompt tokens with its bootstrap 95 % interval, RAG's accuracy, and Full − RAG
    (:func:`lcrag.papers.thesis.accuracy.paired_difference`: the chapter's paired bootstrap, its interval at
    ``level``), as ``{pipeline, n, accuracy, ratio, ratio_ci, full_minus_rag, level}`` (NaN where they share no
    case)."""
    keys = ["task", "case", "prompt_tokens", "correct"]
    full = scored[(scored["setting"] == "full") & (scored["prompt"] == prompt)][keys]
    rag = scored[(scored["setting"] == "rag") & (scored["pipeline"] == pipeline) & (scored["prompt"] == prompt)]
    both = full.merge(rag[keys], on=["task", "case"], suffixes=("_full", "_rag")).dropna()
    ratios = (both["prompt_tokens_full"] / both["prompt_tokens_rag"]).to_numpy(float)
    nan = float("nan")
    return {
        "pipeline": pipeline,
        "n": len(both),
        "accuracy": float(both["correct_rag"].mean()) if len(both) else nan,
        "ratio": float(ratios.mean()) if len(ratios) else nan,
        "ratio_ci": bootstrap_ci(ratios, n_boot=n_boot, seed=seed) if len(ratios) else (nan, nan),
        "full_minus_rag": paired_difference(scored, ("full", NO_PIPELINE, prompt), ("rag", pipeline, prompt),
                                            n_boot=n_boot, seed=seed, level=level),
        "level": level,
    }


def best_saving(scored: pd.DataFrame, prompt: str, *, n_boot: int = 2000, seed: int = 0) -> dict | None:
    """:func:`token_saving` of the most accurate RAG pipeline under ``prompt``, chosen and measured on the cases
    every pipeline answered (the grid's cases), a tie going to the one with fewer prompt tokens, with ``of`` (the
    pipelines it was chosen from) and ``tied`` (the others as accurate); None with fewer than two pipelines (no
    choice: the best pipeline is not known). Chosen as the best of ``of`` on the same cases, its Full − RAG
    interval is Bonferroni's: at ``1 - 0.05 / of`` (99 % for five), so that picking the luckiest pipeline does not
    pass for a finding."""
    rag = scored[(scored["setting"] == "rag") & (scored["prompt"] == prompt)]
    answered = [set(zip(g["task"], g["case"], strict=True)) for _, g in rag.groupby("pipeline", sort=False)]
    if len(answered) < 2:
        return None
    common = set.intersection(*answered)
    scored = scored[[k in common for k in zip(scored["task"], scored["case"], strict=True)]]
    rag = rag[[k in common for k in zip(rag["task"], rag["case"], strict=True)]]
    runs = rag.groupby("pipeline", sort=False).agg(accuracy=("correct", "mean"), tokens=("prompt_tokens", "mean"))
    best = runs.sort_values(["accuracy", "tokens"], ascending=[False, True], kind="stable").index[0]
    tied = [p for p in runs.index[runs["accuracy"] == runs.loc[best, "accuracy"]] if p != best]
    from lcrag.book.verdicts import CONFIDENCE

    level = 1 - (1 - CONFIDENCE) / len(answered)
    return {**token_saving(scored, best, prompt, n_boot=n_boot, seed=seed, level=level), "of": len(answered),
            "tied": tied}
