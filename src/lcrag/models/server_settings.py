"""The embedded server's settings (:func:`serving_settings`), the weight files they name, and the server's
command line.

Serving settings are recorded in each run manifest and can be overridden with the environment variable
``LCRAG_SERVING`` (JSON, e.g. ``{"n_threads": 4}``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from lcrag import config
from lcrag.models import llama_load, weights
from lcrag.models.model_files import gguf_path, model_digest, model_source
from lcrag.models.registry import ModelInfo

LOGPROBS_SCORES_BYTES = 2 << 30  # memory allowed for the n_ctx x vocabulary logits of a logprobs server
# The weight format that evaluates long prompts, per built-in model; others: none (llama.cpp alone).
# f32 for the two small models (their exact values; f32 products are fast enough at their size), bf16 for the
# Qwen2.5 models where the CPU multiplies bf16 in hardware (BF16_FLAGS: 2-4x the f32 rate with AVX512-BF16 / AMX),
# f32 elsewhere (prefill_weights; benchmarks/qwen_serving.py).
PREFILL_WEIGHTS = {"smollm2": "f32", "gemma3": "f32", "qwen2.5-coder-0.5b": "bf16", "qwen2.5-coder-1.5b": "bf16"}
# Without these, torch emulates bf16 products: on an Intel Xeon with AVX-512 but neither (2 threads) bf16 ran at
# 50 GFLOP/s against f32's 226, and the 1.5B's bf16 prefill evaluated 2k tokens at 17.5 tok/s, its f32 one at 63.9.
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
# The prefill runtime per built-in model (benchmarks/serving_variants.py, issue 3); others: "llama.cpp".
# Torch vs llama.cpp f32 prefill, interleaved: SmolLM2 1.7x (2k) / 2.8x (7k), Gemma-3 1.3x (2k) / 1.6x (7k);
# first answer tokens identical, top-5 logprobs within 0.3 (tests/models/test_prefill.py).
PREFILL_RUNTIME = {k: "torch" for k in PREFILL_WEIGHTS}
# llama.cpp's flash-attention kernel, per built-in model (benchmarks/decode_context.py, Intel Xeon, 2 threads): after
# a long prompt each answer token attends over the whole cache, and there the kernel generates more slowly than the
# plain attention (8 000-token prompts: SmolLM2 9.1 vs 26.7 tok/s, Qwen 0.5B 7.0 vs 16.3, 1.5B 6.7 vs 8.1), except
# for Gemma-3, whose sliding-window layers keep the cache small (40.8 vs 38.9). Other models keep it on: llama.cpp
# evaluates their long prompts as well, where it is the faster kernel.
FLASH_ATTN = {"smollm2": False, "gemma3": True, "qwen2.5-coder-0.5b": False, "qwen2.5-coder-1.5b": False}
WEIGHT_KEYS = ("weights", "weights_sha256", "prefill_weights", "prefill_sha256", "source")  # lcrag's, not the server's
PREFILL_KEYS = ("prefill_runtime", "prefill_compile", "prefill_compile_min_tokens", "prefill_attention",
                "use_extra_bufts")  # lcrag.models.prefill's own
# torch.compile for the torch prefill, per built-in model (default: on): SmolLM2's time is in its matrix products,
# and op by op it evaluates long prompts as fast (README, Serving speed), so it does not pay 10 s to compile.
PREFILL_COMPILE = {"smollm2": False}
# The shortest prompt that uses the compiled layers (torch_prefill.COMPILE_MIN_TOKENS, which a test keeps equal;
# not imported here: this module is read by clients that never load torch).
PREFILL_COMPILE_MIN_TOKENS = 2048


def logprobs_ctx(path: Path, n_ctx: int) -> int:
    """The window of a logprobs server: its logits array (n_ctx x vocabulary floats) stays within 2 GiB."""
    from lcrag.models.tokens import gguf_tokenizer

    n_vocab = gguf_tokenizer(str(path))._llm.n_vocab()
    fits = LOGPROBS_SCORES_BYTES // (4 * n_vocab)
    return int(min(n_ctx, max(512, fits // 256 * 256)))


def prefill_weights(info: ModelInfo, flags: set[str] | None = None) -> str | None:
    """The weight format that evaluates a model's long prompts on a CPU with these feature flags (default: this
    one's): ``PREFILL_WEIGHTS``, with bf16 replaced by f32 where the CPU has no bf16 products (``BF16_FLAGS``)."""
    fmt = PREFILL_WEIGHTS.get(info.gguf)
    if fmt == "bf16" and not BF16_FLAGS & (llama_load.cpu_flags() if flags is None else flags):
        return "f32"
    return fmt


