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
    """The "Downloads" section linking ``files`` (name, bytes) in ``<chapter>_files/``."""
    links = " · ".join(f"{{download}}`{name} <{chapter}{FILES_SUFFIX}/{name}>` ({_size(size)})"
                       for name, size in files)  # fmt: skip
    return (
        f"{TITLE}\n\n"
        "What this page was computed from and what it computed: the result tables (CSV, one row per item and "
        "setting, as the chapter saved them), the run manifest (model, profile, parameters, digests of every "
        "input, timings) and the executed notebook, to re-read or re-plot without re-running anything.\n\n"
        f"{links}\n"
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
