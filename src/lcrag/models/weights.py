"""Derived weight files: the shipped GGUFs rewritten once in another weight format, for speed.

The embedded models ship as 4/5-bit GGUFs (SmolLM2 Q4_1, Gemma-3 "Q4_K_M", which for its 640-wide rows is
mostly Q5_0). llama.cpp's fastest CPU kernels on this kind of machine are not the ones for those formats
(``benchmarks/serving_variants.py`` measures them all), so the server may load a copy of the same model in
another format, made here with llama.cpp's own quantize API (``llama_model_quantize``):

- ``f32`` / ``f16`` / ``bf16``: the shipped weights dequantized; ``f32`` holds exactly the values the
  shipped file encodes (no new rounding);
- ``q8_0``: re-quantized to 8 bits (from 4/5-bit values: a small extra rounding);
- ``q4_0`` / ``iq4_nl``: re-quantized to other 4-bit formats (lossy: a different rounding of the model).

The token-embedding table keeps the shipped file's type, copied byte for byte (it is a row lookup, never a
matrix product, so its format costs no speed; for Gemma-3's 262k vocabulary it is 2/3 of the model).

Each derived file is made once per machine under ``config.models_dir()/derived/`` (beside the fetched model files:
every process and test session on the machine shares it): under a file lock
(two processes never make it twice), written to a temporary name and renamed into place (a crash leaves no
half file), with a sidecar JSON recording its sha256, the source file's sha256, the format and llama.cpp's
version. The file name carries the source's sha256 prefix, so a new shipped file gets new derived files.
Before writing, the free disk space is checked against the file's size (an f32 copy of Gemma-3 is about 1 GB):
a full disk is named as such instead of llama.cpp's bare failure code.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from lcrag import config
from lcrag.models.cache import atomic_write_bytes, file_lock, file_sha256
from lcrag.models.gguf import GGUFError, GGUFFile

# format name -> llama_cpp ftype constant name
FORMATS: dict[str, str] = {
    "f32": "LLAMA_FTYPE_ALL_F32",
    "f16": "LLAMA_FTYPE_MOSTLY_F16",
    "bf16": "LLAMA_FTYPE_MOSTLY_BF16",
    "q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0",
    "q4_0": "LLAMA_FTYPE_MOSTLY_Q4_0",
    "iq4_nl": "LLAMA_FTYPE_MOSTLY_IQ4_NL",
}
SHIPPED = "shipped"  # the weight format name meaning "serve the shipped file as it is"
# bytes per weight of each format (ggml block sizes: q8_0 = 34 bytes per 32 weights, q4_0/iq4_nl = 18 per 32)
BYTES_PER_WEIGHT: dict[str, float] = {"f32": 4, "f16": 2, "bf16": 2, "q8_0": 34 / 32, "q4_0": 18 / 32, "iq4_nl": 18 / 32}
DISK_MARGIN_BYTES = 64 * 2**20  # header, alignment and the rest of the disk's users


class WeightsError(RuntimeError):
    """A derived weight file could not be made or does not match its record."""


@dataclass(frozen=True)
class DerivedWeights:
    """A derived GGUF and what it was made from."""

    path: Path
    format: str
    sha256: str
    source: Path
    source_sha256: str
    llama_cpp: str

    def record(self) -> dict:
        d = asdict(self)
        d["path"], d["source"] = str(self.path), str(self.source)
        return d


# --------------------------------------------------------------------------- GGUF header


def tensor_types(path: Path) -> dict[str, int]:
    """Tensor name -> ggml type id, read from a GGUF file's header (no tensor data is read)."""
    try:
        return GGUFFile.open(path).tensor_types()
    except GGUFError as exc:
        raise WeightsError(str(exc)) from None


# --------------------------------------------------------------------------- making derived files


def derived_dir() -> Path:
    return config.models_dir() / "derived"


def expected_size(source: Path, fmt: str) -> int:
    """About how many bytes the ``fmt`` copy of ``source`` takes: every matrix at ``fmt``'s bytes per weight,
    vectors in f32, the token-embedding table at its shipped size (it is copied)."""
    g = GGUFFile.open(source)
    total = 0.0
    for name, (_t, shape, _off) in g.tensors.items():
        n = math.prod(shape)
        if name == "token_embd.weight":
            total += _shipped_bytes(g, name)
        else:  # llama.cpp keeps 1-D tensors (norms, biases) in f32
            total += n * (BYTES_PER_WEIGHT[fmt] if len(shape) > 1 else 4)
    return int(total)


