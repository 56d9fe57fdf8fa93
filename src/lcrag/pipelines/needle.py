"""Kamradt's needle-in-a-haystack test: haystack construction in the model's own tokens.

Essays are concatenated in a fixed order and repeated as needed, trimmed to ``context_tokens - buffer`` tokens
of the model under test, and the needle is inserted at the sentence boundary at or before the requested depth
(as in Kamradt's ``LLMNeedleHaystackTester``: back up to the last period before the insertion point).
Prompts are Kamradt's (inventory E2 notes).
"""

from __future__ import annotations

from collections.abc import Sequence

SIMPLE_NEEDLE = "The best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny day."
SIMPLE_QUESTION = "What is the best thing to do in San Francisco?"
SYSTEM = "You are a helpful AI bot that answers questions for a user. Keep your response short and direct"
QUESTION_SUFFIX = " Don't give information outside the document or repeat your findings"
BUFFER_TOKENS = 200


def haystack_tokens(essays: Sequence[str], encode, n_tokens: int) -> list[int]:
    """The first ``n_tokens`` tokens of the essays concatenated (and repeated while too short)."""
    if not essays:
        raise ValueError("no essays to build a haystack from")
    text = "".join(essays)
    tokens = encode(text)
    if not tokens:
        raise ValueError("the essays are empty")
    while len(tokens) < n_tokens:
        tokens = tokens + encode(text)
    return tokens[:n_tokens]


def insert_needle(tokens: list[int], needle: str, depth_percent: float, encode, decode) -> str:
    """The haystack text with the needle at ``depth_percent`` (0 = start, 100 = end), at a sentence boundary."""
    if not 0 <= depth_percent <= 100:
        raise ValueError(f"depth must be within 0..100, not {depth_percent}")
    needle_tokens = encode(" " + needle.strip() + " ")
    if depth_percent == 100:
        return decode(tokens + needle_tokens)
    cut = int(len(tokens) * depth_percent / 100)
    before = tokens[:cut]
    period = encode(".")
    while before and before[-1] not in period:  # back up to the end of a sentence
        before = before[:-1]
    return decode(before + needle_tokens + tokens[len(before):])


def build_haystack(model, essays: Sequence[str], context_tokens: int, depth_percent: float,
                   needle: str = SIMPLE_NEEDLE, buffer: int = BUFFER_TOKENS) -> str:
    """A haystack of ``context_tokens - buffer`` tokens of ``model`` with the needle at the given depth."""
    tok = model.tokenizer
    n = max(0, context_tokens - buffer) - len(tok.encode(" " + needle + " "))
    return insert_needle(haystack_tokens(essays, tok.encode, n), needle, depth_percent, tok.encode, tok.decode)


def needle_messages(haystack: str, question: str = SIMPLE_QUESTION) -> list[dict]:
    """Kamradt's three messages: system, the context, the question."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": haystack},
        {"role": "user", "content": question + QUESTION_SUFFIX},
    ]
