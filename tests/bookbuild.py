"""Build the whole book once from the committed response store, for the tests that need a built book.

``build_from_store`` copies the project's book sources (``_config.yml``, ``_toc.yml``, ``book/``,
``notebooks/``, ``data/manifest.json``...) into a temporary directory, fetches a fresh data directory from the
mirror, and runs :func:`lcrag.book.build.build_book` there: every chapter of ``_toc.yml`` is executed by
papermill with ``LCRAG_STORE=read`` and ``LCRAG_OFFLINE=1`` (a request the store does not hold fails the
chapter; no model is called), then ``jupyter-book build -W -n`` builds the HTML. The checkout is not touched:
run directories, executed pages and ``_build`` all live in the copy.

Executing the chapters takes minutes (the thesis alone about 4), so ``tests/conftest.py`` wraps this in one
session-scoped fixture, ``built_book``, shared by the store-consistency and browser tests.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

BOOK_MODEL = "local/smollm2-135m-instruct"  # the default model: pages not listed in notebooks/pages.yml

# Not needed to build the book, or produced by building it: top-level entries, and names anywhere.
_SKIP_TOP = {
    ".git",
    ".venv",
    ".lcrag",
    ".ci",
    ".github",
    "_build",
    "runs",
    "responses",
    "src",
    "tests",
    "benchmarks",
}
_SKIP_ANY = ("__pycache__", ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints", "*.egg-info")


@dataclass
class BuiltBook:
    """What one build from the store produced."""

    root: Path  # the temporary project copy
    cache: Path  # its local cache (LCRAG_CACHE_DIR), empty before the build
    html: Path | None  # its _build/html, None when jupyter-book failed
    runs: dict = field(default_factory=dict)  # chapter -> lcrag.book.runner.RunResult (its page's run)
    companion_runs: list = field(default_factory=list)  # RunResults of notebooks/companions.yml
    error: str | None = None  # the BookError message (failed chapters, failed build)
    log: list[str] = field(default_factory=list)


def copy_project(src: Path, dest: Path) -> Path:
    """The book's sources from checkout ``src`` in ``dest``: no store, no package, no data files, no outputs."""

    def ignore(directory: str, names: list[str]) -> set[str]:
        here = Path(directory).resolve()
        skipped = set(shutil.ignore_patterns(*_SKIP_ANY)(directory, names))
        if here == src.resolve():
            skipped |= _SKIP_TOP & set(names)
        elif here == (src / "data").resolve():
            skipped |= {n for n in names if n != "manifest.json"}
        elif here == (src / "book").resolve():
            skipped |= {"executed"} & set(names)
        return skipped

    shutil.copytree(src, dest, ignore=ignore, dirs_exist_ok=True)
    return dest


def build_from_store(checkout: Path, tmp: Path, mirror: Path, model: str | None = None) -> BuiltBook:
    """Execute every chapter of the book from ``checkout``'s response store and build the HTML in ``tmp``, each page
    on its model (``notebooks/pages.yml``) unless ``model`` puts every page on one."""
    from lcrag.book.build import BookError, build_book
    from lcrag.data.fetch import fetch

    root = copy_project(checkout, tmp / "project")
    book = BuiltBook(root=root, cache=tmp / "cache", html=None)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCRAG_DATA_DIR", str(tmp / "data"))
        report = fetch(mirror=mirror)
        assert report.ok, report.summary()
        mp.setenv("LCRAG_HOME", str(root))
        mp.setenv("LCRAG_STORE_DIR", str(checkout / "responses"))
        mp.setenv("LCRAG_STORE", "read")
        mp.setenv("LCRAG_OFFLINE", "1")
        mp.delenv("LCRAG_MODEL", raising=False)
        mp.setenv("LCRAG_CACHE_DIR", str(book.cache))  # empty: every response comes from the store
        try:
            result = build_book(
                model=model, root=root, progress=False, log=book.log.append, store_mode="read"
            )
        except BookError as exc:
            result, book.error = exc.result, str(exc)
    book.runs = {r.chapter: r for r in result.runs}
    book.companion_runs = list(result.companion_runs)
    if result.html is not None:
        book.html = result.html.parent
    return book
