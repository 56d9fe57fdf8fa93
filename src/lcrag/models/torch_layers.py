"""The torch prefill's building blocks, computed as llama.cpp computes them: RMS norm, RoPE, Gemma-3's GELU
(an f16 table), and causal or sliding-window attention (torch's flash kernel, or blocked bf16 matrix products).
Used by each layer of :class:`lcrag.models.torch_prefill.TorchPrefill`.
"""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

WINDOW_CHUNK = 256  # query rows per attention call in a sliding-window layer (keys: at most window + chunk)
ATTN_BLOCK = 64  # query rows per block of the bf16 attention: its scores (heads x 64 x keys) stay in cache


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


_block_probs_compiled = None  # made on first use: compiling costs seconds


def block_probs(compiled: bool = False):
    """The blocked attention's softmax step: op by op, or its casts, scaling, mask and softmax fused into one
    loop by ``torch.compile`` (compiled once per process, on first use)."""
    global _block_probs_compiled
    if not compiled:
        return _block_probs_eager
    if _block_probs_compiled is None:
        _block_probs_compiled = torch.compile(_block_probs_eager, dynamic=True)
    return _block_probs_compiled


def attention_gemm(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, compiled: bool = False
                   ) -> torch.Tensor:
    """Causal attention through batched matrix products in the inputs' type (bf16), for queries that are the
    last ``n_q`` of the ``n_k`` keys: (heads, tokens, dim) in, (tokens, heads*dim) out.

    On the AMD EPYC without AMX, torch's CPU flash kernel computed in f32 whatever the input type (about 135
    GFLOP/s on 2 cores), while bf16 products ran at about 550 (on a CPU with AMX the flash kernel is the faster:
    :func:`attention_sdpa`); so the queries go in blocks of ``ATTN_BLOCK``, each block's scores over all
    keys up to its last position are one bf16 product per KV head (its query heads stacked: grouped-query
    attention without copying keys), the softmax is taken in f32, and the probabilities times the values are a
    second bf16 product. Only the diagonal block wastes work on masked scores. ``compiled``: the softmax step
    fused by torch.compile (:func:`block_probs`)."""
    softmax = block_probs(compiled)
    n_head, n_q, dim = q.shape
    n_kv, n_k = k.shape[0], k.shape[1]
    group, n_past = n_head // n_kv, n_k - n_q
    qg = q.reshape(n_kv, group, n_q, dim)
    out = torch.empty(n_q, n_head, dim, dtype=q.dtype)
    for s in range(0, n_q, ATTN_BLOCK):
        e = min(n_q, s + ATTN_BLOCK)
        b, end = e - s, n_past + e
        scores = torch.bmm(qg[:, :, s:e].reshape(n_kv, group * b, dim), k[:, :end].transpose(1, 2))
        probs = softmax(scores.view(n_kv, group, b, end), causal_block_bias(b, torch.float32), scale)
        o = torch.bmm(probs.view(n_kv, group * b, end), v[:, :end])
        out[s:e] = o.view(n_kv, group, b, dim).permute(2, 0, 1, 3).reshape(b, n_head, dim)
    return out.reshape(n_q, -1)


SDPA_CHUNK = 512  # query rows per call of the bf16 flash attention (its mask: chunk x keys, bf16)
BF16_KERNELS = ("sdpa", "gemm")


def attention_sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float) -> torch.Tensor:
    """Causal attention with torch's flash kernel on bf16 inputs, for queries that are the last ``n_q`` of the
    ``n_k`` keys: (heads, tokens, dim) in, (tokens, heads*dim) out. Queries go in chunks of ``SDPA_CHUNK``, each
    over the keys up to its last position, with an additive mask for the chunk's own (diagonal) block. On a CPU
    with AMX the kernel runs its products on the bf16 tiles and keeps its scores in cache: at 16k keys it was
    about 10x :func:`attention_gemm` (``benchmarks/qwen_serving.py``), whose f32 softmax pass is memory-bound."""
    n_head, n_q, dim = q.shape
    n_past = k.shape[1] - n_q
    q4, k4, v4 = q[None], k[None], v[None]
    out = torch.empty(n_q, n_head, dim, dtype=q.dtype)
    for s in range(0, n_q, SDPA_CHUNK):
        e = min(n_q, s + SDPA_CHUNK)
        b, end = e - s, n_past + e
        mask = torch.zeros(b, end, dtype=q.dtype)
        mask[:, end - b :] = causal_block_bias(b, q.dtype)
        o = F.scaled_dot_product_attention(q4[:, :, s:e], k4[:, :, :end], v4[:, :, :end], attn_mask=mask,
                                           scale=scale, enable_gqa=n_head != k.shape[0])
        out[s:e] = o[0].transpose(0, 1)
    return out.reshape(n_q, -1)


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, q_pos0: int, k_pos0: int, window: int, scale: float,
    bf16_kernel: str = "gemm", compiled: bool = False,
) -> torch.Tensor:
    """Causal (and, with ``window``, sliding-window) attention of queries at positions ``q_pos0...`` over keys
    at positions ``k_pos0...`` that end with the last query: (heads, tokens, dim) in, (tokens, heads*dim) out.

    Without a window and with fewer cached keys than queries, this is one call of torch's causal flash kernel:
    the queries are the last keys, so the query block is padded at the front with as many zero rows as there
    are cached keys, and those rows' outputs are dropped (bit-identical to a lower-right causal mask, which
    torch evaluates without the flash kernel: 2x slower on a 3.4k chat prompt behind a cached template). With
    a window, or a long cache behind few queries (padding would cost more than it saves), queries go in chunks
    of ``WINDOW_CHUNK``, each over only the keys its window reaches, with an explicit mask for its edges.
    bf16 inputs without a window go to ``bf16_kernel``: :func:`attention_sdpa` or :func:`attention_gemm` (its
    softmax step compiled when ``compiled``).
    """
    n_q, group = q.shape[1], q.shape[0] // k.shape[0]
    n_past = k.shape[1] - n_q
    if not window and q.dtype == torch.bfloat16:
        if bf16_kernel not in BF16_KERNELS:
            raise ValueError(f"bf16_kernel must be one of {BF16_KERNELS}, not {bf16_kernel!r}")
        if bf16_kernel == "sdpa":
            return attention_sdpa(q, k, v, scale)
        return attention_gemm(q, k, v, scale, compiled)
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
