"""LRGinstruction's driver (lcrag.papers.longrag.lrginstruction.build): its bookkeeping on a scripted model (one
real record with the embedded model: the LongRAG smoke run, tests/papers/longrag/test_longrag.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from lcrag.data.longbench import load_longbench
from lcrag.papers.longrag.lrginstruction import build, records


def _words(text: str) -> int:
    return len(text.split())


class ScriptedModel:
    """Answers from a fixed script, in call order: drives the branches a real model cannot be made to take."""

    def __init__(self, answers: list[str]):
        self.answers, self.prompts = list(answers), []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def ask(self, prompt, **_):
        from types import SimpleNamespace

        self.prompts.append(prompt)
        return SimpleNamespace(
            text=self.answers.pop(0),
            prompt_tokens=_words(prompt),
            completion_tokens=1,
            finish_reason="stop",
            truncation=None,
            latency_s=0.0,
            source="script",
        )


def _prepared():
    item = load_longbench("2wikimqa").iloc[0].to_dict()
    return records.prepare(
        item, "2wikimqa", _words, records.Settings(min_context_tokens=100, max_instruction_tokens=3000)
    )


def test_build_record_keeps_counts_and_shows_every_candidate():
    long_text = "word " * 30
    model = ScriptedModel([long_text, '{"status": "True"}', long_text, 'it is "True" I guess'])
    calls, rows = build.build_record(_prepared(), model, records.Settings(min_response_tokens=20))
    assert [(c["task"], c["step"]) for c in calls] == [
        ("ext", "STEP-1"),
        ("ext", "STEP-2"),
        ("cot", "STEP-1"),
        ("cot", "STEP-2"),
    ]
    df = pd.DataFrame(rows).set_index(["task", "fil_label"], drop=False)
    assert df["task"].tolist() == ["ext", "cot", "fil", "fil", "rag"]
    assert df["reason"].tolist() == [
        "kept",
        "judgement malformed",
        "judgement malformed",
        "judgement malformed",
        "kept",
    ]
    assert df["kept_code"].tolist() == [True] * 5  # the code's fallback accepts the malformed judgement
    assert df["output"].tolist()[2:] == ['{"status":"True"}', '{"status":"False"}', "John the Baptist"]
    assert (
        model.prompts[1].startswith("I am going to provide you a question")
        and "word word" in model.prompts[1]
    )


def test_a_short_cot_is_still_judged_for_the_filter_data():
    model = ScriptedModel(["too short", "short too", '{"status": "True"}'])
    calls, rows = build.build_record(_prepared(), model, records.Settings(min_response_tokens=20))
    assert [(c["task"], c["step"]) for c in calls] == [
        ("ext", "STEP-1"),
        ("cot", "STEP-1"),
        ("fil", "STEP-2"),
    ]
    reasons = [r["reason"] for r in rows]
    assert reasons == ["too short", "too short", "kept", "kept", "kept"]


def test_table15_counts_come_from_the_paper_table():
    assert [build.table15_count(t, "musique") for t in ("ext", "cot", "fil", "rag")] == [200] * 4
    assert [build.table15_count(t, "qasper") for t in ("ext", "cot", "fil", "rag")] == [100, 100, 0, 0]
    assert build.table15_count("ext", "2wikimultihopqa") == 0  # not a column of Table 15


def test_summary_and_jsonl(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path))
    model = ScriptedModel(["word " * 30, "status: False", "word " * 30, '{"status":"True"}'])
    _, rows = build.build_record(_prepared(), model)
    df = pd.DataFrame(rows)
    s = build.summary(df).set_index("task")
    assert s.loc["ext", ["candidates", "judged False", "kept"]].tolist() == [1, 1, 0]
    assert s.loc["fil", ["candidates", "kept", "kept_code"]].tolist() == [2, 2, 2]
    assert s["paper_table15"].tolist() == [200] * 4
    cols = list(s.columns)  # the reasons for not keeping sit between the candidates and the kept
    assert cols.index("candidates") < cols.index("judged False") < cols.index("kept") < cols.index("kept_strict")
    path = build.write_jsonl(df[df.kept].to_dict("records"))
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert path == tmp_path / "lrginstruction.jsonl" and len(lines) == 4
    assert all(list(x) == ["instruction", "input", "output"] for x in lines)
    with pytest.raises(ValueError):
        build.write_jsonl([], "../x")


def test_write_kept_says_what_the_other_rule_would_keep(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = pd.DataFrame({"instruction": ["i"] * 4, "input": ["x"] * 4, "output": ["y"] * 4,
                         "kept_strict": [True, False, False, False], "kept_code": [True, True, True, False]})
    said = build.write_kept(rows.assign(kept=rows["kept_strict"]), "strict")
    assert said == "1 of 4 candidate instructions kept (strict rule) -> lrginstruction.jsonl; the code rule would keep 3"
    assert len((tmp_path / "lrginstruction.jsonl").read_text().splitlines()) == 1
    same = rows.assign(kept_code=rows["kept_strict"])
    assert build.write_kept(same.assign(kept=same["kept_code"]), "code").endswith(
        "the code's rule and the strict one keep the same number")


def test_the_calls_table_shows_each_response_on_one_line_and_no_nan():
    """The 1.5B's self-evaluator answers in a fenced block over several lines; the page showed it with literal
    ``\\n`` escapes, and NaN in the judge's columns of the [STEP-1] calls."""
    calls = pd.DataFrame({"dataset": ["d", "d"], "task": ["ext", "ext"], "step": ["STEP-1", "STEP-2"],
                          "prompt_tokens": [10, 5], "completion_tokens": [20, 13],
                          "judge_form": [float("nan"), "json"], "judge_code_true": [float("nan"), False],
                          "verdict": ["long enough", "judged False"], "latency_s": [15.84, 2.56],
                          "response": ["word " * 30, '```json\n{\n  "status": "False"\n}\n```']})
    shown = build.calls_shown(calls, width=40)
    assert list(shown.columns) == list(build.CALL_COLUMNS)
    assert shown["response"].tolist() == ["word word word word word word word word…",
                                          '```json { "status": "False" } ```']
    assert shown.loc[0, "judge_form"] == "" and shown.loc[0, "judge_code_true"] == ""
    assert shown.loc[1, "judge_code_true"] is False and shown["latency_s"].tolist() == [15.8, 2.6]
    assert "\\n" not in shown.to_html() and "NaN" not in shown.to_html()
