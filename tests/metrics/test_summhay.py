"""Summary of a Haystack metrics (lcrag.metrics.summhay), on hand-made bullets and on the paper's worked examples.

Expected numbers come from the paper (Fig. 2, Fig. 4), not from the code under test. The chapter's pipelines on the
released files are tested in tests/papers/summhay/.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from lcrag.metrics import summhay as m

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
