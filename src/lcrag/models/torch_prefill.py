"""Torch prefill: a long prompt segment evaluated with PyTorch, its KV cache written into a llama.cpp context.

Why. On a 2-core CPU, prompt processing is bound by matrix products (and, for long prompts, attention).
PyTorch's f32 GEMMs (MKL/oneDNN) run faster here than llama.cpp's, and ``scaled_dot_product_attention`` is a
tiled (flash) kernel that stays fast at long context; Gemma-3's sliding-window layers attend over their
512-token window only (llama-cpp-python keeps a full-size SWA cache and attends over the whole context).
``benchmarks/serving_variants.py`` measures it against llama.cpp.

What. :class:`TorchPrefill` reads the weights from the f32 GGUF (``weights.derive(shipped, "f32")``) or the bf16
one (``"bf16"``: the Qwen2.5 models, whose compute is 4-11x SmolLM2's per token; products in bf16 run about 4x
the f32 rate on CPUs with AVX512-BF16 or AMX); the token embedding table stays in the shipped type and only the
looked-up rows are dequantized. It re-implements llama.cpp's graphs for the three embedded architectures
(``llama``: SmolLM2; ``gemma3``: Gemma-3; ``qwen2``: Qwen2.5-Coder, with Q/K/V biases and NEOX RoPE), computing
for each layer the keys (after RoPE, exactly as llama.cpp stores them) and values of the new tokens. Keys and
values are rounded to the cache type (f16) before attention, as llama.cpp's attention reads them from its f16
cache; with bf16 weights, attention runs in bf16 too.
With ``compile=True`` (the server's default, setting ``prefill_compile``) each layer's two halves around the
attention call are compiled by ``torch.compile`` with a dynamic token count: the norms, RoPE, Gemma-3's GELU
lookup and the casts, which take about half the time when run op by op, become a few fused C++ loops (Gemma-3:
1.25x at 2k tokens, 1.45x at 7k; SmolLM2, whose time is in its matrix products, about the same).

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
import functools
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from lcrag.models.gguf import GGUFError, GGUFFile

GGML_F32, GGML_F16, GGML_Q8_0, GGML_BF16 = 0, 1, 8, 30
STATE_MAGIC = 0xAF143CD8  # llama-context.cpp's io_magic, first in a sequence state, then the sequence id
WINDOW_CHUNK = 256  # query rows per attention call in a sliding-window layer (keys: at most window + chunk)
ARCHITECTURES = ("llama", "gemma3", "qwen2")  # SmolLM2, Gemma-3, Qwen2.5
ATTN_BLOCK = 64  # query rows per block of the bf16 attention: its scores (heads x 64 x keys) stay in cache
ROW_CHUNK = 2048  # tokens per call of the row-wise rest of a layer (output projection, feed-forward)
# (1.5B at 8k tokens: 161 tok/s with 64, 156 with 128, 108 with 512; at 2k: 244, 230, 213)


class TorchPrefillError(RuntimeError):
    """The torch prefill cannot evaluate this model or this cache."""


class CacheGapError(TorchPrefillError):
    """The context's cache lacks cells the new tokens attend to (evaluate the prompt from position 0)."""


# --------------------------------------------------------------------------- GGUF file


