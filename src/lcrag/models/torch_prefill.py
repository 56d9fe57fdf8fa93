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
With ``compile=True`` (the server's default for Gemma-3 and the Qwen models, setting ``prefill_compile``) each
layer's two halves around the attention call are compiled by ``torch.compile`` with a dynamic token count: the
norms, RoPE, Gemma-3's GELU lookup and the casts, which take about half the time when run op by op, become a few
fused C++ loops (Gemma-3: 1.25x at 2k tokens, 1.45x at 7k; SmolLM2, whose time is in its matrix products, about
the same, so it runs op by op). Compiling costs 10-20 s per process (seconds more the first time on a machine),
more than it saves on short prompts: only prompts of at least ``compile_min_tokens`` tokens
(``COMPILE_MIN_TOKENS``, setting ``prefill_compile_min_tokens``) use the compiled layers, compiled when the first
such prompt comes; shorter ones always run op by op, so a prompt's result does not depend on what came before.

Where. This module holds the model (:class:`TorchPrefill`: per layer, attention over the cache and the new
tokens, then the row-wise rest of the layer in chunks of ``ROW_CHUNK`` tokens); :mod:`lcrag.models.torch_gguf`
reads its weights and hyperparameters, :mod:`lcrag.models.torch_layers` holds the pieces of a layer (norms,
RoPE, GELU, attention), and :mod:`lcrag.models.kv_state` moves the KV cache between llama.cpp and torch
(:func:`lcrag.models.kv_state.prefill`: the whole step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from lcrag.models.torch_gguf import GGUF, HParams, TorchPrefillError, dequantize_rows
from lcrag.models.torch_layers import (
    attention,
    gelu_f16_table,
    rms_norm,
    rope,
    rope_tables,
)

# Prompts of at least this many tokens use the compiled layers (when compiling): Gemma-3 evaluates 2k tokens 1.7x
# faster compiled (README, Serving speed), while compiling costs 10-20 s per server (smoke runs and tests: a loss).
COMPILE_MIN_TOKENS = 2048
ROW_CHUNK = 2048  # tokens per call of the row-wise rest of a layer (output projection, feed-forward)
# (1.5B at 8k tokens: 161 tok/s with 64, 156 with 128, 108 with 512; at 2k: 244, 230, 213)


@dataclass
class LayerKV:
    """One layer's cache for sequence 0: positions ``pos0 ... pos0+n-1``, K and V as (tokens, n_head_kv*dim)."""

    pos0: int
    k: torch.Tensor
    v: torch.Tensor


class TorchPrefill:
    """The llama / gemma3 / qwen2 forward pass of llama.cpp, in torch, returning every layer's new keys and
    values."""

    def __init__(self, f32_gguf: Path | str, n_threads: int | None = None, compile: bool = False,
                 bf16_attention: str = "gemm", compile_min_tokens: int = COMPILE_MIN_TOKENS):
        self.gguf = GGUF.open(f32_gguf)
        self.hp = HParams.from_gguf(self.gguf)
        self.n_threads = n_threads
        self.compiled = compile
        self.compile_min_tokens = compile_min_tokens
        self._compiled_layers = None  # (layer_in, layer_out) fused by torch.compile, made for the first long prompt
        self.bf16_attention = bf16_attention  # the attention kernel of bf16 weights (torch_layers.attention)
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

    def layers_for(self, n_end: int) -> tuple:
        """(layer_in, layer_out, compiled) for tokens that end at position ``n_end``: the compiled layers (made
        now if this is the first long prompt) from ``compile_min_tokens`` on when compiling, else op by op."""
        if not self.compiled or n_end < self.compile_min_tokens:
            return self._layer_in_eager, self._layer_out_eager, False
        if self._compiled_layers is None:  # a dynamic token count: every later length reuses the kernels
            self._compiled_layers = (torch.compile(self._layer_in_eager, dynamic=True),
                                     torch.compile(self._layer_out_eager, dynamic=True))
        return (*self._compiled_layers, True)

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
        layer_in, layer_out, compiled = self.layers_for(pos0 + len(tokens))
        x = self.embed(tokens)
        new = []
        scale = 1.0 if hp.arch == "gemma3" else 1.0 / math.sqrt(hp.head_dim)
        for il, w in enumerate(self.layers):
            cos, sin = tables[hp.rope_base_swa if hp.swa_layers[il] else hp.rope_base]
            qh, k, v = layer_in(w, x, cos, sin, kv_dtype)
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
            a = attention(qh, kh, vh, pos0, k_pos0, window, scale, self.bf16_attention, compiled).float()
            # the rest of the layer works row by row: in chunks, its f32 feed-forward activations (about 200 KB a
            # token for a 1.5B) stay a few hundred MB at any prompt length
            x = torch.cat([layer_out(w, x[s : s + ROW_CHUNK], a[s : s + ROW_CHUNK])
                           for s in range(0, len(tokens), ROW_CHUNK)])  # fmt: skip
        return new
