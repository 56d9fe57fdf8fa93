"""Kamradt's 1-10 needle judge (the thesis's needle-in-a-haystack chapter): the request
(:func:`judge_messages`), the written score (:func:`parse_rating`) and the expected rating read from the judge's
logprobs (:func:`rating_distribution`, :func:`expected_rating`).
"""

from __future__ import annotations

import math
import re

# Kamradt's evaluator (gkamradt/LLMTest_NeedleInAHaystack, needlehaystack/evaluators/openai.py) is LangChain's
# ``labeled_score_string`` evaluator with one criterion, "accuracy", and the reference answer = the needle.
# The prompt below is LangChain's SCORING_TEMPLATE_WITH_REFERENCE with that criterion filled in, verbatim
# (Kamradt's criterion text keeps its indentation and its typo "numberical").

JUDGE_SYSTEM = "You are a helpful assistant."
KAMRADT_CRITERIA = {"accuracy": """
                Score 1: The answer is completely unrelated to the reference.
                Score 3: The answer has minor relevance but does not align with the reference.
                Score 5: The answer has moderate relevance but contains inaccuracies.
                Score 7: The answer aligns with the reference but has minor omissions.
                Score 10: The answer is completely accurate and aligns perfectly with the reference.
                Only respond with a numberical score"""}
_CRITERIA_INSTRUCTIONS = "For this evaluation, you should primarily consider the following criteria:\n"
_JUDGE_TEMPLATE = (
    "[Instruction]\nPlease act as an impartial judge and evaluate the quality of the response provided by an AI "
    "assistant to the user question displayed below. {criteria}[Ground truth]\n{reference}\nBegin your "
    "evaluation by providing a short explanation. Be as objective as possible. After providing your explanation, "
    'you must rate the response on a scale of 1 to 10 by strictly following this format: "[[rating]]", for '
    'example: "Rating: [[5]]".\n\n[Question]\n{input}\n\n[The Start of Assistant\'s Answer]\n{prediction}\n'
    "[The End of Assistant's Answer]"
)
RATING_PREFIX = "Rating: [["  # what a forced-format judge's answer is started with (see the needle pipeline)
_DOUBLE_BRACKETS = re.compile(r"\[\[(.*?)\]\]")
_LOOSE_RATING = re.compile(r"(?:rating|score)\s*[:=]?\s*\[*\s*(10|[1-9])\b", re.IGNORECASE)


def judge_messages(question: str, reference: str, answer: str) -> list[dict]:
    """Kamradt's judge request: LangChain's labeled 1-10 scoring prompt with his "accuracy" criterion."""
    criteria = "\n".join(f"{k}: {v}" for k, v in KAMRADT_CRITERIA.items()).strip()
    user = _JUDGE_TEMPLATE.format(criteria=_CRITERIA_INSTRUCTIONS + criteria + "\n", reference=reference,
                                  input=question, prediction=answer)
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


def parse_rating(text: str) -> tuple[int | None, str]:
    """The judge's 1-10 score and how it was read: ``"strict"`` (LangChain's parser: the first ``[[...]]`` holds
    1..10), ``"loose"`` ("Rating: 7", "score 7", "[[7" cut off by a stop sequence), or ``(None, "none")``."""
    text = text or ""
    m = _DOUBLE_BRACKETS.search(text)
    if m and m.group(1).strip() in {str(i) for i in range(1, 11)}:
        return int(m.group(1).strip()), "strict"
    m = _LOOSE_RATING.search(text) or re.search(r"\[\[\s*(10|[1-9])\b", text)
    if m:
        return int(m.group(1)), "loose"
    return None, "none"


_RATING_TOKEN = re.compile(r"\s*(10|[1-9])(\]\]?.*)?", re.DOTALL)  # "7", " 7", "7]]", "10" (a tokenizer's own)


def rating_distribution(first: dict[str, float], after_one: dict[str, float] | None = None) -> dict[int, float]:
    """The judge's probability of each rating 1..10, from its top logprobs at the rating's first token (``first``,
    the token after "Rating: [[") and, for a "1", at the token after it (``after_one``): tokenizers that write
    numbers digit by digit (Qwen, SmolLM2) start both 1 and 10 with "1", and "1" then "0" is a 10, "1" then
    anything else a 1 (``after_one`` is normalised over its own top tokens; without it a bare "1" counts as 1).
    A token that holds a whole rating ("10", "7]]") counts for it. Ratings outside the top logprobs get 0, so
    the values sum to the share of the judge's first token that is a rating at all."""
    p = dict.fromkeys(range(1, 11), 0.0)
    ten_share = 0.0
    if after_one:
        total = sum(math.exp(lp) for lp in after_one.values())
        ten_share = sum(math.exp(lp) for t, lp in after_one.items() if t.startswith("0")) / total if total else 0.0
    for token, logprob in first.items():
        m = _RATING_TOKEN.fullmatch(token)
        if not m:
            continue
        value, prob = int(m.group(1)), math.exp(logprob)
        if value == 1 and m.group(2) is None and token.strip() == "1":
            p[10] += prob * ten_share
            p[1] += prob * (1 - ten_share)
        else:
            p[value] += prob
    return p


def expected_rating(distribution: dict[int, float]) -> tuple[float, float]:
    """The judge's expected rating (the mean of ``distribution`` renormalised over the ratings) and the mass it
    rests on (the share of the first token that was a rating); NaN when no rating was among the top tokens."""
    mass = sum(distribution.values())
    if mass <= 0:
        return float("nan"), 0.0
    return sum(r * q for r, q in distribution.items()) / mass, mass
