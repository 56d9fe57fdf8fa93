"""The papers' printed tables, as data: ``lcrag/papers/<paper>/tables/<name>.csv``, read by :func:`paper_table`;
and the claims each chapter checks, as the paper states them: ``lcrag/papers/<paper>/claims.csv``, read by
:func:`declared_claims`.

Each CSV is transcribed once from the paper's text (``../shared/papers/``) and says where each value comes from:
a ``source`` column (table, figure or page) on every row. Leading lines starting with ``#`` are the file's notes
(what was transcribed, units, symbols) and are skipped. Values are read as printed; a chapter turns them into the
shape it needs. These numbers appear only in columns named as the paper's, never in ours. A paper's
``tables/inventory.csv`` holds, the same way, the values its inventory (``../shared/papers/<paper>.md``) derives from
the tables, with the inventory's section as source: a chapter's checks put them beside ours as expected values.

A claims file types no number a table holds: its text and value columns name the cell instead, as
``{table:row:column}``: the cell of ``tables/<table>.csv`` under ``column``, in the one row that holds each
``/``-separated part of ``row`` as a cell (``{table2:human/joint:Orac}`` is the Orac cell of the row whose cells
include ``human`` and ``joint``). ``{table:row:column:n}`` is the n-th number printed in that cell, without its
sign: 2 is the gain of a cell printed ``value(gain↑)``, 1 the absolute value of a negative number. A reference is
replaced by the cell as printed (:func:`table_cell`), then ``{paper_value}`` in the text by the value: a claim
reads as if the number were typed there. ``!spec`` after a reference writes its number in Python's format ``spec``
instead: ``{numbers:key points:value!,}`` is ``2,055``, ``{numbers:evaluator accuracy:value!.0%}`` is ``87%``.

Two optional columns after ``paper_value`` say how a claim is decided: ``test,tolerance``. ``tolerance`` is the
number the comparison allows, in the paper value's unit (points where the value is in points; ``20%`` is 0.2):
how far ours may be from the paper's (``within``), or the margin or bound a claim names ("at least 10 points
below", "within 3 F1 points"); ``{tolerance}`` in the text stands for it as written. ``test`` names the
comparison of our number with the paper's value that :func:`lcrag.book.claims.declared_test` applies:
``within`` (``|ours - paper| <= tolerance``), ``at least`` (``ours >= paper - tolerance``), ``at most``
(``ours <= paper + tolerance``), ``greater`` (``ours - paper > tolerance``) or ``less`` (``paper - ours >
tolerance``); an empty ``test`` leaves the decision to the chapter's code (a behavioural claim decided by
intervals, or several tests together), which reads the margin from the claim (:attr:`DeclaredClaim.tolerance`).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
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


def printed_table(paper: str, name: str) -> pd.DataFrame:
    """``paper``'s table ``name`` with every cell as printed, a string (an empty cell is missing): a chapter reads
    its numbers from the text (``int``, ``float``), exactly as Python reads the literal, and a printed ``81.65`` or
    ``77`` stays as printed (:func:`paper_table` reads the column as floats: ``77.0``)."""
    return paper_table(paper, name, dtype=str)


NUMBER = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?")
#: A reference to a table cell in a claims file: ``{table:row:column}`` or ``{table:row:column:n}``, either with
#: ``!spec`` (a format of its number) after it.
CELL = re.compile(r"\{(?P<table>\w+):(?P<row>[^:{}]+):(?P<column>[^:{}!]+)(?::(?P<part>\d+))?(?:!(?P<spec>[^{}]+))?\}")


def table_cell(paper: str, name: str, row: str, column: str, part: int | None = None) -> str:
    """The cell of ``paper``'s table ``name`` under ``column``, as printed, in the one row that holds each
    ``/``-separated part of ``row`` as a cell; with ``part`` n, the n-th unsigned number printed in it. A row that
    matches no row or several, an unknown column or a missing part raise ValueError."""
    frame = printed_table(paper, name)
    if column not in frame.columns:
        raise ValueError(f"paper table {paper}/{name}.csv has no column {column!r}")
    keys = row.split("/")
    rows = [r for r in frame.to_dict("records") if all(k in r.values() for k in keys)]
    if len(rows) != 1:
        raise ValueError(f"paper table {paper}/{name}.csv: {len(rows)} rows hold {keys}, not one")
    cell = rows[0][column]
    if part is None:
        return cell
    numbers = re.findall(r"\d+(?:\.\d+)?", cell)
    if not 1 <= part <= len(numbers):
        raise ValueError(f"paper table {paper}/{name}.csv: cell {cell!r} has no number {part}")
    return numbers[part - 1]


#: The comparisons a claims file's ``test`` column may name (:func:`lcrag.book.claims.declared_test`).
TESTS = ("within", "at least", "at most", "greater", "less")
PERCENT = re.compile(r"(?P<number>\d+(\.\d+)?)%")


@dataclass(frozen=True)
class DeclaredClaim:
    """A paper's claim as ``lcrag/papers/<paper>/claims.csv`` declares it."""

    claim_id: str
    template: str  # the text; '{paper_value}' stands for the value, so that a number is typed once
    written: str  # the paper's value as written in the file
    test: str = ""  # the comparison of ours with the paper's value (one of TESTS), or "" where the code decides
    tolerance_written: str = ""  # the tolerance as written ("0.02", "20%"), or ""

    @property
    def text(self) -> str:
        return self.template.replace("{paper_value}", self.written).replace("{tolerance}", self.tolerance_written)

    @property
    def tolerance(self) -> float | None:
        """The tolerance as a number (``20%`` is 0.2), None where none is declared."""
        if self.tolerance_written == "":
            return None
        m = PERCENT.fullmatch(self.tolerance_written)
        return float(m["number"]) / 100 if m else float(self.tolerance_written)

    @property
    def paper_value(self) -> float | str | None:
        """A number where the value is one, else the text as written (None for an empty cell)."""
        if self.written == "":
            return None
        return float(self.written) if NUMBER.fullmatch(self.written) else self.written


