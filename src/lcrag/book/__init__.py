"""The book pipeline: profiles, the papermill runner, run manifests, the claims ledger.

For chapter authors, inside a notebook::

    from lcrag.book import save_table, ClaimsLedger, within, greater
    save_table(results, "accuracy")          # accuracy.csv next to the executed notebook

For readers, from a shell: ``lcrag run <chapter> --profile quick`` and ``lcrag book``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from lcrag import config
from lcrag.book.build import BookError, BookResult, build_book
from lcrag.book.claims import Claim, ClaimsLedger, greater, less, save_ledgers, verdict, within
from lcrag.book.profiles import PROFILES, ProfileError, UsageError, resolve
from lcrag.book.runner import ChapterFailed, RunResult, run_chapter

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def save_table(df: pd.DataFrame, name: str, *, index: bool = False) -> Path:
    """Save a result table as ``<name>.csv`` in the run directory (or the working directory).

    Under the runner the working directory is the run directory, so the table lands next to the
    executed notebook and its manifest. ``name`` is a plain file stem (no directories). A table without
    columns (a section the run's parameters skipped, e.g. ``lrg_records = 0``) is not written, and a file of
    that name left by an earlier run is removed: an empty CSV file has no header, and no reader can parse it.
    """
    if not _NAME.match(name) or name.endswith(".csv"):
        raise ValueError(f"table name must be a plain file stem like 'accuracy_by_length', not {name!r}")
    path = (config.run_dir() or Path.cwd()) / f"{name}.csv"
    if not len(df.columns) and not (index and df.index.name):
        path.unlink(missing_ok=True)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    floats = df.select_dtypes("float").columns
    if len(floats):  # a bound just below 0 rounds to -0.0: written as 0.0 (x + 0.0 turns -0.0 into 0.0)
        df = df.copy()
        df[floats] = df[floats] + 0.0
    df.to_csv(path, index=index)
    return path


__all__ = [
    "PROFILES",
    "BookError",
    "BookResult",
    "ChapterFailed",
    "Claim",
    "ClaimsLedger",
    "save_ledgers",
    "ProfileError",
    "RunResult",
    "UsageError",
    "build_book",
    "greater",
    "less",
    "resolve",
    "run_chapter",
    "save_table",
    "verdict",
    "within",
]
