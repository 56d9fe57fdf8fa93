"""A small reader for GGUF files (llama.cpp's model format): metadata and the tensor table.

llama.cpp's own ``gguf`` package (a dependency: :mod:`lcrag.models.torch_gguf` dequantizes with it) reads the same
fields, but its ``GGUFReader`` makes a numpy view of every item of every array: 6 s for SmolLM2's header (49 152
token strings) against 0.15 s here (the 1.5B Qwen: 0.3 s, 151 936 strings), paid at each server start that loads the torch prefill.
``tests/models/test_gguf.py`` checks that both readers agree on every field and tensor of the shipped files, so a
format change that this reader misses fails there.

Used by :mod:`lcrag.models.weights` (which tensor types a derived file holds) and
:mod:`lcrag.models.torch_gguf` (the weights, memory-mapped). Layout: magic ``GGUF``, version, tensor and
metadata counts; metadata as (key, type, value); the tensor table as (name, dims, ggml type, offset); the data
starts at the next multiple of ``general.alignment`` (32 by default). Shapes are given in numpy order (ggml's
dimension order reversed).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# GGUF metadata value types -> (struct format, numpy dtype); 8 is a string, 9 an array
_SCALARS = {
    0: ("<B", "<u1"),
    1: ("<b", "<i1"),
    2: ("<H", "<u2"),
    3: ("<h", "<i2"),
    4: ("<I", "<u4"),
    5: ("<i", "<i4"),
    6: ("<f", "<f4"),
    7: ("<?", "?"),
    10: ("<Q", "<u8"),
    11: ("<q", "<i8"),
    12: ("<d", "<f8"),
}
STRING, ARRAY = 8, 9


class GGUFError(ValueError):
    """Not a GGUF file, or one this reader does not understand."""


def _read_str(fh) -> str:
    (n,) = struct.unpack("<Q", fh.read(8))
    return fh.read(n).decode("utf-8", errors="replace")


def _read_value(fh, vtype: int):
    """One metadata value; numeric arrays as numpy arrays, other arrays (of strings) as lists."""
    if vtype in _SCALARS:
        fmt = _SCALARS[vtype][0]
        return struct.unpack(fmt, fh.read(struct.calcsize(fmt)))[0]
    if vtype == STRING:
        return _read_str(fh)
    if vtype == ARRAY:
        item_type, n = struct.unpack("<IQ", fh.read(12))
        if item_type in _SCALARS:
            dtype = np.dtype(_SCALARS[item_type][1])
            return np.frombuffer(fh.read(n * dtype.itemsize), dtype)
        return [_read_value(fh, item_type) for _ in range(n)]  # strings (a vocabulary), or nested arrays
    raise GGUFError(f"unknown GGUF value type {vtype}")


@dataclass
class GGUFFile:
    """A GGUF file's metadata and tensor table: ``tensors[name] = (ggml type, numpy shape, data offset)``."""

    path: Path
    metadata: dict = field(default_factory=dict)
    tensors: dict = field(default_factory=dict)

    @classmethod
    def open(cls, path: Path | str):
        g = cls(Path(path))
        with open(g.path, "rb") as fh:
            if fh.read(4) != b"GGUF":
                raise GGUFError(f"{path} is not a GGUF file")
            (version,) = struct.unpack("<I", fh.read(4))
            if version < 2:
                raise GGUFError(f"{path}: GGUF version {version} is too old")
            n_tensors, n_kv = struct.unpack("<QQ", fh.read(16))
            for _ in range(n_kv):
                key = _read_str(fh)
                (vtype,) = struct.unpack("<I", fh.read(4))
                g.metadata[key] = _read_value(fh, vtype)
            infos = []
            for _ in range(n_tensors):
                name = _read_str(fh)
                (n_dims,) = struct.unpack("<I", fh.read(4))
                dims = struct.unpack(f"<{n_dims}Q", fh.read(8 * n_dims))
                ttype, offset = struct.unpack("<IQ", fh.read(12))
                infos.append((name, ttype, tuple(reversed(dims)), offset))
            align = int(g.metadata.get("general.alignment", 32))
            start = (fh.tell() + align - 1) // align * align
        g.tensors = {name: (t, shape, start + off) for name, t, shape, off in infos}
        return g

    def tensor_types(self) -> dict[str, int]:
        """Tensor name -> ggml type id."""
        return {name: t for name, (t, _shape, _offset) in self.tensors.items()}
