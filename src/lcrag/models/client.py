"""One interface for every model call, on the ``openai`` SDK.

>>> m = get_model("local/smollm2-135m-instruct")
>>> r = m.chat([{"role": "user", "content": "Capital of France?"}], max_tokens=8)
>>> r.text, r.prompt_tokens, r.source            # source: "network", "disk" or "store"

- chat completions (chat models), plain completions (base models), :meth:`Model.ask` picks the right one;
- context-window policy per call (``error`` / ``truncate_middle`` / ``truncate_end``), recorded in the result;
- logprobs / top-logprobs where the endpoint offers them (local models: a llama.cpp server with ``logits_all``);
- retries with exponential backoff on 429, 5xx, timeouts and malformed responses; auth failures and unknown
  models fail at once with a clear message; bounded concurrency for remote endpoints, sequential for local;
- every response goes through the cache layers (committed store, then disk); a hit never touches the network;
- every call is recorded in :mod:`lcrag.models.usage`.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from lcrag import config
from lcrag.models import model_files, server, token_counts, usage
from lcrag.models import tokens as tok
from lcrag.models.answers import MalformedResponse, normalise
from lcrag.models.cache import DiskCache, content_key
from lcrag.models.registry import ModelInfo, UnknownModelError, api_key, cost_usd, parse_spec
from lcrag.models.retry import RetryPolicy, failure_kind
from lcrag.models.store import default_store, skipped_hint
from lcrag.progress import progress as bar

if TYPE_CHECKING:  # the SDK is imported where a request is sent (about 1 s): a run read from the store never is
    import openai

TEMPLATE_OVERHEAD = 16  # tokens a chat template adds around a conversation (margin)
MESSAGE_OVERHEAD = 8  # tokens per message (role markers)
INFLIGHT_MARGIN_S = 60.0  # a process waiting for another's identical request waits its deadline and this much


class ModelCallError(RuntimeError):
    """A model call failed for good (after retries, or at once for errors retrying cannot fix)."""


class AuthError(ModelCallError):
    """The endpoint refused the credentials (401/403). Check the API key environment variable."""


class CacheMiss(ModelCallError):
    """``LCRAG_OFFLINE=1`` and the response is in neither the store nor the disk cache."""


@dataclass
class Completion:
    """One model response, with everything the book reports about it."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    key: str
    source: str  # "network" | "disk" | "store"
    latency_s: float
    cost_usd: float | None
    logprobs: list[dict] | None = None  # per generated token: {"token", "logprob", "top": {token: logprob}}
    truncation: dict | None = None
    model: str = ""
    serving: dict | None = None  # local models: the server settings (weights and their sha256) that answered

    def top_logprobs(self, position: int = 0) -> dict[str, float]:
        """Top alternatives at a generated position (empty when the endpoint gave none)."""
        if not self.logprobs or position >= len(self.logprobs):
            return {}
        return dict(self.logprobs[position].get("top") or {})


