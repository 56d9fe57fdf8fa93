"""The committed store of embeddings: the vectors the chapters computed, kept beside the response store, so that
the book rebuilt from a clean clone reads them instead of running the embedding model again.

Layout, under the response store (``config.store_dir()``)::

    embeddings/<embedder>/embedder.json    the embedder's identity and vector size
    embeddings/<embedder>/<chapter>.keys   one cache key per line (Embedder.key: the identity and the exact text)
    embeddings/<embedder>/<chapter>.f32    the vectors, float32 little-endian, one row per key, in the same order

``<embedder>`` is the spec made file-safe and 8 hex digits of the identity (which holds the model package's
version), so another version of a model never reads these vectors. The two files of a chapter are appended to
under a lock, vectors first: a key line is only written after its row, and a reader takes the rows of the
complete key lines, so a run killed mid-append loses at most its last batch.

``LCRAG_STORE`` decides as for responses: ``read`` (default) and ``record`` look vectors up here, ``record``
also appends what had to be computed (to ``LCRAG_CHAPTER``'s files, ``misc`` outside a chapter run), ``off``
ignores the store. Vectors are stored exactly as computed (float32), so a chapter reads what it would compute.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import numpy as np

from lcrag import config
from lcrag.models.cache import atomic_write_bytes, canonical_json, content_key, file_lock

LOCK_TIMEOUT_S = 120.0
KEY_LENGTH = 64  # sha256 hex


def folder_name(name: str, identity: dict) -> str:
    """``local--all-minilm-l6-v2-1a2b3c4d``: the spec, file-safe, and a digest of the identity."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name.replace("/", "--")).strip("-")[:80]
    return f"{safe}-{content_key(identity)[:8]}"


class EmbeddingStore:
    """The stored vectors of one embedder (every chapter's files), loaded on first use."""

    def __init__(self, name: str, identity: dict, root: Path | None = None):
        self.folder = (Path(root) if root else config.store_dir()) / "embeddings" / folder_name(name, identity)
        self.identity = identity
        self._rows: dict[str, np.ndarray] | None = None
        self._lock = threading.Lock()

    def _dim(self) -> int | None:
        meta = self.folder / "embedder.json"
        return int(json.loads(meta.read_text(encoding="utf-8"))["dim"]) if meta.exists() else None

    def _load(self) -> dict[str, np.ndarray]:
        with self._lock:
            if self._rows is None:
                rows: dict[str, np.ndarray] = {}
                dim = self._dim()
                for keys_path in sorted(self.folder.glob("*.keys")) if dim else []:
                    keys = [k for k in keys_path.read_text(encoding="ascii").split("\n") if len(k) == KEY_LENGTH]
                    vectors = np.fromfile(keys_path.with_suffix(".f32"), dtype="<f4")
                    n = min(len(keys), vectors.size // dim)
                    block = vectors[: n * dim].reshape(n, dim)
                    for key, vec in zip(keys[:n], block, strict=True):
                        rows.setdefault(key, vec)
                self._rows = rows
            return self._rows

    def get(self, key: str) -> np.ndarray | None:
        return self._load().get(key)

    def __len__(self) -> int:
        return len(self._load())

    def append(self, chapter: str, keys: list[str], vectors: np.ndarray) -> int:
        """Add the vectors of ``keys`` that are not stored yet to ``chapter``'s files; how many were added."""
        rows = self._load()
        vectors = np.ascontiguousarray(vectors, dtype="<f4")
        new = [i for i, k in enumerate(keys) if k not in rows]
        new = list({keys[i]: i for i in new}.values())  # a key twice in one call is stored once
        if not new:
            return 0
        safe = file_stem(chapter)
        self.folder.mkdir(parents=True, exist_ok=True)
        with file_lock(self.folder / f"{safe}.lock", LOCK_TIMEOUT_S):
            dim = self._dim()
            if dim is None:
                dim = int(vectors.shape[1])
                meta = {"identity": self.identity, "dim": dim}
                atomic_write_bytes(self.folder / "embedder.json", (canonical_json(meta) + "\n").encode())
            if vectors.shape[1] != dim:
                raise ValueError(f"{self.folder}: vectors of size {vectors.shape[1]}, the store holds {dim}")
            _align(self.folder / f"{safe}.keys", self.folder / f"{safe}.f32", dim)
            with open(self.folder / f"{safe}.f32", "ab") as fh:
                os.write(fh.fileno(), vectors[new].tobytes())
            with open(self.folder / f"{safe}.keys", "ab") as fh:
                os.write(fh.fileno(), "".join(f"{keys[i]}\n" for i in new).encode("ascii"))
        with self._lock:
            for i in new:
                rows[keys[i]] = vectors[i]
        return len(new)


def _align(keys_path: Path, vectors_path: Path, dim: int) -> None:
    """Cut what a killed append left half-written (a partial key line, rows without a key), so that the next
    append starts on a row boundary."""
    text = keys_path.read_bytes() if keys_path.exists() else b""
    complete = text[: text.rfind(b"\n") + 1]
    n_rows = vectors_path.stat().st_size // (4 * dim) if vectors_path.exists() else 0
    n = min(complete.count(b"\n"), n_rows)
    if len(text) != len(complete) or complete.count(b"\n") != n:
        atomic_write_bytes(keys_path, b"".join(line + b"\n" for line in complete.split(b"\n")[:n]))
    if vectors_path.exists() and vectors_path.stat().st_size != n * dim * 4:
        os.truncate(vectors_path, n * dim * 4)


_STORES: dict[Path, EmbeddingStore] = {}
_STORES_LOCK = threading.Lock()


def file_stem(chapter: str) -> str:
    """A chapter's file name in a store folder (``misc`` outside a chapter run)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", chapter) or "misc"


def one_per_folder(stores: dict, store):
    """The store of ``store.folder`` this process loaded first (``stores``: folder -> store), else ``store``."""
    with _STORES_LOCK:
        return stores.setdefault(store.folder, store)


def store_for(name: str, identity: dict) -> EmbeddingStore | None:
    """The store the current ``LCRAG_STORE`` mode reads (None for ``off``), loaded once per process."""
    if config.store_mode() == "off":
        return None
    return one_per_folder(_STORES, EmbeddingStore(name, identity))


def recording() -> bool:
    return config.store_mode() == "record"


def chapter() -> str:
    return os.environ.get("LCRAG_CHAPTER") or "misc"
