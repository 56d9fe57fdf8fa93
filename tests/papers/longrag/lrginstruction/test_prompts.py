"""LRGinstruction's prompts (lcrag.papers.longrag.lrginstruction.prompts), verbatim: checked against the inventory
(``../shared/papers/longrag.md`` §1.8 (d)), the released code's exact strings (``src/task.py``) parsed from the
markdown here; the instruction records in the paper's format."""

from __future__ import annotations

import re

import pytest

from lcrag.papers.longrag.lrginstruction import prompts


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
