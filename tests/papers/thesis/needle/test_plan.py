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
