"""When and how long to retry a model call, and what each failed attempt was.

The policy follows the openai SDK's (exponential backoff with jitter, bounded attempts) and adds what lcrag
needs around it: the server's ``Retry-After`` (or ``retry-after-ms``) is honoured whenever it asks for longer
than the backoff; a call never retries past a total deadline; and each failed attempt is classified
(:func:`failure_kind`) so the run's usage log and manifest count failures by kind. Timeout and deadline are
settable from the environment (``LCRAG_TIMEOUT_S`` per attempt, ``LCRAG_DEADLINE_S`` per call).
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field

from lcrag import config

#: Failure kinds, as counted in usage records and manifests.
RATE_LIMITED, SERVER_ERROR, TIMEOUT, CONNECTION, MALFORMED = (
    "rate_limited", "server_error", "timeout", "connection", "malformed")  # fmt: skip


def _seconds(name: str, default: float) -> float:
    return config.env_number(name, default, low=0.001, what="a number of seconds")


@dataclass
class RetryPolicy:
    max_retries: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    timeout_s: float = field(default_factory=lambda: _seconds("LCRAG_TIMEOUT_S", 600.0))
    deadline_s: float = field(default_factory=lambda: _seconds("LCRAG_DEADLINE_S", 3600.0))
    max_retry_after_s: float = 120.0  # the longest Retry-After honoured (a longer one is cut to this)

    def attempt_timeout(self, local: bool) -> float:
        """Seconds one attempt may take. An embedded server (``local``) evaluates one request at a time on this
        machine: a request that times out keeps it busy to the end, and its retry waits behind it and then
        repeats it (a 15k-token prompt takes over 600 s on 2 cores without bf16 products), so its attempts may take
        the whole deadline; a crash is still seen at once (the connection drops). Remote endpoints: ``timeout_s``."""
        return max(self.timeout_s, self.deadline_s) if local else self.timeout_s

    def delay(self, attempt: int) -> float:
        """The backoff before retry ``attempt`` + 1: exponential, capped, with jitter (50-100 %)."""
        return min(self.max_delay_s, self.base_delay_s * 2**attempt) * (0.5 + random.random() / 2)

    def wait(self, attempt: int, exc: Exception | None = None) -> float:
        """Seconds to wait before the next attempt: the backoff, or the server's Retry-After if it is longer."""
        asked = retry_after(exc)
        backoff = self.delay(attempt)
        return backoff if asked is None else max(backoff, min(asked, self.max_retry_after_s))


def retry_after(exc: Exception | None, now: float | None = None) -> float | None:
    """The wait the server asked for in the failed response's headers (``retry-after-ms``, ``retry-after`` as
    seconds or an HTTP date), or None."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value).timestamp()
            return max(0.0, when - (time.time() if now is None else now))
    except (TypeError, ValueError, OverflowError):
        return None


def failure_kind(exc: Exception) -> str:
    """The kind of a retryable failure, for the counts in usage records and manifests."""
    import openai  # loaded already: the failure came from it

    if isinstance(exc, openai.APITimeoutError):
        return TIMEOUT
    if isinstance(exc, openai.APIConnectionError):
        return CONNECTION
    if isinstance(exc, openai.RateLimitError):
        return RATE_LIMITED
    if isinstance(exc, openai.APIStatusError):
        return RATE_LIMITED if exc.status_code == 429 else SERVER_ERROR
    return MALFORMED  # a 200 whose body is not a completion (not JSON, no choices, null content)