@cache
def declared_claims(paper: str) -> dict[str, DeclaredClaim]:
    """``paper``'s declared claims by id ({} for a paper without a declarations file, e.g. a test's). A malformed
    row raises ValueError naming the file and line."""
    try:
        path = resources.files(f"lcrag.papers.{paper}").joinpath("claims.csv")
    except ModuleNotFoundError:
        return {}
    if not path.is_file():
        return {}
    return parse_claims(path.read_text(encoding="utf-8"), path, paper)


def parse_claims(content: str, path, paper: str | None = None) -> dict[str, DeclaredClaim]:
    """The rows of a claims file (``#`` lines are notes) by id; ``path`` names it in errors. Each
    ``{table:row:column}`` reference is replaced by that cell of ``paper``'s tables (:func:`table_cell`)."""
    body = [(i + 1, line) for i, line in enumerate(content.splitlines()) if not line.startswith("#")]
    rows = list(csv.reader([line for _, line in body]))
    if not rows or rows[0] not in (HEADER[:3], HEADER):
        raise ValueError(f"{path}: the header must be claim_id,text,paper_value (then test,tolerance)")
    out: dict[str, DeclaredClaim] = {}
    for (lineno, _), row in zip(body[1:], rows[1:], strict=True):
        if len(row) != len(rows[0]) or not row[0] or not row[1] or row[0] in out:
            raise ValueError(f"{path} line {lineno}: expected a new claim id, a text and a value"
                             f"{', a test and a tolerance' if len(rows[0]) > 3 else ''}, got {row}")
        try:
            out[row[0]] = _declared(row, paper)
        except ValueError as e:
            raise ValueError(f"{path} line {lineno}: {e}") from None
    return out


HEADER = ["claim_id", "text", "paper_value", "test", "tolerance"]


def _declared(row: list[str], paper: str | None) -> DeclaredClaim:
    claim = DeclaredClaim(row[0], *(_cells(cell, paper) for cell in row[1:3]), *row[3:])
    if claim.test not in ("", *TESTS):
        raise ValueError(f"test {claim.test!r} is not one of {TESTS} (or empty)")
    if claim.tolerance_written and not (NUMBER.fullmatch(claim.tolerance_written)
                                        or PERCENT.fullmatch(claim.tolerance_written)):
        raise ValueError(f"tolerance {claim.tolerance_written!r} is not a number")
    if claim.tolerance is not None and claim.tolerance < 0:
        raise ValueError(f"tolerance {claim.tolerance_written!r} is negative (a margin below is the claim's code)")
    if claim.test and not isinstance(claim.paper_value, float):
        raise ValueError(f"test {claim.test!r} compares with the paper's value, but {claim.written!r} is no number")
    return claim


def _cells(text: str, paper: str | None) -> str:
    """``text`` with each table reference replaced by the cell it names."""

    def cell(m: re.Match) -> str:
        if paper is None:
            raise ValueError(f"{m.group(0)} names a table cell, but no paper is given")
        part = int(m.group("part")) if m.group("part") else None
        printed = table_cell(paper, m.group("table"), m.group("row"), m.group("column"), part)
        if not m.group("spec"):
            return printed
        if not NUMBER.fullmatch(printed):
            raise ValueError(f"{m.group(0)} formats a number, but the cell is {printed!r}")
        return format(int(printed) if printed.lstrip("-").isdigit() else float(printed), m.group("spec"))

    return CELL.sub(cell, text)
