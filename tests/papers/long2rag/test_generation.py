"""Long²RAG's generation step (lcrag.papers.long2rag.generation): fitting documents, the P0 prompt."""

from __future__ import annotations

from lcrag.papers.long2rag import generation, prompts


def test_fit_documents_policy():
    count = lambda t: len(t.split())  # noqa: E731
    docs = ["a " * 10, "b " * 2, "c " * 10]
    same, n = generation.fit_documents(docs, 30, count)
    assert n == 0 and same == docs
    cut, n = generation.fit_documents(docs, 14, count)
    assert n == 2 and [count(d) for d in cut] == [6, 2, 6]


def test_generation_prompt_has_separators_question_and_p0():
    p = generation.generation_prompt("Why?", ["first doc", "second doc"])
    assert p.index("===== Document 1 =====") < p.index("first doc") < p.index("===== Document 2 =====")
    assert p.endswith(prompts.P0_GENERATION) and "Question: Why?" in p
