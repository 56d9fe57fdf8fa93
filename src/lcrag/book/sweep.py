"""Sweeps: chapters x models x parameter grids, each task one :func:`~lcrag.book.runner.run_chapter`.

A sweep expands a spec into tasks, one per (chapter, model, grid point)::

    lcrag sweep quickstart thesis --model local/smollm2-135m-instruct --model openai/gpt-4o-mini --profile quick
    lcrag sweep quickstart --profile quick -p n_items='[4, 8]' -p needle_depths='[[0, 50], [100]]'

A ``-p`` grid applies to every chapter of the sweep (a chapter without that parameter is an error, found before
anything runs); per-chapter grids come from a YAML spec (:func:`read_spec`).
Each task writes its own run directory ``<root>/<model-slug>/<profile>/<chapter>/<point>/`` (``root`` is
``runs/`` unless ``--out`` says otherwise; without a grid there is no ``<point>`` level, so a sweep over
models lands exactly where ``lcrag run`` would). The sweep returns a tidy table, one row per task (chapter,
model, params, status, error, wall time, calls, run directory), saved as CSV.

Where the tasks run
-------------------
Locally with joblib (``n_jobs`` default 1: the embedded models serialise their calls anyway, and the CPU is
what they need). With a cluster address, on a running **Dask** cluster through joblib's own ``dask`` backend
(``joblib.parallel_config(backend="dask")`` inside a ``distributed.Client``): the same ``Parallel`` call, a
different backend. Dask rather than Ray because ``dask[distributed]`` is pure Python and pip-installable
(no compiled daemon, no object store), its backend ships with joblib, and ``distributed.LocalCluster`` gives
the tests a real multi-process cluster in seconds; Ray would bring a much heavier runtime for the same
``Parallel`` call. Workers receive the submitting process's ``LCRAG_*`` variables (data, cache, state and
store directories) with every task, never API keys: those must be in the workers' own environment. The
paths must mean the same on the workers (a shared filesystem, or a cluster on this machine).

How many tasks hit one model at once
------------------------------------
Tasks are grouped into *lanes*; a lane runs its tasks one after another, lanes run in parallel.

- A remote model (``openai/...``, ``openai-compatible/...@url``) is reached through its endpoint: the tasks
  of one endpoint are dealt round-robin into ``max_concurrency`` lanes, so at most that many chapter runs
  talk to one endpoint at a time, whatever the number of workers.
- An embedded model (``local/...``) is one llama.cpp server per machine, shared by every process on it: its
  tasks go into ``local_lanes`` lanes (default 1: one after another). On a cluster of several machines,
  ``local_lanes`` > 1 lets each machine run its own server; two lanes that land on the same machine still
  take turns, because a task holds a machine-wide lock for its local model (a file in
  ``LCRAG_STATE_DIR``) while it runs. Interleaved tasks on one server would only slow each other down (they
  share the CPU and evict each other's prompt cache).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from lcrag import config
from lcrag.book.profiles import PROFILES, UsageError, parse_cli_params, resolve
from lcrag.book.runner import _environ, model_slug, run_chapter

#: Columns of the sweep table, in order.
COLUMNS = (
    "chapter", "model", "profile", "point", "params", "status", "ok", "error",
    "wall_s", "wait_s", "calls", "cost_usd", "out_dir", "lane", "host", "pid",
)  # fmt: skip
LOCAL_LOCK_TIMEOUT_S = 24 * 3600.0  # a lane waits this long for another lane's run on the same local model
_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)
_SET_BY_RUNNER = ("LCRAG_RUN_DIR", "LCRAG_CHAPTER", "LCRAG_MODEL")


@dataclass
class Task:
    """One chapter run of a sweep."""

    chapter: str
    model: str
    profile: str
    params: dict[str, Any] = field(default_factory=dict)
    point: str = ""  # the grid point's id ("" without a grid)
    out_dir: Path | None = None
    index: int = 0  # position in the sweep (row order of the table)


# --------------------------------------------------------------------------------------------
# the grid


def expand_grid(grid: dict[str, list[Any]] | None) -> list[dict[str, Any]]:
    """The cartesian product of a parameter grid, in order (last parameter varies fastest).

    ``{"a": [1, 2], "b": ["x"]}`` -> ``[{"a": 1, "b": "x"}, {"a": 2, "b": "x"}]``; ``{}`` -> ``[{}]``.
    A parameter that is itself a list is swept as a list of lists: ``{"depths": [[0, 50], [100]]}``.
    """
    grid = dict(grid or {})
    for name, values in grid.items():
        if not isinstance(values, (list, tuple)) or not values:
            raise UsageError(f"grid parameter {name!r}: expected a non-empty list of values, got {values!r}")
    names = list(grid)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(grid[n] for n in names))]


def parse_grid_params(items: list[str] | None) -> dict[str, list[Any]]:
    """``-p name=VALUES`` of ``lcrag sweep`` to a grid: a YAML list is the values to sweep, a scalar one value.

    ``n_items=[5, 10]`` -> ``{"n_items": [5, 10]}``; ``n_items=5`` -> ``{"n_items": [5]}``;
    a list-valued parameter is wrapped once more: ``depths=[[0, 50]]`` -> one point with ``depths=[0, 50]``.
    """
    return {k: v if isinstance(v, list) else [v] for k, v in parse_cli_params(items).items()}


def _value_text(v: Any) -> str:
    """A grid value as a directory name shows it: ``abc``, ``5``, a list ``0+50``, else compact JSON."""
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)) and all(isinstance(x, (str, int, float)) for x in v):
        return "+".join(_value_text(x) for x in v)
    return json.dumps(v, separators=(",", ":"))


def point_id(params: dict[str, Any]) -> str:
    """A readable, file-name-safe id of a grid point: ``n_items=5,depths=0+50`` ("" for no parameters).

    Characters a directory name should not hold become ``_``; then, and for ids over 80 characters, a short
    hash of the exact values is appended so that two points never share a directory.
    """
    if not params:
        return ""
    raw = ",".join(f"{k}={_value_text(v)}" for k, v in params.items())
    safe = re.sub(r"[^A-Za-z0-9._=,+-]", "_", raw)
    if safe == raw and len(raw) <= 80:
        return raw
    digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]
    return f"{safe[:80]}-{digest}"


# --------------------------------------------------------------------------------------------
# the spec


@dataclass
class SweepSpec:
    """What to sweep: chapters (each with its own grid, added to the shared one), models, one profile."""

    chapters: dict[str, dict[str, list[Any]]]
    models: list[str]
    profile: str = "default"  # as for `lcrag run`
    grid: dict[str, list[Any]] = field(default_factory=dict)


SPEC_KEYS = ("chapters", "models", "profile", "grid")


def read_spec(path: Path) -> SweepSpec:
    """A sweep spec from YAML::

        profile: quick
        models: [local/smollm2-135m-instruct, openai/gpt-4o-mini]
        chapters:                  # a list, or chapter -> its own grid
          quickstart: {n_items: [4, 8]}
          thesis: {}
        grid: {}                   # swept in every chapter

    Unknown keys and unreadable files raise :class:`UsageError` naming the file.
    """
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(f"sweep spec {path}: cannot read it: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"sweep spec {path}: expected a mapping with keys {', '.join(SPEC_KEYS)}")
    unknown = sorted(set(data) - set(SPEC_KEYS))
    if unknown:
        raise UsageError(f"sweep spec {path}: unknown keys {unknown}; valid keys: {', '.join(SPEC_KEYS)}")
    chapters = data.get("chapters") or {}
    if isinstance(chapters, list):
        chapters = {str(c): {} for c in chapters}
    if not isinstance(chapters, dict):
        raise UsageError(f"sweep spec {path}: 'chapters' must be a list or a mapping chapter -> grid")
    models = data.get("models") or []
    if isinstance(models, str):
        models = [models]
    return SweepSpec(
        chapters={str(c): dict(g or {}) for c, g in chapters.items()},
        models=[str(m) for m in models],
        profile=str(data.get("profile", "default")),
        grid=dict(data.get("grid") or {}),
    )


def plan(spec: SweepSpec, out_root: Path | None = None, *, root: Path | None = None) -> list[Task]:
    """The tasks of a sweep, validated before anything runs.

    Order: chapter, then model, then grid point. Every task's parameters are checked against the chapter
    (unknown chapter, profile or parameter, wrong type: :class:`UsageError` naming the task), and every
    model spec is parsed, so that a typo fails in a second rather than after hours of other tasks.
    """
    from lcrag.models.registry import parse_spec

    if not spec.chapters:
        raise UsageError("a sweep needs at least one chapter")
    if spec.profile not in PROFILES:
        raise UsageError(f"unknown profile {spec.profile!r}; profiles are {', '.join(PROFILES)}")
    models = spec.models or [config.default_model()]
    for m in models:
        try:
            parse_spec(m)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    base = Path(out_root) if out_root else (Path(root) if root else config.project_root()) / "runs"
    tasks: list[Task] = []
    for chapter, chapter_grid in spec.chapters.items():
        points = expand_grid({**spec.grid, **chapter_grid})
        for model in models:
            for params in points:
                try:
                    resolve(chapter, spec.profile, params, root=root)
                except UsageError as exc:
                    raise UsageError(f"sweep task {chapter} / {model} / {params}: {exc}") from None
                pid = point_id(params)
                out = base / model_slug(model) / spec.profile / chapter
                tasks.append(
                    Task(chapter, model, spec.profile, params, pid, out / pid if pid else out, len(tasks))
                )
    return tasks


# --------------------------------------------------------------------------------------------
# lanes: how many tasks hit one model at once


def endpoint(model: str) -> str:
    """What a task's model calls go to: ``local:<spec>`` for an embedded model, else the endpoint URL."""
    from lcrag.models.registry import parse_spec

    info = parse_spec(model)
    return f"local:{info.spec}" if info.is_local else str(info.base_url)


