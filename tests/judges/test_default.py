"""Which LLM judges a run: the 1.5B for the embedded models, a brought chat model itself; and how a table names it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lcrag.judges import default as judges
from lcrag.models.registry import parse_spec

SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"
QWEN, QWEN_05 = "local/qwen2.5-coder-1.5b-instruct", "local/qwen2.5-coder-0.5b-instruct"


def _run(spec):
    return SimpleNamespace(spec=spec, info=parse_spec(spec))


def test_an_embedded_run_is_judged_by_the_15b_and_a_brought_chat_model_by_itself():
    assert judges.CAPABLE_JUDGE == QWEN
    for embedded in (SMOL, GEMMA, QWEN, QWEN_05):
        assert judges.default_judge(_run(embedded)) == QWEN
    assert judges.default_judge(_run("openai/gpt-4o-mini")) == "openai/gpt-4o-mini"
    assert judges.default_judge(_run(SMOL), capable=SMOL) == SMOL


def test_an_evaluator_study_measures_both_embedded_chat_judges_or_the_brought_model_alone():
    assert judges.default_judges(_run(SMOL)) == [QWEN, QWEN_05]
    assert judges.default_judges(_run(QWEN)) == [QWEN, QWEN_05]
    assert judges.default_judges(_run("openai/gpt-4o-mini")) == ["openai/gpt-4o-mini"]
    assert judges.default_judges(_run(SMOL), embedded=(SMOL,)) == [SMOL]


def test_a_judge_is_labelled_by_its_spec_in_long2rag_and_by_its_model_name_in_summhay():
    assert judges.judge_label(QWEN) == QWEN
    assert judges.judge_label(QWEN, "words") == QWEN + "+words"
    assert judges.judge_label(QWEN, style="evaluator") == "llm:qwen2.5-coder-1.5b-instruct"
    assert judges.judge_label("<model name>", style="evaluator") == "llm:<model name>"
    assert judges.judge_label("openai-compatible/m@http://h/v1", style="evaluator") == "llm:m@http://h/v1"
    with pytest.raises(ValueError, match="style"):
        judges.judge_label(QWEN, style="name")
    with pytest.raises(ValueError, match="no parser"):
        judges.judge_label(QWEN, "words", style="evaluator")
