"""Shared pieces of the benchmark scripts: prompts of an exact token length from real essays, a clean env."""

from __future__ import annotations

import os
import tempfile
import time
import uuid

from lcrag.data import load_essays
from lcrag.models import get_model


def isolate() -> None:
    """Empty cache, no store: every call below reaches the model."""
    os.environ["LCRAG_CACHE_DIR"] = tempfile.mkdtemp(prefix="lcrag-bench-")
    os.environ["LCRAG_STORE"] = "off"


def essay_prompt(spec: str, n_tokens: int, nonce: bool = True) -> str:
    """About ``n_tokens`` tokens (the model's own) of Paul Graham essays; a random first line defeats any
    prefix cache so that every prompt is processed in full."""
    m = get_model(spec)
    head = f"[{uuid.uuid4().hex}]\n" if nonce else ""
    tokens = m.tokenizer.encode("".join(load_essays()["text"]))
    return head + m.tokenizer.decode(tokens[: n_tokens - m.count_tokens(head)])


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0
