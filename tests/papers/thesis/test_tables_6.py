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
    assert t.set_index("case").loc[55, "ours"] == "None"
    assert tables_6.table_6_2_wide(t).shape == (25, 16)


def test_table_6_1_names_the_papers_values_and_their_cases():
    """The thesis's values sit in ``paper_`` columns; on the grid rows they are the whole-set values (77.00 for
    MeetingQA under BAMBOO), and ``paper_source`` says where the thesis prints each: the row of Table 6.1 under the
    thesis's own label, or the §6.1 text for the pooled accuracy the table does not print."""
    scored = thesis_shaped()
    t = tables_6.table_6_1(scored, scored.drop_duplicates("case")[["task", "case"]].head(40))
    assert "thesis" not in t.columns and {"paper_accuracy", "paper_source"} <= set(t.columns)
    row = t[(t["cases"] == "grid") & (t["task"] == "meetingqa")].iloc[0]
    assert (row["n"], row["paper_accuracy"], row["paper_source"]) == (40, 77.0, 'Table 6.1 "Clean & Parsed"')
    pooled = t[(t["cases"] == "grid") & (t["task"] == "pooled") & (t["prompt"] == "BAMBOO")].iloc[0]
    assert (pooled["paper_accuracy"], pooled["paper_source"]) == (81.65, "§6.1 text (pooled)")
