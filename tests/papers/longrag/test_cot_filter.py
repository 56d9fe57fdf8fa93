"""LongRAG's CoT-guided filter (lcrag.papers.longrag.cot_filter): its judgements read as the released code reads
them, its fallback, and how much it filtered, beside the paper."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.papers.longrag.cot_filter import filter_sentence, filtered, parse_status, removed_nothing


@pytest.mark.parametrize(
    ("response", "kept"),
    [('{"status": "True"}', True), ('{"status": "false"}', False), ('{"status": true}', True),
     ("status: True", True), ("I would cite it (true).", True), ('{"status": "FALSE"}', False),
     ("No.", False), ("", False), (None, False)],
)
def test_filter_judgements_are_read_as_the_released_code_reads_them(response, kept):
    assert parse_status(response) is kept


def test_nothing_kept_means_everything_kept():
    assert filtered(["a", "b"], [False, True]) == (["b"], False)
    assert filtered(["a", "b"], [False, False]) == (["a", "b"], True)
    with pytest.raises(ValueError):
        filtered(["a"], [True, False])


def _filtered_answers() -> pd.DataFrame:
    """Four questions' Fil and E&F rows (one filter run each) and R&B rows: the filter removed 3 chunks from q1,
    none from q2 (all judged relevant) and q3 (none judged relevant: the fallback), 1 from q4."""
    removed, fell = [3, 0, 0, 1], [False, False, True, False]
    rows = [{"dataset": "d", "question_id": f"q{i + 1}", "strategy": s, "filter_removed": r, "filter_fallback": f}
            for i, (r, f) in enumerate(zip(removed, fell, strict=True)) for s in ("Fil", "E&F")]
    rows += [{"dataset": "d", "question_id": f"q{i + 1}", "strategy": "R&B"} for i in range(4)]
    return pd.DataFrame(rows)


def test_how_often_the_filter_removed_nothing_is_counted_per_question():
    answers = _filtered_answers()
    assert removed_nothing(answers) == (4, 2, 1)
    # rows from before filter_removed was recorded count the fallbacks only
    assert removed_nothing(answers.drop(columns="filter_removed")) == (4, 1, 1)
    assert removed_nothing(answers[answers["strategy"] == "R&B"]) is None


def test_section_4_says_how_much_the_filter_filtered_beside_the_paper():
    tokens = pd.DataFrame({"dataset": ["d", "d"], "strategy": ["R&B", "Fil"], "ours": [2000.0, 1880.0],
                           "paper_chatglm3_sft": [2086.0, 937.0]})
    assert filter_sentence(_filtered_answers(), tokens) == (
        "**How much the filter filtered**: The filter removed no chunk for 2 of 4 questions (50%; for 1 it judged "
        "every chunk relevant, for 1 none, and the code then keeps all); on those questions Fil feeds the generator "
        "R&B's very input, and E&F Ext's. Fil's mean input, as a share of R&B's: 94% on d (the paper's "
        "ChatGLM3-6B-32k with SFT: 45% on d, Tables 12-14).")
    every = _filtered_answers().assign(filter_removed=1, filter_fallback=False)
    assert filter_sentence(every, tokens).startswith(
        "**How much the filter filtered**: The filter removed at least one chunk for each of the 4 questions.")
