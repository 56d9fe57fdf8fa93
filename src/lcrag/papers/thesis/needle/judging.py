"""Kamradt's 1-10 judge on every answer (the reference: the needle; the input: the question)."""

from __future__ import annotations

import pandas as pd

from lcrag.metrics import needle as metrics
from lcrag.progress import progress as bar


def default_judge(run_model, fallback: str) -> str:
    """The judge of a run that names none: the run's model when it is a chat model (as strong a judge as the model
    under test: the 1.5B's needle run is judged by the 1.5B), else ``fallback`` (a base model such as Gemma-3 does
    not follow the judge's instructions)."""
    return run_model.spec if run_model.info.kind == "chat" else fallback


def judge_prompt(judge, messages: list[dict]) -> str | None:
    """The judge's chat template applied to ``messages``, as text, when the judge is a local GGUF chat model
    (None otherwise): the book then starts the judge's answer itself with "Rating: [[" (see :func:`judge_cells`)."""
    if not (judge.info.is_local and judge.info.kind == "chat"):
        return None
    chat_prompt = getattr(judge.tokenizer, "chat_prompt", None)  # a GGUF tokenizer's (a proxy has none)
    return chat_prompt(messages) if chat_prompt is not None else None


def judge_cells(judge, answers: pd.DataFrame, max_tokens: int = 256, progress: bool = False) -> pd.DataFrame:
    """Kamradt's 1-10 judge on every answer (reference: the needle; input: the question).

    A local chat judge gets Kamradt's prompt through its own chat template and its answer is started with
    ``"Rating: [["`` (a 4-token completion that stops at ``"]]"``): the score without LangChain's explanation,
    which a 135M model cannot give in a parseable form and which would cost ~10x more. Other judges get the
    prompt as chat messages and answer freely (LangChain's parser, then a loose one). Identical requests are
    answered once (the cache), so repeated answers cost nothing.
    """
    rows = answers.to_dict("records")
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["needle"], str(rows[i]["response"])))
    scores: dict[int, tuple] = {}
    for i in bar(order, enabled=progress, desc=f"judge {judge.spec}"):
        row = rows[i]
        needle = row["_needle"]
        msgs = metrics.judge_messages(needle.question, needle.text, str(row["response"]))
        prompt = judge_prompt(judge, msgs)
        if prompt is not None:
            r = judge.complete(prompt + metrics.RATING_PREFIX, max_tokens=4, temperature=0.0, stop=["]]"])
            text = metrics.RATING_PREFIX + r.text
            score, how = metrics.parse_rating(text)
            how = "forced" if score is not None else how
        else:
            r = judge.chat(msgs, max_tokens=max_tokens, temperature=0.0)
            text = r.text
            score, how = metrics.parse_rating(text)
        scores[i] = (score, how, text)
    out = answers.copy()
    out["judge"] = judge.spec
    out["judge_score"] = [scores[i][0] for i in range(len(rows))]
    out["judge_parse"] = [scores[i][1] for i in range(len(rows))]
    out["judge_text"] = [scores[i][2] for i in range(len(rows))]
    return out