@dataclass
class Model:
    info: ModelInfo
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_concurrency: int = 1

    def __post_init__(self):
        self._client_lock = threading.Lock()
        self._client: openai.OpenAI | None = None
        self._base_url: str | None = None
        self._local: dict[bool, tuple[openai.OpenAI, dict]] = {}  # local server (client, settings), by logits_all

    # ------------------------------------------------------------------ identity, tokens
    @property
    def spec(self) -> str:
        return self.info.spec

    @cached_property
    def identity(self) -> str:
        """What the cache key knows about the endpoint: the weights' sha256 for local models, else the URL."""
        if self.info.is_local:
            return f"llama.cpp:{model_files.model_digest(model_files.gguf_path(self.info))}"
        return f"{self.info.provider}:{self.info.base_url}"

    @cached_property
    def tokenizer(self) -> tok.Tokenizer:
        return tok.tokenizer_for(self.info)

    def count_tokens(self, text: str) -> int:
        return token_counts.count(self.tokenizer, text)  # a long text's count from the store where it has one

    def fit(self, text: str, budget: int, policy: str = "truncate_middle") -> tuple[str, tok.Truncation]:
        """Cut ``text`` to ``budget`` tokens of this model (for prompts built from parts)."""
        return tok.fit(text, budget, self.tokenizer, policy)

    # ------------------------------------------------------------------ public calls
    def chat(self, messages: list[dict], *, max_tokens: int = 256, temperature: float = 0.0,
             top_p: float | None = None, stop: list[str] | None = None, seed: int | None = None,
             logprobs: bool = False, top_logprobs: int = 0, context_policy: str = "error") -> Completion:
        if self.info.kind != "chat":
            raise ValueError(f"{self.spec} is a base model: use complete() or ask()")
        messages, trunc = self._fit_messages(messages, max_tokens, context_policy)
        params = _params(max_tokens, temperature, top_p, stop, seed, logprobs, top_logprobs)
        return self._call("chat", {"messages": messages}, params, trunc)

    def complete(self, prompt: str, *, max_tokens: int = 256, temperature: float = 0.0,
                 top_p: float | None = None, stop: list[str] | None = None, seed: int | None = None,
                 logprobs: bool = False, top_logprobs: int = 0, context_policy: str = "error") -> Completion:
        budget = self.info.context_window - max_tokens - 1
        if context_policy in tok.POLICIES and tok.surely_fits([prompt], budget):
            trunc = tok.Truncation(context_policy, 0, 0)  # not counted: nothing can be cut
        else:
            prompt, trunc = tok.fit(prompt, budget, self.tokenizer, context_policy)
        params = _params(max_tokens, temperature, top_p, stop, seed, logprobs, top_logprobs)
        return self._call("completion", {"prompt": prompt}, params, trunc)

    def ask(self, prompt: str | list[dict], *, system: str | None = None, **kwargs) -> Completion:
        """A chat call for chat models, a plain completion for base models.

        ``prompt`` is one user turn (with an optional ``system``) or a list of messages; for a base model the
        message contents are joined with blank lines (base models have no roles).
        """
        if isinstance(prompt, str):
            messages = ([{"role": "system", "content": system}] if system else [])
            messages.append({"role": "user", "content": prompt})
        else:
            messages = list(prompt)
        if self.info.kind == "chat":
            return self.chat(messages, **kwargs)
        return self.complete("\n\n".join(m["content"] for m in messages), **kwargs)

    def map(self, method: str, requests: list[dict], progress: bool = False) -> list[Completion]:
        """Run many calls (``method`` = "chat", "complete" or "ask"; each request is its kwargs), in order,
        with at most ``max_concurrency`` in flight (1 for local models)."""
        fn = getattr(self, method)
        workers = 1 if self.info.is_local else max(1, self.max_concurrency)
        if workers == 1:
            return [fn(**r) for r in bar(requests, enabled=progress, desc=self.spec)]
        with ThreadPoolExecutor(workers) as pool:
            return list(bar(pool.map(lambda r: fn(**r), requests), enabled=progress, total=len(requests),
                            desc=self.spec))

    def estimate_cost(self, prompts: list[str], max_tokens: int) -> dict:
        """Pre-run estimate for a list of prompts: tokens in, tokens out at most, dollars (None = unknown)."""
        n_in = sum(self.count_tokens(p) for p in prompts) + len(prompts) * TEMPLATE_OVERHEAD
        n_out = len(prompts) * max_tokens
        return {"model": self.spec, "calls": len(prompts), "prompt_tokens": n_in, "max_completion_tokens": n_out,
                "cost_usd_max": cost_usd(self.info, n_in, n_out), "tokens_exact": self.tokenizer.exact}

    # ------------------------------------------------------------------ internals
    def _fit_messages(self, messages, max_tokens, policy):
        """Apply the context policy to the longest message; the others are kept whole."""
        messages = [dict(m) for m in messages]
        overhead = TEMPLATE_OVERHEAD + MESSAGE_OVERHEAD * len(messages)
        if tok.surely_fits([m["content"] for m in messages], self.info.context_window - overhead - max_tokens):
            return messages, tok.Truncation(policy, 0, 0)  # not counted: nothing can be cut
        sizes = [self.count_tokens(m["content"]) for m in messages]
        total = sum(sizes) + overhead + max_tokens
        if total <= self.info.context_window:
            return messages, tok.Truncation(policy, sum(sizes), sum(sizes))
        longest = max(range(len(messages)), key=sizes.__getitem__)
        budget = self.info.context_window - max_tokens - overhead - (sum(sizes) - sizes[longest])
        try:
            messages[longest]["content"], t = tok.fit(messages[longest]["content"], budget, self.tokenizer, policy)
        except tok.ContextWindowExceeded as exc:
            raise tok.ContextWindowExceeded(
                f"{self.spec}: {total} tokens (prompt + max_tokens) exceed the {self.info.context_window}-token "
                f"window; {exc}"
            ) from None
        kept = sum(sizes) - sizes[longest] + t.kept_tokens
        return messages, tok.Truncation(policy, sum(sizes), kept)

    def _call(self, kind: str, body: dict, params: dict, trunc: tok.Truncation) -> Completion:
        key = content_key({"endpoint": self.identity, "model": self.info.name, "kind": kind, **body,
                           "params": params})
        response, source = self._lookup(key)
        failures: dict[str, int] = {}  # failed attempts by kind (lcrag.models.retry), for the usage log
        if response is None:
            if config.offline():
                raise CacheMiss(f"{self.spec}: response {key[:12]} not in the store or cache and LCRAG_OFFLINE=1"
                                + skipped_hint(default_store().skipped))
            cache = DiskCache()
            with cache.computing(key, self.retry.deadline_s + INFLIGHT_MARGIN_S, ModelCallError):
                response, source = self._lookup(key)  # another process may have made it while this one waited
                if response is None:
                    try:
                        response = self._request(kind, body, params, failures)
                    except ModelCallError:
                        usage.record(usage.UsageRecord(model=self.spec, kind=kind, key=key, source="failed",
                                                       failures=failures))
                        raise
                    source = "network"
                    cache.put(key, response)
        self._maybe_record(key, response)
        c = _completion(response, key, source, self.info, trunc)
        usage.record(usage.UsageRecord(
            model=self.spec, kind=kind, key=key, source=source, prompt_tokens=c.prompt_tokens,
            completion_tokens=c.completion_tokens, latency_s=c.latency_s, cost_usd=c.cost_usd,
            estimated_tokens=response.get("prompt_tokens") is None,
            truncated=bool(c.truncation), serving=response.get("serving"),
            failures=failures, tokenizer=self.tokenizer.name, server_s=response.get("server_s"),
        ))
        return c

    def _lookup(self, key: str) -> tuple[dict | None, str]:
        if config.store_mode() != "off":
            hit = default_store().get(key)
            if hit is not None:
                return hit, "store"
        hit = DiskCache().get(key)
        return (hit, "disk") if hit is not None else (None, "")

    def _maybe_record(self, key: str, response: dict) -> None:
        chapter = config.chapter()
        if config.store_mode() == "record" and chapter:
            default_store().append(chapter, self.info.slug, key, response, model=self.spec)

    # ------------------------------------------------------------------ the network
    def _endpoint(self, logprobs: bool) -> tuple[openai.OpenAI, str, dict | None]:
        """The client to call, the model name to send, and (local models) the server's settings."""
        import openai

        if self.info.is_local:
            if logprobs not in self._local:  # start (or find) the server once per process
                handle = server.start(self.spec, logits_all=logprobs)
                client = openai.OpenAI(base_url=handle.base_url, api_key="local", max_retries=0,
                                       timeout=self.retry.attempt_timeout(local=True))
                self._local[logprobs] = (client, {"runtime": "llama-cpp-python", **handle.settings})
            client, serving = self._local[logprobs]
            return client, self.info.name, serving
        with self._client_lock:
            if self._client is None:
                key = api_key(self.info.provider)
                if key is None and self.info.provider == "openai":
                    raise AuthError(f"{self.spec} needs an API key: set OPENAI_API_KEY (or LCRAG_API_KEY)")
                self._client = openai.OpenAI(base_url=self.info.base_url, api_key=key or "none",
                                             max_retries=0, timeout=self.retry.attempt_timeout(local=False))
            return self._client, self.info.name, None

    def _request(self, kind: str, body: dict, params: dict, failures: dict[str, int]) -> dict:
        """One completion from the endpoint, retried on transient failures (:mod:`lcrag.models.retry`); each
        failed attempt is counted by kind in ``failures``."""
        import openai

        last: Exception | None = None
        start = time.monotonic()
        for attempt in range(self.retry.max_retries + 1):
            client, name, serving = self._endpoint(bool(params.get("logprobs")))
            t0 = time.perf_counter()
            try:
                raw = _send(client, name, kind, body, params)
                response = normalise(kind, raw)
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise AuthError(f"{self.spec}: the endpoint refused the credentials (HTTP {exc.status_code}); "
                                "check OPENAI_API_KEY / LCRAG_API_KEY") from None
            except openai.NotFoundError:
                raise UnknownModelError(f"{self.spec}: the endpoint does not know model {name!r} (HTTP 404)") from None
            except openai.BadRequestError as exc:
                raise ModelCallError(f"{self.spec}: request rejected (HTTP 400): {_scrub(str(exc))}") from None
            except (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError,
                    openai.APIConnectionError, openai.APIResponseValidationError, openai.APIStatusError,
                    MalformedResponse, ValueError) as exc:
                if isinstance(exc, openai.APIStatusError) and not (
                        exc.status_code >= 500 or exc.status_code in (408, 409, 429)):
                    raise ModelCallError(f"{self.spec}: HTTP {exc.status_code}: {_scrub(str(exc))}") from None
                last = exc
                kind_ = failure_kind(exc)
                failures[kind_] = failures.get(kind_, 0) + 1
                if (isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError)
                        and self.info.is_local):  # a timeout: the server is alive and busy, keep it
                    died = server.death(self.spec, bool(params.get("logprobs")))
                    if died is not None:  # a crash is reported at once, with the server's log
                        raise ModelCallError(str(died)) from None
                    self._local.clear()  # a server stopped on purpose is started again on the next try
                if attempt < self.retry.max_retries:
                    wait = self.retry.wait(attempt, exc)
                    if time.monotonic() - start + wait > self.retry.deadline_s:
                        raise ModelCallError(
                            f"{self.spec}: gave up at the {self.retry.deadline_s:g} s deadline (LCRAG_DEADLINE_S) "
                            f"after {attempt + 1} attempts: {type(exc).__name__}: {_scrub(str(exc))}"
                            f"{_where(exc, client)}") from None
                    time.sleep(wait)
                continue
            response["latency_s"] = round(time.perf_counter() - t0, 4)
            if serving:
                response["serving"] = serving
            return response
        raise ModelCallError(
            f"{self.spec}: gave up after {self.retry.max_retries + 1} attempts: "
            f"{type(last).__name__}: {_scrub(str(last))}{_where(last, client)}"
        )


