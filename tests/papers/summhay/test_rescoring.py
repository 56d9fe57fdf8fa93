"""The rescoring of the released summaries (lcrag.papers.summhay.rescoring): the news half rescored against Table 2
(with the order claims decided on its resampled subtopics), and its tables as the chapter shows them: a cell
without a run is a dash, never a bare NaN."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcrag.papers.summhay import names, order_claims, rescoring


def test_table2_side_by_side_marks_the_cell_without_a_run():
    comparison = pd.DataFrame({
        "summarizer": ["gpt3.5", "gpt3.5", "gpt-4o", "gpt-4o"],
        "setting": ["oracle", "full", "oracle", "full"],
        "metric": ["joint"] * 4,
        "ours": [30.04, np.nan, 40.0, 20.55],
        "paper": [25.0, np.nan, 35.0, np.nan],
    })
    t = rescoring.side_by_side(comparison, "joint")
    assert t.loc["gpt3.5", "oracle"] == "30.0 | 25.0"
    assert t.loc["gpt3.5", "full"] == rescoring.NO_RUN  # neither ours nor the paper's: no run
    assert t.loc["gpt-4o", "full"] == f"20.6 | {rescoring.NO_RUN}"
    assert not t.isna().any(axis=None)


def test_table5_display_marks_gpt35_full_and_keeps_the_numbers():
    table5 = pd.DataFrame({
        "summarizer": ["gpt3.5", "gpt-4o", "gpt-4o"],
        "setting": ["oracle", "oracle", "full"],
        "metric": ["precision"] * 3,
        "paper": [46.7, 65.7, 28.0],
        "ours": [53.44, 71.2, 37.2],
    })
    t = rescoring.table5_display(table5)
    assert t.loc["gpt3.5", ("ours", "precision", "full")] == rescoring.NO_RUN
    assert t.loc["gpt3.5", ("paper", "precision", "full")] == rescoring.NO_RUN
    assert t.loc["gpt3.5", ("ours", "precision", "oracle")] == "53.4"
    assert t.loc["gpt-4o", ("paper", "precision", "full")] == "28.0"


def test_rescoring_the_news_half(summhay_data):
    news = {k: v for k, v in summhay_data[0].items() if k.startswith("news")}
    scores = rescoring.rescore(news)
    assert scores["summary_key"].nunique() == 78 and len(scores) == 26208  # 78 systems x 336 insights
    systems = rescoring.system_scores(scores)
    table2 = rescoring.compare_table2(systems, rescoring.expected_insights(news))
    assert len(table2) == 207 and table2["ours"].notna().all()
    assert (table2["judged_share"] == 1).all()  # every cell holds all 336 news insights
    assert (
        table2["implied_rest"].dropna().between(0, 100).all()
    )  # the paper's numbers are possible given ours
    # micro-averaging pools insights: the news-half value is the insight-weighted mean of the five haystacks
    cell = scores[(scores.summarizer == "gpt-4o") & (scores.setting == "oracle")]
    per = cell.groupby("haystack")["joint"].agg(["mean", "size"])
    weighted = (per["mean"] * per["size"]).sum() / per["size"].sum()
    ours = systems.set_index(["summarizer", "setting", "metric"]).loc[("gpt-4o", "oracle", "joint"), "ours"]
    assert ours == pytest.approx(100 * weighted)
    rates = rescoring.match_rates(table2).set_index("metric")
    assert (rates["rank_corr"] > 0.9).all()
    # the Vect/LongE gaps agree with ours only when the paper's headers are read swapped (inventory §4.2)
    swap = rescoring.swap_check(systems).set_index("reading")
    assert swap.loc["swapped (inventory)", "difference_corr"] > 0.8
    assert swap.loc["literal headers", "difference_corr"] < -0.8
    assert swap.loc["swapped (inventory)", "same_sign"] > swap.loc["literal headers", "same_sign"]
    # the order claims: decided on the subtopics drawn again, never on two point values
    columns, values = order_claims.resampled_cells(scores, weights=np.ones((1, 42)))  # every subtopic once: ours
    ours = systems.set_index(["summarizer", "setting", "metric"])["ours"]
    assert values[0, [columns[k] for k in ours.index]] == pytest.approx(ours.to_numpy())
    summ = [s for s in names.SUMMARIZERS if (s, "oracle", "joint") in ours.index]
    full = [s for s in summ if (s, "full", "joint") in ours.index]
    v = order_claims.lookup(systems)
    columns, values = order_claims.resampled_cells(scores)
    share = {c: order_claims.share_holding(c, columns, values, summ, full) for c in order_claims.PREDICATES}
    # C5 (RR3 the best realistic setting for every summarizer but Gemini) fails on three point values that differ
    # by tenths of a point (keywords 23.8 vs RR3 23.6 ...): the draws leave it undecided; C10 holds in nearly all
    assert not order_claims.PREDICATES["C5"](v, summ, full) and order_claims.decide(share["C5"]) is None
    assert not order_claims.PREDICATES["C13"](v, summ, full) and order_claims.decide(share["C13"]) is None
    assert order_claims.decide(share["C10"]) is True and share["C10"] >= 0.975
    # C6 as §5.2 words it, "almost all" (all but at most ALMOST_ALL): Random lowest for all 10, Oracle highest for 7
    # (the paper's Table 2: 10 and 9): not reproduced. C7 on the mean over summarizers (§5.2 names no quantifier):
    # reproduced; each summarizer holds it in our cells, though not in every draw
    paper = order_claims.paper_lookup()
    assert [order_claims.count(f, paper) for f in (order_claims.random_lowest, order_claims.oracle_highest)] == [10, 9]
    assert [order_claims.count(f, v, summ) for f in (order_claims.random_lowest, order_claims.oracle_highest)] == [10, 7]
    assert order_claims.decide(share["C6"]) is False and order_claims.decide(share["C7"]) is True
    assert order_claims.count(order_claims.citation_rises, v, summ) == 10 and share["C7"] == 1.0
    assert order_claims.decide(0.975) is True and order_claims.decide(0.025) is False
    assert order_claims.decide(0.5) is None