def _shipped_bytes(g: GGUFFile, name: str) -> int:
    offsets = sorted(off for _t, _s, off in g.tensors.values())
    off = g.tensors[name][2]
    later = [o for o in offsets if o > off]
    return (later[0] if later else g.path.stat().st_size) - off


def check_disk(directory: Path, needed: int) -> None:
    """Raise a clear :class:`WeightsError` when ``directory``'s disk has less than ``needed`` bytes (+ margin)."""
    directory.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(directory).free
    if free < needed + DISK_MARGIN_BYTES:
        raise WeightsError(
            f"not enough disk space in {directory}: a derived weight file needs about {needed / 2**20:.0f} MiB, "
            f"{free / 2**20:.0f} MiB free (free some space, or set LCRAG_MODELS_DIR to a larger disk)"
        )


def _names(source: Path, source_sha: str, fmt: str) -> tuple[Path, Path]:
    stem = f"{source.stem}.{fmt}.{source_sha[:12]}"
    return derived_dir() / f"{stem}.gguf", derived_dir() / f"{stem}.json"


def _lock(path: Path, timeout: float = 600.0):
    return file_lock(path, timeout, WeightsError)


def _quantize(source: Path, target: Path, fmt: str, embedding_type: int | None, nthread: int) -> None:
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.nthread = nthread
    params.ftype = getattr(llama_cpp, FORMATS[fmt])
    params.allow_requantize = True
    if embedding_type is not None:
        params.token_embedding_type = embedding_type  # same type as the source: copied, not re-rounded
    rc = llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params))
    if rc != 0:
        raise WeightsError(f"llama_model_quantize({source.name} -> {fmt}) failed with code {rc}")


def derive(source: Path, fmt: str, source_sha256: str | None = None, nthread: int = 2) -> DerivedWeights:
    """The ``fmt`` copy of the GGUF ``source``: made once per machine, atomically, its sha256 recorded.

    A later call returns the recorded file after checking that it is still there with the recorded size
    (the sha256 itself is checked when the file is made; :func:`verify` re-hashes on demand).
    """
    if fmt not in FORMATS:
        raise WeightsError(f"unknown weight format {fmt!r}; known: {', '.join([SHIPPED, *FORMATS])}")
    source = Path(source)
    source_sha = source_sha256 or file_sha256(source)
    target, sidecar = _names(source, source_sha, fmt)
    with _lock(sidecar.with_suffix(".lock")):
        found = _recorded(target, sidecar)
        if found is not None:
            return found
        embd = tensor_types(source).get("token_embd.weight")
        check_disk(target.parent, expected_size(source, fmt))
        tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            _quantize(source, tmp, fmt, embd, nthread)
            sha = file_sha256(tmp)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        import llama_cpp

        made = DerivedWeights(
            path=target,
            format=fmt,
            sha256=sha,
            source=source,
            source_sha256=source_sha,
            llama_cpp=llama_cpp.__version__,
        )
        atomic_write_bytes(
            sidecar,
            json.dumps(
                {**made.record(), "size": target.stat().st_size, "made": time.strftime("%Y-%m-%dT%H:%M:%S")},
                indent=1,
            ).encode(),
        )
        return made


def _recorded(target: Path, sidecar: Path) -> DerivedWeights | None:
    try:
        rec = json.loads(sidecar.read_text())
    except (FileNotFoundError, ValueError):
        return None
    if not target.is_file() or target.stat().st_size != rec.get("size"):
        return None
    return DerivedWeights(
        path=target,
        format=rec["format"],
        sha256=rec["sha256"],
        source=Path(rec["source"]),
        source_sha256=rec["source_sha256"],
        llama_cpp=rec["llama_cpp"],
    )


def verify(weights: DerivedWeights) -> bool:
    """Re-hash a derived file: True when it still has its recorded sha256."""
    return file_sha256(weights.path) == weights.sha256