def _params(max_tokens, temperature, top_p, stop, seed, logprobs, top_logprobs) -> dict:
    p = {"max_tokens": max_tokens, "temperature": temperature}
    if top_p is not None:
        p["top_p"] = top_p
    if stop:
        p["stop"] = list(stop)
    if seed is not None:
        p["seed"] = seed
    if logprobs:
        p["logprobs"] = True
        p["top_logprobs"] = int(top_logprobs)
    return p


def _send(client: openai.OpenAI, name: str, kind: str, body: dict, params: dict):
    if kind == "chat":
        return client.chat.completions.create(model=name, messages=body["messages"], **params)
    params = dict(params)
    if params.pop("logprobs", False):
        params["logprobs"] = max(1, params.pop("top_logprobs", 1))
    else:
        params.pop("top_logprobs", None)
    return client.completions.create(model=name, prompt=body["prompt"], **params)


def _completion(response: dict, key: str, source: str, info: ModelInfo, trunc: tok.Truncation) -> Completion:
    pt = response.get("prompt_tokens") or 0
    ct = response.get("completion_tokens") or 0
    return Completion(
        text=response["text"], finish_reason=response.get("finish_reason"), prompt_tokens=pt,
        completion_tokens=ct, key=key, source=source, latency_s=response.get("latency_s", 0.0),
        cost_usd=cost_usd(info, pt, ct), logprobs=response.get("logprobs"),
        truncation=trunc.as_dict() if trunc.truncated else None, model=info.spec,
        serving=response.get("serving"),
    )


