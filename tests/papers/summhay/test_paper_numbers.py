"""The Summary of a Haystack paper's numbers as data (lcrag/papers/summhay/tables/*.csv, read by
lcrag.papers.summhay.paper_numbers): values quoted in the paper's text, read back through ``paper_table``."""

from __future__ import annotations

import pytest

from lcrag.papers.summhay import paper_numbers as pn
from lcrag.papers.summhay.names import PAPER_COLUMNS
from lcrag.papers.tables import paper_table

TABLES = (
    "table1",
    "table2",
    "table2_words_per_bullet",
    "table3",
    "table4",
    "table5",
    "shape",
    "oracle_ceiling",
    "released_cost_per_summary",
    "worked_example_scores",
    "worked_example_documents",
)


@pytest.mark.parametrize("name", TABLES)
def test_every_row_says_where_it_was_printed(name):
    t = paper_table("summhay", name)
    assert len(t) and t["source"].str.len().gt(0).all()


def test_table2_as_the_text_quotes_it():
    # §5.2: "Coverage scores ... range from 36.2% [Rand, GPT3.5] ... to 81.4% [Orac, Claude 3 Opus]";
    # §5.3: human Joint 56.1; GPT3.5 has no Full run (printed "–").
    t = paper_table("summhay", "table2").set_index(["summarizer", "metric"])  # columns with a "–" read as text
    assert t.loc[("gpt3.5", "coverage"), "Rand"] == "36.2"
    assert t.loc[("claude3-opus", "coverage"), "Orac"] == 81.4  # the Orac column has no "–": numbers
    assert t.loc[("gpt3.5", "joint"), "Full"] == "–"
    assert pn.PAPER_TABLE2["joint"]["gpt3.5"][-1] is None
    assert dict(zip(PAPER_COLUMNS, pn.PAPER_TABLE2["coverage"]["claude3-opus"], strict=True))["Orac"] == 81.4
    assert pn.PAPER_HUMAN == {"coverage": 74.5, "citation": 73.9, "joint": 56.1, "words_per_bullet": 29.7}
    assert len(pn.PAPER_TABLE2["citation"]) == 10 and "human" not in pn.PAPER_TABLE2["citation"]


def test_tables_1_3_4_5():
    assert pn.PAPER_TABLE1["gpt-4o"] == (0.716, 88.9, 6.9)
    assert pn.PAPER_TABLE1["Manual Annot."] == (0.770, 95.0, 325.0)
    assert pn.PAPER_TABLE3["claude3-opus"] == (20.4, 28.0, 18.0, 10.0)
    assert pn.PAPER_TABLE4["Length to Delta Corr."] == (0.02, -0.051, -0.081)
    assert pn.PAPER_TABLE4_TWO_DECIMALS == {("Length to Delta Corr.", "gpt-4o")}  # "0.02" as printed
    assert pn.PAPER_TABLE5["recall"]["gpt4-turbo"] == (35.7, 3.8)
    assert pn.PAPER_TABLE5["precision"]["gpt3.5"] == (46.7, None)


def test_text_numbers_and_figures():
    assert pn.PAPER_SHAPE["subtopics per haystack"] == 9.20 and pn.PAPER_SHAPE["insights per subtopic"] == 6.75
    assert pn.PAPER_SHAPE["tokens per haystack (mean)"] == 93_000 and isinstance(pn.PAPER_SHAPE["subtopics"], int)
    assert pn.PAPER_ORACLE_CEILING == 0.84
    assert pn.WORKED_EXAMPLE_SCORES["Fig. 2 (exam stress tips)"] == {"coverage": 50, "citation": 51, "joint": 22}
    assert pn.WORKED_EXAMPLE_DOCUMENTS["Fig. 4"]["I2"] == (11, 20, 48, 54, 80, 91)
    # the released notebook's cost per summary x 200 summaries gives Table 1's GPT-4o cost
    assert round(pn.RELEASED_COST_PER_SUMMARY["gpt-4o"] * 200, 1) == pn.PAPER_TABLE1["gpt-4o"][2]


def test_table1_note_says_which_cost_is_the_books_and_which_the_papers():
    """The paper prints only $15.1 for Gemini-1.5-pro; $15.16 is the released notebook's cost per summary x 200 (the
    book's figure): the note must not say the paper prints $15.16."""
    from lcrag.papers.summhay import paper_numbers

    note = paper_numbers.table1_note(200)
    assert "Gemini-1.5-pro's comes to \\$15.16 (\\$15.2 rounded), where the paper prints \\$15.1." in note
    assert "as \\$15.1" not in note


def test_paper_table2_swaps_vect_and_longe_only():
    swapped, literal = pn.paper_table2(True), pn.paper_table2(False)
    assert len(swapped) == 207 and len(literal) == 207  # 69 systems x 3 scores
    haiku = swapped[(swapped.summarizer == "claude3-haiku") & (swapped.metric == "coverage")].set_index(
        "setting"
    )
    assert (
        haiku.loc["longembed", "paper"] == 64.9 and haiku.loc["vector", "paper"] == 62.3
    )  # paper "Vect" / "LongE"
    same = swapped.merge(literal, on=["summarizer", "metric", "paper_column", "paper"])
    assert (same["setting_x"] != same["setting_y"]).sum() == 60  # the Vect and LongE cells only
