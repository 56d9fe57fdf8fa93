"""``--fresh``: re-record one run's responses in its chapter's store file for the model, losing nothing if it fails.

A store file holds every profile's and parameter setting's entries of one chapter and model (the keys are hashes of
the requests). ``--fresh`` re-records what *this run* asks: the file is moved aside to ``<file>.before-fresh`` so
that no answer comes from it, the run records into a new file, and then

- the run succeeded: the new entries replace the old ones with the same key, in place, and the new keys follow; the
  old file's other entries (other profiles, other parameters) are kept (``lcrag store prune`` removes those no book
  run uses);
- the run failed or was interrupted: the old file is put back byte for byte (the answers the run received stay in
  the disk cache, so the next run resumes from there).

A run killed before it could do either leaves ``<file>.before-fresh``: the next run of the chapter and model puts it
back first (:func:`recover`). ``<file>.fresh.lock`` keeps two fresh runs of one file apart.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from lcrag import jsonl
from lcrag.book.profiles import UsageError
from lcrag.models.store import store_file_lock

ASIDE, LOCK = ".before-fresh", ".fresh.lock"


def _beside(sf: Path, suffix: str) -> Path:
    return sf.with_name(sf.name + suffix)


def recover(sf: Path) -> bool:
    """Put back the store file a killed fresh run set aside (unless a fresh run of it is going on); whether it did."""
    from filelock import FileLock, Timeout

    aside = _beside(sf, ASIDE)
    if not aside.exists():
        return False
    try:
        with FileLock(str(_beside(sf, LOCK)), timeout=0), store_file_lock(sf):
            if not aside.exists():
                return False
            os.replace(aside, sf)
            return True
    except Timeout:  # a fresh run holds it: its own end restores or merges
        return False


def _key(line: bytes) -> str | None:
    entry = jsonl.record(line)
    return entry.get("key") if entry is not None else None


def merged(old: bytes, new: bytes) -> bytes:
    """``old``'s lines with each one whose key ``new`` re-recorded replaced by ``new``'s line, then ``new``'s other
    lines (a line that is not an entry is kept as it is, for ``lcrag store check`` to name). Lines are the store
    reader's (:func:`lcrag.jsonl.split`: cut on ``\\n`` only)."""
    fresh: dict[str, bytes] = {}
    for line in jsonl.split(new):
        k = _key(line)
        if k is not None:
            fresh.setdefault(k, line)
    out, used = [], set()
    for line in jsonl.split(old):
        k = _key(line)
        if k in fresh:
            line = fresh[k]
            used.add(k)
        if line.strip():
            out.append(line)
    out += [line for k, line in fresh.items() if k not in used]
    return b"".join(line + b"\n" for line in out)


@contextlib.contextmanager
def rerecording(sf: Path) -> Iterator[dict]:
    """Set ``sf`` aside for the block; the caller sets ``state["ok"]`` when the run succeeded. Yields
    ``{"ok": False, "set_aside": path or None}``."""
    from filelock import FileLock, Timeout

    recover(sf)
    sf.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(_beside(sf, LOCK)), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise UsageError(f"{sf} is being re-recorded by another --fresh run: wait for it to finish") from None
    aside = _beside(sf, ASIDE)
    state: dict = {"ok": False, "set_aside": None}
    try:
        with store_file_lock(sf):
            if sf.exists():
                os.replace(sf, aside)
                state["set_aside"] = str(aside)
        yield state
    finally:
        try:
            with store_file_lock(sf):
                if aside.exists():
                    if state["ok"]:
                        data = merged(aside.read_bytes(), sf.read_bytes() if sf.exists() else b"")
                        tmp = _beside(sf, ".merge")
                        tmp.write_bytes(data)
                        os.replace(tmp, sf)
                        aside.unlink()
                    else:
                        os.replace(aside, sf)
        finally:
            lock.release()
