"""Execute one chapter with papermill and record how (:mod:`lcrag.book.build` makes the book from such runs).

One run of one chapter::

    notebooks/<chapter>.md  --jupytext-->  notebook  --papermill (parameters, env, cwd)-->
    runs/<model-slug>/<profile>/<chapter>/
        <chapter>.ipynb     the executed notebook, ending with a "Run manifest" cell
        manifest.json       what produced it (see lcrag.book.manifest)
        usage.jsonl         one line per model call (written by the model layer)
        keys_used.txt       response keys the run used (for `lcrag store check`)
        *.csv               tables the notebook saved (save_table, ClaimsLedger.save)

The kernel runs in a staging directory beside the run directory (its working directory and ``LCRAG_RUN_DIR``), with
``LCRAG_CHAPTER``, ``LCRAG_MODEL`` (and ``LCRAG_STORE`` for book and fresh runs) set; a successful run replaces the
run directory, a failed or interrupted one is kept as ``<chapter>.failed/`` and leaves the previous successful run
whole (:mod:`lcrag.book.staging`). A re-run resumes from the response cache. A run holds its directory's lock
(:mod:`lcrag.book.run_lock`); ``--fresh`` re-records through :mod:`lcrag.book.fresh`.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import lcrag
from lcrag import config
from lcrag.book import fresh as rerecord
from lcrag.book import manifest as mf
from lcrag.book import preflight, reuse, run_lock, staging
from lcrag.book.profiles import (
    chapter_profiles,
    chapter_source,
    missing_chapter,
    notebook_defaults,
    read_notebook,
    resolve,
)
from lcrag.book.run_errors import describe_error, sigterm_interrupts, with_where
from lcrag.chapters import last_chapters
from lcrag.data.manifest import manifest_path as data_manifest_path
from lcrag.models.cache import file_sha256
from lcrag.models.store import read_entries, recordings_in_progress

try:
    from lcrag.models.registry import slug as _registry_slug
except ImportError:  # the model registry is not written yet
    _registry_slug = None

KERNEL = "python3"


def model_slug(spec: str) -> str:
    """File-system-safe name of a model spec (the registry's, else a local equivalent)."""
    if _registry_slug is not None:
        return _registry_slug(spec)
    return spec.replace("/", "--").replace("@", "_at_").replace(":", "_")


def runs_dir(root: Path | None = None) -> Path:
    return (Path(root) if root else config.project_root()) / "runs"


def default_out_dir(chapter: str, profile: str, model: str, root: Path | None = None) -> Path:
    """``runs/<model-slug>/<profile>/<chapter>/``."""
    return runs_dir(root) / model_slug(model) / profile / chapter


def store_file(chapter: str, model: str) -> Path:
    """The committed response store of one chapter and model: ``<store_dir>/<chapter>/<slug>.jsonl``."""
    return config.store_dir() / chapter / f"{model_slug(model)}.jsonl"


@contextlib.contextmanager
def _environ(updates: dict[str, str | None]) -> Iterator[None]:
    """Set (or, for None, unset) environment variables for the duration of the block."""
    saved = {k: os.environ.get(k) for k in updates}
    try:
        for k, v in updates.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# --------------------------------------------------------------------------------------------
# one chapter


@dataclass
class RunResult:
    """The outcome of :func:`run_chapter`."""

    chapter: str
    profile: str
    model: str
    out_dir: Path
    notebook: Path
    status: str  # "ok" | "failed" | "interrupted"
    manifest: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    reused: bool = False  # an earlier execution with the same inputs stands for this one (lcrag.book.reuse)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class ChapterFailed(Exception):
    """A chapter's notebook raised; ``.result`` holds the run (partial notebook, manifest)."""

    def __init__(self, result: RunResult):
        super().__init__(result.error)
        self.result = result


def skipped_store_lines(chapter: str) -> list[str]:
    """``"<file> line <n>"`` of each line of the chapter's store files that is not an entry (the store skips them:
    an answer on such a line is a miss)."""
    bad: list[tuple[str, int]] = []
    for path in sorted((config.store_dir() / chapter).glob("*.jsonl")):
        read_entries(path, bad)
    return [f"{f} line {n}" for f, n in bad]


def _append_manifest_cell(notebook: Path, m: dict[str, Any], final: Path) -> None:
    """End the notebook with its manifest; papermill's record of where it wrote it names ``final`` (not staging)."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    if "output_path" in nb.metadata.get("papermill", {}):
        nb.metadata.papermill.output_path = str(final)
    nb.cells = [c for c in nb.cells if "lcrag-manifest" not in c.get("metadata", {}).get("tags", [])]
    nb.cells.append(
        nbformat.v4.new_markdown_cell(mf.manifest_markdown(m), metadata={"tags": ["lcrag-manifest"]})
    )
    nbformat.write(nb, notebook)


def _kernel_env(out: Path, chapter: str, model: str) -> dict[str, str]:
    """Environment of the notebook's kernel: where to write, what chapter and model it runs."""
    package_parent = str(Path(lcrag.__file__).resolve().parent.parent)
    return {
        "LCRAG_RUN_DIR": str(out),
        "LCRAG_CHAPTER": chapter,
        "LCRAG_MODEL": model,
        # the kernel imports the same lcrag as this process, installed or not
        "PYTHONPATH": os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p),
    }


