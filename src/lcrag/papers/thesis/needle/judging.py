"""Kamradt's 1-10 judge on every answer (the reference: the needle; the input: the question)."""

from __future__ import annotations

import pandas as pd

from lcrag.judges import kamradt
from lcrag.progress import progress as bar
from lcrag.text import counts_in_words

TOP_LOGPROBS = 20  # the most an OpenAI-compatible endpoint returns; the ten ratings need at most ten


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
    which a 135M model cannot give in a parseable form and which would cost ~10x more. Its top logprobs at the
    rating give ``judge_expected``, the mean of its rating distribution (:func:`rating_read`), and
    ``judge_mass``, the probability that it wrote a rating at all. Other judges get the prompt as chat messages
    and answer freely (LangChain's parser, then a loose one; no distribution). Identical requests are answered
    once (the cache), so repeated answers cost nothing.
    """
    rows = answers.to_dict("records")
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["needle"], str(rows[i]["response"])))
    scores: dict[int, tuple] = {}
    for i in bar(order, enabled=progress, desc=f"judge {judge.spec}"):
        row = rows[i]
        needle = row["_needle"]
        msgs = kamradt.judge_messages(needle.question, needle.text, str(row["response"]))
        prompt = judge_prompt(judge, msgs)
        expected, mass = float("nan"), float("nan")
        if prompt is not None:
            r = judge.complete(prompt + kamradt.RATING_PREFIX, max_tokens=4, temperature=0.0, stop=["]]"],
                               logprobs=True, top_logprobs=TOP_LOGPROBS)
            text = kamradt.RATING_PREFIX + r.text
            score, how = kamradt.parse_rating(text)
            how = "forced" if score is not None else how
            expected, mass = rating_read(judge, prompt, r)
        else:
            r = judge.chat(msgs, max_tokens=max_tokens, temperature=0.0)
            text = r.text
            score, how = kamradt.parse_rating(text)
        scores[i] = (score, how, text, expected, mass)
    out = answers.copy()
    out["judge"] = judge.spec
    for k, col in enumerate(("judge_score", "judge_parse", "judge_text", "judge_expected", "judge_mass")):
        out[col] = [scores[i][k] for i in range(len(rows))]
    return out


#: How the judge's score was read (the ``judge_parse`` column), in words.
PARSE_WORDS = {"forced": "read from the answer the book started with \"Rating: [[\"",
               "strict": "read by LangChain's parser (\"[[n]]\")", "loose": "read by a looser parser",
               "none": "without a score the parsers could read"}


def parse_sentence(scored: pd.DataFrame) -> str:
    """How the judge's scores were read, in words: "all 624 read from the answer the book started with …"."""
    return counts_in_words(scored["judge_parse"], PARSE_WORDS)


def rating_read(judge, prompt: str, forced) -> tuple[float, float]:
    """The judge's expected rating and the mass it rests on (:func:`~lcrag.judges.kamradt.expected_rating`), from
    the forced answer's top logprobs at the rating; when a bare "1" is among them (a 1, or the first digit of a
    10), the token after it decides between the two: read from the forced answer when it wrote "1", else asked
    for (one more token, the prompt continued with "1")."""
    first = forced.top_logprobs(0)
    after_one = None
    if "1" in first:
        if forced.logprobs and forced.logprobs[0]["token"] == "1" and len(forced.logprobs) > 1:
            after_one = forced.top_logprobs(1)
        else:
            after_one = judge.complete(prompt + kamradt.RATING_PREFIX + "1", max_tokens=1, temperature=0.0,
                                       logprobs=True, top_logprobs=TOP_LOGPROBS).top_logprobs(0)
    return kamradt.expected_rating(kamradt.rating_distribution(first, after_one))
