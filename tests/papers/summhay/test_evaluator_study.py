"""Table 4 as the chapter shows it: each value at the paper's printed precision, so the counted matches show."""

from __future__ import annotations

import pandas as pd

from lcrag.papers.summhay import evaluator_study as es
from lcrag.papers.summhay.names import TABLE4_EVALUATORS
from lcrag.papers.summhay.paper_numbers import PAPER_TABLE4, PAPER_TABLE4_TWO_DECIMALS


def _ours(offset: float) -> pd.DataFrame:
    """The paper's Table 4 moved by ``offset`` in every cell, as :func:`es.table4` lays it out."""
    return pd.DataFrame([{"row": row, **{e: v + offset for e, v in zip(TABLE4_EVALUATORS, vals, strict=True)}}
                         for row, vals in PAPER_TABLE4.items()])


def test_the_displayed_cells_agree_exactly_where_a_match_is_counted():
    cmp = es.compare_table4(_ours(0.003))  # off by 0.003: a match only where the paper prints two decimals
    shown = es.table4_display(cmp)
    assert set(cmp.loc[cmp["match"], ["row", "evaluator"]].itertuples(index=False, name=None)) == \
        PAPER_TABLE4_TWO_DECIMALS
    for r in cmp.itertuples():
        ours, paper = shown.loc[r.row, ("ours", r.evaluator)], shown.loc[r.row, ("paper", r.evaluator)]
        assert (ours == paper) == r.match, (r.row, r.evaluator, ours, paper)
        assert len(paper.partition(".")[2]) == (2 if (r.row, r.evaluator) in PAPER_TABLE4_TWO_DECIMALS else 3)


def test_the_display_keeps_the_paper_s_row_order_and_writes_no_negative_zero():
    ours = _ours(0.0)
    ours.loc[0, "gpt-4o"] = -0.0004  # rounds to zero at three decimals
    shown = es.table4_display(es.compare_table4(ours))
    assert list(shown.index) == list(PAPER_TABLE4)
    assert shown.loc[ours.loc[0, "row"], ("ours", "gpt-4o")] == "0.000"
    assert not pd.Series(shown.to_numpy().ravel()).str.fullmatch(r"-0\.0+").any()