class GGUF(GGUFFile):
    """A GGUF file (:class:`lcrag.models.gguf.GGUFFile`) whose tensors are read memory-mapped."""

    @classmethod
    def open(cls, path: Path | str) -> GGUF:
        try:
            return super().open(path)
        except GGUFError as exc:
            raise TorchPrefillError(str(exc)) from None

    def raw(self, name: str) -> np.ndarray:
        """A tensor's bytes, one row per leading index (memory-mapped, read-only)."""
        ttype, shape, offset = self.tensors[name]
        row = _row_bytes(ttype, shape[-1])
        n_rows = int(np.prod(shape[:-1], dtype=np.int64))
        return np.memmap(self.path, np.uint8, "r", offset, (n_rows, row))

    def f32(self, name: str) -> torch.Tensor:
        """A tensor of the f32 file as a torch f32 tensor (copied out of the memory map)."""
        ttype, shape, offset = self.tensors[name]
        if ttype != GGML_F32:
            raise TorchPrefillError(
                f"{self.path.name}: {name} is ggml type {ttype}, not f32 (use the f32 copy)"
            )
        data = np.memmap(self.path, np.float32, "r", offset, shape)
        return torch.from_numpy(np.array(data))

    def weight(self, name: str) -> torch.Tensor:
        """A tensor of an f32 or bf16 file in its own type (torch float32 or bfloat16)."""
        ttype, shape, offset = self.tensors[name]
        if ttype == GGML_F32:
            return self.f32(name)
        if ttype != GGML_BF16:
            raise TorchPrefillError(f"{self.path.name}: {name} is ggml type {ttype}, not f32 or bf16")
        data = np.memmap(self.path, np.int16, "r", offset, shape)
        return torch.from_numpy(np.array(data)).view(torch.bfloat16)


def _row_bytes(ttype: int, n: int) -> int:
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    try:
        block, size = GGML_QUANT_SIZES[GGMLQuantizationType(ttype)]
    except (KeyError, ValueError):
        raise TorchPrefillError(f"ggml type {ttype} is not supported for the token embeddings") from None
    return n // block * size


def dequantize_rows(raw_rows: np.ndarray, ttype: int) -> np.ndarray:
    """Rows of a tensor of any ggml type as f32: f32, f16 and Q8_0 here (Q8_0: blocks of an f16 scale and 32
    int8 values), the others with llama.cpp's own ``gguf`` package (its numpy dequantizers)."""
    if ttype == GGML_F32:
        return raw_rows.view(np.float32)
    if ttype == GGML_F16:
        return raw_rows.view(np.float16).astype(np.float32)
    if ttype != GGML_Q8_0:
        from gguf.constants import GGMLQuantizationType
        from gguf.quants import dequantize

        return dequantize(np.ascontiguousarray(raw_rows), GGMLQuantizationType(ttype)).astype(np.float32)
    blocks = raw_rows.reshape(len(raw_rows), -1, 34)
    scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)
    q = blocks[:, :, 2:].view(np.int8).astype(np.float32)
    return (q * scale).reshape(len(raw_rows), -1)


# --------------------------------------------------------------------------- hyperparameters


