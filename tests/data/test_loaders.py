"""Typed loaders on the real dataset files (copied from the mirror into a tmp data dir; no network).

Expected counts come from the data MANIFEST.md and the paper inventories (thesis.md for BAMBOO case
lists), not from the loaders themselves.
"""

from __future__ import annotations

import json
import logging

import pytest

from lcrag.data import (
    DataNotFoundError,
    DataWarning,
    load_bamboo,
    load_essays,
    load_eval_benchmark,
    load_haystack,
    load_haystacks,
    load_longbench,
    load_longrag_eval,
    split_passages,
)
from lcrag.data.fetch import fetch

RETRIEVERS = ("keywords", "vector", "oracle", "dwzhu/e5-base-4k", "random", "rerank3")
BAMBOO_COLUMNS = ["case", "question", "options", "answer", "evidence", "content", "task", "size"]


@pytest.fixture(scope="module", autouse=True)
def data_dir(mirror, tmp_path_factory):
    """LCRAG_DATA_DIR -> a fresh tmp dir holding every required file, copied from the mirror."""
    dest = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCRAG_DATA_DIR", str(dest))
        report = fetch(mirror=mirror, download=False)
        assert report.ok, report.summary()
        yield dest


@pytest.fixture(scope="module")
def haystacks():
    return load_haystacks()


def _write_lines(path, lines: list[bytes]):
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


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


