"""LRGinstruction construction: prompts verbatim, the judgement parser, the validators (one real record with the
embedded model: the LongRAG smoke run, tests/papers/longrag/test_pipeline.py).

The prompts are checked against the inventory (``../shared/papers/longrag.md`` §1.8 (d)): the paper's Tables
16-18 as printed and the released code's exact strings (``src/task.py``), parsed from the markdown here.
"""

from __future__ import annotations

import json
import random
import re

import pandas as pd
import pytest
from helpers import SHARED, fetched_data_dir

from lcrag.data.longbench import load_longbench, split_passages
from lcrag.papers.longrag.lrginstruction import build, judgement, prompts, records, wording

INVENTORY = SHARED / "papers" / "longrag.md"


# ----------------------------------------------------------------------------- prompts against the inventory


@pytest.fixture(scope="module", autouse=True)
def longbench_data(mirror, tmp_path_factory):
    """A clean clone has no data/files: the LongBench files come from the mirror, as in CI."""
    yield from fetched_data_dir(mirror, tmp_path_factory, ["longbench"])


@pytest.fixture(scope="module")
def inventory() -> str:
    if not INVENTORY.exists():
        pytest.skip(f"inventory not found at {INVENTORY}")
    return INVENTORY.read_text(encoding="utf-8")


def _code_strings(text: str) -> dict[tuple[str, str], str]:
    """The inventory's ``- ext STEP-1: `f\"\"\"...\"\"\"``` lines, decoded as Python would read the literals."""
    out = {}
    for task, step, literal in re.findall(
        r"^- (ext|cot|rag|fil) (STEP-\d|RESULT)(?: instruction)?: `([^`]*)`", text, re.MULTILINE
    ):
        is_f = literal.startswith("f")
        body = literal.removeprefix("f")
        quote = '"""' if body.startswith('"""') else '"'
        body = body[len(quote) : -len(quote)].replace("\\n", "\n")
        if is_f:
            body = body.replace("{{", "{").replace("}}", "}")
        out[(task, step)] = body
    return out


def test_the_code_prompts_are_the_inventorys_strings(inventory):
    code = _code_strings(inventory)
    assert code[("ext", "STEP-1")] == prompts.EXT_STEP1
    assert code[("ext", "STEP-2")] == prompts.EXT_STEP2
    assert code[("ext", "RESULT")] == prompts.EXT_RESULT
    assert code[("cot", "STEP-1")] == prompts.COT_STEP1
    assert code[("cot", "STEP-2")] == prompts.COT_STEP2
    assert code[("cot", "RESULT")] == prompts.COT_RESULT
    assert code[("rag", "RESULT")] == prompts.RAG_RESULT
    head, tail = code[("fil", "RESULT")].split(" … ")  # the inventory abbreviates the middle
    assert prompts.FIL_RESULT.startswith(head) and prompts.FIL_RESULT.endswith(tail)


def test_the_filter_prompt_in_full_and_its_gold_outputs():
    # src/task.py, build_fil_instruction (the inventory abbreviates this one)
    assert prompts.FIL_RESULT.split("\n")[3] == (
        "Your task is to use the thought process provided to decide whether you need to cite the article to "
        "answer this question. If you need to cite the article, set the status value to True. If not, set the "
        "status value to False. Please output the response in the following json format: "
        '{"status": "{the value of status}"}'
    )
    assert prompts.FIL_OUTPUT == {True: '{"status":"True"}', False: '{"status":"False"}'}


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


def test_fill_substitutes_once_and_leaves_the_json_alone():
    p = prompts.ext_step2_prompt("Q {answer}?", "info with {question}", "A")
    assert "Question: Q {answer}?\nBackground Information: info with {question}\nAnswer: A\n" in p
    assert p.endswith('{"status": "{the value of status}"}')
    with pytest.raises(KeyError, match="answer"):
        prompts.fill(prompts.COT_STEP1, support="s", question="q")
    assert prompts.ext_step1_prompt(["P1", "P2"], "Q?").startswith("P1\nP2.\nBased on the above background only")
    assert prompts.cot_step1_prompt(["P1"], "Q?", "A").startswith("P1\n\nGiven question: Q?\nThe answer is: A\n")


def test_instruction_records_have_the_paper_format():
    assert prompts.rag_instruction("C", "Q?", "A") == {
        "instruction": "C\nBased on the above information, only give me the answer and do not output any other "
        "words.\nQuestion: Q?\nAnswer: ",
        "input": "",
        "output": "A",
    }
    assert prompts.cot_instruction("C", "Q?", "T")["instruction"].endswith("for the following question:\nQ?.")
    assert prompts.ext_instruction("C", "Q?", "I")["instruction"].startswith("C\n\nBased on the above background,")
    fil = prompts.fil_instruction("Art", "Q?", "T", supporting=False)
    assert fil["instruction"].startswith(
        "Given an article: Art\nQuestion: Q?.\nThought process for the question: T\n"
    )
    assert fil["output"] == '{"status":"False"}' and fil["input"] == ""


# ----------------------------------------------------------------------------- the self-evaluator's answers


