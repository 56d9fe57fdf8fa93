"""Which LLM judges a run: the 1.5B for the embedded models, a brought chat model itself."""

from __future__ import annotations

from types import SimpleNamespace

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
