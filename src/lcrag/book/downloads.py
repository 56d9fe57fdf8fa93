"""Downloads on every chapter page: the run's tidy result tables, its manifest and the executed notebook.

When the book places a chapter's executed notebook at ``book/executed/<chapter>.ipynb``, it copies the run's
``*.csv`` tables, ``manifest.json`` and the notebook itself to ``book/executed/<chapter>_files/`` and appends a
"Downloads" section that links them with Sphinx's ``{download}`` role (the HTML build copies each file to
``_downloads/``). The copies carry no path of the machine that built the book: absolute paths under the project
root are written relative to it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lcrag.book.manifest import MANIFEST_FILE

FILES_SUFFIX = "_files"
TITLE = "## Downloads"


def files_dir(executed: Path, chapter: str) -> Path:
    """Where a chapter's downloadable files are placed, beside its page."""
    return executed / f"{chapter}{FILES_SUFFIX}"


def portable(text: str, root: Path) -> str:
    """``text`` with the project root's absolute path (as written, resolved, or JSON-escaped) made relative."""
    for prefix in {str(root), str(root.resolve())}:
        text = text.replace(prefix + "/", "").replace(prefix, ".")
    return text


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{max(1, round(n / 1e3))} kB"


def downloads_markdown(chapter: str, files: list[tuple[str, int]]) -> str:
    """The "Downloads" section linking ``files`` (name, bytes) in ``<chapter>_files/``: the executed notebook and
    the manifest in a sentence, the result tables (CSV) in a folded list under their count and total size."""

    def link(name: str, label: str | None = None) -> str:
        return f"{{download}}`{label or name} <{chapter}{FILES_SUFFIX}/{name}>`"

    sizes = dict(files)
    tables = [(n, b) for n, b in files if n.endswith(".csv")]
    parts = []
    if f"{chapter}.ipynb" in sizes:
        parts.append(f"{link(f'{chapter}.ipynb', 'the executed notebook')} ({_size(sizes[f'{chapter}.ipynb'])})")
    if MANIFEST_FILE in sizes:
        parts.append(f"{link(MANIFEST_FILE, 'the run manifest')} ({_size(sizes[MANIFEST_FILE])}: model, profile, "
                     "parameters, digests of every input, timings)")  # fmt: skip
    parts.append("the result tables below (CSV, one row per item and setting, as the chapter saved them)")
    word = "table" if len(tables) == 1 else "tables"
    return (
        f"{TITLE}\n\n"
        "What this page was computed from and what it computed, to re-read or re-plot without re-running anything: "
        f"{', '.join(parts[:-1])} and {parts[-1]}.\n\n"
        f"```{{admonition}} {len(tables)} result {word} ({_size(sum(b for _, b in tables))})\n:class: dropdown\n"
        + "\n".join(f"- {link(n)} ({_size(b)})" for n, b in tables)
        + "\n```\n"
    )


def _write_if_changed(path: Path, data: bytes) -> None:
    if not (path.exists() and path.read_bytes() == data):
        path.write_bytes(data)


def place_downloads(executed: Path, chapter: str, notebook: Path) -> dict | None:
    """Copy the run's downloadable files next to the chapter's page; the markdown cell that links them (None if
    the run directory holds no table)."""
    run_dir, root = notebook.parent, executed.resolve().parents[1]
    sources = sorted(run_dir.glob("*.csv")) + [p for p in (run_dir / MANIFEST_FILE, notebook) if p.exists()]
    if not any(p.suffix == ".csv" for p in sources):
        return None
    dest = files_dir(executed, chapter)
    dest.mkdir(parents=True, exist_ok=True)
    names = {p.name for p in sources}
    for stale in dest.iterdir():
        if stale.name not in names:
            stale.unlink() if stale.is_file() else shutil.rmtree(stale)
    files = []
    for src in sources:
        data = src.read_bytes()
        if src.suffix in (".json", ".ipynb"):
            data = portable(data.decode("utf-8"), root).encode("utf-8")
        _write_if_changed(dest / src.name, data)
        files.append((src.name, len(data)))
    return {"cell_type": "markdown", "id": "lcrag-downloads", "metadata": {},
            "source": downloads_markdown(chapter, files)}  # fmt: skip


def page_with_downloads(executed: Path, chapter: str, notebook: Path) -> bytes:
    """The executed notebook as the book shows it: with the "Downloads" section appended when there is one."""
    cell = place_downloads(executed, chapter, notebook)
    if cell is None:
        return notebook.read_bytes()
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    nb["cells"] = [c for c in nb["cells"] if c.get("id") != cell["id"]] + [cell]
    return (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
