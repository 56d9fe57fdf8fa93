"""JSON Lines, read one way: the datasets' ``.jsonl`` files (:mod:`lcrag.data`), the response store
(:mod:`lcrag.models.store`, and a ``--fresh`` run's merge of a store file: :mod:`lcrag.book.fresh`) and the run's
usage log (:mod:`lcrag.book.manifest`).

Each reader reports a bad line by its number (1-based) and keeps reading; what a bad line costs is the caller's
choice (a dataset drops the record and says so, the store skips the entry, the manifest counts it as malformed).
Nothing here imports pandas: the embedded model servers read the store too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path


def split(data: bytes) -> list[bytes]:
    """The lines of ``data``, split on ``\\n`` only, without their newlines.

    Bytes are split on ``\\n`` so a stray ``\\r`` or other control character inside a string cannot cut a
    record in two (``str.splitlines`` would, and ``bytes.splitlines`` on ``\\r``). The empty piece after a final
    newline is not a line; a last line without its newline (cut short by a killed writer) is one.
    """
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    return pieces


def lines(path: Path) -> Iterator[tuple[int, str | None, str | None]]:
    """Yield ``(line_number, text, problem)`` for each line (1-based) of the file, as :func:`split` cuts it.

    A line that is not UTF-8 yields ``text=None`` and a problem.
    """
    for number, raw in enumerate(split(Path(path).read_bytes()), start=1):
        try:
            yield number, raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            yield number, None, f"not UTF-8: {exc}"


def _parse(text: str) -> tuple[dict | None, str | None]:
    """The JSON object one line's ``text`` holds and None, or None and why not (not JSON, not an object)."""
    try:
        record = json.loads(text)
    except ValueError as exc:
        return None, f"not JSON ({getattr(exc, 'msg', exc)})"
    return (record, None) if isinstance(record, dict) else (None, "not a JSON object")


def record(raw: bytes) -> dict | None:
    """The JSON object one line (bytes, as :func:`split` gives it) holds; None when it holds none (not UTF-8, not
    JSON, not an object)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return _parse(text)[0]


def objects(path: Path) -> Iterator[tuple[int, dict | None, str | None]]:
    """Yield ``(line_number, record, problem)`` for each non-blank line: the JSON object it holds, or None and why
    not (not UTF-8, not JSON, not an object)."""
    for number, text, problem in lines(path):
        if text is not None and not text.strip():
            continue
        if problem is None:
            rec, problem = _parse(text)
            if rec is not None:
                yield number, rec, None
                continue
        yield number, None, problem