@dataclass(frozen=True)
class HParams:
    """What the forward pass needs from the GGUF metadata (names as in llama.cpp's ``print_info``)."""

    arch: str
    n_layer: int
    n_embd: int
    n_head: int
    n_head_kv: int
    head_dim: int
    rms_eps: float
    rope_base: float
    rope_base_swa: float
    n_swa: int  # sliding window (0: none)
    swa_layers: tuple[bool, ...]

    @classmethod
    def from_gguf(cls, g: GGUF) -> HParams:
        arch = g.metadata["general.architecture"]
        if arch not in ARCHITECTURES:
            raise TorchPrefillError(f"torch prefill supports the {', '.join(ARCHITECTURES)} architectures, not {arch}")
        m = {k[len(arch) + 1 :]: v for k, v in g.metadata.items() if k.startswith(arch + ".")}
        if (
            m.get("rope.scaling.type", "none") not in ("none", "linear")
            or m.get("rope.scaling.factor", 1.0) != 1.0
        ):
            raise TorchPrefillError(f"{g.path.name}: RoPE scaling is not supported")
        n_layer, n_embd, n_head = (
            int(m["block_count"]),
            int(m["embedding_length"]),
            int(m["attention.head_count"]),
        )
        head_dim = int(m.get("attention.key_length", n_embd // n_head))
        n_swa = int(m.get("attention.sliding_window", 0)) if arch == "gemma3" else 0
        pattern = int(m.get("attention.sliding_window_pattern", 6))
        return cls(
            arch=arch,
            n_layer=n_layer,
            n_embd=n_embd,
            n_head=n_head,
            n_head_kv=int(m.get("attention.head_count_kv", n_head)),
            head_dim=head_dim,
            rms_eps=float(m["attention.layer_norm_rms_epsilon"]),
            rope_base=float(m.get("rope.freq_base", 10000.0)),
            rope_base_swa=float(m.get("rope.freq_base_swa", 10000.0)),  # llama.cpp's default for gemma3
            n_swa=n_swa,
            swa_layers=tuple(bool(n_swa) and il % pattern < pattern - 1 for il in range(n_layer)),
        )

    @property
    def neox(self) -> bool:
        """RoPE on pairs (i, i + dim/2) (llama.cpp's NEOX type: gemma3, qwen2), else on adjacent pairs."""
        return self.arch in ("gemma3", "qwen2")


# --------------------------------------------------------------------------- building blocks


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """llama.cpp's RMS norm (``ggml_rms_norm`` then a multiplication by the weight)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rope_tables(positions: torch.Tensor, dim: int, base: float) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of ``pos * base^(-2i/dim)`` (computed in f64, as precise as llama.cpp's f32 recurrence)."""
    inv = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    ang = positions.to(torch.float64)[:, None] * inv[None, :]
    return ang.cos().float(), ang.sin().float()


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, neox: bool) -> torch.Tensor:
    """RoPE on (tokens, heads, dim): pairs (i, i+dim/2) for NEOX (gemma3, qwen2), adjacent pairs for NORM
    (llama)."""
    cos, sin = cos[:, None, :], sin[:, None, :]
    if neox:
        a, b = x.chunk(2, dim=-1)
        return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)


def gelu_f16_table(x: torch.Tensor) -> torch.Tensor:
    """llama.cpp's CPU GELU (tanh form) as it computes it: looked up in an f16 table at the f16-rounded input.

    (llama.cpp gives x itself above 10, and 0 below -10, where the formula gives 0 anyway.)"""
    return torch.where(x >= 10.0, x, F.gelu(x.half().float(), approximate="tanh").half().float())


@functools.lru_cache(maxsize=64)
def window_bias(n_q: int, n_k: int, q_minus_k: int, window: int) -> torch.Tensor:
    """Additive mask (0 / -inf) of ``n_q`` queries over ``n_k`` keys, the first query ``q_minus_k`` positions after
    the first key: causal, and within ``window`` positions. Cached: all full chunks of a long prompt share it."""
    qp, kp = torch.arange(n_q)[:, None] + q_minus_k, torch.arange(n_k)[None, :]
    return torch.zeros(n_q, n_k).masked_fill((kp > qp) | (qp - kp >= window), float("-inf"))


@functools.lru_cache(maxsize=8)
def causal_block_bias(n: int, dtype: torch.dtype) -> torch.Tensor:
    """(n, n) additive mask of a diagonal block: 0 on and below the diagonal, -inf above."""
    return torch.full((n, n), float("-inf")).triu(1).to(dtype)


def _block_probs_eager(scores: torch.Tensor, diagonal_bias: torch.Tensor, scale: float) -> torch.Tensor:
    """Softmax (in f32) of a block's scaled scores, the last ``b`` keys masked by the diagonal block's bias."""
    b = diagonal_bias.shape[0]
    s = scores.float() * scale
    s = torch.cat([s[..., :-b], s[..., -b:] + diagonal_bias], dim=-1)
    return torch.softmax(s, dim=-1).to(scores.dtype)


_block_probs = _block_probs_eager


def compile_attention() -> None:
    """Fuse the bf16 attention's casts, scaling, mask and softmax into one loop (``torch.compile``)."""
    global _block_probs
    if _block_probs is _block_probs_eager:
        _block_probs = torch.compile(_block_probs_eager, dynamic=True)


