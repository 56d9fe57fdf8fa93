"""Section 1 of the needle chapter (lcrag.papers.thesis.needle.plan): the length check is a sentence computed from
the run's grid, or an error."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.papers.thesis.needle import plan


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
