"""The book: run every chapter of ``_toc.yml`` (and the synthesis's companion runs), gather the executed
notebooks into ``book/executed/``, write the generated pages, and call Jupyter Book.

Chapters that do not read each other run in parallel (``jobs``, one per core by default); the synthesis, which
reads their tables, runs after them. A chapter whose inputs did not change since its last book run is not
executed again (:mod:`lcrag.book.reuse`), and a page whose bytes did not change is not rewritten, so that
Sphinx only re-reads what changed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from lcrag import config
from lcrag.book import manifest as mf
from lcrag.book import preflight
from lcrag.book.claims import CLAIMS_FILE, read_claims
from lcrag.book.claims_page import labelled_sections, summary_markdown
from lcrag.book.downloads import files_dir, page_with_downloads
from lcrag.book.lineup import page_models, read_companions
from lcrag.book.profiles import UsageError, available_chapters, chapter_source, notebooks_dir, resolve
from lcrag.book.reading import folded_page
from lcrag.book.runner import RunResult, default_out_dir, run_chapter
from lcrag.book.teaching import (
    QUICK_TIMES_FILE,
    QUICK_TIMES_PAGE,
    quick_digests,
    quick_times_markdown,
    read_quick_times,
    timed_chapters,
)
from lcrag.book.toc import CLAIMS_PAGE, EXECUTED_DIR, toc_chapters, write_book_toc
from lcrag.chapters import last_chapters


def placeholder_markdown(chapter: str) -> str:
    """The page shown for a chapter listed in the TOC whose notebook does not exist yet."""
    title = chapter.replace("_", " ").replace("-", " ").capitalize()
    return (
        f"# {title}\n\n"
        "```{note}\n"
        f"This chapter is not written yet: there is no `notebooks/{chapter}.md` in this version of the "
        "project, so there is nothing to execute and no result to show.\n"
        "```\n"
    )


def _place(executed: Path, chapter: str, notebook: Path | None) -> str:
    """Put the executed notebook (or a placeholder page) at ``book/executed/<chapter>``."""
    ipynb, md = executed / f"{chapter}.ipynb", executed / f"{chapter}.md"
    if notebook is not None and notebook.exists():
        if notebook.resolve() != ipynb.resolve():
            page = folded_page(page_with_downloads(executed, chapter, notebook))
            if not (ipynb.exists() and ipynb.read_bytes() == page):
                ipynb.write_bytes(page)  # an unchanged page keeps its time stamp: Sphinx skips it
        md.unlink(missing_ok=True)  # one source per document name, else Sphinx warns
        return "executed"
    ipynb.unlink(missing_ok=True)
    shutil.rmtree(files_dir(executed, chapter), ignore_errors=True)
    write_if_changed(md, placeholder_markdown(chapter))
    return "placeholder"


def write_if_changed(path: Path, text: str) -> None:
    """Write a generated page only when its text changed (Sphinx re-reads a page whose time stamp moved)."""
    if not (path.exists() and path.read_text(encoding="utf-8") == text):
        path.write_text(text, encoding="utf-8")


@dataclass
class BookResult:
    """What :func:`build_book` did: runs, pages, and where the HTML is."""

    runs: list[RunResult]  # the pages' runs, one per page
    pages: dict[str, str]  # chapter -> "executed" | "previous run" | "placeholder"
    failed: list[str]
    html: Path | None
    companion_runs: list[RunResult] = field(default_factory=list)  # :class:`Companion` runs, in order

    @property
    def ok(self) -> bool:
        return not self.failed


class BookError(Exception):
    """The book did not build, or some chapters failed; ``.result`` says what was done."""

    def __init__(self, message: str, result: BookResult):
        super().__init__(message)
        self.result = result


def jupyter_book_command(root: Path, builder: str = "html", quiet: bool = False, toc: Path | None = None) -> list[str]:
    """``jupyter-book build <root> -W -n --keep-going``: warnings (including nit-picky missing
    references) fail the build, after reporting all of them rather than the first; ``quiet`` adds ``-q`` (no
    Sphinx status lines; warnings are still printed and still fail the build); ``toc`` a generated table of
    contents (:func:`lcrag.book.toc.write_book_toc`) instead of ``_toc.yml``."""
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = str(exe) if exe.exists() else (shutil.which("jupyter-book") or "jupyter-book")
    return [cmd, "build", str(root), "-W", "-n", "--keep-going", "--builder", builder, *(["-q"] if quiet else []),
            *(["--toc", str(toc)] if toc else [])]


def default_jobs() -> int:
    """Chapters run at once: ``LCRAG_JOBS``, else one per core this process may use (at most 4)."""
    value = os.environ.get("LCRAG_JOBS", "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise UsageError(f"LCRAG_JOBS must be a positive integer, not {value!r}")
        return int(value)
    return max(1, min(4, config.available_cpus()))


def _report(res: RunResult, label: str, log: Callable[[str], None]) -> RunResult:
    if res.reused:
        log(f"{label}: unchanged since its run of {res.manifest.get('finished', '?')}, not executed again")
    elif res.ok:
        log(f"{label}: executed in {res.manifest.get('wall_time_s', 0):.0f} s")
    else:
        log(f"{label}: FAILED: {res.error}")
    return res


def run_all(tasks: list[dict[str, Any]], jobs: int, log: Callable[[str], None],
            label: dict[int, str]) -> list[RunResult]:
    """``run_chapter(**task)`` for every task, ``jobs`` at a time in worker processes (progress bars off), or one
    after the other in this process when ``jobs`` is 1; the results in the order of ``tasks``."""
    if jobs <= 1 or len(tasks) <= 1:
        out = []
        for t in tasks:
            log(f"{label[id(t)]}: running (profile {t['profile']}, model {t['model']})")
            out.append(_report(run_chapter(**t), label[id(t)], log))
        return out
    log(f"running {len(tasks)} chapter runs, {min(jobs, len(tasks))} at a time: "
        + ", ".join(f"{t['chapter']} ({t['model']}, {t['profile']})" for t in tasks))
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(run_chapter, **{**t, "progress": False}) for t in tasks]
        return [_report(f.result(), label[id(t)], log) for t, f in zip(tasks, futures, strict=True)]


def build_book(
    chapters: list[str] | None = None,
    profile: str = "default",
    model: str | None = None,
    fresh: bool = False,
    build: bool = True,
    *,
    root: Path | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
    store_mode: str = "record",
    jobs: int | None = None,
    force: bool = False,
) -> BookResult:
    """Run the book's chapters, gather the executed notebooks and claims, build the HTML.

    Every chapter listed in ``_toc.yml`` as ``book/executed/<chapter>`` is run (or only
    ``chapters``), each on its page's model (:func:`lcrag.book.lineup.page_models`: ``model`` for every page, else
    ``notebooks/pages.yml``), with ``LCRAG_STORE=record``: read the response store, record what is missing
    (``store_mode="read"`` only reads it, e.g. to check that the store alone builds the book).
    The companion runs (:func:`read_companions`) of the selected chapters run first, the same way: the
    synthesis reads them, and with ``fresh`` a chapter's own run may record calls into a companion
    model's store file (a second model it calls), which the companion's fresh run would otherwise delete.
    A chapter without a source gets a placeholder page; a chapter that is not run keeps its
    page from an earlier build or run. A failing chapter's partial notebook is shown, the other
    chapters still run, and :class:`BookError` is raised at the end (after the build).

    ``jobs`` chapters run at once (default :func:`default_jobs`); a chapter whose inputs did not change since
    its last book run is reused, unless ``force`` (or ``fresh``).
    """
    root = Path(root).resolve() if root else config.project_root()
    if fresh:  # refused before any chapter runs (offline, or a store mode that does not record)
        preflight.check_fresh(store_mode)
    listed = toc_chapters(root)
    if chapters:
        unknown = [c for c in chapters if c not in listed]
        if unknown:
            raise UsageError(
                f"not in _toc.yml: {', '.join(unknown)}; the book's chapters are: {', '.join(listed)}"
            )
    selected = list(chapters) if chapters else listed
    last = last_chapters()  # they read the other chapters' tables (the synthesis)
    if chapters:  # the synthesis re-reads the chapters just run
        selected += [c for c in last if c in listed and c not in selected]
    order = [c for c in listed if c not in last] + [c for c in listed if c in last]
    executed = root / EXECUTED_DIR
    executed.mkdir(parents=True, exist_ok=True)

    page_model = page_models(listed, model, root)
    tasks = [
        dict(chapter=chapter, profile=comp.profile, model=comp.model, params=comp.parameters.get(chapter),
             fresh=fresh, store_mode=store_mode, root=root, check=False, progress=progress, book=True, force=force)
        for comp in read_companions(root)
        for chapter in comp.chapters
        if chapter in selected and (comp.model, comp.profile) != (page_model[chapter], profile)  # not the page's run
    ]  # fmt: skip
    n_companions = len(tasks)
    for t in tasks:  # a companion's parameter overrides are checked before any chapter runs
        if t["params"]:
            resolve(t["chapter"], t["profile"], t["params"], root=root)
    page_chapters = [c for c in order if c in selected and chapter_source(c, root).exists()]
    tasks += [
        dict(chapter=c, profile=profile, model=page_model[c], fresh=fresh, store_mode=store_mode, root=root,
             check=False, progress=progress, book=True, force=force)
        for c in page_chapters
    ]  # fmt: skip
    label = {id(t): f"[{order.index(t['chapter']) + 1}/{len(listed)}] {t['chapter']}" if i >= n_companions
             else f"[companion] {t['chapter']} (profile {t['profile']}, model {t['model']}, for the synthesis)"
             for i, t in enumerate(tasks)}  # fmt: skip
    later = [t for t in tasks if t["chapter"] in last]
    sooner = [t for t in tasks if t["chapter"] not in last]
    # With ``fresh``, a chapter's run may record into a companion model's store file, which that companion's
    # fresh run deletes first: the companions then finish before the chapters start.
    companion_ids = {id(t) for t in tasks[:n_companions]}
    phases = ([[t for t in sooner if id(t) in companion_ids], [t for t in sooner if id(t) not in companion_ids]]
              if fresh else [sooner])  # fmt: skip
    results: dict[int, RunResult] = {}
    for phase in phases:
        results.update(zip(map(id, phase), run_all(phase, jobs or default_jobs(), log, label), strict=True))
    results.update(zip(map(id, later), run_all(later, 1, log, label), strict=True))
    companion_runs = [results[id(t)] for t in tasks[:n_companions]]
    companion_failed = [r for r in companion_runs if not r.ok]
    own = {t["chapter"]: results[id(t)] for t in tasks[n_companions:]}

    runs: list[RunResult] = []
    pages: dict[str, str] = {}
    run_dirs: dict[str, Path] = {}
    failed: list[str] = []
    for i, chapter in enumerate(order, 1):
        has_source = chapter_source(chapter, root).exists()
        if chapter in own:
            res = own[chapter]
            runs.append(res)
            if not res.ok:
                failed.append(chapter)
            pages[chapter] = _place(executed, chapter, res.notebook)
            run_dirs[chapter] = res.out_dir
        elif has_source and (executed / f"{chapter}.ipynb").exists():
            pages[chapter] = "previous build"
            run_dirs[chapter] = default_out_dir(chapter, profile, page_model[chapter], root)
        elif has_source:
            prior = default_out_dir(chapter, profile, page_model[chapter], root) / f"{chapter}.ipynb"
            pages[chapter] = (
                "previous run" if _place(executed, chapter, prior) == "executed" else "placeholder"
            )
            run_dirs[chapter] = prior.parent
        else:
            log(f"[{i}/{len(listed)}] {chapter}: no notebooks/{chapter}.md, placeholder page")
            pages[chapter] = _place(executed, chapter, None)

    frames, not_counted = [], list(failed)
    for chapter, d in run_dirs.items():
        m_path, c_path = d / mf.MANIFEST_FILE, d / CLAIMS_FILE
        if not m_path.exists():
            continue
        if mf.read_manifest(m_path).get("status") != "ok":
            if chapter not in not_counted:
                not_counted.append(chapter)
            continue
        if c_path.exists():
            frames.append(read_claims(c_path))
    import pandas as pd

    claims = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["paper", "verdict"])
    sections = labelled_sections(claims["chapter"].unique() if "chapter" in claims else (), notebooks_dir(root))
    write_if_changed(executed / f"{CLAIMS_PAGE}.md", summary_markdown(claims, failed=not_counted, sections=sections))
    timed = timed_chapters(listed, available_chapters(root), last)  # book/teaching.md includes it
    write_if_changed(
        executed / f"{QUICK_TIMES_PAGE}.md",
        quick_times_markdown(read_quick_times(root / QUICK_TIMES_FILE), timed, quick_digests(timed, root)),
    )

    result = BookResult(runs=runs, pages=pages, failed=failed, html=None, companion_runs=companion_runs)
    if build:
        cmd = jupyter_book_command(root, quiet=not progress, toc=write_book_toc(root))  # quiet: warnings only
        log("$ " + " ".join(cmd))
        proc = subprocess.run(cmd, cwd=root, check=False)
        if proc.returncode != 0:
            raise BookError(
                f"jupyter-book build failed (exit {proc.returncode}); see the warnings above", result
            )
        result.html = root / "_build" / "html" / "index.html"
        log(f"book: {result.html}")
    if failed or companion_failed:
        raise BookError(
            f"{len(failed) + len(companion_failed)} chapter run(s) failed: "
            + "; ".join([f"{r.chapter} ({r.model}, {r.profile} profile): {r.error}" for r in companion_failed]
                        + [r.error or r.chapter for r in runs if not r.ok])
            + " (partial notebooks are in the book and in their run directories)",
            result,
        )
    return result
