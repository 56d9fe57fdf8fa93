"""Section 1 of the needle chapter (lcrag.papers.thesis.needle.plan): the models a run tests, the order of its
prompts (the shared prefix costs least), and the length check, a sentence computed from the run's grid or an
error."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.models import get_model
from lcrag.papers.thesis.needle import needles as needle_texts
from lcrag.papers.thesis.needle import plan

SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"


def test_the_length_check_is_a_sentence_from_the_grid_or_an_error():
    grid = pd.DataFrame({"model": ["a", "a", "b"], "needle": "simple", "depth": 0.0,
                         "context_tokens": [1000, 2000, 1000], "haystack_tokens": [800, 1800, 800]})
    assert plan.length_check(grid) == ("haystack_tokens = L - 200 in all 3 prompts of 2 models, in each model's "
                                       "own tokens.")
    grid.loc[1, "haystack_tokens"] = 1799
    with pytest.raises(ValueError, match="1 of 3 haystacks are not L - 200 tokens long"):
        plan.length_check(grid)


def test_the_grid_answers_and_judge_are_counted_in_words_not_python_dicts():
    """The page's three count lines read as sentences: cells per model (per needle), where the answers came from,
    how the judge's scores were read ("forced" explained), with no tuple or dict repr."""
    import pandas as pd

    from lcrag.papers.thesis.needle import asking, judging, plan

    grid = pd.DataFrame({"model": ["local/gemma3-270m"] * 4 + ["m"] * 3,
                         "needle": ["simple", "simple", "complex", "complex", "simple", "simple", "complex"]})
    assert plan.cells_sentence(grid) == "7 cells: Gemma-3-270M 4 (2 per needle); m 3 (2 simple, 1 complex)."
    answers = pd.DataFrame({"source": ["store"] * 3})
    assert asking.sources_sentence(answers) == "all 3 from the committed response store"
    assert asking.sources_sentence(pd.DataFrame({"source": ["store", "store", "network"]})) == (
        "2 from the committed response store, 1 from the model, now")
    said = judging.parse_sentence(pd.DataFrame({"judge_parse": ["forced"] * 2}))
    assert said == 'all 2 read from the answer the book started with "Rating: [["'


def test_prefix_order_costs_least(essays):
    m = get_model(SMOL)
    cells = plan.needle_grid(m, essays, [1000, 2000, 3000], [0, 25, 50, 75, 100], needle_texts.needles_for(["simple", "complex"]))
    cost = {how: plan.prefill_cost(plan.prefix_order(cells, how)) for how in ("prefix", "length_depth", "kamradt")}
    no_reuse = sum(c["haystack_tokens"] for c in cells)
    # every prompt pays from its needle on, and the first one (no previous prompt) pays its whole haystack
    lower_bound = sum(c["haystack_tokens"] - c["needle_at"] for c in cells) + max(c["needle_at"] for c in cells)
    assert cost["prefix"] <= lower_bound
    assert cost["prefix"] < cost["length_depth"] < cost["kamradt"] < no_reuse
    order = plan.prefix_order(cells)
    assert [c["needle_at"] for c in order] == sorted((c["needle_at"] for c in cells), reverse=True)
    table = plan.order_costs({SMOL: cells, "half": cells[: len(cells) // 2]})  # the chapter's table of them
    mine = table[table["model"] == SMOL].set_index("order")
    assert list(mine.index) == ["prefix", "length_depth", "kamradt", "no reuse"]
    assert mine["tokens_evaluated"].tolist() == [cost["prefix"], cost["length_depth"], cost["kamradt"], no_reuse]
    assert mine.loc["no reuse", "vs_no_reuse"] == 1.0 and mine.loc["prefix", "vs_no_reuse"] == cost["prefix"] / no_reuse
    assert table.loc[table["model"] == "half", "vs_no_reuse"].max() == 1.0  # each model against its own


def test_a_bad_rag_mode_fails_before_any_model_is_loaded():
    with pytest.raises(ValueError, match="rag must be 'longest', 'all' or 'none', not 'bm25'"):
        plan.setup("local/no-such-model", [], "", [1000], {}, ["simple"], "bm25", 48)


def test_a_run_on_an_embedded_model_tests_all_four_its_own_first():
    qwen = "local/qwen2.5-coder-1.5b-instruct"
    qwen05 = "local/qwen2.5-coder-0.5b-instruct"
    assert plan.tested_models(qwen) == [qwen, SMOL, GEMMA, qwen05]
    assert plan.tested_models(SMOL) == [SMOL, qwen, GEMMA, qwen05]
    assert plan.tested_models("openai/gpt-4o-mini") == ["openai/gpt-4o-mini"]
    assert plan.tested_models(qwen, [SMOL, GEMMA]) == [SMOL, GEMMA]  # named models: exactly those
    # the smoke and quick profiles' embedded models: a run on another model asks that model first (or alone)
    assert plan.tested_models(SMOL, embedded=[SMOL, GEMMA]) == [SMOL, GEMMA]
    assert plan.tested_models(qwen, embedded=[SMOL, GEMMA]) == [qwen, SMOL, GEMMA]
    assert plan.tested_models("openai/gpt-4o-mini", embedded=[SMOL, GEMMA]) == ["openai/gpt-4o-mini"]
