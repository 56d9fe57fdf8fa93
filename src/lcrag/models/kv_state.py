"""llama.cpp's KV cache and the torch prefill: the cache of a sequence read out of a llama.cpp context, the keys
and values of the new tokens (:class:`lcrag.models.torch_prefill.TorchPrefill`) added, the whole written back.

How it reaches llama.cpp. :func:`read_seq_state` / :func:`write_seq_state` decode and encode llama.cpp's
sequence-state format (``llama_state_seq_get_data`` / ``llama_state_seq_set_data``; ``src/llama-kv-cache.cpp``:
per cache a stream count, a cell count, each cell's position and sequence ids, then per layer the K rows and the
V rows, or V transposed without flash attention; Gemma-3's ``iswa`` cache writes its global layers' cache, then
its sliding-window layers' cache, which holds only the cells inside the window of the last position).
:func:`prefill` reads the context's cache for sequence 0 (the prefix already evaluated), evaluates the new
tokens on top of it and writes the whole sequence back; the caller then evaluates the last prompt token with
llama.cpp, whose logits pick the first answer token.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass

import numpy as np
import torch

from lcrag.models.torch_gguf import GGML_F16, GGML_F32, HParams, TorchPrefillError
from lcrag.models.torch_prefill import LayerKV, TorchPrefill

STATE_MAGIC = 0xAF143CD8  # llama-context.cpp's io_magic, first in a sequence state, then the sequence id


class CacheGapError(TorchPrefillError):
    """The context's cache lacks cells the new tokens attend to (evaluate the prompt from position 0)."""


# --------------------------------------------------------------------------- llama.cpp sequence state


@dataclass
class CacheState:
    """One llama.cpp KV cache's cells for a sequence: positions, and per layer K and V (tokens, width). A layer's
    K or V may also be a tuple of arrays whose rows follow each other (the cached rows, then the new ones):
    :func:`write_seq_state` writes them in place without joining them first."""

    positions: np.ndarray  # int32, one per cell
    k: list[np.ndarray | tuple[np.ndarray, ...]]
    v: list[np.ndarray | tuple[np.ndarray, ...]]
    k_type: int
    v_type: int
    v_trans: bool


_NP_KV = {GGML_F16: np.float16, GGML_F32: np.float32}