def _where(exc: BaseException | None, client) -> str:
    """`` (endpoint <base URL>)`` after a connection failure (which names no address itself), else nothing."""
    import openai

    return f" (endpoint {client.base_url})" if isinstance(exc, openai.APIConnectionError) else ""


def _scrub(message: str) -> str:
    """Remove anything that looks like a credential from an error message before it is shown or logged."""
    import re

    for var in ("LCRAG_API_KEY", "OPENAI_API_KEY"):
        secret = os.environ.get(var)
        if secret:
            message = message.replace(secret, "***")
    return re.sub(r"sk-[A-Za-z0-9_*-]{6,}", "sk-***", message)


def estimate_sentence(estimate: dict) -> str:
    """A :meth:`Model.estimate_cost` as one line a reader can read."""
    cost = estimate["cost_usd_max"]
    return (f"{estimate['calls']} calls to {estimate['model']}: {estimate['prompt_tokens']:,} prompt tokens "
            f"({'counted, the chat template estimated' if estimate['tokens_exact'] else 'estimated'}), at most "
            f"{estimate['max_completion_tokens']:,} completion tokens; "
            + ("no price known" if cost is None else f"at most {cost:.2f} USD"))


_MODELS: dict[tuple, Model] = {}
_MODELS_LOCK = threading.Lock()


def concurrency_setting() -> int:
    """Requests a model sends at once: ``LCRAG_MAX_CONCURRENCY`` (default 4; a SettingError when not a whole
    number of at least 1)."""
    return int(config.env_number("LCRAG_MAX_CONCURRENCY", 4, integer=True, low=1, what="a number of requests"))


def get_model(spec: str | None = None, *, context_window: int | None = None,
              max_concurrency: int | None = None) -> Model:
    """The :class:`Model` for a spec (default: ``LCRAG_MODEL`` or SmolLM2), shared within the process."""
    spec = spec or config.default_model()
    conc = max_concurrency or concurrency_setting()
    k = (spec, context_window, conc)
    with _MODELS_LOCK:
        if k not in _MODELS:
            _MODELS[k] = Model(parse_spec(spec, context_window=context_window), max_concurrency=conc)
        return _MODELS[k]
