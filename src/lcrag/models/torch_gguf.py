"""The torch prefill's weights (:mod:`lcrag.models.torch_prefill`): a GGUF file's tensors read memory-mapped
into torch, the rows of a token embedding table of any ggml type dequantized, and the hyperparameters of the
forward pass read from the metadata.

The matrices come from the f32 GGUF (``weights.derive(shipped, "f32")``) or the bf16 one (``"bf16"``); the token
embedding table stays in the shipped type and only the looked-up rows are dequantized.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from lcrag.models.gguf import GGUFError, GGUFFile

GGML_F32, GGML_F16, GGML_Q8_0, GGML_BF16 = 0, 1, 8, 30
ARCHITECTURES = ("llama", "gemma3", "qwen2")  # SmolLM2, Gemma-3, Qwen2.5


class TorchPrefillError(RuntimeError):
    """The torch prefill cannot evaluate this model or this cache."""


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
