"""The papers' printed tables as data (lcrag.papers.tables): every CSV reads, says where each row was printed,
and ships with the package."""

from __future__ import annotations

from importlib import resources

import pytest
from helpers import ROOT

from lcrag.papers.tables import paper_table, table_path

PAPERS = ("thesis", "longrag", "summhay", "long2rag")
TABLES = [(paper, p.name.removesuffix(".csv")) for paper in PAPERS
          for p in resources.files(f"lcrag.papers.{paper}").joinpath("tables").iterdir() if p.name.endswith(".csv")]


def test_every_paper_has_tables():
    assert {paper for paper, _ in TABLES} == set(PAPERS)


@pytest.mark.parametrize(("paper", "name"), TABLES)
def test_every_row_says_where_it_was_printed(paper, name):
    df = paper_table(paper, name)
    assert len(df) > 0
    sources = df["source"].astype(str).str.strip()
    assert (sources != "").all() and df["source"].notna().all(), f"{paper}/{name}: a row without a source"


def test_printed_symbols_stay_strings_and_notes_are_skipped(tmp_path):
    t1 = paper_table("longrag", "table1")
    assert "-" in set(t1.astype(str).to_numpy().ravel())  # "-" (not run) is read as printed, not as NaN
    assert table_path("longrag", "table1").read_text(encoding="utf-8").startswith("# LongRAG")  # notes on top
    assert not any(str(c).startswith("#") for c in t1.columns)  # ... not read as the header


def test_a_missing_table_is_named():
    with pytest.raises(FileNotFoundError, match="no paper table 'nope' for 'thesis'"):
        paper_table("thesis", "nope")


def test_the_tables_ship_in_the_wheel():

    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "papers/*/tables/*.csv" in pyproject["tool"]["setuptools"]["package-data"]["lcrag"]
