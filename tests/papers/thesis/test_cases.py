"""The thesis's cases (lcrag.papers.thesis.cases): BAMBOO's cleaning on real data, the stratified subset."""

from __future__ import annotations

import pandas as pd
from helpers import MQ_REMOVED

from lcrag.papers.thesis import cases as thesis_cases

PQ_REMOVED = [
    2,
    7,
    9,
    12,
    19,
    20,
    34,
    41,
    43,
    45,
    52,
    53,
    54,
    55,
    59,
    60,
    61,
    66,
    68,
    72,
    74,
    75,
    78,
    79,
    89,
    90,
]


def test_cleaning_keeps_84_plus_74_and_removes_the_thesis_cases(cases):
    kept = cases[cases["kept"]]
    assert kept.groupby("task").size().to_dict() == {"meetingqa": 84, "paperqa": 74}
    removed = cases[~cases["kept"]]
    assert sorted(removed.loc[removed["task"] == "meetingqa", "case"]) == MQ_REMOVED
    assert sorted(removed.loc[removed["task"] == "paperqa", "case"]) == PQ_REMOVED
    mq5 = cases[(cases["task"] == "meetingqa") & (cases["case"] == 5)].iloc[0]
    assert mq5["removed"] == "duplicate of case 12"
    assert cases[(cases["task"] == "meetingqa") & (cases["case"] == 12)]["kept"].item()


def test_cleaning_table(cases):
    t = thesis_cases.cleaning_table(cases).set_index("task")
    assert t.loc["meetingqa", ["read", "unreadable", "not_4_options", "duplicates", "kept"]].tolist() == [
        100,
        0,
        15,
        1,
        84,
    ]
    assert t.loc["paperqa", ["read", "not_4_options", "duplicates", "kept"]].tolist() == [100, 26, 0, 74]
    assert t.loc["meetingqa", "removed_cases"] == " ".join(map(str, MQ_REMOVED))
    assert cases.attrs["reports"]["paperqa"].lenient == [53, 54]  # raw control characters: strict=False


def test_gt_letters_match_table_6_2_and_the_inventory(cases):
    kept = cases[cases["kept"]]
    assert kept[kept["task"] == "meetingqa"]["answer"].value_counts().to_dict() == {
        "C": 28,
        "A": 21,
        "B": 19,
        "D": 16,
    }
    assert kept[kept["task"] == "paperqa"]["answer"].value_counts().sort_index().to_dict() == {
        "A": 17,
        "B": 20,
        "C": 20,
        "D": 17,
    }
    q = kept.set_index(["task", "case"])
    assert q.loc[("meetingqa", 28), "answer"] == "C" and q.loc[("paperqa", 38), "answer"] == "C"


def test_later_duplicate_is_dropped_when_the_thesis_says_nothing():
    df = pd.DataFrame(
        {
            "case": [1, 2, 3, 4],
            "question": ["q", "q", "r", "q"],
            "answer": ["A", "A", "B", "A"],
            "options": [list("abcd"), list("abcd"), list("abc"), list("abce")],
            "task": "paperqa",
            "size": "16k",
        }
    )
    out = thesis_cases.clean_cases(df).set_index("case")
    assert out["removed"].to_dict() == {1: "", 2: "duplicate of case 1", 3: "3 options", 4: ""}
    assert out["kept"].tolist() == [True, False, False, True]


def test_stratified_subset_is_fixed_includes_the_named_cases_and_keeps_letters(cases):
    kept = cases[cases["kept"]]
    a = thesis_cases.stratified_subset(kept, 12, seed=0)
    b = thesis_cases.stratified_subset(kept, 12, seed=0)
    assert a[["task", "case"]].equals(b[["task", "case"]])
    assert a.groupby("task").size().to_dict() == {"meetingqa": 12, "paperqa": 12}
    mq = set(a.loc[a["task"] == "meetingqa", "case"])
    assert {28, 55, 4, 12, 3} <= mq and {38, 1} <= set(a.loc[a["task"] == "paperqa", "case"])
    counts = a[a["task"] == "meetingqa"]["answer"].value_counts()
    assert counts.max() - counts.min() <= 3  # 28/21/19/16 of 84 -> about 4/3/3/2 of 12
    assert thesis_cases.stratified_subset(kept, 2)["case"].tolist() == [28, 55, 1, 38]  # sorted by task, case
    assert len(thesis_cases.stratified_subset(kept, -1)) == 158


def test_the_run_plan_lists_a_subset_case_by_case_and_a_whole_task_by_its_count(cases):
    kept = cases[cases["kept"]].reset_index(drop=True)
    main = thesis_cases.first_cases(kept, 0)
    sub = thesis_cases.run_plan(kept, main, thesis_cases.stratified_subset(kept, 2)).splitlines()
    assert sub[0] == "158 kept cases; main runs on 158; the pipeline x prompt grid on 4:"
    assert sub[1].startswith("  meetingqa: cases 28 55  (answers: ") and sub[2].startswith("  paperqa: cases 1 38  (")
    every = thesis_cases.run_plan(kept, main, thesis_cases.stratified_subset(kept, -1)).splitlines()
    assert every[0].endswith("grid on 158:") and every[1].startswith("  meetingqa: every kept case (84)  (answers: A ")
    assert every[2].startswith("  paperqa: every kept case (74)  (")


def test_a_case_list_reads_as_words_not_a_python_list():
    """The exercises' cases, per task, as the page prints them (no tuples, no brackets)."""
    import pandas as pd

    from lcrag.papers.thesis.cases import case_list

    df = pd.DataFrame({"task": ["meetingqa", "meetingqa", "paperqa"], "case": [1, 2, 7]})
    assert case_list(df) == "3 cases: MeetingQA 1, 2; PaperQA 7"
    assert case_list(df.head(1)) == "1 case: MeetingQA 1"


def test_a_damaged_line_the_thesis_needs_fails_naming_file_and_line(tmp_path, bamboo_data):
    """A malformed line 3 used to be dropped, and the chapter failed later with a bare ``KeyError: 3``."""
    import pytest

    from lcrag import config
    from lcrag.data import load_bamboo
    from lcrag.data.manifest import DataError

    lines = (config.data_dir() / "bamboo" / "meetingqa_4k.jsonl").read_text(encoding="utf-8").splitlines(True)
    lines[2] = "{not json\n"
    damaged = tmp_path / "meetingqa_4k.jsonl"
    damaged.write_text("".join(lines), encoding="utf-8")

    def loader(task, size, errors):
        return load_bamboo(task, size, errors=errors, path=damaged)

    with pytest.raises(DataError, match=r"meetingqa_4k.jsonl: line 3: .*needs every case.*lcrag data fetch"):
        thesis_cases.load_cases(("meetingqa",), "4k", loader=loader)