def attention_gemm(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float) -> torch.Tensor:
    """Causal attention through batched matrix products in the inputs' type (bf16), for queries that are the
    last ``n_q`` of the ``n_k`` keys: (heads, tokens, dim) in, (tokens, heads*dim) out.

    torch's CPU flash kernel computes in f32 whatever the input type (about 135 GFLOP/s on 2 cores here), while
    bf16 products run at about 550; so the queries go in blocks of ``ATTN_BLOCK``, each block's scores over all
    keys up to its last position are one bf16 product per KV head (its query heads stacked: grouped-query
    attention without copying keys), the softmax is taken in f32, and the probabilities times the values are a
    second bf16 product. Only the diagonal block wastes work on masked scores."""
    n_head, n_q, dim = q.shape
    n_kv, n_k = k.shape[0], k.shape[1]
    group, n_past = n_head // n_kv, n_k - n_q
    qg = q.reshape(n_kv, group, n_q, dim)
    out = torch.empty(n_q, n_head, dim, dtype=q.dtype)
    for s in range(0, n_q, ATTN_BLOCK):
        e = min(n_q, s + ATTN_BLOCK)
        b, end = e - s, n_past + e
        scores = torch.bmm(qg[:, :, s:e].reshape(n_kv, group * b, dim), k[:, :end].transpose(1, 2))
        probs = _block_probs(scores.view(n_kv, group, b, end), causal_block_bias(b, torch.float32), scale)
        o = torch.bmm(probs.view(n_kv, group * b, end), v[:, :end])
        out[s:e] = o.view(n_kv, group, b, dim).permute(2, 0, 1, 3).reshape(b, n_head, dim)
    return out.reshape(n_q, -1)


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, q_pos0: int, k_pos0: int, window: int, scale: float
) -> torch.Tensor:
    """Causal (and, with ``window``, sliding-window) attention of queries at positions ``q_pos0...`` over keys
    at positions ``k_pos0...`` that end with the last query: (heads, tokens, dim) in, (tokens, heads*dim) out.

    Without a window and with fewer cached keys than queries, this is one call of torch's causal flash kernel:
    the queries are the last keys, so the query block is padded at the front with as many zero rows as there
    are cached keys, and those rows' outputs are dropped (bit-identical to a lower-right causal mask, which
    torch evaluates without the flash kernel: 2x slower on a 3.4k chat prompt behind a cached template). With
    a window, or a long cache behind few queries (padding would cost more than it saves), queries go in chunks
    of ``WINDOW_CHUNK``, each over only the keys its window reaches, with an explicit mask for its edges.
    """
    n_q, group = q.shape[1], q.shape[0] // k.shape[0]
    n_past = k.shape[1] - n_q
    if not window and q.dtype == torch.bfloat16:
        return attention_gemm(q, k, v, scale)
    q, k, v = q[None], k[None], v[None]  # 4-d: torch's CPU flash kernel does not take 3-d inputs
    if not window and n_past <= n_q:
        if n_past:
            q = torch.cat([q.new_zeros(1, q.shape[1], n_past, q.shape[3]), q], dim=2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=group > 1)
        return o[0, :, n_past:].transpose(0, 1).reshape(n_q, -1)
    window = window or k.shape[2]
    out = torch.empty(n_q, q.shape[1], q.shape[3], dtype=q.dtype)
    for s in range(0, n_q, WINDOW_CHUNK):
        e = min(n_q, s + WINDOW_CHUNK)
        lo, hi = max(k_pos0, q_pos0 + s - window + 1), q_pos0 + e
        bias = window_bias(e - s, hi - lo, q_pos0 + s - lo, window).to(q.dtype)
        ks, vs = k[:, :, lo - k_pos0 : hi - k_pos0], v[:, :, lo - k_pos0 : hi - k_pos0]
        o = F.scaled_dot_product_attention(
            q[:, :, s:e], ks, vs, attn_mask=bias, scale=scale, enable_gqa=group > 1
        )
        out[s:e] = o[0].transpose(0, 1)
    return out.reshape(n_q, -1)


