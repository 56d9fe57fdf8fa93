"""Shared loader plumbing: reading JSON Lines safely, and accounting for every record (``LoadReport``).

Policy, the same in every loader: a bad record either raises (``errors="raise"``, the default) with a
``ValueError`` naming the file and its 1-based line, or is dropped (``errors="drop"``), counted, and
reported in ``df.attrs["report"]``, in the log and as a :class:`DataWarning`. Nothing is lost silently.
"""

from __future__ import annotations

import json
import logging
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from lcrag.jsonl import lines as jsonl_lines  # noqa: F401 - the datasets' readers import it from here

log = logging.getLogger("lcrag.data")
ERRORS = ("raise", "drop")


class DataWarning(UserWarning):
    """Records were dropped (or repaired) while loading a data file."""


@dataclass
class LoadReport:
    """What happened to the records of one file.

    ``dropped`` and ``repaired`` hold ``(line, reason)`` with 1-based line numbers (for a JSON-list file,
    the 0-based record index, and the reason says "record N"); ``lenient`` lists the lines parsed with
    ``strict=False``. ``n_read`` counts lines (records) read, ``n_kept`` the rows returned.
    """

    file: str
    n_read: int = 0
    n_kept: int = 0
    dropped: list[tuple[int, str]] = field(default_factory=list)
    lenient: list[int] = field(default_factory=list)
    repaired: list[tuple[int, str]] = field(default_factory=list)

    def summary(self) -> str:
        """One line for readers; the file is named relative to the data directory (no path of this machine)."""
        parts = [f"{shown_path(self.file)}: read {self.n_read}, kept {self.n_kept}"]
        if self.dropped:
            parts.append(
                f"dropped {len(self.dropped)} (" + "; ".join(f"line {n}: {r}" for n, r in self.dropped) + ")"
            )
        if self.lenient:
            parts.append(f"parsed with strict=False: lines {self.lenient}")
        if self.repaired:
            parts.append("repaired: " + "; ".join(f"line {n}: {r}" for n, r in self.repaired))
        return ", ".join(parts)


def shown_path(file: str | Path) -> str:
    """``file`` as shown on a page: relative to the data directory when it lies inside it."""
    from lcrag import config

    try:
        return Path(file).resolve().relative_to(config.data_dir().resolve()).as_posix()
    except ValueError:
        return str(file)


def check_errors(errors: str) -> None:
    if errors not in ERRORS:
        raise ValueError(f"errors must be one of {ERRORS}, not {errors!r}")


def reject(report: LoadReport, line: int, reason: str, errors: str, unit: str = "line") -> None:
    """Apply the policy to a bad record: raise naming file and line (or record index, for a JSON list),
    or record it in ``report.dropped`` as ``(line, reason)``."""
    if errors == "raise":
        raise ValueError(f"{report.file}, {unit} {line}: {reason}")
    report.dropped.append((line, reason if unit == "line" else f"{unit} {line}: {reason}"))


def finish(df: pd.DataFrame, report: LoadReport) -> pd.DataFrame:
    """Attach ``report`` as ``df.attrs["report"]``; log it, and warn when records were dropped."""
    report.n_kept = len(df)
    df.attrs["report"] = report
    if report.dropped:
        log.warning(report.summary())
        warnings.warn(report.summary(), DataWarning, stacklevel=3)
    elif report.lenient or report.repaired:
        log.info(report.summary())
    return df


def parse_json_line(text: str) -> tuple[Any, bool]:
    """``json.loads(text)``; only when that fails on a raw control character, retry with ``strict=False``.

    Returns ``(value, lenient)``. Any other JSON error propagates unchanged.
    """
    try:
        return json.loads(text), False
    except json.JSONDecodeError as exc:
        if not exc.msg.startswith("Invalid control character"):
            raise
    return json.loads(text, strict=False), True


def read_json(path: Path) -> Any:
    """A whole-file JSON document, with the file named in the error if it does not parse."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc


def require(obj: dict, key: str, where: str) -> Any:
    """``obj[key]``, or a ``ValueError`` saying which key is missing where."""
    if not isinstance(obj, dict) or key not in obj:
        raise ValueError(f"{where}: missing key {key!r}")
    return obj[key]
