"""The paper's Tables 16-18 against the code's prompts (lcrag.papers.longrag.lrginstruction.wording): the tables as
the inventory prints them, and where their words differ."""

from __future__ import annotations

import re

from lcrag.papers.longrag.lrginstruction import prompts, wording


def test_the_paper_tables_are_the_inventorys_tables(inventory):
    blocks = re.findall(
        r"^(Table 1[678]), \[([A-Z0-9-]+)\]:[^\n]*\n```\n(.*?)\n```", inventory, re.MULTILINE | re.DOTALL
    )
    assert {(t, s) for t, s, _ in blocks} == set(wording.PAPER_TABLES)
    for table, step, text in blocks:
        assert wording.PAPER_TABLES[(table, step)] == text, (table, step)


def test_wording_differences_between_the_tables_and_the_code():
    diff = {k: wording.wording_differences(wording.PAPER_TABLES[k], v) for k, v in prompts.CODE_PROMPTS.items()}
    assert diff[("Table 17", "STEP-1")] == []  # same words and punctuation
    assert diff[("Table 16", "RESULT")] == []
    assert diff[("Table 16", "STEP-1")] == [("", "."), ("", ".")]  # "{support}." and "{question}."
    assert ("with", "") in diff[
        ("Table 16", "STEP-2")
    ]  # "provide you with a question" -> "provide you a question"
    assert diff[("Table 18", "RESULT")] == [("", "answer :")]  # the code adds "Answer: "
    table = wording.prompt_table()
    assert len(table) == 8 and table.set_index("step").loc["STEP-1", "words_differ"].tolist() == [0, 0]


def test_paper_prompt_strips_the_frame_and_the_output_slot():
    assert wording.paper_prompt(wording.PAPER_TABLES[("Table 18", "RESULT")]).startswith("{content}\nBased on")
    assert wording.paper_prompt(wording.PAPER_TABLES[("Table 18", "RESULT")]).endswith("Question:{question}")
    assert wording.paper_prompt(wording.PAPER_TABLES[("Table 17", "STEP-1")]).endswith("Thought process:")
    assert wording.paper_prompt(wording.PAPER_TABLES[("Table 16", "STEP-2")]).endswith("status: {the value of status}")
