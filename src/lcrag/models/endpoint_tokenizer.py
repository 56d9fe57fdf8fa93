"""The served model's own tokenizer, asked over HTTP: exact token counts for an ``openai-compatible`` model.

OpenAI's API has no tokenize call, but the servers people point this project at do, each in its own dialect:

| server             | tokenize                                              | detokenize                               |
|--------------------|-------------------------------------------------------|------------------------------------------|
| llama.cpp          | ``POST /tokenize {"content", "add_special": false}`` -> ``tokens`` | ``POST /detokenize {"tokens"}`` -> ``content`` |
| vLLM               | ``POST /tokenize {"model", "prompt", "add_special_tokens": false}`` -> ``tokens`` | ``POST /detokenize {"model", "tokens"}`` -> ``prompt`` |
| llama-cpp-python   | ``POST /extras/tokenize {"model", "input"}`` -> ``tokens`` | ``POST /extras/detokenize {"model", "tokens"}`` -> ``text`` |

(paths relative to the server root: the base URL without its ``/v1``). :func:`probe` tries each dialect once on a
short text and returns a tokenizer for the first that answers with token ids, or None (Ollama, hosted APIs): then
the caller falls back to tiktoken or the stand-in vocabulary and says so. Special tokens a server adds on its own
(llama-cpp-python always adds BOS) are found by tokenizing the empty string and removed from every encoding.
"""

from __future__ import annotations

import functools
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from lcrag.models.registry import api_key

PROBE_TIMEOUT_S = 5.0
TIMEOUT_S = 120.0  # a long document (a 32k-token haystack) on a busy server


@dataclass(frozen=True)
class Dialect:
    name: str
    tokenize_path: str
    detokenize_path: str

    def tokenize_body(self, model: str, text: str) -> dict[str, Any]:
        if self.name == "llama.cpp":
            return {"content": text, "add_special": False}
        if self.name == "vllm":
            return {"model": model, "prompt": text, "add_special_tokens": False}
        return {"model": model, "input": text}

    def detokenize_body(self, model: str, tokens: list[int]) -> dict[str, Any]:
        return {"tokens": tokens} if self.name == "llama.cpp" else {"model": model, "tokens": tokens}

    def text_of(self, answer: dict) -> str:
        return answer[{"llama.cpp": "content", "vllm": "prompt"}.get(self.name, "text")]


DIALECTS = (
    Dialect("llama.cpp", "/tokenize", "/detokenize"),
    Dialect("vllm", "/tokenize", "/detokenize"),
    Dialect("llama-cpp-python", "/extras/tokenize", "/extras/detokenize"),
)


def server_root(base_url: str) -> str:
    """``http://host:port/v1`` -> ``http://host:port``."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _post(url: str, body: dict, timeout: float) -> dict:
    headers = {"Content-Type": "application/json"}
    key = api_key("openai-compatible")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


def _token_ids(answer: Any) -> list[int] | None:
    tokens = answer.get("tokens") if isinstance(answer, dict) else None
    if isinstance(tokens, list) and all(isinstance(t, int) for t in tokens):
        return tokens
    return None


class EndpointTokenizer:
    """A :class:`lcrag.models.tokens.Tokenizer` backed by the server's tokenize endpoint (exact)."""

    exact = True

    def __init__(self, base_url: str, model: str, dialect: Dialect):
        self.root, self.model, self.dialect = server_root(base_url), model, dialect
        self.name = f"endpoint:{dialect.name}:{model}"
        self._added = self._tokenize("")  # what the server adds by itself (a BOS), stripped from every answer

    def _tokenize(self, text: str, timeout: float = TIMEOUT_S) -> list[int]:
        answer = _post(self.root + self.dialect.tokenize_path, self.dialect.tokenize_body(self.model, text), timeout)
        ids = _token_ids(answer)
        if ids is None:
            raise ValueError(f"{self.root}{self.dialect.tokenize_path} answered without token ids")
        return ids

    @functools.lru_cache(maxsize=64)  # noqa: B019 (one tokenizer per endpoint and model, kept for the process)
    def _encode(self, text: str) -> tuple[int, ...]:
        ids = self._tokenize(text)
        n = len(self._added)
        return tuple(ids[n:] if n and ids[:n] == self._added else ids)

    def encode(self, text: str) -> list[int]:
        return list(self._encode(text))

    def decode(self, tokens: list[int]) -> str:
        if not tokens:
            return ""
        body = self.dialect.detokenize_body(self.model, list(tokens))
        return self.dialect.text_of(_post(self.root + self.dialect.detokenize_path, body, TIMEOUT_S))


@functools.lru_cache(maxsize=16)
def probe(base_url: str, model: str) -> EndpointTokenizer | None:
    """The tokenizer of the server at ``base_url`` serving ``model``, or None when it offers no tokenize endpoint
    (each dialect is tried once, with a short timeout; the answer is kept for the process)."""
    root = server_root(base_url)
    for dialect in DIALECTS:
        try:
            ids = _token_ids(_post(root + dialect.tokenize_path, dialect.tokenize_body(model, "Hello world"),
                                   PROBE_TIMEOUT_S))
        except (urllib.error.URLError, OSError, ValueError):
            continue
        if ids:
            try:
                return EndpointTokenizer(base_url, model, dialect)
            except (urllib.error.URLError, OSError, ValueError):
                continue
    return None
