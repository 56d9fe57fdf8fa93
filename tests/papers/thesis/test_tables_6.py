"""The thesis's Tables 6.1 and 6.2 as the chapter builds them (lcrag.papers.thesis.tables_6)."""

from __future__ import annotations

import pandas as pd
from helpers import thesis_shaped

from lcrag.papers.thesis import numbers, tables_6


def test_table_6_2_with_the_thesis_answers(cases):
    kept = cases[cases["kept"]]
    mq = kept[kept["task"] == "meetingqa"]
    preds = [numbers.THESIS_TABLE_6_2_WRONG.get(c, a) for c, a in zip(mq["case"], mq["answer"], strict=True)]
    scored = pd.DataFrame(
        {
            "task": "meetingqa",
            "case": mq["case"],
            "setting": "rag",
            "pipeline": "CQT",
            "prompt": "BAMBOO",
            "pred_lenient": preds,
        }
    )
    t = tables_6.table_6_2(scored, cases)
    assert len(t) == 100 and (t["gt"] == "-").sum() == 16
    asked = t[t["gt"] != "-"]
    assert int(asked["paper_correct"].sum()) == 65 and (asked["ours"] == asked["paper_answer"]).all()
    assert t.set_index("case").loc[55, "ours"] == t.set_index("case").loc[55, "paper_answer"] == "no letter"
    assert tables_6.table_6_2_wide(t).shape == (25, 16)


def test_table_6_1_names_the_papers_values_and_their_cases():
    """The thesis's values sit in ``paper_`` columns; on the grid rows they are the whole-set values (77.00 for
    MeetingQA under BAMBOO), and ``paper_source`` says where the thesis prints each: the row of Table 6.1 under the
    thesis's own label, or the §6.1 text for the pooled accuracy the table does not print."""
    scored = thesis_shaped()
    scored = pd.concat([scored, scored.assign(prompt="CTX1")], ignore_index=True)
    t = tables_6.table_6_1(scored, scored.drop_duplicates("case")[["task", "case"]].head(40))
    assert "thesis" not in t.columns and {"paper_accuracy", "paper_source", "paper_note"} <= set(t.columns)
    row = t[(t["cases"] == "grid") & (t["task"] == "meetingqa") & (t["prompt"] == "CTX1")].iloc[0]
    assert (row["n"], row["paper_accuracy"], row["paper_source"]) == (40, 83.33, 'Table 6.1 "Clean & Parsed"')
    pooled = t[(t["cases"] == "grid") & (t["task"] == "pooled") & (t["prompt"] == "BAMBOO")].iloc[0]
    assert (pooled["paper_accuracy"], pooled["paper_source"]) == (81.65, "§6.1 text (pooled)")
    ctx1 = t[(t["cases"] == "grid") & (t["task"] == "pooled") & (t["prompt"] == "CTX1")].iloc[0]
    assert (ctx1["paper_accuracy"], ctx1["paper_source"]) == (84.18, "§6.5 text (pooled)")


def test_the_pooled_ctx_accuracies_are_sourced_to_6_5_where_the_thesis_states_them():
    """84.18 (CTX1) and 74.05 (CTX2) are in §6.5's text on Fig. 6.6, not §6.1's; only BAMBOO's 81.65 is in §6.1."""
    assert [numbers.pooled_source(p) for p in ("BAMBOO", "CTX1", "CTX2")] == [
        "§6.1 text", "§6.5 text", "§6.5 text"]


def test_table_6_1_s_original_row_and_the_note_name_their_reading():
    """Row 1 beside our 100 + 100 raw scores is BAMBOO's published numbers (the thesis's words); the note marks the
    100 + 100 reading of the 77/75 cells as the book's inference."""
    scored = thesis_shaped()
    t = tables_6.table_6_1(pd.concat([scored, scored.assign(kept=False, case=scored["case"] + 1000)]))
    original = t[(t["cases"] == "original") & (t["task"] != "pooled")]
    assert len(original) and (original["paper_source"] == 'Table 6.1 "Original & Raw" (BAMBOO paper)').all()
    assert "by the book's inference" in tables_6.table_6_1_note() and "100 + 100" in tables_6.table_6_1_note()


def test_table_6_1_sets_no_printed_value_beside_ours_that_cannot_be_an_accuracy_on_its_cases():
    """Table 6.1's BAMBOO "clean & parsed" cells (77.00, 75.00) cannot be accuracies on 84 and 74 cases: they are
    left out of ``paper_accuracy`` and ``paper_note`` gives them, pointing to the note and H1."""
    scored = thesis_shaped()
    scored = pd.concat([scored, scored.assign(prompt="CTX1")], ignore_index=True)
    t = tables_6.table_6_1(scored, scored.drop_duplicates("case")[["task", "case"]].head(40))
    bamboo = t[(t["prompt"] == "BAMBOO") & (t["task"] != "pooled")]
    assert bamboo["paper_accuracy"].isna().all() and set(bamboo["task"]) == {"meetingqa", "paperqa"}
    assert bamboo["paper_note"].str.startswith(("prints 77.00: not an accuracy", "prints 75.00: not an")).all()
    others = t[(t["prompt"] != "BAMBOO") | (t["task"] == "pooled")]
    assert (others["paper_note"] == "").all() and others["paper_accuracy"].notna().all()


def test_table_6_2_s_answer_without_a_letter_is_not_shown_as_a_missing_value(cases):
    """The page shows a table's missing values as a dash (lcrag.book.reading): the thesis's refusal on case 55 must
    read as such, not as a dash beside the removed cases' "-"."""
    from lcrag.book.reading import fold_cell

    t = tables_6.table_6_2(pd.DataFrame(columns=["task", "case", "setting", "pipeline", "prompt", "pred_lenient"]),
                           cases)
    html = tables_6.table_6_2_wide(t)._repr_html_()
    cell = {"cell_type": "code", "source": "", "metadata": {},
            "outputs": [{"output_type": "execute_result", "data": {"text/html": html}}]}
    shown = fold_cell(cell)["outputs"][0]["data"]["text/html"]
    assert t.set_index("case").loc[55, "paper_answer"] == tables_6.NO_LETTER and f"<td>{tables_6.NO_LETTER}</td>" in shown
