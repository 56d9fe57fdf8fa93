"""Response cache: content-addressed, persisted on disk, atomic, safe with concurrent writers; identical requests
in flight in several processes are computed once (:meth:`DiskCache.computing`).

Layers, read in order: the committed response store (``lcrag.models.store``), then this disk cache.
A hit never touches the network. The API key is never part of a key nor stored.

Derived tables (:func:`cached_table`): tables that depend only on data, a model's identity and parameters (the
thesis's ranking distances, the same for every model a chapter runs on), computed once per cache directory.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lcrag import config


def canonical_json(obj: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, UTF-8 kept."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_key(payload: Any) -> str:
    """sha256 hex of the canonical JSON of ``payload``."""
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file, or the whole new one, never a part.

    Writes a temp file in the same directory, fsyncs it, then ``os.replace``s it into place.
    Concurrent writers of the same path are safe: the last rename wins, every rename is whole.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class DiskCache:
    """One JSON file per key under ``root/<key[:2]>/<key>.json``.

    A corrupt or partial file (impossible through :func:`atomic_write_bytes`, but a user may copy
    files around) is treated as a miss and reported through :attr:`corrupt`.
    """

    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else config.cache_dir() / "responses"
        self.corrupt: list[Path] = []

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        p = self.path(key)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            self.corrupt.append(p)
            return None

    def put(self, key: str, value: dict) -> None:
        atomic_write_bytes(self.path(key), canonical_json(value).encode("utf-8"))

    def computing(self, key: str, timeout: float, error: type[Exception] = TimeoutError):
        """Hold ``key``'s in-flight lock (``root/.inflight/<key>.lock``) for the block: processes (and threads)
        that need the same uncached response take turns, so the first computes it and the others, looking the
        cache up again inside the block, read it. The operating system drops the lock of a process that dies."""
        return file_lock(self.root / ".inflight" / f"{key}.lock", timeout, error)

    def __contains__(self, key: str) -> bool:
        return self.path(key).exists()

    def keys(self) -> list[str]:
        if not self.root.exists():
            return []
        return sorted(p.stem for p in self.root.glob("*/*.json"))

    def stats(self) -> dict:
        files = list(self.root.glob("*/*.json")) if self.root.exists() else []
        return {
            "root": str(self.root),
            "entries": len(files),
            "bytes": sum(f.stat().st_size for f in files),
        }


@contextlib.contextmanager
def file_lock(path: Path, timeout: float, error: type[Exception] = TimeoutError):
    """Hold an exclusive lock on the lock file ``path`` (created if needed) across processes, on any OS
    (``filelock``); raise ``error`` after ``timeout`` seconds of waiting."""
    from filelock import FileLock, Timeout

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(str(path), timeout=timeout):
            yield
    except Timeout:
        raise error(f"timed out waiting for the lock {path}") from None


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, read in 1 MiB blocks (GGUF files are hundreds of MB)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


DERIVED_LOCK_TIMEOUT_S = 3600.0


#: The package's files that can change what a chapter computes or shows.
CODE_SUFFIXES = (".py", ".yml", ".yaml", ".json", ".txt", ".csv", ".md")


def tree_sha256(root: Path, files: Iterable[Path]) -> str:
    """One digest of several files: their paths relative to ``root`` and their bytes."""
    h = hashlib.sha256()
    for f in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + file_sha256(f).encode() + b"\n")
    return h.hexdigest()


def code_sha256(package_dir: Path) -> str:
    """The ``lcrag`` package as it would run: every source and data file, no byte-code."""
    package_dir = Path(package_dir)
    files = [p for p in package_dir.rglob("*") if p.is_file() and p.suffix in CODE_SUFFIXES
             and "__pycache__" not in p.parts]
    return tree_sha256(package_dir, files)


@functools.cache
def _code_sha256() -> str:
    return code_sha256(Path(__file__).resolve().parent.parent)


def cached_table(kind: str, inputs: Any, compute: Callable[[], Any]) -> Any:
    """``compute()``, a table that depends only on ``inputs`` (JSON: the data it reads, a model's identity, its
    parameters) and on lcrag's code, computed once per cache directory: kept in
    ``<cache>/tables/<kind>-<key>.pkl``, keyed by ``inputs`` and the package's code digest, so a change to either
    computes it again. Pickled (exact dtypes and floats; the cache directory holds what lcrag wrote). Processes
    that need the same table take turns: the first computes it, the others read it. An unreadable file is a miss."""
    key = content_key({"kind": kind, "inputs": inputs, "code": _code_sha256()})
    path = config.cache_dir() / "tables" / f"{kind}-{key[:24]}.pkl"

    def read() -> Any:
        try:
            return pickle.loads(path.read_bytes())
        except (FileNotFoundError, pickle.UnpicklingError, EOFError, ValueError):
            return None

    table = read()
    if table is None:
        with file_lock(path.with_suffix(".lock"), DERIVED_LOCK_TIMEOUT_S):
            table = read()
            if table is None:
                table = compute()
                atomic_write_bytes(path, pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL))
    return table
