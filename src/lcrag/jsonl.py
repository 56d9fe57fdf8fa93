"""JSON Lines, read one way: the datasets' ``.jsonl`` files (:mod:`lcrag.data`), the response store
(:mod:`lcrag.models.store`) and the run's usage log (:mod:`lcrag.book.manifest`).

Each reader reports a bad line by its number (1-based) and keeps reading; what a bad line costs is the caller's
choice (a dataset drops the record and says so, the store skips the entry, the manifest counts it as malformed).
Nothing here imports pandas: the embedded model servers read the store too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path


def lines(path: Path) -> Iterator[tuple[int, str | None, str | None]]:
    """Yield ``(line_number, text, problem)`` for each line (1-based), splitting on ``\\n`` only.

    Bytes are split on ``\\n`` so a stray ``\\r`` or other control character inside a string cannot cut a
    record in two (``str.splitlines`` would). The empty piece after a final newline is not a line.
    A line that is not UTF-8 yields ``text=None`` and a problem.
    """
    pieces = Path(path).read_bytes().split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    for number, raw in enumerate(pieces, start=1):
        try:
            yield number, raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            yield number, None, f"not UTF-8: {exc}"


def objects(path: Path) -> Iterator[tuple[int, dict | None, str | None]]:
    """Yield ``(line_number, record, problem)`` for each non-blank line: the JSON object it holds, or None and why
    not (not UTF-8, not JSON, not an object)."""
    for number, text, problem in lines(path):
        if text is not None and not text.strip():
            continue
        if problem is None:
            try:
                record = json.loads(text)
            except ValueError as exc:
                problem = f"not JSON ({getattr(exc, 'msg', exc)})"
            else:
                if isinstance(record, dict):
                    yield number, record, None
                    continue
                problem = "not a JSON object"
        yield number, None, problem
