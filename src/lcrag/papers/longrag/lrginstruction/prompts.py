"""LRGinstruction's construction prompts, verbatim from the released code (``src/task.py``), and the records.

The strings are the paper's Tables 16-18 with their true line breaks (the printed tables and how they differ are
in :mod:`lcrag.papers.longrag.lrginstruction.wording`). :func:`fill` substitutes the slots in one pass; the
``*_prompt`` functions build the [STEP-1]/[STEP-2] prompts, the ``*_instruction`` functions the training records.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

EXT_STEP1 = (
    "{support}.\nBased on the above background only, please output the original information that needs to be "
    "cited to answer the following questions. Please ensure that the information cited is detailed and "
    "comprehensive.\nQuestion: {question}.\nOutput only the original information of the required reference:"
)
EXT_STEP2 = (
    "I am going to provide you a question, the background information, and the answer to that question. Please "
    "evaluate whether the answer can be solely derived from the given background information. If it can, set "
    "the status value as True, if it can't, set the status value as False.\nQuestion: {question}\nBackground "
    "Information: {response}\nAnswer: {answer}\nYour output format should be the following json format: "
    '{"status": "{the value of status}"}'
)
EXT_RESULT = (
    "{content}\n\nBased on the above background, please output the information you need to cite to answer the "
    "question below.\n{question}"
)
COT_STEP1 = (
    "{support}\n\nGiven question: {question}\nThe answer is: {answer}\nYour task is to give your thought process "
    "for this given question based on the above information, only give me your thought process and do not "
    "output other information.\nThought process:"
)
COT_STEP2 = (
    "Question: {question},\nThought process of the question: {response}\nAnswer: {answer}\nPlease evaluate "
    "whether the thought process of this question can explain the answer to this question. If it can explain "
    'the answer, set the value of status to "True". If it cannot explain the answer, set the value of status to '
    '"False".\nYour output format should be the following json format: {"status": "{the value of status}"}'
)
COT_RESULT = (
    "{content}\nPlease combine the above information and give your thought process for the following "
    "question:\n{question}."
)
FIL_RESULT = (
    "Given an article: {content}\nQuestion: {question}.\nThought process for the question: {response}\nYour "
    "task is to use the thought process provided to decide whether you need to cite the article to answer this "
    "question. If you need to cite the article, set the status value to True. If not, set the status value to "
    'False. Please output the response in the following json format: {"status": "{the value of status}"}'
)
RAG_RESULT = (
    "{content}\nBased on the above information, only give me the answer and do not output any other words.\n"
    "Question: {question}\nAnswer: "
)
FIL_OUTPUT = {True: '{"status":"True"}', False: '{"status":"False"}'}
"""The filtering records' gold outputs, exactly as the code writes them."""

CODE_PROMPTS = {
    ("Table 16", "STEP-1"): EXT_STEP1,
    ("Table 16", "STEP-2"): EXT_STEP2,
    ("Table 16", "RESULT"): EXT_RESULT,
    ("Table 17", "STEP-1"): COT_STEP1,
    ("Table 17", "STEP-2"): COT_STEP2,
    ("Table 17", "RESULT-1"): COT_RESULT,
    ("Table 17", "RESULT-2"): FIL_RESULT,
    ("Table 18", "RESULT"): RAG_RESULT,
}

_SLOT = re.compile(r"\{(support|question|answer|response|content)\}")


def fill(template: str, **values: str) -> str:
    """Substitute the ``{support}``/``{question}``/... slots in one pass.

    One pass, so a paragraph that happens to contain ``{question}`` is not substituted again; the literal JSON
    ``{"status": "{the value of status}"}`` of the judgement prompts is left alone. A slot without a value raises.
    """

    def value(m: re.Match) -> str:
        if m.group(1) not in values:
            raise KeyError(f"no value for slot {{{m.group(1)}}}")
        return values[m.group(1)]

    return _SLOT.sub(value, template)


def ext_step1_prompt(support: Sequence[str], question: str) -> str:
    """[STEP-1] of Table 16: the supporting paragraphs joined with newlines, as the code does."""
    return fill(EXT_STEP1, support="\n".join(support), question=question)


def ext_step2_prompt(question: str, information: str, answer: str) -> str:
    return fill(EXT_STEP2, question=question, response=information, answer=answer)


def cot_step1_prompt(support: Sequence[str], question: str, answer: str) -> str:
    return fill(COT_STEP1, support="\n".join(support), question=question, answer=answer)


def cot_step2_prompt(question: str, cot: str, answer: str) -> str:
    return fill(COT_STEP2, question=question, response=cot, answer=answer)


def record(instruction: str, output: str) -> dict:
    """One training record in the paper's (LLaMA-Factory's) format."""
    return {"instruction": instruction, "input": "", "output": output}


def ext_instruction(content: str, question: str, information: str) -> dict:
    return record(fill(EXT_RESULT, content=content, question=question), information)


def cot_instruction(content: str, question: str, cot: str) -> dict:
    return record(fill(COT_RESULT, content=content, question=question), cot)


def fil_instruction(article: str, question: str, cot: str, supporting: bool) -> dict:
    return record(fill(FIL_RESULT, content=article, question=question, response=cot), FIL_OUTPUT[supporting])


def rag_instruction(content: str, question: str, answer: str) -> dict:
    return record(fill(RAG_RESULT, content=content, question=question), answer)

