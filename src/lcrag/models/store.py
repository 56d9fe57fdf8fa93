"""The committed response store: real model outputs the published book re-executes against.

Layout: ``<store_dir>/<chapter>/<model-slug>.jsonl``, one JSON object per line::

    {"key": <sha256 of the request>, "response": {...}, "model": <spec>, "serving": {...}}

Prompts are referenced by their hash only (the key), which keeps the store compact. The run manifests next to
the executed notebooks say what produced the entries. Never edit an entry by hand: delete a file (or run with
``FRESH=1``) and the models are called again.

A recording in progress (a long recording committed as it goes, chapter by chapter, before any book run reads
all of it) is declared in ``<store_dir>/recordings.yml`` (:func:`recordings_in_progress`): its file serves requests
like any other, but the store checks do not call its unused entries orphans until the entry is removed; they check
that it is readable and holds its model's answers.

Modes (``LCRAG_STORE``): ``read`` (default) serves hits from the store; ``record`` also appends every response
the chapter obtains that the store does not hold yet (``make book`` runs in this mode); ``off`` ignores it.
Appends are single ``O_APPEND`` writes under a file lock (``<file>.jsonl.lock``, not committed), so concurrent writers never interleave lines; a line
cut short by a killed process is skipped on load and counted in :attr:`ResponseStore.skipped` (a file line), and the
next append cuts it off first, so that the new entry starts on a line of its own.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from lcrag import config, jsonl
from lcrag.models.cache import canonical_json, end_on_a_line, file_lock

STORE_LOCK_TIMEOUT_S = 120.0


def store_file_lock(path: Path):
    """The lock every writer of the store file ``path`` holds (an append, a fresh run's swap): ``<file>.lock``."""
    return file_lock(path.with_name(path.name + ".lock"), STORE_LOCK_TIMEOUT_S)


class ResponseStore:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else config.store_dir()
        self._index: dict[str, dict] | None = None
        self._lock = threading.Lock()
        self.skipped: list[tuple[str, int]] = []  # (file, line) of unreadable lines

    # ------------------------------------------------------------------ reading
    def files(self) -> list[Path]:
        return sorted(self.root.glob("*/*.jsonl")) if self.root.exists() else []

    def _load(self) -> dict[str, dict]:
        with self._lock:
            if self._index is None:
                index: dict[str, dict] = {}
                for path in self.files():
                    for entry in read_entries(path, self.skipped):
                        index.setdefault(entry["key"], entry["response"])
                self._index = index
            return self._index

    def get(self, key: str) -> dict | None:
        return self._load().get(key)

    def __contains__(self, key: str) -> bool:
        return key in self._load()

    def keys(self, chapter: str | None = None, model_slug: str | None = None, in_progress: bool = False) -> set[str]:
        """Keys stored for a chapter and model (all files when both are None), without the files of
        recordings in progress unless ``in_progress``."""
        paths = self.files()
        if not in_progress:
            skip = recordings_in_progress(self.root)
            paths = [p for p in paths if (p.parent.name, p.stem) not in skip]
        if chapter:
            paths = [p for p in paths if p.parent.name == chapter]
        if model_slug:
            paths = [p for p in paths if p.stem == model_slug]
        return {e["key"] for p in paths for e in read_entries(p, [])}

    # ------------------------------------------------------------------ writing
    def path(self, chapter: str, model_slug: str) -> Path:
        return self.root / chapter / f"{model_slug}.jsonl"

    def append(self, chapter: str, model_slug: str, key: str, response: dict, **meta) -> None:
        index = self._load()
        if key in index:
            return
        path = self.path(chapter, model_slug)
        path.parent.mkdir(parents=True, exist_ok=True)
        line = (canonical_json({"key": key, "response": response, **meta}) + "\n").encode("utf-8")
        with store_file_lock(path):
            end_on_a_line(path, _is_entry)  # a line a killed append cut short is cut off, not merged with this one
            with open(path, "ab") as fh:
                os.write(fh.fileno(), line)
        with self._lock:
            index[key] = response

    def stats(self) -> dict:
        files = self.files()
        return {
            "root": str(self.root),
            "files": len(files),
            "entries": sum(1 for p in files for _ in read_entries(p, [])),
            "bytes": sum(p.stat().st_size for p in files),
        }

    def tally(self, chapter: str | None = None) -> list[dict]:
        """One row per store file (a chapter and the model it records) and answering model: the calls, the model
        seconds they took when recorded, their prompt and completion tokens (``lcrag store stats``)."""
        rows = []
        for path in self.files():
            if chapter in (None, path.parent.name):
                rows += [{"chapter": path.parent.name, "file": path.stem, **row}
                         for row in tally(read_entries(path, self.skipped))]
        return rows


def tally(entries: list[dict]) -> list[dict]:
    """Calls, recorded model seconds (``latency_s``), prompt and completion tokens of store entries, per
    answering model (an entry without one counts under ``?``)."""
    out: dict[str, dict] = {}
    for e in entries:
        r = e["response"]
        row = out.setdefault(e.get("model") or "?", {"model": e.get("model") or "?", "calls": 0, "model_s": 0.0,
                                                     "prompt_tokens": 0, "completion_tokens": 0})
        row["calls"] += 1
        row["model_s"] += float(r.get("latency_s") or 0.0)
        row["prompt_tokens"] += int(r.get("prompt_tokens") or 0)
        row["completion_tokens"] += int(r.get("completion_tokens") or 0)
    return [{**row, "model_s": round(row["model_s"], 1)} for row in out.values()]


def _is_entry(text: bytes) -> bool:
    try:
        entry = json.loads(text)
    except ValueError:
        return False
    return isinstance(entry, dict) and "key" in entry and "response" in entry


def read_entries(path: Path, skipped: list) -> list[dict]:
    """The entries of one store file; a line that is not an entry (not a JSON object with a key and a response) is
    left out and named in ``skipped`` as ``(file, line number)``."""
    out = []
    for lineno, entry, problem in jsonl.objects(path):
        if problem or "key" not in entry or "response" not in entry:
            skipped.append((str(path), lineno))
        else:
            out.append(entry)
    return out


def skipped_hint(skipped: list[tuple[str, int]], limit: int = 3) -> str:
    """For an error on a missing answer: the store lines that are not entries (the answer may be on one), and what
    to do; "" when there are none."""
    if not skipped:
        return ""
    where = "; ".join(f"{f} line {n}" for f, n in skipped[:limit]) + (
        f" and {len(skipped) - limit} more" if len(skipped) > limit else "")
    return (f". The store skipped {len(skipped)} unreadable line(s), where the answer may be: {where}. Delete the "
            "line(s) (or restore the file from git), then record what they held again: `LCRAG_STORE=record lcrag run "
            "<chapter>` without LCRAG_OFFLINE appends only the answers the store lacks")


RECORDINGS_FILE = "recordings.yml"


def recordings_in_progress(root: Path | None = None) -> dict[tuple[str, str], dict]:
    """``(chapter, model slug) -> entry`` of ``<store_dir>/recordings.yml``: a list of ``{chapter, model,
    profile, started}`` for store files still being recorded (no book run reads them yet)."""
    import yaml

    from lcrag.models.registry import slug

    path = Path(root or config.store_dir()) / RECORDINGS_FILE
    if not path.exists():
        return {}
    entries = yaml.safe_load(path.read_text()) or []
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected a list of {{chapter, model, profile, started}}")
    out = {}
    for i, e in enumerate(entries, 1):
        if not isinstance(e, dict) or not {"chapter", "model"} <= set(e):
            raise ValueError(f"{path}: entry {i} needs a chapter and a model, got {e!r}")
        out[(e["chapter"], slug(e["model"]))] = e
    return out


_DEFAULT: ResponseStore | None = None


def default_store() -> ResponseStore:
    global _DEFAULT
    if _DEFAULT is None or _DEFAULT.root != config.store_dir():
        _DEFAULT = ResponseStore()
    return _DEFAULT


def stats() -> dict:
    return default_store().stats()