def read_seq_state(buf: bytes | memoryview, n_caches: int) -> list[CacheState]:
    """Decode ``llama_state_seq_get_data`` of a context with ``n_caches`` KV caches (1, or 2 for Gemma-3's
    global + sliding-window caches), one stream each, for one sequence."""
    mv, off, out = memoryview(buf), 0, []

    def take(fmt: str):
        nonlocal off
        vals = struct.unpack_from(fmt, mv, off)
        off += struct.calcsize(fmt)
        return vals

    magic, _seq_id = take("<Ii")
    if magic != STATE_MAGIC:
        raise TorchPrefillError(f"not a llama.cpp sequence state (magic {magic:#x})")

    def take_array(dtype, count: int) -> np.ndarray:
        nonlocal off
        a = np.frombuffer(mv, dtype, count, off)
        off += a.nbytes
        return a

    for _ in range(n_caches):
        (n_stream,) = take("<I")
        if n_stream != 1:
            raise TorchPrefillError(f"KV cache with {n_stream} streams is not supported")
        (n_cells,) = take("<I")
        if n_cells == 0:
            out.append(None)
            continue
        meta = take_array(np.int32, 3 * n_cells).reshape(n_cells, 3)  # pos, n_seq_id (1), seq_id
        if not (meta[:, 1] == 1).all():
            raise TorchPrefillError("KV cells shared between sequences are not supported")
        v_trans, n_layer = take("<II")
        ks, vs = [], []
        k_type = v_type = None
        for _ in range(n_layer):
            k_type, row = take("<iQ")
            dt = _kv_dtype(k_type)
            ks.append(take_array(dt, n_cells * row // np.dtype(dt).itemsize).reshape(n_cells, -1))
        for _ in range(n_layer):
            if v_trans:
                v_type, _el, width = take("<iII")
                dt = _kv_dtype(v_type)
                vs.append(take_array(dt, width * n_cells).reshape(width, n_cells).T)
            else:
                v_type, row = take("<iQ")
                dt = _kv_dtype(v_type)
                vs.append(take_array(dt, n_cells * row // np.dtype(dt).itemsize).reshape(n_cells, -1))
        out.append(CacheState(meta[:, 0].copy(), ks, vs, k_type, v_type, bool(v_trans)))
    if off != len(mv):
        raise TorchPrefillError(f"sequence state has {len(mv) - off} unread bytes: not the expected layout")
    return out


def _kv_dtype(ggml_type: int):
    if ggml_type not in _NP_KV:
        raise TorchPrefillError(f"KV cache type {ggml_type} is not supported (f16 or f32 only)")
    return _NP_KV[ggml_type]


def _encoded_size(caches: list[CacheState | None]) -> int:
    size = 8  # magic, sequence id
    for c in caches:
        size += 8  # stream count, cell count
        if c is None or len(c.positions) == 0:
            continue
        size += 12 * len(c.positions) + 8 + sum(12 + sum(p.nbytes for p in _chunks(a)) for a in (*c.k, *c.v))
    return size


def _chunks(a) -> tuple[np.ndarray, ...]:
    return a if isinstance(a, tuple) else (a,)


def _encode_into(mv: memoryview, caches: list[CacheState | None], seq_id: int) -> None:
    """Write ``caches`` in ``llama_state_seq_set_data``'s format into ``mv`` (exactly :func:`_encoded_size`
    bytes), each array copied once, straight into place."""
    off = 0

    def pack(fmt: str, *values) -> None:
        nonlocal off
        struct.pack_into(fmt, mv, off, *values)
        off += struct.calcsize(fmt)

    def put(a, transposed: bool = False) -> None:
        """Rows (or, ``transposed``, columns) of ``a``'s chunks, one after another."""
        nonlocal off
        parts = _chunks(a)
        n, width, dtype = sum(len(p) for p in parts), parts[0].shape[1], parts[0].dtype
        dst = np.ndarray((width, n) if transposed else (n, width), dtype, buffer=mv, offset=off)
        at = 0
        for p in parts:
            if transposed:
                dst[:, at : at + len(p)] = p.T
            else:
                dst[at : at + len(p)] = p
            at += len(p)
        off += dst.nbytes

    pack("<Ii", STATE_MAGIC, seq_id)
    for c in caches:
        n = 0 if c is None else len(c.positions)
        pack("<II", 1, n)
        if n == 0:
            continue
        meta = np.zeros((n, 3), np.int32)
        meta[:, 0], meta[:, 1] = c.positions, 1
        put(meta)
        pack("<II", int(c.v_trans), len(c.k))
        for k in c.k:
            first = _chunks(k)[0]
            pack("<iQ", c.k_type, first.shape[1] * first.itemsize)
            put(k)
        for v in c.v:
            first = _chunks(v)[0]
            if c.v_trans:
                pack("<iII", c.v_type, first.itemsize, first.shape[1])
                put(v, transposed=True)
            else:
                pack("<iQ", c.v_type, first.shape[1] * first.itemsize)
                put(v)
    if off != len(mv):
        raise TorchPrefillError(f"sequence state: wrote {off} of {len(mv)} bytes")


def write_seq_state(caches: list[CacheState], seq_id: int = 0) -> bytes:
    """Encode caches in ``llama_state_seq_set_data``'s format (the inverse of :func:`read_seq_state`)."""
    buf = bytearray(_encoded_size(caches))
    _encode_into(memoryview(buf), caches, seq_id)
    return bytes(buf)


def get_seq_state(ctx, seq_id: int = 0) -> memoryview:
    """``llama_state_seq_get_data`` of a llama.cpp context (a ``llama_context_p``), as a view of the buffer
    llama.cpp wrote (no copy: at 32k tokens a 1.5B model's cache is about 1 GB)."""
    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(ctx, seq_id)
    buf = (ctypes.c_uint8 * size)()
    got = llama_cpp.llama_state_seq_get_data(ctx, buf, size, seq_id)
    return memoryview(buf).cast("B")[:got]


def set_caches(ctx, caches: list[CacheState], seq_id: int = 0) -> None:
    """``llama_state_seq_set_data`` of :func:`write_seq_state`'s encoding without the intermediate copies: the
    state is encoded straight into the buffer llama.cpp reads, replacing the context's cache of ``seq_id``."""
    buf = (ctypes.c_uint8 * _encoded_size(caches))()
    _encode_into(memoryview(buf).cast("B"), caches, seq_id)
    _set(ctx, buf, seq_id)


def _set(ctx, buf, seq_id: int) -> None:
    import llama_cpp

    if llama_cpp.llama_state_seq_set_data(ctx, buf, len(buf), seq_id) != len(buf):
        raise TorchPrefillError("llama.cpp refused the KV cache written by the torch prefill")


# --------------------------------------------------------------------------- the whole step


def _layer_caches(hp: HParams) -> list[list[int]]:
    """Layer indices of each llama.cpp KV cache, in state order (gemma3: global layers, then window layers)."""
    if not hp.n_swa:
        return [list(range(hp.n_layer))]
    return [
        [il for il in range(hp.n_layer) if not hp.swa_layers[il]],
        [il for il in range(hp.n_layer) if hp.swa_layers[il]],
    ]


def _empty_cache(n_layer: int, width: int, flash: bool, k_type: int, v_type: int) -> CacheState:
    k, v = np.zeros((0, width), _kv_dtype(k_type)), np.zeros((0, width), _kv_dtype(v_type))
    return CacheState(np.zeros(0, np.int32), [k] * n_layer, [v] * n_layer, k_type, v_type, not flash)


def prefill(
    model: TorchPrefill,
    ctx,
    tokens: list[int],
    n_past: int,
    flash_attn: bool,
    k_type: int = GGML_F16,
    v_type: int = GGML_F16,
) -> None:
    """Evaluate ``tokens`` at positions ``n_past...`` with torch on top of the cache already in llama.cpp context
    ``ctx`` (sequence 0, positions ``0..n_past-1``) and write the cache of the whole sequence back into it.
    ``flash_attn``, ``k_type`` and ``v_type`` are the context's settings (its cache layout and ggml types).

    Raises :class:`CacheGapError` when the context's cache does not hold what the new tokens attend to
    (the caller then evaluates from position 0).
    """
    hp = model.hp
    groups = _layer_caches(hp)
    width = hp.n_head_kv * hp.head_dim
    if n_past:
        caches = read_seq_state(get_seq_state(ctx), len(groups))
        caches = [
            _sorted(c) if c is not None else _empty_cache(len(g), width, flash_attn, k_type, v_type)
            for c, g in zip(caches, groups, strict=True)
        ]
    else:
        caches = [_empty_cache(len(g), width, flash_attn, k_type, v_type) for g in groups]
    kv_dtype = torch.float16 if caches[0].k_type == GGML_F16 else torch.float32
    past: list[LayerKV | None] = [None] * hp.n_layer
    for c, layers in zip(caches, groups, strict=True):
        window = hp.n_swa if hp.swa_layers[layers[0]] else 0
        need = max(0, n_past - window + 1) if window else 0
        if n_past and not _holds(c.positions, need, n_past):
            raise CacheGapError(f"the context's cache does not hold positions {need}..{n_past - 1}")
        keep = c.positions >= need
        every = bool(keep.all())  # a global cache: its arrays are used as they are, not copied
        pos0 = need
        for j, il in enumerate(layers):
            k = torch.from_numpy(np.ascontiguousarray(c.k[j] if every else c.k[j][keep])).to(kv_dtype)
            v = torch.from_numpy(np.ascontiguousarray(c.v[j] if every else c.v[j][keep])).to(kv_dtype)
            past[il] = LayerKV(pos0, k, v)
    new = model.forward(tokens, n_past, past, kv_dtype)
    end = n_past + len(tokens)
    out = []
    for c, layers in zip(caches, groups, strict=True):
        window = hp.n_swa if hp.swa_layers[layers[0]] else 0
        first = max(0, end - window) if window else 0  # llama.cpp writes a window cache's unmasked cells only
        old = (c.positions >= first) & (c.positions < n_past)
        positions = np.concatenate([c.positions[old], np.arange(max(first, n_past), end, dtype=np.int32)])
        skip = max(0, first - n_past)
        every = bool(old.all())  # the cached rows as they are, else the kept ones (a copy)
        ks = [(c.k[j] if every else c.k[j][old], _np(new[il].k[skip:], c.k_type)) for j, il in enumerate(layers)]
        vs = [(c.v[j] if every else c.v[j][old], _np(new[il].v[skip:], c.v_type)) for j, il in enumerate(layers)]
        out.append(CacheState(positions, ks, vs, c.k_type, c.v_type, c.v_trans))
    del past  # the cached rows and the new ones go straight into the state buffer (no joined copy): the peak is
    # about two caches (old + new, and the buffer) where joining, packing and copying the state made five
    set_caches(ctx, out)


def _sorted(c: CacheState) -> CacheState:
    """The cache with its cells in position order (llama.cpp's cells are in slot order)."""
    order = np.argsort(c.positions, kind="stable")
    return CacheState(
        c.positions[order], [k[order] for k in c.k], [v[order] for v in c.v], c.k_type, c.v_type, c.v_trans
    )


def _holds(positions: np.ndarray, lo: int, hi: int) -> bool:
    """True when ``positions`` contains every position in ``lo..hi-1`` and nothing at or beyond ``hi``."""
    inside = positions[(positions >= lo) & (positions < hi)]
    return len(np.unique(inside)) == hi - lo and not (positions >= hi).any()


def _np(t: torch.Tensor, ggml_type: int) -> np.ndarray:
    return t.numpy().astype(_NP_KV[ggml_type], copy=False)
