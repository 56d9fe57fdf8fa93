"""LongRAG's CoT-guided filter, as the released code reads it.

5. **CoT-guided filter**: one LLM call that writes a thought process over all chunks, then one call per chunk
   that answers ``{"status": ...}`` (:func:`parse_status`); nothing kept means everything kept
   (:func:`filtered`). The prompts are in :mod:`lcrag.papers.longrag.prompts`; the calls are made in
   :func:`lcrag.papers.longrag.answering.answer_question`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from lcrag.text import as_text

_TRUE = re.compile("True|true")


def parse_status(response: str | None) -> bool:
    """A filter judgement as the released code reads it: JSON ``{"status": ...}`` whose value is "true" in any
    case; if the response is not such JSON, whether it contains ``True`` or ``true`` anywhere."""
    text = as_text(response)
    try:
        value = json.loads(text)["status"]
        return str(value).lower() == "true"
    except (ValueError, TypeError, KeyError, AttributeError):
        return bool(_TRUE.search(text))


def filtered(chunks: Sequence[str], keep: Sequence[bool]) -> tuple[list[str], bool]:
    """The chunks judged relevant, and whether the code's fallback fired (none kept: all are kept)."""
    if len(chunks) != len(keep):
        raise ValueError(f"{len(keep)} judgements for {len(chunks)} chunks")
    kept = [c for c, k in zip(chunks, keep, strict=True) if k]
    return (kept, False) if kept else (list(chunks), True)
