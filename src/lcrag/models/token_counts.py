"""The committed store of token counts: how many tokens of a model's tokenizer each long text the chapters counted
holds, kept beside the response store, so that the book rebuilt from a clean clone reads the counts instead of
tokenizing again (the LongRAG chapter spent 15 of its 20 s answering from the store in llama.cpp's tokenizer).

Layout, under the response store (``config.store_dir()``)::

    tokens/<tokenizer>/<chapter>.tsv    one line per text: sha256 of its UTF-8 bytes, a tab, its token count

``<tokenizer>`` is the tokenizer's name made file-safe and 8 hex digits of its identity (the GGUF's sha256), so
another model file never reads these counts. Lines are appended under a lock, one ``write`` each; a reader
takes well-formed complete lines only, and the next append cuts off a line a killed append left partial, so a
run killed mid-append loses at most the count it was writing.

``LCRAG_STORE`` decides as for responses and embeddings (:mod:`lcrag.models.embedding_store`): ``read`` (the
default) and ``record`` look counts up here, ``record`` also appends the counts it had to compute (to
``LCRAG_CHAPTER``'s file, ``misc`` outside a chapter run), ``off`` ignores the store. Short texts are not stored
(``MIN_CHARS``): tokenizing them costs less than a line.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from lcrag import config
from lcrag.models import embedding_store
from lcrag.models.cache import end_on_a_line, file_lock

MIN_CHARS = 2000  # shorter texts are tokenized each time (microseconds)
LOCK_TIMEOUT_S = 120.0


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class TokenCounts:
    """The stored counts of one tokenizer (every chapter's file), loaded on first use."""

    def __init__(self, name: str, identity: dict, root: Path | None = None):
        base = Path(root) if root else config.store_dir()
        self.folder = base / "tokens" / embedding_store.folder_name(name, identity)
        self._counts: dict[str, int] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, int]:
        with self._lock:
            if self._counts is None:
                counts: dict[str, int] = {}
                for path in sorted(self.folder.glob("*.tsv")):
                    text = path.read_text(encoding="ascii")
                    for line in text[: text.rfind("\n") + 1].splitlines():
                        key, _, n = line.partition("\t")
                        if len(key) == embedding_store.KEY_LENGTH and n.isdigit():
                            counts.setdefault(key, int(n))
                self._counts = counts
            return self._counts

    def get(self, text: str) -> int | None:
        return self._load().get(text_key(text))

    def __len__(self) -> int:
        return len(self._load())

    def append(self, chapter: str, text: str, n: int) -> bool:
        """Store the count of ``text`` in ``chapter``'s file unless it is stored; whether it was added."""
        key, counts = text_key(text), self._load()
        if key in counts:
            return False
        safe = embedding_store.file_stem(chapter)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{safe}.tsv"
        with file_lock(self.folder / f"{safe}.lock", LOCK_TIMEOUT_S):
            end_on_a_line(path)  # a killed append's partial line (perhaps a count cut short) is cut off
            with open(path, "ab") as fh:
                os.write(fh.fileno(), f"{key}\t{int(n)}\n".encode("ascii"))
        with self._lock:
            counts[key] = int(n)
        return True


_STORES: dict[Path, TokenCounts] = {}


def counts_for(name: str, identity: dict) -> TokenCounts | None:
    """The counts the current ``LCRAG_STORE`` mode reads (None for ``off``), loaded once per process."""
    if config.store_mode() == "off":
        return None
    return embedding_store.one_per_folder(_STORES, TokenCounts(name, identity))


def count(tokenizer, text: str) -> int:
    """The number of tokens of ``text`` in ``tokenizer``: from the store where it holds the text's count (a
    tokenizer with an ``identity``, a text of ``MIN_CHARS`` or more), else counted (and, when recording, stored)."""
    store = None
    if len(text) >= MIN_CHARS and config.store_mode() != "off":
        identity = getattr(tokenizer, "identity", None)  # a GGUF's sha256: computed once per machine
        store = counts_for(tokenizer.name, identity) if identity else None
    n = store.get(text) if store is not None else None
    if n is None:
        n = len(tokenizer.encode(text))
        if store is not None and embedding_store.recording():
            store.append(embedding_store.chapter(), text, n)
    return n
