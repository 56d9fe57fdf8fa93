"""The torch prefill's attention kernels (lcrag.models.torch_layers) against attention computed in f64."""

from __future__ import annotations

import pytest
import torch

from lcrag.models import server_settings
from lcrag.models.torch_layers import attention


def exact(q, k, v, scale):
    """Causal attention in f64 of queries that are the last keys: (heads, n_q, dim) in, (n_q, heads*dim) out."""
    n_head, n_q, dim = q.shape
    group, n_k = n_head // k.shape[0], k.shape[1]
    q, k, v = q.double(), k.double().repeat_interleave(group, 0), v.double().repeat_interleave(group, 0)
    scores = q @ k.transpose(1, 2) * scale
    allowed = torch.arange(n_k)[None, :] <= (n_k - n_q + torch.arange(n_q))[:, None]
    probs = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    return (probs @ v).transpose(0, 1).reshape(n_q, -1)


@pytest.mark.parametrize("kernel", ["sdpa", "gemm"])
@pytest.mark.parametrize(("n_q", "n_past"), [(700, 0), (300, 1100), (1, 600)])
@pytest.mark.parametrize(("n_head", "dim"), [(14, 64), (12, 128)], ids=["0.5B", "1.5B"])
def test_bf16_kernels_compute_causal_attention_over_the_cache(kernel, n_q, n_past, n_head, dim):
    """Both bf16 kernels, with and without cached keys before the queries (the prefix a reused prompt keeps),
    grouped-query heads as in Qwen2.5 (14 or 12 query heads over 2 key/value heads), more queries than one chunk:
    within bf16 rounding of the exact result."""
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(h, n, dim, generator=g) for h, n in [(n_head, n_q), (2, n_past + n_q), (2, n_past + n_q)])
    scale = dim**-0.5
    ref = exact(q, k, v, scale)
    out = attention(q.bfloat16(), k.bfloat16(), v.bfloat16(), n_past, 0, 0, scale, kernel).double()
    assert out.shape == ref.shape
    assert (out - ref).abs().max() < 0.03  # bf16 inputs: 8 bits of mantissa
    assert (out - ref).abs().mean() < 0.003


def test_an_unknown_kernel_is_refused_and_the_setting_names_one():
    q = torch.zeros(2, 3, 8, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="bf16_kernel must be one of"):
        attention(q, q, q, 0, 0, 0, 1.0, "flash")
    assert server_settings.bf16_attention() in ("sdpa", "gemm")
