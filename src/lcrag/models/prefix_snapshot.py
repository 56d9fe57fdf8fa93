"""A restart-proof prefix cache for the embedded server: one snapshot on disk, per model, of the KV cache of its
latest long prompt.

Why. llama-cpp-python reuses the longest prefix a prompt shares with the previous one, in memory only: when the
server ends (a session ends, an idle stop, a crash), the next long prompt is evaluated from position 0 again.
For the 1.5B Qwen model a 32k-token prompt costs about an hour on a 2-core CPU, and the needle recording (prompts
that share long prefixes, asked in prefix order) paid it after every restart.

How. After :class:`lcrag.models.prefill.PrefillLlama` has evaluated a prompt segment of at least ``min_tokens``
tokens with its prefill model, :meth:`PrefixSnapshots.save` writes sequence 0's state
(``llama_state_seq_get_data``) and the token ids it holds to the snapshot file, atomically, replacing the
previous one; its JSON header names what makes it valid (:func:`validity`: the model files, the prefill runtime
and options, the context size and cache layout, llama-cpp-python's version). When a long segment is to be
evaluated, :meth:`PrefixSnapshots.resume` loads a snapshot whose header matches and whose tokens share with the
prompt a prefix longer, by at least ``min_tokens // 4``, than what the context already holds (``llama_state_seq_
set_data``, the cells beyond the shared prefix removed); only the rest is evaluated. The last prompt token is
never loaded: the shipped model evaluates it, and its logits pick the first answer token. A snapshot that does
not match, is truncated or unreadable is ignored with a line in the server log, never an error.

What it changes: no answer's computation. A loaded prefix holds the keys and values the same prefill model
computed for the same tokens, as llama-cpp-python's own in-memory reuse does; so the snapshot is not a serving
setting (not recorded in run manifests nor in the response store's ``serving`` settings).

Not for sliding-window models (Gemma-3): their window cache keeps only the cells of the last window, which a
shorter shared prefix may lack; :func:`sliding_window` tells them, and the server does not snapshot them.

File layout: ``MAGIC``, the header's length (u64), the header (JSON: ``valid``, ``n_tokens``, ``state_bytes``),
the tokens (int32), the state.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import llama_cpp
import numpy as np

from lcrag.models.cache import atomic_write_chunks

MAGIC = b"LCRAGKV1"
FORMAT = 1
MIN_TOKENS = 4096  # the shortest prefilled segment that is saved (--prefix_snapshot_min_tokens)
_HEAD = struct.Struct("<8sQ")
_MAX_HEADER = 1 << 20


class SnapshotError(Exception):
    """A snapshot file that cannot be used (truncated, unreadable, made for another model or setting)."""


@dataclass(frozen=True)
class Snapshot:
    """A snapshot file's header and tokens; its state (``state_bytes`` at ``state_offset``) stays on disk until
    :func:`read_state`."""

    header: dict
    tokens: np.ndarray
    state_offset: int
    state_bytes: int


# --------------------------------------------------------------------------- pure checks


def file_identity(path: str | os.PathLike) -> dict:
    """What identifies a weight file cheaply: its absolute path, size and modification time."""
    st = os.stat(path)
    return {"path": str(Path(path).resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def mismatch(found: object, expected: dict) -> str | None:
    """The first setting in which a snapshot's ``valid`` header differs from ``expected`` (None: it matches)."""
    if not isinstance(found, dict):
        return "no validity header"
    for key in sorted(set(found) | set(expected)):
        if found.get(key) != expected.get(key):
            return f"{key}: {found.get(key)!r}, here {expected.get(key)!r}"
    return None


def shared_prefix(a, b) -> int:
    """The length of the longest common prefix of two token sequences."""
    a, b = np.asarray(a), np.asarray(b)
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n


def tokens_to_load(snapshot_tokens, prompt, n_cached: int, min_gain: int) -> int:
    """How many leading tokens of ``prompt`` to take from a snapshot: the prefix they share, at most all prompt
    tokens but the last (evaluated by the shipped model: its logits pick the first answer token), when it is at
    least ``min_gain`` (and at least 1) tokens longer than the ``n_cached`` the context already holds; else 0."""
    k = min(shared_prefix(snapshot_tokens, prompt), len(prompt) - 1)
    return k if k > 0 and k >= n_cached + max(1, min_gain) else 0


def sliding_window(llm) -> bool:
    """True for a model with a sliding-window attention cache (Gemma-3), which is not snapshotted."""
    return llama_cpp.llama_model_n_swa(llm._model.model) > 0


def validity(llm, model_path: str, prefill_model_path: str, prefill_runtime: str, **prefill_options) -> dict:
    """What a snapshot made by ``llm`` is valid for: the same weight files (:func:`file_identity`), prefill runtime
    and options, context size, KV cache layout (attention kernel, K and V types) and llama-cpp-python."""
    cp = llm.context_params
    return {
        "format": FORMAT,
        "model": file_identity(model_path),
        "prefill_model": file_identity(prefill_model_path),
        "prefill_runtime": prefill_runtime,
        "prefill_options": dict(sorted(prefill_options.items())),
        "n_ctx": llm.n_ctx(),
        "cache": {"flash_attn_type": int(cp.flash_attn_type), "type_k": int(cp.type_k), "type_v": int(cp.type_v)},
        "llama_cpp": llama_cpp.__version__,
    }


# --------------------------------------------------------------------------- the file


