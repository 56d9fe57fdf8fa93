"""Response cache: content-addressed, persisted on disk, atomic, safe with concurrent writers; identical requests
in flight in several processes are computed once (:meth:`DiskCache.computing`).

Layers, read in order: the committed response store (``lcrag.models.store``), then this disk cache.
A hit never touches the network. The API key is never part of a key nor stored.

Derived tables (:func:`cached_table`): tables that depend only on data, a model's identity and parameters (the
thesis's ranking distances, the same for every model a chapter runs on), computed once per cache directory.

Memos of one JSON file (:func:`json_memo`): small values a machine computes once per file it describes (a GGUF's
sha256, :func:`lcrag.models.model_files.model_digest`; llama.cpp's probe verdict,
:func:`lcrag.models.llama_load.extra_bufts_safe`).
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


def end_on_a_line(path: Path, whole: Callable[[bytes], bool] = lambda tail: False) -> None:
    """Make an append-only line file end with a newline before the next append: a last line without one was cut
    short by a killed writer (each append is one ``write`` of the line and its newline), so it is cut off, unless
    ``whole(tail)`` says it is complete (then its newline is added). Call it holding the file's lock."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, "rb+") as fh:
        size = fh.seek(0, os.SEEK_END)
        end = size
        while end > 0:  # the last newline, read backwards in blocks
            start = max(0, end - (1 << 16))
            fh.seek(start)
            block = fh.read(end - start)
            if b"\n" in block:
                end = start + block.rfind(b"\n") + 1
                break
            end = start
        if end == size:
            return
        fh.seek(end)
        if whole(fh.read()):
            fh.seek(size)
            fh.write(b"\n")
        else:
            fh.truncate(end)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file, or the whole new one, never a part.

    Writes a temp file in the same directory, fsyncs it, then ``os.replace``s it into place.
    Concurrent writers of the same path are safe: the last rename wins, every rename is whole.
    """
    atomic_write_chunks(path, (data,))


def atomic_write_chunks(path: Path, chunks: Iterable) -> int:
    """:func:`atomic_write_bytes` of the chunks (bytes-like objects) joined, without joining them in memory (a KV
    snapshot is about 1 GB: :mod:`lcrag.models.prefix_snapshot`); the number of bytes written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
            size = fh.tell()
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return size


def _json_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


class DiskCache:
    """One file per key under ``root/<key[:2]>/<key><suffix>``: the model answers (JSON, the default) and the
    embeddings (``.npy`` vectors, :mod:`lcrag.models.embeddings`) are cached this way.

    ``dumps`` turns a value into the file's bytes, ``loads`` the bytes back into a value; a file ``loads`` cannot
    read (a ``ValueError``, ``OSError`` or ``EOFError``: corrupt or partial, impossible through
    :func:`atomic_write_bytes`, but a user may copy files around) is a miss and reported through :attr:`corrupt`.
    """

    def __init__(self, root: Path | None = None, suffix: str = ".json",
                 dumps: Callable[[Any], bytes] = _json_bytes, loads: Callable[[bytes], Any] = json.loads):
        self.root = Path(root) if root else config.cache_dir() / "responses"
        self.suffix, self.dumps, self.loads = suffix, dumps, loads
        self.corrupt: list[Path] = []

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{self.suffix}"

    def get(self, key: str) -> Any:
        p = self.path(key)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            return None
        try:
            return self.loads(raw)
        except (ValueError, OSError, EOFError):
            self.corrupt.append(p)
            return None

    def put(self, key: str, value: Any) -> None:
        atomic_write_bytes(self.path(key), self.dumps(value))

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
        return sorted(p.stem for p in self.root.glob(f"*/*{self.suffix}"))

    def stats(self) -> dict:
        files = list(self.root.glob(f"*/*{self.suffix}")) if self.root.exists() else []
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


MEMO_LOCK_TIMEOUT_S = 600.0


def json_memo(path: Path, key: str, compute: Callable[[], Any], *, timeout: float = MEMO_LOCK_TIMEOUT_S,
              error: type[Exception] = TimeoutError) -> Any:
    """The value of ``key`` in the JSON object of the file ``path``: ``compute()`` (a JSON value) the first time,
    then written there (indented by 1), read back afterwards. Reading, computing and writing hold the lock
    ``path`` with the suffix ``.lock`` (:func:`file_lock`, ``timeout`` then ``error``), so processes sharing the file
    compute a key once and lose no other key; the file is replaced whole (:func:`atomic_write_bytes`). A missing
    or unreadable file, or one that holds no JSON object, is an empty memo."""
    path = Path(path)
    with file_lock(path.with_suffix(".lock"), timeout, error):
        try:
            memo = json.loads(path.read_text())
        except (FileNotFoundError, ValueError):
            memo = {}
        if not isinstance(memo, dict):
            memo = {}
        if key not in memo:
            memo[key] = compute()
            atomic_write_bytes(path, json.dumps(memo, indent=1).encode())
        return memo[key]


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


def _pickled(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _unpickled(raw: bytes) -> Any:
    try:
        return pickle.loads(raw)
    except pickle.UnpicklingError as exc:
        raise ValueError(str(exc)) from exc


def cached_table(kind: str, inputs: Any, compute: Callable[[], Any]) -> Any:
    """``compute()``, a table that depends only on ``inputs`` (JSON: the data it reads, a model's identity, its
    parameters) and on lcrag's code, computed once per cache directory: a :class:`DiskCache` of pickles under
    ``<cache>/tables/``, keyed by ``kind``, ``inputs`` and the package's code digest, so a change to any of them
    computes it again. Pickled (exact dtypes and floats; the cache directory holds what lcrag wrote). Processes
    that need the same table take turns: the first computes it, the others read it. An unreadable file is a miss."""
    tables = DiskCache(config.cache_dir() / "tables", ".pkl", _pickled, _unpickled)
    key = content_key({"kind": kind, "inputs": inputs, "code": _code_sha256()})
    table = tables.get(key)
    if table is None:
        with tables.computing(key, DERIVED_LOCK_TIMEOUT_S):
            table = tables.get(key)
            if table is None:
                table = compute()
                tables.put(key, table)
    return table
