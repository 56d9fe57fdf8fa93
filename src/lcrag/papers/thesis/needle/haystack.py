"""Kamradt's haystacks: the essays in the model's own tokens, cut to ``context_tokens - buffer`` tokens, with the
needle inserted at ``depth`` % of it, backed up to the end of a sentence (depth 100: appended). Several needle
sentences (RULER variants) are spread evenly from ``depth`` to the end.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from lcrag.papers.thesis.needle.needles import SIMPLE_NEEDLE, Needle

BUFFER_TOKENS = 200
#: The shortest context length a needle run accepts (checked before a kernel starts): the buffer, a needle and some
#: haystack around it (the smoke profile's 400 tokens hold one); a needle set that still does not fit fails in the
#: chapter, naming the tokens it needs (:func:`make_haystack`).
MIN_CONTEXT_TOKENS = 300
KAMRADT_SEP = "\n"  # Kamradt's default needle is "\nThe best thing ... day.\n"


@functools.lru_cache(maxsize=4)
def _encoded(encode, text: str) -> tuple[int, ...]:
    """``encode(text)``, memoised: the essays (640k characters) are encoded once per tokenizer and process."""
    return tuple(encode(text))


def haystack_tokens(essays: Sequence[str], encode, n_tokens: int) -> list[int]:
    """The first ``n_tokens`` tokens of the essays concatenated (and repeated while too short)."""
    if not essays:
        raise ValueError("no essays to build a haystack from")
    text = "".join(essays)
    once = _encoded(encode, text)
    if not once:
        raise ValueError("the essays are empty")
    tokens = list(once)
    while len(tokens) < n_tokens:
        tokens += once
    return tokens[:n_tokens]


def insertion_point(tokens: Sequence[int], depth_percent: float, periods: set[int]) -> int:
    """Where Kamradt's tester puts a needle: ``int(len * depth / 100)``, moved back until the previous token is a
    period (the start of a sentence), or 0; depth 100 appends."""
    if not 0 <= depth_percent <= 100:
        raise ValueError(f"depth must be within 0..100, not {depth_percent}")
    if depth_percent == 100:
        return len(tokens)
    cut = int(len(tokens) * depth_percent / 100)
    while cut > 0 and tokens[cut - 1] not in periods:
        cut -= 1
    return cut


def insert_needle(tokens: list[int], needle: str, depth_percent: float, encode, decode, sep: str = " ") -> str:
    """The haystack text with the needle at ``depth_percent`` (0 = start, 100 = end), at a sentence boundary.

    The needle is framed by ``sep`` on both sides (the quickstart's " "; Kamradt's "\\n")."""
    at = insertion_point(tokens, depth_percent, set(encode(".")))
    return decode(tokens[:at] + encode(sep + needle.strip() + sep) + tokens[at:])


def build_haystack(model, essays: Sequence[str], context_tokens: int, depth_percent: float,
                   needle: str = SIMPLE_NEEDLE, buffer: int = BUFFER_TOKENS, sep: str = " ") -> str:
    """A haystack of ``context_tokens - buffer`` tokens of ``model`` with the needle at the given depth."""
    tok = model.tokenizer
    n = max(0, context_tokens - buffer) - len(tok.encode(sep + needle + sep))
    return insert_needle(haystack_tokens(essays, tok.encode, n), needle, depth_percent, tok.encode, tok.decode,
                         sep)


@dataclass(frozen=True)
class Haystack:
    """One haystack: its text, the token offsets of its needle sentences, and its length in tokens."""

    text: str
    context_tokens: int  # the requested context length (haystack + buffer)
    depth: float  # the requested depth, %
    needle_at: tuple[int, ...]  # token offset of each needle sentence in the haystack's tokens
    n_tokens: int  # haystack + needle tokens (= context_tokens - buffer)
    needle_tokens: int

    @property
    def actual_depth(self) -> float:
        """Where the (first) needle starts, in % of the haystack's tokens."""
        return 100 * self.needle_at[0] / self.n_tokens


def make_haystack(base: Sequence[int], tokenizer, context_tokens: int, depth: float, needle: Needle,
                  buffer: int = BUFFER_TOKENS, sep: str = KAMRADT_SEP) -> Haystack:
    """Kamradt's haystack of ``context_tokens - buffer`` tokens from the essay tokens ``base``.

    One needle sentence: at ``depth`` (sentence boundary). Several (RULER variants): Kamradt's multi-needle
    tester, the first at ``depth``, the next evenly spaced between it and the end.
    """
    parts = [tokenizer.encode(sep + s.strip() + sep) for s in needle.sentences]
    n_needle = sum(len(p) for p in parts)
    n = context_tokens - buffer - n_needle
    if n <= 0:
        raise ValueError(f"context of {context_tokens} tokens leaves no room for a haystack (buffer {buffer}, "
                         f"needle {n_needle} tokens)")
    if len(base) < n:
        raise ValueError(f"only {len(base)} essay tokens for a haystack of {n}: build `base` longer")
    tokens = list(base[:n])
    periods = set(tokenizer.encode("."))
    step = (100 - depth) / len(parts)
    offsets = []
    d = depth
    for p in parts:
        at = insertion_point(tokens, d, periods)
        tokens[at:at] = p
        offsets = [o + len(p) if o >= at else o for o in offsets] + [at]
        d += step
    return Haystack(tokenizer.decode(tokens), context_tokens, float(depth), tuple(offsets), len(tokens), n_needle)
