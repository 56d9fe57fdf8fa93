"""BAMBOO's loader (lcrag.data.bamboo) on the real files (copied from the mirror into a tmp data dir; no network)
and on malformed ones.

Expected counts come from the data MANIFEST.md and the paper inventories (thesis.md for BAMBOO case lists), not
from the loader itself.
"""

from __future__ import annotations

import json
import logging

import pytest
from helpers import write_lines

from lcrag.data import DataNotFoundError, DataWarning, load_bamboo

pytestmark = pytest.mark.usefixtures("data_dir")

BAMBOO_COLUMNS = ["case", "question", "options", "answer", "evidence", "content", "task", "size"]


def _record(**changes) -> bytes:
    record = {
        "question": "q?",
        "evidence": "e",
        "options": ["A. x", "B. y"],
        "answer": "A",
        "content": "text",
    }
    record.update(changes)
    return json.dumps(record).encode()


def test_meetingqa_4k_loads_all_100_cases():
    df = load_bamboo("meetingqa", "4k")
    report = df.attrs["report"]
    assert list(df.columns) == BAMBOO_COLUMNS
    assert (report.n_read, report.n_kept, report.dropped, report.lenient) == (100, 100, [], [])
    assert df["case"].tolist() == list(range(1, 101))
    assert set(df["answer"]) == {"A", "B", "C", "D"}
    first = df.iloc[0]
    assert first.question == "what is Mark Thomas’s attitude towards the Minister’s behavior?"
    assert first.answer == "B" and first.options[1] == "B. he thinks it is impractical."
    # thesis.md: MeetingQA cases with a number of options other than 4
    other = df.loc[df.options.str.len() != 4, "case"].tolist()
    assert other == [16, 21, 27, 31, 41, 58, 59, 62, 81, 82, 84, 85, 96, 97, 100]


def test_paperqa_4k_parses_lines_53_54_leniently(recwarn):
    df = load_bamboo("paperqa", "4k")
    report = df.attrs["report"]
    assert (report.n_read, report.n_kept, report.lenient, report.dropped) == (100, 100, [53, 54], [])
    assert not [w for w in recwarn if issubclass(w.category, DataWarning)]
    assert df.iloc[0].question == "How to get additional knowledge for entities?" and df.iloc[0].answer == "B"
    other = df.loc[df.options.str.len() != 4, "case"].tolist()
    thesis = "2 7 9 12 19 20 34 41 43 45 52 53 54 55 59 60 61 66 68 72 74 75 78 79 89 90"  # thesis.md
    assert other == [int(n) for n in thesis.split()]


def test_paperqa_16k_line_26_is_repaired_from_the_previous_version():
    df = load_bamboo("paperqa", "16k")
    report = df.attrs["report"]
    assert (report.n_read, report.n_kept, report.dropped) == (100, 100, [])
    assert [line for line, _ in report.repaired] == [26]
    assert "previous_version_7a675b9d" in report.repaired[0][1]
    row = df.set_index("case").loc[26]
    assert row.question == "Which is not our study’s importance?" and row.answer == "A"


def test_paperqa_16k_without_repair_drops_and_reports_line_26(caplog):
    with caplog.at_level(logging.WARNING), pytest.warns(DataWarning, match="line 26"):
        df = load_bamboo("paperqa", "16k", errors="drop", repair_from_previous=False)
    report = df.attrs["report"]
    assert (report.n_read, report.n_kept) == (100, 99)
    assert [line for line, _ in report.dropped] == [26]
    assert "invalid JSON" in report.dropped[0][1]
    assert 26 not in set(df["case"]) and len(df) == 99
    assert "line 26" in caplog.text


def test_paperqa_16k_without_repair_raises_naming_line_26():
    with pytest.raises(ValueError, match=r"paperqa_16k\.jsonl, line 26: invalid JSON"):
        load_bamboo("paperqa", "16k", repair_from_previous=False)


def test_repair_only_where_a_previous_version_exists():
    with pytest.raises(ValueError, match="no previous version of meetingqa_4k"):
        load_bamboo("meetingqa", "4k", repair_from_previous=True)


def test_malformed_jsonl_names_file_and_line(tmp_path):
    bad = write_lines(
        tmp_path / "bad.jsonl", [_record(), b'{"question": "unterminated', _record(answer="E")]
    )
    with pytest.raises(ValueError, match=r"bad\.jsonl, line 2: invalid JSON"):
        load_bamboo("meetingqa", "4k", path=bad)
    with pytest.warns(DataWarning):
        df = load_bamboo("meetingqa", "4k", path=bad, errors="drop")
    report = df.attrs["report"]
    assert df["case"].tolist() == [1]
    assert [line for line, _ in report.dropped] == [2, 3]
    assert "answer 'E' is not one of A, B, C, D" in report.dropped[1][1]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (_record(options="A. x"), "options is not a non-empty list of strings"),
        (_record(options=[]), "options is not a non-empty list of strings"),
        (json.dumps({"question": "q"}).encode(), "missing fields"),
        (b"[1, 2]", "record is a JSON list, not an object"),
        (b"\xff\xfe not utf-8", "not UTF-8"),
        (_record(question="  "), "empty question or content"),
    ],
)
def test_invalid_records_are_rejected_with_a_reason(tmp_path, line, reason):
    bad = write_lines(tmp_path / "x.jsonl", [_record(), line])
    with pytest.raises(ValueError, match=rf"x\.jsonl, line 2: .*{reason[:20]}"):
        load_bamboo("paperqa", "4k", path=bad)


def test_raw_control_character_is_parsed_leniently_and_counted(tmp_path):
    tabbed = b'{"question": "a\tb", "evidence": "", "options": ["A. x"], "answer": "A", "content": "c"}'
    df = load_bamboo("paperqa", "4k", path=write_lines(tmp_path / "t.jsonl", [_record(), tabbed]))
    assert df.attrs["report"].lenient == [2] and df.iloc[1].question == "a\tb"


def test_repair_refuses_a_different_question(tmp_path):
    broken = write_lines(
        tmp_path / "new.jsonl", [_record(), b'{"question": "Why?", "evidence": "say "hi""}']
    )
    previous = write_lines(tmp_path / "old.jsonl", [_record(), _record(question="Something else?")])
    with pytest.raises(ValueError, match="is a different question, not used"):
        load_bamboo("paperqa", "16k", path=broken, previous_path=previous)
    same = write_lines(tmp_path / "old2.jsonl", [_record(), _record(question="Why?")])
    df = load_bamboo("paperqa", "16k", path=broken, previous_path=same)
    assert df.attrs["report"].repaired[0][0] == 2 and df.iloc[1].question == "Why?"


def test_missing_data_file_says_how_to_fetch(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_DATA_DIR", str(tmp_path))
    with pytest.raises(DataNotFoundError, match="make data"):
        load_bamboo("meetingqa", "4k")
