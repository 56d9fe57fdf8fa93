"""Summary of a Haystack metrics (lcrag.metrics.summhay) and the artefact pipelines on the released files.

Expected numbers come from the paper (Fig. 2, Fig. 4, Table 1) and the inventory ../shared/papers/summhay.md,
not from the code under test. The real-data tests copy the SummHay files from the mirror into a tmp data dir.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT

from lcrag.data.fetch import fetch
from lcrag.metrics import summhay as m
from lcrag.papers.summhay import (
    artefact_claims,
    dataset_shape,
    evaluator_study,
    names,
    order_claims,
    paper_numbers,
    rescoring,
    worked_examples,
)

# ------------------------------------------------------------------------------------------------ units


def test_bullets_are_stripped_non_empty_lines_and_a_preamble_counts():
    text = "Here are 2 insights:\n\n  - first [1]  \n\t\n- second [2]\n"
    assert m.split_bullets(text) == ["Here are 2 insights:", "- first [1]", "- second [2]"]
    assert m.split_bullets("") == []


@pytest.mark.parametrize(
    "bullet, ids",
    [
        ("one [1,2] two [3][4]", [1, 2, 3, 4]),
        ("spaces [ 5 , 6 ] and a trailing comma [7,]", [5, 6, 7]),
        ("repeats [3][3, 8]", [3, 3, 8]),
        ("not citations: [Doc 3] [3-5] (4) Article 9", []),
        ("empty brackets [] [ ]", []),
    ],
)
def test_citations_follow_the_released_regex(bullet, ids):
    assert m.extract_citations(bullet) == ids


def test_coverage_labels_of_judges_and_annotators():
    assert [m.coverage_score(x) for x in ("FULL_COVERAGE", "PARTIAL_COVERAGE", "NO_COVERAGE")] == [1, 0.5, 0]
    assert [m.coverage_score(x) for x in ("fully_covered", "partially_covered", "not_covered")] == [1, 0.5, 0]
    assert m.coverage_score("PARTIAL_COVERAGE", partial=0.25) == 0.25
    with pytest.raises(ValueError, match="unknown coverage label 'MOSTLY'"):
        m.coverage_score("MOSTLY")


def test_citation_prf_counts_a_set_and_nothing_cited_scores_zero():
    assert m.citation_prf([], [1, 2]) == (0.0, 0.0, 0.0)
    p, r, f1 = m.citation_prf([1, 1, 2, 9], [1, 2, 3, 4])  # {1, 2, 9} vs {1, 2, 3, 4}
    assert (p, r) == (2 / 3, 0.5) and f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert m.citation_prf([5], [1]) == (0.0, 0.0, 0.0)


def test_bullet_links_reproduce_the_released_indexing():
    assert m.bullet_index(3, 5) == 2
    assert m.bullet_index("3", 5) == 2  # the released code reads ids with int()
    assert m.bullet_index("NA", 5) == 3  # bullets[-1 - 1]: the second-to-last bullet
    assert m.bullet_index([2, 3], 5) == 3
    assert m.bullet_index("NA", 5, "zero") is None
    with pytest.raises(ValueError, match="outside a summary of 5 bullets"):
        m.bullet_index(6, 5)
    with pytest.raises(ValueError, match="link_policy"):
        m.bullet_index(1, 5, "fix")


def test_covered_insight_without_bullet_id_parity_or_zero():
    bullets = ["a [1]", "b [2]", "c [3]"]
    judgment = [{"insight_id": "x", "coverage": "FULL_COVERAGE", "bullet_id": "NA"}]
    parity = m.score_insights(bullets, judgment, {"x": {2}}).iloc[0]
    assert parity["linked_bullet"] == 1 and parity["f1"] == 1.0 and parity["joint"] == 1.0
    zero = m.score_insights(bullets, judgment, {"x": {2}}, link_policy="zero").iloc[0]
    assert zero["f1"] == 0.0 and zero["joint"] == 0.0 and zero["coverage"] == 1.0


def test_uncovered_insights_have_no_citation_score_and_unknown_insights_raise():
    rows = m.score_insights(
        ["a [1]"], [{"insight_id": "x", "coverage": "NO_COVERAGE", "bullet_id": "NA"}], {}
    )
    assert rows.loc[0, "joint"] == 0 and math.isnan(rows.loc[0, "f1"])
    with pytest.raises(KeyError, match="no gold documents"):
        m.score_insights(["a [1]"], [{"insight_id": "y", "coverage": "FULL_COVERAGE", "bullet_id": 1}], {})


def test_scores_are_micro_averaged_over_pooled_insights_not_per_summary():
    # summary A: 1 insight, full, perfect citation; summary B: 3 insights, none covered
    a = m.score_insights(
        ["x [1]"], [{"insight_id": "i1", "coverage": "FULL_COVERAGE", "bullet_id": 1}], {"i1": {1}}
    )
    b = m.score_insights(
        ["y"], [{"insight_id": f"j{k}", "coverage": "NO_COVERAGE", "bullet_id": "NA"} for k in range(3)], {}
    )
    pooled = m.micro_average(pd.concat([a, b])).iloc[0]
    assert pooled["coverage"] == 0.25 and pooled["joint"] == 0.25  # 1 of 4 insights (per-summary mean: 0.5)
    assert pooled["citation"] == 1.0 and pooled["n_insights"] == 4 and pooled["n_covered"] == 1


def test_words_per_bullet_as_released():
    # "a  b" squeezes to "a b"; 2 bullets -> ("a b\nc d e".count(" ") + 1) / 2 = (3 + 1) / 2
    assert m.words_per_bullet(["a  b", "c d e"]) == 2.0
    assert math.isnan(m.words_per_bullet([]))


def test_correlation_and_linking_accuracy_ignore_missing_links():
    assert m.coverage_correlation([0, 0.5, 1, 1], [0, 0.5, 1, 1]) == pytest.approx(1.0)
    acc, n = m.linking_accuracy([0, 1, None, 2, np.nan], [0, 2, 1, None, 3])
    assert (acc, n) == (0.5, 2)
    assert math.isnan(m.linking_accuracy([None], [1])[0])


# ------------------------------------------------------------------------------------ worked examples


FIG2 = (
    "Here are the main insights regarding exam stress tips:\n"
    "- Students shared various methods for handling stress, including the use of meditation apps such as 'Calm' "
    "to promote relaxation and focus [79,11,46,53,54].\n"
    "- The 25-5 minute Pomodoro Technique was discussed for its structure and possible positive impact on "
    "productivity and well-being [79,80].\n"
    "- A structured schedule for study and breaks was discussed as crucial for preventing stress and promoting "
    "effective exam preparation [80,23]."
)
FIG4_GOLD = {
    "I1": [8, 32, 46, 53, 69, 91, 95],
    "I2": [11, 20, 48, 54, 80, 91],
    "I3": [8, 32, 37, 48, 79, 83, 95],
    "I4": [11, 30, 46, 53, 79, 80],
    "I5": [13, 27, 37, 54, 68, 83],
}


def _j(*items):
    return [{"insight_id": i, "coverage": c, "bullet_id": b} for i, c, b in items]


def test_figure_2_worked_example():
    gold = {
        "pomodoro": [8, 32, 79, 83, 95],
        "calm": [11, 30, 46, 53, 79, 80],
        "breath": [8, 32, 46, 53, 69, 91, 95],
    }
    judged = _j(
        ("pomodoro", "FULL_COVERAGE", 3), ("calm", "PARTIAL_COVERAGE", 2), ("breath", "NO_COVERAGE", "NA")
    )
    rows = m.score_insights(m.split_bullets(FIG2), judged, gold)
    assert list(rows["precision"].round(2)[:2]) == [0.5, 0.8] and list(rows["recall"].round(2)[:2]) == [
        0.2,
        0.67,
    ]
    s = m.summary_scores(FIG2, judged, gold)
    assert s["coverage"] == 50
    assert round(s["citation"], 1) == 50.6  # the figure prints 51
    assert round(s["joint"], 1) == 21.6  # 21.8 in the paper's text, from F1s rounded first


def test_figure_4_oracle_gpt4o():
    bullets = [
        f"bullet {k} {c}"
        for k, c in enumerate(
            [
                "[8][11][46][53][91]",
                "[11][53][54][80][91]",
                "[8][11][37][53][54][79][83][95]",
                "[11][53][79][83][91]",
                "[37][46][83][13]",
            ],
            1,
        )
    ]
    judged = _j(
        ("I1", "FULL_COVERAGE", 1),
        ("I2", "FULL_COVERAGE", 2),
        ("I3", "PARTIAL_COVERAGE", 3),
        ("I4", "PARTIAL_COVERAGE", 4),
        ("I5", "PARTIAL_COVERAGE", 5),
    )
    s = m.summary_scores(bullets, judged, FIG4_GOLD)
    assert (round(s["coverage"]), round(s["citation"]), round(s["joint"])) == (70, 64, 46)
    assert round(s["citation"], 1) == 64.1


def test_figure_4_random_gemini():
    bullets = ["* a [4][46][95]", "* b [46][53][80]", "* c [46][74][80]", "* d [53]", "* e [53][95]"]
    judged = _j(
        ("I1", "PARTIAL_COVERAGE", 1),
        ("I2", "PARTIAL_COVERAGE", 3),
        ("I3", "NO_COVERAGE", "NA"),
        ("I4", "PARTIAL_COVERAGE", 2),
        ("I5", "NO_COVERAGE", "NA"),
    )
    s = m.summary_scores(bullets, judged, FIG4_GOLD)
    assert (round(s["coverage"]), round(s["citation"]), round(s["joint"])) == (30, 43, 13)
    assert round(s["joint"], 1) == 12.9


def test_the_chapter_shows_the_same_worked_examples():
    t = worked_examples.worked_examples()
    assert t["match"].all() and len(t) == 3
    assert list(t["joint"].round(1)) == [21.6, 46.0, 12.9]
    assert t["paper_figure"].str.startswith("Fig. ").all()  # the paper's figure, not the book's own numbers


def test_summary_keys_parse_to_summarizer_and_setting():
    assert names.parse_summary_key("summary_subtopic_dwzhu/e5-base-4k_gpt-4o") == ("gpt-4o", "longembed")
    assert names.parse_summary_key("summary_subtopic_claude3-opus") == ("claude3-opus", "full")
    assert names.parse_summary_key("summary_subtopic_fl-ctxt-rev-sort_gpt-4o") == ("gpt-4o", "bottom")
    with pytest.raises(ValueError, match="unknown retriever 'bm25'"):
        names.parse_summary_key("summary_subtopic_bm25_gpt-4o")
    with pytest.raises(ValueError, match="not a SummHay summary key"):
        names.parse_summary_key("gpt-4o")


def test_paper_table2_swaps_vect_and_longe_only():
    swapped, literal = paper_numbers.paper_table2(True), paper_numbers.paper_table2(False)
    assert len(swapped) == 207 and len(literal) == 207  # 69 systems x 3 scores
    haiku = swapped[(swapped.summarizer == "claude3-haiku") & (swapped.metric == "coverage")].set_index(
        "setting"
    )
    assert (
        haiku.loc["longembed", "paper"] == 64.9 and haiku.loc["vector", "paper"] == 62.3
    )  # paper "Vect" / "LongE"
    same = swapped.merge(literal, on=["summarizer", "metric", "paper_column", "paper"])
    assert (same["setting_x"] != same["setting_y"]).sum() == 60  # the Vect and LongE cells only


def test_pooled_bounds():
    assert artefact_claims.pooled_bounds(50.0, 336) == pytest.approx((50 * 336 / 621, 50 * 336 / 621 + 100 * 285 / 621))
    assert artefact_claims.pooled_bounds(80.0, 621) == pytest.approx((80.0, 80.0))



def test_a_level_claim_on_several_systems_names_each_one():
    value = artefact_claims.named_levels({"gpt-4o": 16.34, "claude3-opus": 25.2},
                                         {"gpt-4o": (8.8, 54.7), "claude3-opus": (13.71, 59.6)})
    assert value == ("news half gpt-4o 16.3 / claude3-opus 25.2; whole table: gpt-4o between 8.8 and 54.7, "
                     "claude3-opus between 13.7 and 59.6")


def test_the_claims_scope_is_counted_from_the_haystacks():
    assert paper_numbers.PAPER_INSIGHTS == 621  # 92 subtopics x 6.75 (§3.4)
    shape = pd.DataFrame({"haystack": ["news1", "news2", "conv1"], "subtopics": [9, 8, 10], "insights": [60, 50, 70]})
    complete, scope = artefact_claims.claims_scope(shape, ["news1", "news2"], ["news1", "news2"], None)
    assert complete and scope == "news half: 2 haystacks, 17 of 27 subtopics, 110 of 180 insights"
    complete, scope = artefact_claims.claims_scope(shape, ["news1"], ["news1", "news2"], None)
    assert not complete and scope == "subset run (news1, all subtopics each): not decided"
    assert not artefact_claims.claims_scope(shape, ["news1", "news2"], ["news1", "news2"], 3)[0]



# ------------------------------------------------------------------------------------ released files


@pytest.fixture(scope="module")
def summhay_data(mirror, tmp_path_factory):
    dest = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCRAG_DATA_DIR", str(dest))
        assert fetch(datasets=["summhay"], mirror=mirror, download=False).ok
        from lcrag.data import load_eval_benchmark, load_haystacks

        yield load_haystacks("all"), load_eval_benchmark()


@pytest.fixture(scope="module")
def labels(summhay_data):
    return evaluator_study.benchmark_labels(summhay_data[1])


def test_table1_is_reproduced_exactly(summhay_data, labels):
    t = evaluator_study.table1(labels, len(summhay_data[1])).set_index("evaluator")
    # the paper's Table 1 (and the inventory's recomputation), evaluator -> (r, link acc %, cost $)
    expected = {
        "gemini-1.5-pro": (0.751, 89.3, 15.16),
        "gpt-4o-9fs": (0.719, 89.2, 26.13),
        "gpt-4o": (0.716, 88.9, 6.87),
        "claude3-opus": (0.677, 87.9, 23.79),
        "claude3-haiku": (0.498, 87.7, 0.40),
        "gpt3.5": (0.495, 86.7, 1.34),
    }
    for evaluator, (r, acc, cost) in expected.items():
        row = t.loc[evaluator]
        assert round(row["cov_corr"], 3) == r, evaluator
        assert round(row["link_acc"], 1) == acc, evaluator
        assert round(row["cost_usd"], 2) == cost, evaluator
        assert row["n_insights"] == 1419
    assert dict(t["n_linked"].dropna().astype(int)) == {
        "gemini-1.5-pro": 878,
        "gpt-4o-9fs": 873,
        "gpt-4o": 898,
        "claude3-opus": 909,
        "claude3-haiku": 897,
        "gpt3.5": 843,
    }
    # the paper prints Gemini's $15.16 as $15.1: the one cell that does not round to the paper's value
    assert (
        t["match_cost_usd"].dropna().tolist().count(False) == 1
        and not t.loc["gemini-1.5-pro", "match_cost_usd"]
    )
    assert t[["match_cov_corr", "match_link_acc"]].dropna().all(axis=None)


def test_table4_recomputed_as_the_released_notebook(labels):
    t4 = evaluator_study.table4(evaluator_study.summary_deltas(labels)).set_index("row")
    # the released Eval_Benchmarking.ipynb output (inventory §3.6), which differs from the paper on 6 rows
    assert list(t4.loc["Average"].round(3)) == [0.047, 0.054, 0.035]
    assert list(t4.loc["gemini-1.5-flash"].round(3)) == [0.032, 0.009, -0.025]
    assert list(t4.loc["Length to Score Corr."].round(3)) == [-0.119, -0.169, -0.175]
    cmp = evaluator_study.compare_table4(evaluator_study.table4(evaluator_study.summary_deltas(labels)))
    rows = cmp.groupby("row")["match"].all()
    assert set(rows[rows].index) == {"claude3-sonnet", "gpt3.5", "command-r-plus"}


def test_benchmark_composition_and_provenance(summhay_data, labels):
    haystacks, bench = summhay_data
    human = labels[labels["evaluator"] == "human"]
    assert len(human) == 1419 and dict(human["label"].value_counts()) == {
        "fully_covered": 567,
        "not_covered": 466,
        "partially_covered": 386,
    }
    prov = evaluator_study.benchmark_provenance(bench, haystacks).set_index("topic")
    assert prov.loc["doctor-patient", "haystack"] == "conv1" and prov.loc["doctor-patient", "summaries"] == 58
    assert (
        prov.loc["Foot Locker", "haystack"] == "news3" and prov.loc["Foot Locker", "summaries_identical"] == 1
    )
    assert prov.loc["sales call", "insight_ids_found"] == 0  # not a released haystack


def test_shape_matches_section_3_4(summhay_data):
    shape = dataset_shape.shape_table(summhay_data[0])
    check = dataset_shape.shape_summary(shape).set_index("quantity")
    assert check.loc["subtopics", "ours"] == 92 and shape["insights"].sum() == 621
    assert str(check.loc["subtopics", "ours"]) == "92" and str(check.loc["haystacks", "paper"]) == "10"  # not 92.00
    assert check.loc["subtopics per haystack", "match"] and check.loc["insights per subtopic", "match"]
    assert check.loc["minimum documents per insight", "ours"] == 4  # news3 breaks "5+"
    assert shape.set_index("haystack").loc["news3", "insights_in_fewer_than_5_docs"] == 17
    notes = dataset_shape.shape_notes(shape).splitlines()
    assert notes == [
        "news: 8.00 insights per subtopic, each in 9.9 documents on average",  # 336 / 42; 3,324 placements / 336
        "conversation: 5.70 insights per subtopic, each in 6.1 documents on average",  # 285 / 50
        "in fewer than 5 documents: news3, 17 of 79 insights (minimum 4)",
    ]
    fine = shape[shape["haystack"] != "news3"]
    assert dataset_shape.shape_notes(fine).splitlines()[-1] == "every insight is in 5 or more documents"
    # tokens: the paper's "about 93k" is compared only in its own tokenizer (cl100k_base: 93,237 on these files)
    tokens = "tokens per haystack (mean; released code: cl100k_base, ours: {})"
    for name, mean, match in (("tiktoken:cl100k_base", 93237.1, True), ("tiktoken:cl100k_base", 94600.0, False),
                              ("SmolLM2-135M-Instruct.Q4_1.gguf", 93237.1, None)):
        counted = dataset_shape.shape_summary(shape.assign(tokens=mean, tokenizer=name)).set_index("quantity")
        assert counted.loc[tokens.format(name), "match"] is match


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


def test_the_chapter_states_the_annotated_files_counts_as_the_file_has_them(summhay_data, labels):
    """The SummHay chapter's prose describes the released annotation file in words (an admonition's title cannot be
    a cell's output): each count it types is the one computed from the file here."""
    haystacks, bench = summhay_data
    facts = evaluator_study.benchmark_composition(bench, labels).set_index("what")["value"]
    provenance = evaluator_study.benchmark_provenance(bench, haystacks).set_index("topic")
    prose = " ".join((ROOT / "notebooks" / "summhay.md").read_text(encoding="utf-8").split())
    conv, news = facts["summaries, conversation"], facts["summaries, news"]
    assert f"{conv} conversation and {news} news summaries" in prose
    assert f"{conv} / {news} points the same way" in prose
    assert f"The {news} news summaries of the human-annotated benchmark" in prose
    assert f"the same {facts['insight judgments']:,} insights and {facts['summaries']} summaries" in prose
    assert f"Pearson r over all {facts['insight judgments']:,} insight labels" in prose
    assert f"all {facts['summaries']} summaries hold {facts['insight judgments']:,} insights" in prose
    unreleased = provenance[provenance["haystack"].isna()]
    assert len(unreleased) == 1 and f"The {unreleased['summaries'].iloc[0]} sales-call summaries" in prose
    assert unreleased.index[0] == "sales call"
