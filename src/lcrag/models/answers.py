"""An endpoint's answer in the compact, JSON-able form the response cache and the store keep.

:func:`normalise` takes the OpenAI SDK's completion object (chat or text) and keeps the text, the finish reason,
the logprobs, the token counts and, where the server says, its own computing time; an answer that is not a
completion (no choices, no content) is a :class:`MalformedResponse`, a failure the client retries, never an
empty answer.
"""

from __future__ import annotations


class MalformedResponse(ValueError):
    """The endpoint answered 200 with something that is not a completion."""


def normalise(kind: str, raw) -> dict:
    """The compact, JSON-able form of a response that the cache and the store keep."""
    try:
        choice = raw.choices[0]
        text = choice.message.content if kind == "chat" else choice.text
        if text is None:  # an answer without content is a failure, not the empty answer
            raise MalformedResponse("the completion has no content (null)")
        lp = _chat_logprobs(choice.logprobs) if kind == "chat" else _completion_logprobs(choice.logprobs)
        u = raw.usage
        out = {"text": text, "finish_reason": choice.finish_reason, "logprobs": lp,
               "prompt_tokens": int(u.prompt_tokens) if u else None,
               "completion_tokens": int(u.completion_tokens) if u else None}
        server_s = _server_seconds(getattr(raw, "model_extra", None) or {})
        if server_s is not None:
            out["server_s"] = server_s
        return out
    except (AttributeError, IndexError, TypeError) as exc:
        raise MalformedResponse(f"malformed completion: {type(exc).__name__}: {exc}") from None


def _server_seconds(extra: dict) -> float | None:
    """The time the server says it computed the answer (llama.cpp's server: ``timings.prompt_ms`` +
    ``predicted_ms``), or None: beside ``latency_s`` it tells computing from waiting in the server's queue."""
    t = extra.get("timings")
    try:
        return round((float(t["prompt_ms"]) + float(t["predicted_ms"])) / 1000, 4)
    except (TypeError, KeyError, ValueError):
        return None


def _chat_logprobs(lp) -> list[dict] | None:
    if not lp or not getattr(lp, "content", None):
        return None
    return [{"token": t.token, "logprob": t.logprob, "top": {a.token: a.logprob for a in (t.top_logprobs or [])}}
            for t in lp.content]


def _completion_logprobs(lp) -> list[dict] | None:
    if not lp or not getattr(lp, "tokens", None):
        return None
    tops = lp.top_logprobs or [None] * len(lp.tokens)
    return [{"token": t, "logprob": lp_, "top": dict(top or {})}
            for t, lp_, top in zip(lp.tokens, lp.token_logprobs, tops, strict=False)]
