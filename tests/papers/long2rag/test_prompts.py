"""Long²RAG's prompts P0-P8 (lcrag.papers.long2rag.prompts), verbatim."""

from __future__ import annotations

from lcrag.papers.long2rag import prompts


def test_prompts_are_verbatim():
    p6 = prompts.P6_ENTAILMENT
    assert p6.startswith("Your task is to determine whether a claim is entailed with a document.")
    assert "Provide your answer as [yes], [no], or [neutral]." in prompts.P6_ENTAILMENT
    assert prompts.P8_AUTODS.endswith("You must respond with YES or NO.")
    assert set(prompts.PAPER_PROMPTS) == {f"P{i}" for i in range(9)}
    for name in ("P2", "P3"):
        assert "{topic}" in prompts.PAPER_PROMPTS[name] and "{question_type}" in prompts.PAPER_PROMPTS[name]
