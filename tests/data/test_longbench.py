"""LongBench's and the LongRAG eval files' loaders (lcrag.data.longbench) on the real files (copied from the mirror
into a tmp data dir; no network) and on malformed ones. Expected counts come from the data MANIFEST.md and the
LongRAG inventory, not from the loaders themselves."""

from __future__ import annotations

import json

import pytest
from helpers import write_lines

from lcrag.data import DataNotFoundError, DataWarning, load_longbench, load_longrag_eval, split_passages

pytestmark = pytest.mark.usefixtures("data_dir")


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
    path = write_lines(tmp_path / "lb.jsonl", [json.dumps(good).encode(), json.dumps(gap).encode(), b"{"])
    with pytest.raises(ValueError, match=r"lb\.jsonl, line 2: record b: passage labels run \[2\]"):
        load_longbench(path)
    with pytest.warns(DataWarning):
        df = load_longbench(path, errors="drop")
    assert df["_id"].tolist() == ["a"] and [n for n, _ in df.attrs["report"].dropped] == [2, 3]