#: Seconds a kernel may take to start (papermill's default, 60, is too short for a 2-core machine that is also
#: running model servers or other chapters: a chapter failed that way in a loaded test run).
KERNEL_START_TIMEOUT_S = 300
STARTUP_DEATH = "Kernel died before replying to kernel_info"  # jupyter_client, when nothing of the notebook ran


def _execute(
    source: Path, notebook: Path, parameters: dict[str, Any], progress: bool
) -> tuple[str, dict[str, Any] | None, BaseException | None]:
    """Run the notebook with papermill in its run directory.

    Returns ``(status, error, pending)``: ``pending`` is an interruption to re-raise once the
    manifest is written.
    """
    import papermill as pm

    chapter = notebook.stem
    for attempt in (1, 2):  # a kernel dead before its first reply ran nothing (two kernels started at once can
        try:  # draw the same free port from jupyter_client): it is started once more
            return _papermill(pm, source, notebook, parameters, progress)
        except Exception as exc:  # a cell raised, or the kernel died
            if attempt == 2 or STARTUP_DEATH not in str(exc):
                return "failed", describe_error(chapter, exc), None
        except BaseException as exc:  # Ctrl-C or SIGTERM: record it, then stop
            return "interrupted", describe_error(chapter, exc), exc
    raise AssertionError("the second attempt returns")


def _papermill(pm, source: Path, notebook: Path, parameters: dict[str, Any], progress: bool):
    pm.execute_notebook(
        read_notebook(source),
        str(notebook),
        parameters=parameters,
        kernel_name=KERNEL,
        language="python",
        cwd=str(notebook.parent),
        progress_bar=progress,
        start_timeout=KERNEL_START_TIMEOUT_S,
        # the kernel's own log (ipykernel's "running over TCP without encryption" warning at every start,
        # "KeyboardInterrupt caught" when papermill interrupts it before shutting it down) is not the
        # chapter's: cells' output, warnings and errors go to the notebook as before
        extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
    )
    return "ok", None, None