def bf16_attention() -> str:
    """The bf16 prefill's attention kernel on this CPU: ``sdpa`` (torch's flash kernel) where AMX bf16 tiles run
    it, else ``gemm`` (lcrag.models.torch_layers)."""
    return "sdpa" if "amx_bf16" in llama_load.cpu_flags() else "gemm"


def default_settings(info: ModelInfo) -> dict:
    """The llama.cpp server settings for a model before ``LCRAG_SERVING`` (:func:`serving_settings`)."""
    prefill = prefill_weights(info)
    return {
        "n_ctx": info.context_window,
        "n_threads": min(2, config.available_cpus()),
        "n_batch": 512,
        "logits_all": False,  # the server's default (True) computes logits for every prompt token: slow
        # Prompt caching: llama.cpp keeps the KV cache of the previous prompt and re-evaluates only what
        # follows the longest shared prefix, so consecutive calls on the same document are cheap (9x on
        # benchmarks/prefix_cache.py). The server's extra RAM cache of saved states ("cache": true) also serves
        # prefixes older than the last call, but saving the state after every call costs 0.25 s (SmolLM2) to
        # 1 s (Gemma-3, 32k window) per call, more than it saves on the book's workloads: off by default.
        "cache": False,
        # Speed (benchmarks/serving_variants.py, issue 3): long prompts evaluated with the shipped weights
        # dequantized to f32 (llama.cpp's fastest CPU matrix products), answers generated with the shipped file
        # (lcrag.models.prefill); llama.cpp's tiled flash attention where it generates faster (FLASH_ATTN).
        "flash_attn": FLASH_ATTN.get(info.gguf, True),
        "weights": weights.SHIPPED,
        "prefill_weights": prefill,
        # What evaluates those long prompts with the f32 weights: a second llama.cpp model, or the same model
        # in PyTorch (lcrag.models.torch_prefill), whichever the benchmark found faster for this model.
        "prefill_runtime": PREFILL_RUNTIME.get(info.gguf, "llama.cpp"),
        # The torch runtime's elementwise work (norms, RoPE, GELU, casts: half its time when run op by op)
        # fused by torch.compile into a few C++ loops; needs a C++ compiler, compiled once per server when the
        # first prompt of prefill_compile_min_tokens tokens comes (20-30 s the first time on a machine, then
        # 10-20 s from torch's inductor cache); shorter prompts always run op by op.
        "prefill_compile": PREFILL_RUNTIME.get(info.gguf) == "torch" and PREFILL_COMPILE.get(info.gguf, True),
        "prefill_compile_min_tokens": PREFILL_COMPILE_MIN_TOKENS,
        # The attention of the bf16 prefill (the Qwen models): torch's flash kernel on a CPU with AMX bf16 tiles
        # (about 10x the blocked bf16 products there at 16k keys), the blocked products elsewhere (measured the
        # faster on an AMD EPYC); torch_layers.attention.
        "prefill_attention": bf16_attention() if prefill == "bf16" else None,
        # llama.cpp's repacked-weight buffers: kept where a probe of this file on this machine shows them safe,
        # off where they crash (Intel AMX; lcrag.models.llama_load).
        "use_extra_bufts": None,
    }


def serving_settings(info: ModelInfo) -> dict:
    """The llama.cpp server settings for a model: defaults, then ``LCRAG_SERVING`` overrides, then the sha256
    of the weight files they name (so that every run manifest records exactly which weights answered)."""
    settings = default_settings(info)
    settings.update(serving_overrides(settings))
    if settings.get("use_extra_bufts") is None:
        settings["use_extra_bufts"] = llama_load.extra_bufts_safe(
            _weights(info, settings["weights"])[0]).use_extra_bufts
    return _with_digests(info, settings)


