"""LRGinstruction's prompt tables as the paper prints them (Tables 16-18), and where the code's wording differs.

:data:`PAPER_TABLES` keeps the tables as printed (line breaks from the PDF's wrapping); :func:`wording_differences`
compares one with the code's string (:data:`lcrag.papers.longrag.lrginstruction.prompts.CODE_PROMPTS`) word by
word; :func:`prompt_table` lists the differences for every construction prompt.
"""

from __future__ import annotations

import difflib
import re

import pandas as pd

from lcrag.papers.longrag.lrginstruction.prompts import CODE_PROMPTS

PAPER_TABLES = {
    ("Table 16", "STEP-1"): """{supporting paragraphs}
Based on the above background only, please output the original information that
needs to be cited to answer the following questions. Please ensure that the
information cited is detailed and comprehensive.
Question:{question}
Output only the original information of the required reference:
{global information}""",
    ("Table 16", "STEP-2"): """I am going to provide you with a question, the background information, and
the answer to that question. Please evaluate whether the answer can be solely
derived from the given background information. If it can, set the status value
as True, if it can't, set the status value as False.
Question:{question}
Background Information:{global information}
Answer:{answer}
Your output format should be the following json format:
status: {the value of status}""",
    ("Table 16", "RESULT"): """Instruction:
{content}
Based on the above background, please output the information you need to cite
to answer the question below.
{question}
Output:
{global information}""",
    ("Table 17", "STEP-1"): """{supporting paragraphs}
Given question:{question}
The answer is:{answer}
Your task is to give your thought process for this given question based
on the above information, only give me your thought process and do not output
other information.
Thought process: {CoT}""",
    ("Table 17", "STEP-2"): """Question:{question}
Thought process of the question:{CoT}
Answer:{answer}
Please evaluate whether the thought process of this question can explain
the answer to this question. If it can explain the answer, set the value of
status to True. If it cannot explain the answer, set the value of status to
False. Your output format should be the following json format:
status: {the value of status}""",
    ("Table 17", "RESULT-1"): """Instruction:
{content}
Please combine the above information and give your thought process for the
following
Question:{question}
Output:
{CoT}""",
    ("Table 17", "RESULT-2"): """Instruction:
Given an article:{content}
Question:{question}
Thought process for the question:{CoT}
Your task is to use the thought process provided to decide whether you
need to cite the article to answer this question. If you need to cite the
article, set the status value to True. If not, set the status value to False.
Please output the response in the following json format:
{"status": {the value of status}}
Output:
{status}""",
    ("Table 18", "RESULT"): """Instruction:
{content}
Based on the above information, Only give me the answer and do not output any
other words.
Question:{question}
Output:
{answer}""",
}
"""Tables 16-18 of the paper, verbatim (line breaks from the PDF's wrapping)."""

_ANY_SLOT = re.compile(r"\{[A-Za-z ]+\}")


def paper_prompt(text: str) -> str:
    """The prompt part of a printed table: without the RESULT tables' "Instruction:" / "Output: {...}" frame and
    without the model-output slot that STEP-1 tables print after the prompt."""
    text = text.removeprefix("Instruction:\n")
    text = re.sub(r"\nOutput:\n\{[^{}]*\}$", "", text)
    return re.sub(r"\s*\{(global information|CoT)\}$", "", text)


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", _ANY_SLOT.sub(" SLOT ", text.lower().replace("’", "'")))


def wording_differences(paper: str, code: str) -> list[tuple[str, str]]:
    """Where a printed table and the code's string differ, as ``(paper, code)`` token runs.

    Both are lower-cased, every ``{slot}`` becomes ``SLOT`` (the two name the same slots differently) and
    whitespace is ignored (the paper's line breaks are the PDF's wrapping); words and punctuation are compared.
    """
    a, b = _tokens(paper_prompt(paper)), _tokens(code)
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return [(" ".join(a[i1:i2]), " ".join(b[j1:j2])) for op, i1, i2, j1, j2 in ops if op != "equal"]


def prompt_table() -> pd.DataFrame:
    """One row per construction prompt: the paper's table, the code's wording, and their differences."""
    rows = []
    for (table, step), code in CODE_PROMPTS.items():
        diffs = wording_differences(PAPER_TABLES[(table, step)], code)
        rows.append(
            {
                "table": table,
                "step": step,
                "words_differ": sum(bool(re.search(r"\w", p + c)) for p, c in diffs),
                "differences (paper -> code)": "; ".join(f"{p or '∅'} -> {c or '∅'}" for p, c in diffs),
            }
        )
    return pd.DataFrame(rows)

