"""The solver and the scorers: greedy answers to every prompt (:func:`solve`), then three readings of each answer
(:func:`score`): BAMBOO's raw scorer, a lenient letter parser (the thesis parsed its answers by hand; the main score),
and, where the endpoint returns logprobs, the argmax over A-D of the first position.
"""

from __future__ import annotations

import re

import pandas as pd

from lcrag.metrics.multiple_choice import LETTERS, bamboo_eval_letter, lenient_letter, logprob_letter
from lcrag.papers.thesis.prompts import SYSTEM
from lcrag.text import as_text


def solve(
    model,
    requests: pd.DataFrame,
    *,
    system: str | None = SYSTEM,
    max_tokens: int = 8,
    logprobs: bool = False,
    top_logprobs: int = 20,
    context_policy: str = "truncate_middle",
    max_context_tokens: int | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Ask every prompt greedily (temperature 0); one row per request with the response and its accounting.

    With ``logprobs`` the top alternatives of the first generated position are kept as ``lp_A`` … ``lp_D``
    (NaN for a letter outside the top ``top_logprobs``). ``max_context_tokens`` cuts each text prompt to that many
    tokens first (smoke profile only).
    """
    rows = requests.to_dict("records")
    calls = []
    for row in rows:
        prompt = row["prompt_text"]
        if max_context_tokens and isinstance(prompt, str):  # a chat conversation (the quickstart's needle) goes whole
            prompt, _ = model.fit(prompt, max_context_tokens, "truncate_middle")
        call = {
            "prompt": prompt,
            "system": system,
            "max_tokens": max_tokens,
            "temperature": 0.0,
            "context_policy": context_policy,
        }
        if logprobs:
            call.update(logprobs=True, top_logprobs=top_logprobs)
        calls.append(call)
    out = []
    for row, r in zip(rows, model.map("ask", calls, progress=progress), strict=True):
        rec = {k: v for k, v in row.items() if k != "prompt_text"}
        rec.update(
            response=r.text,
            prompt_tokens=r.prompt_tokens,
            completion_tokens=r.completion_tokens,
            latency_s=r.latency_s,
            truncated=r.truncation is not None,
            source=r.source,
            model=model.spec,
        )
        top = r.top_logprobs(0) if logprobs else {}
        letters = _letter_logprobs(top)
        rec.update({f"lp_{x}": letters.get(x, float("nan")) for x in LETTERS})
        rec["pred_logprob"] = logprob_letter(top) if top else None
        out.append(rec)
    return pd.DataFrame(out)


def _letter_logprobs(top: dict[str, float]) -> dict[str, float]:
    best: dict[str, float] = {}
    for token, lp in (top or {}).items():
        t = token.strip().strip("(").upper()
        if t in LETTERS:
            best[t] = max(lp, best.get(t, float("-inf")))
    return best


REFUSAL = re.compile(
    r"\b(none|cannot|can't|unable|not (?:mentioned|provided|stated|enough|possible)|no (?:answer|information)|"
    r"sorry|don't know|insufficient)\b",
    re.IGNORECASE,
)


def answer_status(response: str, letter: str | None) -> str:
    """``letter`` (a letter was found), ``refusal`` (no letter, refusal words) or ``unparseable``."""
    if isinstance(letter, str):  # pandas holds a missing letter as NaN, not None
        return "letter"
    return "refusal" if REFUSAL.search(as_text(response)) else "unparseable"


def score(answers: pd.DataFrame) -> pd.DataFrame:
    """Add the three readings of each answer and their correctness.

    - ``pred_raw``: BAMBOO's evaluate.py (first character of the first line);
    - ``pred_lenient``: the first letter the answer commits to (the thesis "manually parsed" its answers;
      this is the main score of the chapter);
    - ``pred_logprob``: argmax over A-D of the first position (None without logprobs);
    - ``status``: letter / refusal / unparseable (for the lenient reading).
    """
    df = answers.copy()
    df["pred_raw"] = df["response"].map(bamboo_eval_letter)
    df["pred_lenient"] = df["response"].map(lenient_letter)
    if "pred_logprob" not in df:
        df["pred_logprob"] = None
    for kind in ("raw", "lenient", "logprob"):
        df[f"correct_{kind}"] = df[f"pred_{kind}"] == df["answer"]
    df["correct"] = df["correct_lenient"]
    df["status"] = [answer_status(r, p) for r, p in zip(df["response"], df["pred_lenient"], strict=True)]
    return df