def serving_overrides(defaults: dict) -> dict:
    """``LCRAG_SERVING`` read: a JSON object whose keys are among the ``defaults`` of :func:`serving_settings` (and
    ``prefill_min_tokens``, ``prefix_snapshot_min_tokens``) or llama-cpp-python's server settings; anything else is a
    :class:`~lcrag.config.SettingError` naming the variable (and the known keys)."""
    text = os.environ.get("LCRAG_SERVING", "")
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise config.SettingError(f"LCRAG_SERVING is not valid JSON ({exc}): {text!r}") from None
    if not isinstance(value, dict):
        raise config.SettingError(f"LCRAG_SERVING must be a JSON object such as {{\"n_threads\": 4}}, not {text!r}")
    known = set(defaults) | {"prefill_min_tokens", "prefix_snapshot_min_tokens"}
    try:
        from llama_cpp.server.settings import ModelSettings

        known |= set(ModelSettings.model_fields) - {"model"}
    except ImportError:  # no server here: lcrag's own keys only
        pass
    unknown = sorted(set(value) - known)
    if unknown:
        raise config.SettingError(f"LCRAG_SERVING: unknown key {', '.join(map(repr, unknown))}; the known keys are "
                                  f"{', '.join(sorted(known))}")
    return value


def _with_digests(info: ModelInfo, settings: dict) -> dict:
    settings = {k: v for k, v in settings.items() if k not in ("weights_sha256", "prefill_sha256")}
    settings["source"] = model_source(info)
    settings["weights_sha256"] = _weights(info, settings["weights"])[1]
    if settings.get("prefill_weights"):
        settings["prefill_sha256"] = _weights(info, settings["prefill_weights"])[1]
    else:
        settings["prefill_weights"] = None
    return settings


def _weights(info: ModelInfo, fmt: str) -> tuple[Path, str]:
    """(path, sha256) of a local model's weights in format ``fmt`` (``shipped`` or a derived format)."""
    shipped = gguf_path(info)
    if fmt == weights.SHIPPED:
        return shipped, model_digest(shipped)
    made = weights.derive(shipped, fmt, source_sha256=model_digest(shipped))
    return made.path, made.sha256


def serving_model_paths(info: ModelInfo, settings: dict) -> tuple[Path, Path | None]:
    """The GGUF the server answers with, and the one it evaluates long prompts with (None: the same)."""
    prefill = settings.get("prefill_weights")
    return _weights(info, settings["weights"])[0], (_weights(info, prefill)[0] if prefill else None)


def _server_args(path: Path, port: int, settings: dict, prefill: Path | None = None,
                 snapshot: Path | None = None) -> list[str]:
    """The server's command line: ``lcrag.models.prefill`` (llama-cpp-python's server, loading its models
    through :mod:`lcrag.models.llama_load`), with ``-X faulthandler`` so that a crash leaves its signal and
    Python stack in the log.

    ``snapshot``: the file of the split prefill's KV snapshot (:mod:`lcrag.models.prefix_snapshot`). It is not one
    of the settings on purpose: it changes no answer's computation (a loaded prefix holds what the same prefill
    computed for the same tokens), so it stays out of the run manifests and the response store's serving
    settings, and a server started before it existed is not restarted for it."""
    args = [sys.executable, "-X", "faulthandler", "-m", "lcrag.models.prefill", "--model", str(path),
            "--host", "127.0.0.1", "--port", str(port)]
    args += ["--use_extra_bufts", str(bool(settings.get("use_extra_bufts"))).lower()]
    if prefill:
        args += ["--prefill_model", str(prefill), "--prefill_runtime", settings.get("prefill_runtime") or "llama.cpp"]
        args += ["--prefill_compile", str(bool(settings.get("prefill_compile"))).lower()]
        if settings.get("prefill_compile_min_tokens") is not None:
            args += ["--prefill_compile_min_tokens", str(int(settings["prefill_compile_min_tokens"]))]
        if settings.get("prefill_attention"):
            args += ["--prefill_attention", settings["prefill_attention"]]
        if snapshot:
            args += ["--prefix_snapshot", str(snapshot)]
    for key, value in settings.items():
        if key not in WEIGHT_KEYS and key not in PREFILL_KEYS:
            args += [f"--{key}", str(value)]
    return args