# --- BAMBOO ----------------------------------------------------------------------------------------


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
    bad = _write_lines(
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
    bad = _write_lines(tmp_path / "x.jsonl", [_record(), line])
    with pytest.raises(ValueError, match=rf"x\.jsonl, line 2: .*{reason[:20]}"):
        load_bamboo("paperqa", "4k", path=bad)


def test_raw_control_character_is_parsed_leniently_and_counted(tmp_path):
    tabbed = b'{"question": "a\tb", "evidence": "", "options": ["A. x"], "answer": "A", "content": "c"}'
    df = load_bamboo("paperqa", "4k", path=_write_lines(tmp_path / "t.jsonl", [_record(), tabbed]))
    assert df.attrs["report"].lenient == [2] and df.iloc[1].question == "a\tb"


def test_repair_refuses_a_different_question(tmp_path):
    broken = _write_lines(
        tmp_path / "new.jsonl", [_record(), b'{"question": "Why?", "evidence": "say "hi""}']
    )
    previous = _write_lines(tmp_path / "old.jsonl", [_record(), _record(question="Something else?")])
    with pytest.raises(ValueError, match="is a different question, not used"):
        load_bamboo("paperqa", "16k", path=broken, previous_path=previous)
    same = _write_lines(tmp_path / "old2.jsonl", [_record(), _record(question="Why?")])
    df = load_bamboo("paperqa", "16k", path=broken, previous_path=same)
    assert df.attrs["report"].repaired[0][0] == 2 and df.iloc[1].question == "Why?"


def test_missing_data_file_says_how_to_fetch(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_DATA_DIR", str(tmp_path))
    with pytest.raises(DataNotFoundError, match="make data"):
        load_bamboo("meetingqa", "4k")


# --- essays ----------------------------------------------------------------------------------------


def test_essays_49_files_about_112k_words(mirror):
    df = load_essays()
    assert len(df) == 49 and list(df.columns) == ["name", "text", "n_chars", "n_words"]
    assert df["name"].tolist() == sorted(df["name"]) and df["name"].iloc[0] == "addiction"
    assert df["n_words"].sum() == 111_913  # MANIFEST.md: ~112k words (wc -w)
    assert df.set_index("name").loc["rss", "n_words"] == 10  # the 10-word stub upstream
    assert (
        df.set_index("name").loc["worked", "text"].encode()
        == (mirror / "paul_graham_essays/worked.txt").read_bytes()
    )
    assert load_essays(mirror / "paul_graham_essays")[["name", "n_chars"]].equals(df[["name", "n_chars"]])


# --- SummHay ---------------------------------------------------------------------------------------


def test_ten_haystacks_with_the_published_totals(haystacks):
    assert len(haystacks) == 10
    assert sum(len(h.documents) for h in haystacks.values()) == 1000
    assert sum(len(h.subtopics) for h in haystacks.values()) == 92
    assert sum(len(h.insights) for h in haystacks.values()) == 621
    per = {n: (len(h.subtopics), len(h.insights)) for n, h in haystacks.items()}
    assert per == {  # MANIFEST.md table
        "news1": (9, 65), "news2": (9, 72), "news3": (9, 79), "news4": (8, 66), "news5": (7, 54),
        "conv1": (10, 58), "conv2": (10, 56), "conv3": (10, 57), "conv4": (10, 59), "conv5": (10, 55),
    }  # fmt: skip


def test_haystack_tables_are_consistent(haystacks):
    for name, h in haystacks.items():
        assert h.kind == name[:4] and h.topic and h.topic_id
        assert sorted(h.documents["idx"]) == list(range(100))
        assert h.subtopics["n_insights"].sum() == len(h.insights)
        assert set(h.insights["subtopic_id"]) == set(h.subtopics["subtopic_id"])
        included = {i for ids in h.documents["insights_included"] for i in ids}
        assert included <= set(h.insights["insight_id"])
        assert set(h.retriever_scores["retriever"]) == set(RETRIEVERS)
        in_haystack = h.retriever_scores[h.retriever_scores.in_haystack]
        assert len(in_haystack) == 6 * 100 * len(h.subtopics)


def test_news_have_summaries_and_judgments_conv_do_not(haystacks):
    news1, conv1 = haystacks["news1"], haystacks["conv1"]
    assert news1.summaries.groupby("subtopic_id").size().eq(78).all()  # 78 summary keys per subtopic
    assert set(news1.judgments["coverage"]) == {"NO_COVERAGE", "PARTIAL_COVERAGE", "FULL_COVERAGE"}
    assert str(news1.judgments["bullet_id"].dtype) == "Int64"
    assert news1.judgments["bullet_id"].isna().any()
    assert conv1.summaries.empty and conv1.judgments.empty
    assert conv1.insights["query"].notna().all() and news1.insights["query"].isna().all()
    # the news oracle dicts also score 100 ids that are not documents of the haystack: kept, marked
    outside = news1.retriever_scores[~news1.retriever_scores.in_haystack]
    assert set(outside["retriever"]) == {"oracle"} and len(outside) == 100 * len(news1.subtopics)
    assert news1.notes


def test_unknown_haystack_name():
    with pytest.raises(ValueError, match="unknown SummHay haystack 'news6'"):
        load_haystack("news6")


def test_eval_benchmark_200_records(haystacks):
    df = load_eval_benchmark()
    assert len(df) == 200 and df.attrs["report"].n_kept == 200
    assert df["topic_fn"].notna().sum() == 114 and df["topic_id"].notna().sum() == 86
    predictions = [c for c in df.columns if c.startswith("predictions_")]
    assert len(predictions) == 6 and "predictions_9fs_gpt-4o" in predictions
    assert (df["topic_fn"] == "data/topic_664eac18d68e5dd3b795fd6c.json").sum() == 56
    # MANIFEST.md cross-check: the 58 conv1 (doctor-patient) records use conv1's insights
    doctor = df[df["topic_fn"] == "data/topic_doctor_patient.json"]
    assert len(doctor) == 58
    ids = {i["insight_id"] for refs in doctor["reference_insights"] for i in refs}
    assert ids <= set(haystacks["conv1"].insights["insight_id"])


# --- LongBench and LongRAG eval --------------------------------------------------------------------


def test_longbench_subsets():
    wiki, musique = load_longbench("2wikimqa"), load_longbench("musique")
    assert (len(wiki), len(musique)) == (100, 48)
    for df, low, high, name in [(wiki, 9, 10, "2wikimqa"), (musique, 3, 20, "musique")]:
        assert df["_id"].is_unique and set(df["dataset"]) == {name}
        assert low == df["n_passages"].min() and df["n_passages"].max() == high
        for record in df.itertuples():
            assert len(split_passages(record.context, record._1)) == record.n_passages
    assert musique["index"].tolist() == list(range(48))
    assert wiki["index"].iloc[:3].tolist() == [1, 4, 6]


def test_longbench_subsets_match_longrag_eval_questions():
    for name, eval_name in [("2wikimqa", "2wikimultihopqa"), ("musique", "musique")]:
        records = load_longbench(name)
        questions = load_longrag_eval(eval_name).set_index("index").loc[records["index"]]
        assert questions["question_id"].tolist() == records["_id"].tolist()
        assert questions["question"].tolist() == records["input"].tolist()
        assert questions["answers"].tolist() == records["answers"].tolist()


def test_longrag_eval_files():
    for name in ["hotpotqa", "2wikimqa", "musique"]:
        df = load_longrag_eval(name)
        assert len(df) == 200 and df["question_id"].str.fullmatch(r"[0-9a-f]{48}").all()
    assert load_longrag_eval("musique")["answers"].str.len().sum() == 274
    assert load_longrag_eval("hotpotqa").iloc[0].question.startswith("Which case was brought to court first")


def test_hotpotqa_needs_the_full_file():
    with pytest.raises(DataNotFoundError, match="THUDM/LongBench/resolve/main/data.zip"):
        load_longbench("hotpotqa")


def test_split_passages():
    assert split_passages("Passage 1:\nA\nx\nPassage 2:\nB\n") == ["A\nx", "B"]
    with pytest.raises(ValueError, match=r"record abc: passage labels run \[1, 3\]"):
        split_passages("Passage 1:\nA\nPassage 3:\nB", record_id="abc")
    with pytest.raises(ValueError, match="text before the first"):
        split_passages("intro\nPassage 1:\nA")
    with pytest.raises(ValueError, match="no 'Passage N:' label lines"):
        split_passages("no labels at all")


def test_bad_longbench_line_names_file_and_line(tmp_path):
    good = {
        "_id": "a",
        "input": "q",
        "context": "Passage 1:\nx",
        "answers": ["y"],
        "length": 1,
        "dataset": "d",
    }
    gap = {**good, "_id": "b", "context": "Passage 2:\nx"}
    path = _write_lines(tmp_path / "lb.jsonl", [json.dumps(good).encode(), json.dumps(gap).encode(), b"{"])
    with pytest.raises(ValueError, match=r"lb\.jsonl, line 2: record b: passage labels run \[2\]"):
        load_longbench(path)
    with pytest.warns(DataWarning):
        df = load_longbench(path, errors="drop")
    assert df["_id"].tolist() == ["a"] and [n for n, _ in df.attrs["report"].dropped] == [2, 3]