@pytest.mark.parametrize(
    "text, status, form, code_true",
    [
        ('{"status": "True"}', True, "json", True),
        ('{"status": "false"}', False, "json", False),
        ('{"status": true}', True, "json", True),
        (
            '```json\n{"status": "False"}\n```',
            False,
            "json",
            False,
        ),  # fenced: the code falls back to its regex
        ('Sure. {"status": "True"} since the info names him.', True, "embedded_json", True),
        ("status: False", False, "status_line", False),
        ('"status": "TRUE"', True, "status_line", False),  # the code's regex is "True|true": case-sensitive
        (
            'The answer is: Elizabeth\nSet the value of status to "True"',
            None,
            "malformed",
            True,
        ),  # a real SmolLM2 answer
        ('{"status": "{the value of status}"}', None, "malformed", False),  # the template echoed
        ('{"status": "maybe"}', None, "malformed", False),
        ("", None, "malformed", False),
        (None, None, "malformed", False),
    ],
)
def test_parse_judgement(text, status, form, code_true):
    j = judgement.parse_judgement(text)
    assert (j.status, j.form, j.code_true) == (status, form, code_true)


def test_rules_and_rejection_reasons():
    ok, false, bad = (
        judgement.parse_judgement('{"status":"True"}'),
        judgement.parse_judgement("status: false"),
        judgement.parse_judgement('I think "True".'),
    )
    assert ok.accepted("strict") and ok.accepted("code")
    assert not false.accepted("strict") and not false.accepted("code")
    assert not bad.accepted("strict") and bad.accepted("code")  # the code's fallback: "True" anywhere
    assert judgement.rejection(bad, "strict") == "judgement malformed" and judgement.rejection(bad, "code") == ""
    assert judgement.rejection(false, "strict") == "judged False" and judgement.rejection(ok, "strict") == ""
    assert judgement.rejection(None, "strict", too_short=True) == "too short"
    with pytest.raises(ValueError, match="rule"):
        ok.accepted("lenient")


# ----------------------------------------------------------------------------- labels, sampling, budgets


def test_silver_support_on_titles_and_answers():
    paragraphs = [
        "Grown Ups (film)\nGrown Ups is a 2010 comedy.",
        "Maria Bello\nMaria Bello is an actress.",
        "Jack Giarraputo\nA producer.",
        "The Boom\nbooming",
    ]
    labels = records.silver_support(paragraphs, "Who plays the wife in Grown Ups?", ["Maria Bello"])
    assert labels == ["title", "answer", "", ""]
    assert records.silver_support(["Bello\nx"], "Is Bellow here?", ["Bell"]) == [""]  # whole words only
    assert records.title("Alan Marshal (actor)\nAlan Marshal was ...") == "Alan Marshal"


def test_silver_support_on_a_real_record():
    item = load_longbench("2wikimqa").iloc[0]
    paragraphs = split_passages(item["context"], item["_id"])
    labels = records.silver_support(paragraphs, item["input"], item["answers"])
    support = {records.title(p): lab for p, lab in zip(paragraphs, labels, strict=True) if lab}
    assert item["input"] == "Who is Sobe (Sister Of Saint Anne)'s grandchild?"
    assert support == {"Sobe": "title", "Elizabeth": "answer"}


def test_sample_distractors_draws_between_two_and_all():
    sizes = set()
    for seed in range(200):
        drawn = records.sample_distractors(6, random.Random(seed))
        assert 2 <= len(drawn) <= 6 and len(set(drawn)) == len(drawn) and set(drawn) <= set(range(6))
        sizes.add(len(drawn))
    assert sizes == {2, 3, 4, 5, 6}
    assert records.sample_distractors(1, random.Random(0)) == [0]
    assert records.sample_distractors(0, random.Random(0)) == []


def test_fit_distractors_keeps_a_prefix_within_the_budget():
    assert records.fit_distractors(100, [50, 30, 40], 200) == 2
    assert records.fit_distractors(100, [50, 30, 40], 220) == 3
    assert records.fit_distractors(100, [150, 10], 200) == 0  # draw order: a long first one blocks the rest
    assert records.fit_distractors(300, [1], 200) == 0


def _words(text: str) -> int:
    return len(text.split())


def test_prepare_a_real_record():
    item = load_longbench("2wikimqa").iloc[0].to_dict()
    settings = records.Settings(min_context_tokens=100, max_instruction_tokens=2000)
    p = records.prepare(item, "2wikimqa", _words, settings)
    assert p["skip"] == "" and p["n_support"] == 2 and p["paragraphs"] == 10 and p["n_distractors"] == 8
    assert 2 <= p["n_drawn"] <= 8 and p["n_drawn_kept"] <= p["n_drawn"]
    assert all(s in p["content"] for s in p["support"])
    paragraphs = split_passages(item["context"], item["_id"])
    order = [paragraphs.index(x) for x in p["content"].split("\n") if x in paragraphs]
    assert order == sorted(order)  # the record's own order
    assert _words(p["content"]) <= 2000
    assert records.prepare(item, "2wikimqa", _words, settings) == p  # the draw is seeded per record


def test_prepare_skips_with_a_reason():
    item = load_longbench("2wikimqa").iloc[0].to_dict()
    assert records.prepare(item, "2wikimqa", _words, records.Settings(min_context_tokens=10**6))["skip"].startswith(
        "short context"
    )
    assert records.prepare(item, "2wikimqa", _words, records.Settings(max_instruction_tokens=50))["skip"].startswith(
        "supporting paragraphs over"
    )
    lonely = {**item, "answers": ["zzz qqq"], "input": "Who?"}
    assert records.prepare(lonely, "2wikimqa", _words)["skip"] == "no silver supporting paragraph"
    assert records.MIN_CONTEXT_TOKENS["musique"] == 2500 and records.MIN_CONTEXT_TOKENS["2wikimqa"] == 1500


# ----------------------------------------------------------------------------- the driver's bookkeeping


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