# --------------------------------------------------------------------------- the model


@dataclass
class LayerKV:
    """One layer's cache for sequence 0: positions ``pos0 ... pos0+n-1``, K and V as (tokens, n_head_kv*dim)."""

    pos0: int
    k: torch.Tensor
    v: torch.Tensor


class TorchPrefill:
    """The llama / gemma3 / qwen2 forward pass of llama.cpp, in torch, returning every layer's new keys and
    values."""

    def __init__(self, f32_gguf: Path | str, n_threads: int | None = None, compile: bool = False):
        self.gguf = GGUF.open(f32_gguf)
        self.hp = HParams.from_gguf(self.gguf)
        self.n_threads = n_threads
        self.compiled = compile
        self._layer_in, self._layer_out = self._layer_in_eager, self._layer_out_eager
        if compile:  # each layer's elementwise chain fused into a few C++ loops (see ``compile_prefill``)
            self._layer_in = torch.compile(self._layer_in_eager, dynamic=True)
            self._layer_out = torch.compile(self._layer_out_eager, dynamic=True)
            compile_attention()
        g, hp = self.gguf, self.hp
        self.embd_type = g.tensors["token_embd.weight"][0]
        self.embd_raw = g.raw("token_embd.weight")
        self.layers = []
        # The matrices' type sets the compute type: f32 (exactly the shipped values), or bf16 (products in
        # bf16 with f32 accumulation, attention in bf16: 4x the f32 rate on CPUs with AVX512-BF16 or AMX).
        self.dtype = g.weight("blk.0.attn_q.weight").dtype
        for il in range(hp.n_layer):
            p = f"blk.{il}."
            w = {
                "attn_norm": g.f32(p + "attn_norm.weight"),
                "wqkv": torch.cat([g.weight(p + f"attn_{x}.weight") for x in "qkv"]),
                "wo": g.weight(p + "attn_output.weight"),
                "ffn_norm": g.f32(p + "ffn_norm.weight"),
                "w_gate_up": torch.cat([g.weight(p + "ffn_gate.weight"), g.weight(p + "ffn_up.weight")]),
                "w_down": g.weight(p + "ffn_down.weight"),
            }
            if hp.arch == "qwen2":
                w["bqkv"] = torch.cat([g.f32(p + f"attn_{x}.bias") for x in "qkv"])
            if hp.arch == "gemma3":
                for name in ("attn_q_norm", "attn_k_norm", "post_attention_norm", "post_ffw_norm"):
                    w[name] = g.f32(p + name + ".weight")
            self.layers.append(w)

    # ---- pieces

    def embed(self, tokens: list[int]) -> torch.Tensor:
        rows = dequantize_rows(np.asarray(self.embd_raw[np.asarray(tokens)]), self.embd_type)
        x = torch.from_numpy(np.ascontiguousarray(rows, dtype=np.float32))
        if self.hp.arch == "gemma3":
            x = x * np.float32(math.sqrt(self.hp.n_embd))  # llama.cpp: ggml_scale(x, sqrtf(n_embd))
        return x

    def _layer_in_eager(self, w: dict, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, kv_dtype):
        """Attention input of one layer: Q (heads, tokens, dim; rounded to f16 as llama.cpp's attention reads
        it), and the new K and V (tokens, n_head_kv*dim) in the cache type, K after RoPE."""
        hp, n = self.hp, x.shape[0]
        d_q, d_kv = hp.n_head * hp.head_dim, hp.n_head_kv * hp.head_dim
        h = rms_norm(x, w["attn_norm"], hp.rms_eps)
        qkv = self._mm(h, w["wqkv"])
        if "bqkv" in w:
            qkv = qkv + w["bqkv"]
        q, k, v = qkv.split([d_q, d_kv, d_kv], dim=-1)
        q, k = q.reshape(n, hp.n_head, hp.head_dim), k.reshape(n, hp.n_head_kv, hp.head_dim)
        if hp.arch == "gemma3":
            q, k = rms_norm(q, w["attn_q_norm"], hp.rms_eps), rms_norm(k, w["attn_k_norm"], hp.rms_eps)
        q, k = rope(q, cos, sin, hp.neox), rope(k, cos, sin, hp.neox)
        if hp.arch == "gemma3":
            q = q * np.float32(1.0 / math.sqrt(hp.head_dim))  # llama.cpp scales Q itself, kq_scale 1
        qh = (q.half().float() if self.dtype == torch.float32 else q.to(self.dtype)).transpose(0, 1)
        return qh, k.reshape(n, d_kv).to(kv_dtype), v.to(kv_dtype)

    def _mm(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        """``x @ w.T`` in the weights' type, returned in f32 (the residual stream stays f32)."""
        return (x.to(w.dtype) @ w.T).float()

    def _layer_out_eager(self, w: dict, x: torch.Tensor, attn: torch.Tensor) -> torch.Tensor:
        """The rest of one layer: output projection, residual, feed-forward (and Gemma-3's extra norms)."""
        hp = self.hp
        o = self._mm(attn, w["wo"])
        if hp.arch == "gemma3":
            o = rms_norm(o, w["post_attention_norm"], hp.rms_eps)
        x = x + o
        h = rms_norm(x, w["ffn_norm"], hp.rms_eps)
        gate, up = self._mm(h, w["w_gate_up"]).chunk(2, dim=-1)
        act = gelu_f16_table(gate) if hp.arch == "gemma3" else F.silu(gate)
        m = self._mm(act * up, w["w_down"])
        if hp.arch == "gemma3":
            m = rms_norm(m, w["post_ffw_norm"], hp.rms_eps)
        return x + m

    def warm_up(self, n_tokens: int) -> None:
        """One forward pass over ``n_tokens`` dummy tokens: compiles the layers (with a dynamic token count,
        so later prompt lengths reuse the kernels)."""
        self.forward([1] * n_tokens, 0, [None] * self.hp.n_layer)

    # ---- forward

    @torch.inference_mode()
    def forward(self, tokens: list[int], pos0: int, past: list[LayerKV | None], kv_dtype=torch.float16):
        """Keys and values of ``tokens`` (at positions ``pos0...``) for every layer, given each layer's cache of
        the preceding positions (``past[il]``: None or an empty cache when nothing precedes; a sliding-window
        layer's cache needs only the window before ``pos0``). Returns a list of :class:`LayerKV` (new only)."""
        if self.n_threads:
            torch.set_num_threads(self.n_threads)
        hp = self.hp
        positions = torch.arange(pos0, pos0 + len(tokens))
        tables = {b: rope_tables(positions, hp.head_dim, b) for b in {hp.rope_base, hp.rope_base_swa}}
        x = self.embed(tokens)
        new = []
        scale = 1.0 if hp.arch == "gemma3" else 1.0 / math.sqrt(hp.head_dim)
        for il, w in enumerate(self.layers):
            cos, sin = tables[hp.rope_base_swa if hp.swa_layers[il] else hp.rope_base]
            qh, k, v = self._layer_in(w, x, cos, sin, kv_dtype)
            new.append(LayerKV(pos0, k, v))
            if il == hp.n_layer - 1:
                break  # the last layer's output is not needed for the cache
            p = past[il]
            if p is not None and len(p.k):
                if p.pos0 + len(p.k) != pos0:
                    raise TorchPrefillError(
                        f"layer {il}: cache ends at {p.pos0 + len(p.k)}, new tokens start at {pos0}"
                    )
                k_all, v_all, k_pos0 = torch.cat([p.k, k]), torch.cat([p.v, v]), p.pos0
            else:
                k_all, v_all, k_pos0 = k, v, pos0
            window = hp.n_swa if hp.swa_layers[il] else 0
            kh = k_all.to(qh.dtype).reshape(-1, hp.n_head_kv, hp.head_dim).transpose(0, 1)
            vh = v_all.to(qh.dtype).reshape(-1, hp.n_head_kv, hp.head_dim).transpose(0, 1)
            a = attention(qh, kh, vh, pos0, k_pos0, window, scale).float()
            # the rest of the layer works row by row: in chunks, its f32 feed-forward activations (about 200 KB a
            # token for a 1.5B) stay a few hundred MB at any prompt length
            x = torch.cat([self._layer_out(w, x[s : s + ROW_CHUNK], a[s : s + ROW_CHUNK])
                           for s in range(0, len(tokens), ROW_CHUNK)])  # fmt: skip
        return new


# --------------------------------------------------------------------------- llama.cpp sequence state


@dataclass
class CacheState:
    """One llama.cpp KV cache's cells for a sequence: positions, and per layer K and V (tokens, width)."""

    positions: np.ndarray  # int32, one per cell
    k: list[np.ndarray]
    v: list[np.ndarray]
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


def write_seq_state(caches: list[CacheState], seq_id: int = 0) -> bytes:
    """Encode caches in ``llama_state_seq_set_data``'s format (the inverse of :func:`read_seq_state`)."""
    parts = [struct.pack("<Ii", STATE_MAGIC, seq_id)]
    for c in caches:
        n = 0 if c is None else len(c.positions)
        parts.append(struct.pack("<II", 1, n))
        if n == 0:
            continue
        meta = np.zeros((n, 3), np.int32)
        meta[:, 0], meta[:, 1] = c.positions, 1
        parts += [meta.tobytes(), struct.pack("<II", int(c.v_trans), len(c.k))]
        for k in c.k:
            parts += [
                struct.pack("<iQ", c.k_type, k.shape[1] * k.itemsize),
                np.ascontiguousarray(k).tobytes(),
            ]
        for v in c.v:
            if c.v_trans:
                parts += [
                    struct.pack("<iII", c.v_type, v.itemsize, v.shape[1]),
                    np.ascontiguousarray(v.T).tobytes(),
                ]
            else:
                parts += [
                    struct.pack("<iQ", c.v_type, v.shape[1] * v.itemsize),
                    np.ascontiguousarray(v).tobytes(),
                ]
    return b"".join(parts)


def get_seq_state(ctx, seq_id: int = 0) -> bytes:
    """``llama_state_seq_get_data`` of a llama.cpp context (a ``llama_context_p``)."""
    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(ctx, seq_id)
    buf = (ctypes.c_uint8 * size)()
    got = llama_cpp.llama_state_seq_get_data(ctx, buf, size, seq_id)
    return bytes(memoryview(buf)[:got])


def set_seq_state(ctx, data: bytes, seq_id: int = 0) -> None:
    """``llama_state_seq_set_data``: replaces the context's cache of ``seq_id`` with ``data``."""
    import llama_cpp

    buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
    if llama_cpp.llama_state_seq_set_data(ctx, buf, len(data), seq_id) != len(data):
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
        pos0 = need
        for j, il in enumerate(layers):
            k = torch.from_numpy(np.ascontiguousarray(c.k[j][keep])).to(kv_dtype)
            v = torch.from_numpy(np.ascontiguousarray(c.v[j][keep])).to(kv_dtype)
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
        ks = [np.concatenate([c.k[j][old], _np(new[il].k[skip:], c.k_type)]) for j, il in enumerate(layers)]
        vs = [np.concatenate([c.v[j][old], _np(new[il].v[skip:], c.v_type)]) for j, il in enumerate(layers)]
        out.append(CacheState(positions, ks, vs, c.k_type, c.v_type, c.v_trans))
    set_seq_state(ctx, write_seq_state(out))


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
