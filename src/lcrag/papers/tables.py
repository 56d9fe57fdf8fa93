"""The papers' printed tables, as data: ``lcrag/papers/<paper>/tables/<name>.csv``, read by :func:`paper_table`.

Each CSV is transcribed once from the paper's text (``../shared/papers/``) and says where each value comes from:
a ``source`` column (table, figure or page) on every row. Leading lines starting with ``#`` are the file's notes
(what was transcribed, units, symbols) and are skipped. Values are read as printed; a chapter turns them into the
shape it needs. These numbers appear only in columns named as the paper's, never in ours.
"""

from __future__ import annotations

import io
from functools import cache
from importlib import resources

import pandas as pd


def table_path(paper: str, name: str):
    """The packaged file of ``paper``'s table ``name`` (a ``Traversable``)."""
    return resources.files(f"lcrag.papers.{paper}").joinpath("tables", f"{name}.csv")


@cache
def _text(paper: str, name: str) -> str:
    path = table_path(paper, name)
    if not path.is_file():
        raise FileNotFoundError(f"no paper table {name!r} for {paper!r}: {path} does not exist")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    notes = 0
    while notes < len(lines) and lines[notes].startswith("#"):
        notes += 1
    return "".join(lines[notes:])


def paper_table(paper: str, name: str, **read_csv) -> pd.DataFrame:
    """``paper``'s table ``name`` as a new DataFrame (``read_csv`` keywords go to :func:`pandas.read_csv`; by
    default nothing but empty cells is read as missing, so a printed "-" or "–" stays a string)."""
    read_csv.setdefault("keep_default_na", False)
    read_csv.setdefault("na_values", [""])
    frame = pd.read_csv(io.StringIO(_text(paper, name)), **read_csv)
    if "source" not in frame.columns:
        raise ValueError(f"paper table {paper}/{name}.csv has no 'source' column (where each value was printed)")
    return frame