def assign_lanes(tasks: list[Task], max_concurrency: int = 4, local_lanes: int = 1) -> list[list[Task]]:
    """Group tasks into lanes (run in parallel; the tasks of one lane run in order).

    The tasks of one endpoint are dealt round-robin into ``max_concurrency`` lanes (remote models) or
    ``local_lanes`` lanes (embedded models), so no more than that many tasks use one endpoint at a time.
    Lanes are ordered by their first task.
    """
    if max_concurrency < 1 or local_lanes < 1:
        raise UsageError("max_concurrency and local_lanes must be at least 1")
    by_endpoint: dict[str, list[Task]] = {}
    for t in tasks:
        by_endpoint.setdefault(endpoint(t.model), []).append(t)
    lanes: list[list[Task]] = []
    for ep, group in by_endpoint.items():
        k = local_lanes if ep.startswith("local:") else max_concurrency
        lanes += [group[i::k] for i in range(min(k, len(group)))]
    return sorted(lanes, key=lambda lane: lane[0].index)


# --------------------------------------------------------------------------------------------
# running


def worker_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The variables a task takes to its worker: ``LCRAG_*`` (and ``OPENAI_BASE_URL``), never a secret
    (``*KEY*``, ``*TOKEN*``, ...) and not the ones the runner sets per run."""
    environ = os.environ if environ is None else environ
    return {
        k: v
        for k, v in environ.items()
        if (k.startswith("LCRAG_") or k == "OPENAI_BASE_URL")
        and not _SECRET.search(k)
        and k not in _SET_BY_RUNNER
    }


@contextlib.contextmanager
def local_model_lock(model: str) -> Iterator[None]:
    """For an embedded model, hold this machine's lock of that model (one sweep task at a time per server)."""
    from lcrag.models.cache import file_lock
    from lcrag.models.registry import parse_spec

    if not parse_spec(model).is_local:
        yield
        return
    with file_lock(config.state_dir() / "sweep" / f"{model_slug(model)}.lock", LOCAL_LOCK_TIMEOUT_S):
        yield