def run_chapter(
    chapter: str,
    profile: str = "default",
    model: str | None = None,
    params: dict[str, Any] | None = None,
    out_dir: Path | None = None,
    fresh: bool = False,
    *,
    store_mode: str | None = None,
    root: Path | None = None,
    check: bool = True,
    progress: bool = True,
    book: bool = False,
    force: bool = False,
) -> RunResult:
    """Execute one chapter and record how.

    ``chapter`` is a name (``notebooks/<chapter>.md``) or the path of a jupytext ``.md`` file.
    ``params`` override the profile's values (validated against the notebook's parameters cell).
    ``model`` defaults to ``LCRAG_MODEL`` or the embedded model. ``out_dir`` defaults to
    ``runs/<model-slug>/<profile>/<chapter>/``.

    ``fresh`` re-records this run's answers in the chapter's store file for the model (``LCRAG_STORE=record``;
    the file's other entries are kept, and the whole file is put back if the run fails: :mod:`lcrag.book.fresh`).
    ``store_mode`` sets ``LCRAG_STORE`` for the kernel (None: the user's).
    ``root`` is the project root (default :func:`lcrag.config.project_root`).

    A successful run replaces ``out_dir``. On a notebook error or an interruption the partial notebook and a manifest
    with status ``failed`` or ``interrupted`` are kept in ``<out_dir>.failed/`` (the result's ``out_dir``), the
    previous successful run stays in ``out_dir`` (:mod:`lcrag.book.staging`), and :class:`ChapterFailed` is raised
    (or, with ``check=False``, the failed result is returned; an interruption is raised again, naming both).

    A book run (``book``) is not executed again when the run in ``out_dir`` was made from the same inputs and
    only from the committed store (:mod:`lcrag.book.reuse`); ``force`` or ``fresh`` executes it regardless.
    """
    root = Path(root).resolve() if root else config.project_root()
    source = Path(chapter) if chapter.endswith(".md") else chapter_source(chapter, root)
    chapter = source.stem
    if not source.exists():
        raise missing_chapter(chapter, source, root)
    model = model or config.default_model()
    if fresh:
        preflight.check_fresh(store_mode)
        store_mode = "record"

    with _environ({"LCRAG_HOME": str(root), **({"LCRAG_STORE": store_mode} if store_mode else {})}):
        effective_store = config.store_mode()  # validates LCRAG_STORE before anything runs
        parameters = resolve(chapter, profile, params, root=root, source=source)
        preflight.check_values(chapter, parameters, notebook_defaults(chapter, root=root, source=source))
        preflight.check_run(chapter, model, parameters)
        out = Path(out_dir).resolve() if out_dir else default_out_dir(chapter, profile, model, root)
        advice = ("wait for it to finish (`lcrag book` runs each chapter in its run directory)" if book else
                  "wait for it to finish, or give this run its own directory (`lcrag run --out DIR`)")
        with run_lock.holding(out, advice):  # one run per run directory: a second one stops here at once
            rerecord.recover(store_file(chapter, model))  # a killed --fresh run's store file is put back
            inputs = _inputs(chapter, source, parameters, profile, model, effective_store, root)
            fp = reuse.fingerprint(inputs)
            if book and not (force or fresh):
                earlier = reuse.reusable(out, chapter, fp)
                if earlier is not None:
                    return RunResult(chapter, profile, model, out, out / f"{chapter}.ipynb", "ok", earlier, reused=True)
            stage = staging.prepare(out)
            notebook = stage / f"{chapter}.ipynb"
            with rerecord.rerecording(store_file(chapter, model)) if fresh else contextlib.nullcontext({}) as fr:
                started, t0 = _now(), time.monotonic()
                with _environ(_kernel_env(stage, chapter, model)), sigterm_interrupts():
                    status, error, pending = _execute(
                        source, notebook, {**parameters, "model": model, "profile": profile}, progress
                    )
                fr["ok"] = status == "ok"
            wall = time.monotonic() - t0
            final = out if status == "ok" else staging.beside(out, staging.FAILED)

            usage = mf.read_usage(stage / mf.USAGE_FILE)
            mf.write_keys(stage / mf.KEYS_FILE, mf.keys_used(usage))
            m: dict[str, Any] = {
                "chapter": chapter,
                "status": status,
                "profile": profile,
                "model": model,
                "model_slug": model_slug(model),
                "parameters": parameters,
                "profile_values": chapter_profiles(chapter, root)[profile],
                "overrides": dict(params or {}),
                "store_mode": effective_store,
                "fresh": fresh,
                "rerecorded_store_file": str(store_file(chapter, model)) if fresh else None,
                "book": book,
                "source": str(source),
                "source_sha256": file_sha256(source),
                "run_dir": str(final),
                "git": mf.git_info(root),
                "versions": mf.package_versions(),
                **mf.environment_info(),
                "started": started,
                "finished": _now(),
                "wall_time_s": round(wall, 3),
                "usage": mf.summarize_usage(usage),
                "store_skipped_lines": skipped_store_lines(chapter),
                "error": with_where(error, final, out),
                reuse.INPUTS_SHA_KEY: fp,
                reuse.INPUTS_KEY: inputs,
            }
            mf.write_manifest(stage / mf.MANIFEST_FILE, m)
            if notebook.exists():
                _append_manifest_cell(notebook, m, final / notebook.name)
            (staging.commit if status == "ok" else staging.set_aside)(stage, out)

    result = RunResult(chapter=chapter, profile=profile, model=model, out_dir=final, notebook=final / notebook.name,
                       status=status, manifest=m, error=m["error"]["message"] if error else None)
    if pending is not None:
        raise type(pending)(m["error"]["message"]) from pending
    if check and not result.ok:
        raise ChapterFailed(result)
    return result


def _inputs(chapter: str, source: Path, parameters: dict[str, Any], profile: str, model: str, store_mode: str,
            root: Path) -> dict[str, Any]:
    """What this execution reads, digested (:func:`lcrag.book.reuse.chapter_inputs`)."""
    sdir = config.store_dir()
    others = [slug for ch, slug in recordings_in_progress(sdir) if ch == chapter and slug != model_slug(model)]
    upstream, last = None, last_chapters()
    if chapter in last:  # it reads the other chapters' latest tables
        upstream = [m.parent for m in runs_dir(root).glob(f"*/*/*/{mf.MANIFEST_FILE}")
                    if m.parent.name not in last and not staging.is_attempt(m.parent) and _status(m) == "ok"]
    return reuse.chapter_inputs(
        source=source, parameters={**parameters, "model": model, "profile": profile}, profile=profile, model=model,
        store_mode=store_mode, package_dir=Path(lcrag.__file__).resolve().parent,
        data_manifest=data_manifest_path(), store_dir=sdir, chapter=chapter, skip_store=others,
        runs_root=runs_dir(root), upstream_runs=upstream,
    )  # fmt: skip


def _status(manifest_path: Path) -> str | None:
    try:
        return mf.read_manifest(manifest_path).get("status")
    except ValueError:
        return None