def write(path: Path, valid: dict, tokens, state) -> int:
    """Write a snapshot atomically (``state``: any bytes-like object); its size in bytes."""
    toks = np.ascontiguousarray(tokens, dtype="<i4")
    header = json.dumps({"valid": valid, "n_tokens": len(toks), "state_bytes": memoryview(state).nbytes},
                        sort_keys=True).encode()
    return atomic_write_chunks(path, (_HEAD.pack(MAGIC, len(header)), header, toks.tobytes(), state))


def read(path: Path) -> Snapshot:
    """A snapshot's header and tokens; :class:`SnapshotError` when the file is not a whole snapshot."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD.size)
            if len(head) < _HEAD.size:
                raise SnapshotError("truncated (no header)")
            magic, hlen = _HEAD.unpack(head)
            if magic != MAGIC or hlen > _MAX_HEADER:
                raise SnapshotError("not a prefix snapshot")
            header = json.loads(fh.read(hlen))
            n, state_bytes = int(header["n_tokens"]), int(header["state_bytes"])
            offset = _HEAD.size + hlen + 4 * n
            size = os.fstat(fh.fileno()).st_size
            if size != offset + state_bytes:
                raise SnapshotError(f"truncated or damaged: {size} bytes, the header says {offset + state_bytes}")
            tokens = np.frombuffer(fh.read(4 * n), "<i4")
    except (KeyError, TypeError, ValueError) as exc:  # json's errors are ValueErrors
        raise SnapshotError(f"unreadable header ({exc})") from exc
    return Snapshot(header, tokens, offset, state_bytes)


def read_state(path: Path, snap: Snapshot):
    """The snapshot's sequence state, read straight into a buffer llama.cpp can take."""
    buf = (ctypes.c_uint8 * snap.state_bytes)()
    view, got = memoryview(buf).cast("B"), 0
    with open(path, "rb", buffering=0) as fh:
        fh.seek(snap.state_offset)
        while got < snap.state_bytes:
            n = fh.readinto(view[got:])
            if not n:
                raise SnapshotError(f"truncated: {got} of {snap.state_bytes} state bytes")
            got += n
    return buf


def seq_state(ctx, seq_id: int = 0):
    """A copy of ``llama_state_seq_get_data`` of a llama.cpp context (a ``llama_context_p``)."""
    size = llama_cpp.llama_state_seq_get_size(ctx, seq_id)
    buf = (ctypes.c_uint8 * size)()
    got = llama_cpp.llama_state_seq_get_data(ctx, buf, size, seq_id)
    return memoryview(buf).cast("B")[:got]


# --------------------------------------------------------------------------- the server's use


class PrefixSnapshots:
    """The snapshot of one server's model: saved after long prefilled segments, loaded when it saves work."""

    def __init__(self, path: str | os.PathLike, valid: dict, min_tokens: int = MIN_TOKENS,
                 log: Callable[[str], None] = lambda line: print(line, flush=True)):
        self.path, self.valid, self.min_tokens, self.log = Path(path), valid, min_tokens, log
        self.loaded = 0  # tokens taken from snapshots by this server, all loads together
        self.saved = 0  # snapshots written

    def resume(self, llm, tokens: list[int]) -> tuple[list[int], bool]:
        """The tokens ``llm`` (a ``Llama`` about to evaluate ``tokens`` after its ``n_tokens``) still has to
        evaluate, after loading the snapshot's share of the prompt when that is worth it; and whether it was."""
        if not self.path.exists():
            return tokens, False
        n = llm.n_tokens
        prompt = np.concatenate([llm.input_ids[:n], np.asarray(tokens, dtype=llm.input_ids.dtype)])
        t0 = time.perf_counter()
        try:
            snap = read(self.path)
            why = mismatch(snap.header.get("valid"), self.valid)
            if why:
                raise SnapshotError(f"made for another setting ({why})")
            k = tokens_to_load(snap.tokens, prompt, n, self.min_tokens // 4)
            if not k:
                return tokens, False
            state = read_state(self.path, snap)
        except (OSError, SnapshotError) as exc:
            self.log(f"lcrag prefix snapshot {self.path} ignored: {exc}")
            return tokens, False
        ctx = llm._ctx
        ctx.kv_cache_seq_rm(-1, 0, -1)
        if llama_cpp.llama_state_seq_set_data(ctx.ctx, state, len(state), 0) != len(state):
            ctx.kv_cache_seq_rm(-1, 0, -1)
            llm.n_tokens = 0
            self.log(f"lcrag prefix snapshot {self.path} refused by llama.cpp: the prompt is evaluated from 0")
            return prompt.tolist(), True
        ctx.kv_cache_seq_rm(-1, k, -1)
        llm.input_ids[:k] = prompt[:k]
        llm.n_tokens = k
        self.loaded += k
        self.log(f"lcrag prefix snapshot: loaded {k} of its {len(snap.tokens)} tokens ({len(state)} bytes) in "
                 f"{time.perf_counter() - t0:.2f} s; {len(prompt) - k} prompt tokens left to evaluate")
        return prompt[k:].tolist(), True

    def save(self, llm) -> None:
        """Write ``llm``'s sequence 0 and its tokens as the snapshot (a failure is logged, never raised)."""
        t0, n = time.perf_counter(), llm.n_tokens
        try:
            size = write(self.path, self.valid, llm.input_ids[:n], seq_state(llm._ctx.ctx))
        except OSError as exc:
            self.log(f"lcrag prefix snapshot {self.path} not saved: {exc}")
            return
        self.saved += 1
        self.log(f"lcrag prefix snapshot: saved {n} tokens ({size} bytes) in {time.perf_counter() - t0:.2f} s "
                 f"to {self.path}")