def run_task(task: Task, lane: int = 0) -> dict[str, Any]:
    """Run one task; its row of the sweep table. A failure is recorded in the row, never raised.

    ``wall_s`` is the task's time on its worker, ``wait_s`` the part of it spent waiting for another
    task's run on the same embedded model (:func:`local_model_lock`)."""
    t0 = time.monotonic()
    row: dict[str, Any] = {
        "chapter": task.chapter, "model": task.model, "profile": task.profile, "point": task.point,
        "params": json.dumps(task.params, sort_keys=True), "out_dir": str(task.out_dir), "lane": lane,
        "host": socket.gethostname(), "pid": os.getpid(), "calls": 0, "cost_usd": 0.0, "error": None,
        "wait_s": 0.0,
    }  # fmt: skip
    try:
        with local_model_lock(task.model):
            row["wait_s"] = round(time.monotonic() - t0, 3)
            res = run_chapter(
                task.chapter, task.profile, task.model, task.params, task.out_dir, check=False, progress=False
            )
        usage = res.manifest.get("usage", {})
        row.update(
            status=res.status,
            error=res.error,
            calls=usage.get("calls", 0),
            cost_usd=usage.get("cost_usd", 0.0),
        )
    except Exception as exc:  # a task that cannot even start (e.g. its endpoint is down) must not stop others
        row.update(status="error", error=f"{type(exc).__name__}: {exc}")
    row["ok"] = row["status"] == "ok"
    row["wall_s"] = round(time.monotonic() - t0, 3)
    return row


