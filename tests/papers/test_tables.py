"""The papers' printed tables as data (lcrag.papers.tables): every CSV reads, says where each row was printed,
and ships with the package."""

from __future__ import annotations

from importlib import resources

import pytest
from helpers import ROOT

from lcrag.papers.tables import paper_table, table_cell, table_path

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


def test_a_cell_is_named_by_its_table_the_cells_of_its_row_and_its_column():
    assert table_cell("summhay", "table2", "human/joint", "Orac") == "56.1"  # the row holding both
    assert table_cell("summhay", "shape", "subtopics per haystack", "value") == "9.20"  # as printed
    assert table_cell("longrag", "table1", "LongRAG-Vicuna-v1.5-7B-16k", "average") == "44.66(17.25↑)"
    assert table_cell("longrag", "table1", "LongRAG-Vicuna-v1.5-7B-16k", "average", 2) == "17.25"
    assert table_cell("summhay", "table4", "Length to Delta Corr.", "gemini-1.5-pro", 1) == "0.081"  # unsigned
    with pytest.raises(ValueError, match="11 rows hold"):
        table_cell("summhay", "table2", "joint", "Orac")  # several rows (ten summarizers and the humans)
    with pytest.raises(ValueError, match="0 rows hold"):
        table_cell("summhay", "table2", "nobody/joint", "Orac")
    with pytest.raises(ValueError, match="no column 'Oracle'"):
        table_cell("summhay", "table2", "human/joint", "Oracle")
    with pytest.raises(ValueError, match="has no number 3"):
        table_cell("longrag", "table1", "LongRAG-Vicuna-v1.5-7B-16k", "average", 3)
