"""The LongRAG system's prompts, verbatim from the released code (``QingFei1/LongRAG`` at ``6bb0406``).

The generator (LongBench's multi-hop QA prompt), the extractor, the CoT stage and the per-chunk filter judgement;
the closed-book prompt is ours. The LRGinstruction data-construction prompts are in
:mod:`lcrag.papers.longrag.lrginstruction.prompts`.
"""

from __future__ import annotations

from collections.abc import Sequence

GENERATOR_PROMPT = (
    "Answer the question based on the given passages. Only give me the answer and do not output any other "
    "words.\n\nThe following are given passages.\n{input}\n\nAnswer the question based on the given passages. "
    "Only give me the answer and do not output any other words.\n\nQuestion: {question}\nAnswer:"
)
"""LongBench's multi-hop QA prompt, the generator prompt of ``main.py`` (``create_prompt``)."""

CLOSED_BOOK_PROMPT = (
    "Answer the question. Only give me the answer and do not output any other words.\n\n"
    "Question: {question}\nAnswer:"
)
"""Ours (the released ``--raw_pred`` closed-book path crashes): the generator prompt without passages."""

EXTRACTOR_PROMPT = (
    "{content}.\n\nBased on the above background, please output the information you need to cite to answer the "
    "question below.\n{question}"
)
COT_PROMPT = (
    "{content}\n\nPlease combine the above information and give your thinking process for the following "
    "question:{question}."
)
FILTER_PROMPT = (
    "Given an article:{content}\nQuestion: {question}.\nThought process:{cot}.\nYour task is to use the thought "
    "process provided to decide whether you need to cite the article to answer this question. If you need to "
    "cite the article, set the status value to True. If not, set the status value to False. Please output the "
    'response in the following json format: {{"status": "{{the value of status}}"}}'
)


def generator_prompt(passages: str, question: str) -> str:
    return GENERATOR_PROMPT.format(input=passages, question=question)


def extractor_prompt(paragraphs: Sequence[str], question: str) -> str:
    """The extractor reads the source paragraphs joined with no separator (as the code does)."""
    return EXTRACTOR_PROMPT.format(content="".join(paragraphs), question=question)


def cot_prompt(chunks: Sequence[str], question: str) -> str:
    """The CoT stage reads all retrieved chunks joined with newlines (the one place the code uses one)."""
    return COT_PROMPT.format(content="\n".join(chunks), question=question)


def filter_prompt(chunk: str, question: str, cot: str) -> str:
    return FILTER_PROMPT.format(content=chunk, question=question, cot=cot)