def run_lane(lane: list[Task], lane_id: int, env: dict[str, str]) -> list[dict[str, Any]]:
    """Run a lane's tasks in order on this worker, with the sweep's environment."""
    with _environ(dict(env)):
        return [run_task(t, lane_id) for t in lane]


@contextlib.contextmanager
def _backend(cluster: str | None) -> Iterator[None]:
    """joblib's default backend locally; with a cluster address, joblib's dask backend on that cluster."""
    if not cluster:
        yield
        return
    import joblib

    try:
        from distributed import Client
    except ImportError as exc:
        raise UsageError(f"--cluster needs Dask: pip install 'lcrag[sweep]' ({exc})") from None
    with Client(cluster), joblib.parallel_config(backend="dask"):
        yield


def run_sweep(
    tasks: list[Task],
    *,
    n_jobs: int | None = None,
    cluster: str | None = None,
    max_concurrency: int = 4,
    local_lanes: int = 1,
    env: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Run the tasks, in lanes (:func:`assign_lanes`); the sweep table, one row per task in task order.

    ``n_jobs``: lanes run at once (default 1 locally; on a cluster, as many as it has worker threads).
    ``cluster``: a Dask scheduler address (``tcp://host:8786``), or None for this machine.
    ``env``: the variables the workers run with (default :func:`worker_environment`).
    """
    import joblib

    lanes = assign_lanes(tasks, max_concurrency, local_lanes)
    env = worker_environment() if env is None else env
    if n_jobs is None:
        n_jobs = -1 if cluster else 1
    with _backend(cluster):
        parallel = joblib.Parallel(n_jobs=n_jobs, batch_size=1)
        results = parallel(joblib.delayed(run_lane)(lane, i, env) for i, lane in enumerate(lanes))
    by_index = {
        t.index: row
        for lane, rows in zip(lanes, results, strict=True)
        for t, row in zip(lane, rows, strict=True)
    }
    return pd.DataFrame([by_index[t.index] for t in tasks], columns=list(COLUMNS))


def default_table_path(out_root: Path | None = None) -> Path:
    """``<runs>/sweeps/sweep-<UTC time>.csv``."""
    base = Path(out_root) if out_root else config.project_root() / "runs"
    return base / "sweeps" / f"sweep-{datetime.now(timezone.utc):%Y%m%d-%H%M%S}.csv"


def save_sweep_table(table: pd.DataFrame, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False)
    return path
