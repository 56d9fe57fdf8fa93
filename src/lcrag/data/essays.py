"""The Needle-in-a-Haystack haystack: 49 Paul Graham essays, one plain-text file each (Kamradt, 2023).

Order: Kamradt's runner concatenates ``glob.glob(f"{haystack_dir}/*.txt")``, which is *unsorted* (the
order the file system lists them, so it varies between machines). We sort by file name, so a haystack
built here is the same everywhere; it can differ from a given run of his code in essay order only.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lcrag.data.fetch import path as data_path
from lcrag.data.manifest import load_manifest
from lcrag.data.records import LoadReport, finish

DATASET = "paul_graham_essays"
COLUMNS = ["name", "text", "n_chars", "n_words"]


def essay_files(directory: Path | str | None = None) -> list[Path]:
    """The essay files sorted by name: ``*.txt`` in ``directory``, else the 49 fetched manifest files."""
    if directory is not None:
        return sorted(Path(directory).glob("*.txt"), key=lambda p: p.name)
    entries = [e for e in load_manifest().entries if e.dataset == DATASET]
    return [data_path(e.path) for e in sorted(entries, key=lambda e: e.name)]


def load_essays(directory: Path | str | None = None) -> pd.DataFrame:
    """One row per essay: ``name`` (file stem), ``text`` (UTF-8, read as is), ``n_chars``, ``n_words``
    (whitespace-separated, like ``wc -w``); sorted by file name. Report in ``df.attrs["report"]``."""
    files = essay_files(directory)
    if not files:
        raise FileNotFoundError(f"no *.txt essays in {directory}")
    rows = [_row(p) for p in files]
    report = LoadReport(str(Path(directory) if directory else files[0].parent), n_read=len(rows))
    return finish(pd.DataFrame(rows, columns=COLUMNS), report)


def _row(file: Path) -> dict:
    text = file.read_bytes().decode("utf-8")
    return {"name": file.stem, "text": text, "n_chars": len(text), "n_words": len(text.split())}
