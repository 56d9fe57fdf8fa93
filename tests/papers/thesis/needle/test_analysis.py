"""The needle chapter's analysis (lcrag.papers.thesis.needle.analysis): the two scorers' agreement, how common each
needle's words are in the essays (section 7: without English stop words, mean and median) and the reading of the
thesis's explanation generated from its tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lcrag.papers.thesis.needle import analysis
from lcrag.papers.thesis.needle import needles as needle_texts

SIMPLE, COMPLEX = needle_texts.NEEDLES["simple"], needle_texts.NEEDLES["complex"]


def test_function_words_are_not_counted_as_the_needles_words():
    """"can", "one", "only" and "up" carried 116 of the complex needle's 130 words per 10,000 in the book's
    essays; scikit-learn's standard stop words drop them. The thesis's "best thing" is counted."""
    haystack = "one can only go up one can only go up. " * 50 + "The best thing is a laser in a park."
    freq = analysis.word_frequencies(haystack, [SIMPLE, COMPLEX])
    words = {n: list(freq.loc[freq["needle"] == n, "word"]) for n in ("simple", "complex")}
    assert not {"can", "one", "only", "up", "a", "of", "the"} & set(words["complex"] + words["simple"])
    assert words["simple"][:4] == ["best", "thing", "san", "francisco"]
    assert "sideband" in words["complex"] and "ghz" in words["complex"] and len(words["complex"]) == 27
    summary = analysis.word_frequency_summary(freq)
    assert summary.loc["complex", "in_haystack"] == 1  # "laser" only: the function words are gone
    assert summary.loc["simple", "in_haystack"] == 3 and summary.loc["simple", "median_per_10k"] == 0.0  # best, thing, park


def test_the_median_is_reported_beside_a_mean_that_a_few_words_carry():
    freq = pd.DataFrame({"needle": ["simple"] * 3 + ["complex"] * 3, "word": list("abcdef"),
                         "count": [1, 1, 1, 90, 0, 0], "per_10k_words": [1.0, 1.0, 1.0, 90.0, 0.0, 0.0]})
    summary = analysis.word_frequency_summary(freq)
    assert summary.loc["complex", "mean_per_10k"] == 30.0 and summary.loc["complex", "median_per_10k"] == 0.0
    assert summary.loc["simple", "median_per_10k"] == 1.0 and summary.loc["complex", "max_per_10k"] == 90.0


def _explanation_tables(simple_per_10k, complex_per_10k, competitors, fails, cells=42):
    """Word frequencies (per 10,000, one list per needle; a 0 does not occur) and the BM25 relation per model
    (``fails``: model -> the simple and the complex needle's misses, of ``cells`` cells each)."""
    per_10k = {"simple": simple_per_10k, "complex": complex_per_10k}
    freq = pd.DataFrame([{"needle": n, "word": f"{n}{i}", "count": int(f > 0), "per_10k_words": f}
                         for n, values in per_10k.items() for i, f in enumerate(values)])
    relation = pd.DataFrame([{"model": m, "needle": n, "mean_rank": 1.0, "mean_competitors": competitors[n],
                              "cells": cells, "fails": k, "fail_rate": k / cells}
                             for m, pair in fails.items() for n, k in zip(("simple", "complex"), pair, strict=True)])
    return freq, relation


def test_the_explanation_is_read_from_the_tables():
    """Section 7 ends with a reading computed from its tables: the thesis's explanation needs significantly more
    frequent words, competitors and significantly more failures for the simple needle; with none of the three it
    is not supported."""
    freq, rel = _explanation_tables([0.75, 0.75], [4.19, 4.19], {"simple": 0.0, "complex": 0.17},
                                    {"m1": (1, 0), "m2": (13, 34), "m3": (0, 0)})
    text = analysis.explanation_reading(freq, rel)
    assert "2 words occur 0.75 times per 10,000 essay words on average (median 0.75; 2 of 2 occur at all)" in text
    assert "complex needle's 2 occur 4.19 times" in text and "one pair of needles" in text
    # one miss against none is no finding: Fisher's exact test, per model
    assert "(p < 0.05) for 0 of 3 models (m1: 1 of 42 cells missed against 0 of 42, p = 0.500; " in text
    assert "do not support" in text and "Here its words are not significantly more frequent than the complex" in text
    assert "no more competitors" in text and "it fails significantly more often for no model" in text
    # m2 misses the complex needle in 34 of 42 cells, the simple one in 13: the reverse of the explanation, said
    assert ("; the reverse, the complex needle failing significantly more often (one-sided p < 0.05), holds for 1 "
            "(m2), against what the explanation predicts.") in text
    freq, rel = _explanation_tables([5.0, 4.0, 3.0, 6.0, 7.0], [0.0, 0.0, 1.0, 0.0, 1.0],
                                    {"simple": 2.0, "complex": 0.0}, {"m1": (20, 2), "m2": (16, 4)})
    text = analysis.explanation_reading(freq, rel)
    assert "significant at 5 %" in text and "for 2 of 2 models" in text
    assert text.endswith("consistent with the thesis's explanation, as far as one pair of needles can be.")
    assert "run both" in analysis.explanation_reading(freq[freq["needle"] == "simple"], rel)


def test_words_more_frequent_by_mean_and_median_are_not_a_finding_without_the_test():
    """The book's essays: the simple needle's words (best, thing, day, ...) have the higher mean and median once
    function words are dropped, but the one-sided rank test gives p = 0.053: the reading conditions on the test,
    not on the point values, and says what else the explanation lacks."""
    simple = [8.94, 13.77, 0.54, 0.36, 0.89, 0.0, 0.89, 0.0, 0.0, 0.09, 4.02]
    complex_ = [1.61, 1.43, 0.45] + [0.0] * 8 + [0.63, 1.97, 0.54, 2.5, 0.36, 0.09, 0.09, 0.0, 0.0, 0.63, 0.0,
                                                 0.0, 2.95, 0.0, 0.45, 0.0]
    freq, rel = _explanation_tables(simple, complex_, {"simple": 0.0, "complex": 0.14},
                                    {"m1": (1, 0), "m2": (13, 34), "m3": (0, 0), "m4": (13, 21)})
    text = analysis.explanation_reading(freq, rel)
    assert "11 words occur 2.68 times" in text and "(median 0.54; 8 of 11 occur at all)" in text
    assert "complex needle's 27 occur 0.51 times" in text and "(median 0.00; 13 of 27 occur at all)" in text
    assert "(Mann-Whitney) gives p = 0.053 for the simple needle's being the more frequent: not significant" in text
    assert text.endswith("do not support the thesis's explanation, which needs the simple needle's words to be "
                         "the frequent ones, to give it competitors and to make it fail more. Here its words are "
                         "not significantly more frequent than the complex needle's (p = 0.053); it has no more "
                         "competitors than the complex needle; it fails significantly more often for no model.")
    # significant words, with the rest against: the reading names what holds and what does not
    freq, rel = _explanation_tables([5.0, 4.0, 3.0, 6.0, 7.0], [0.0, 0.0, 1.0, 0.0, 1.0],
                                    {"simple": 0.0, "complex": 1.0}, {"m1": (1, 0)})
    assert "As it needs, its words are significantly the more frequent ones (p = 0.00" in \
           analysis.explanation_reading(freq, rel)
    # one model of three failing significantly more is not "most": the reading says how many
    freq, rel = _explanation_tables([5.0, 4.0, 3.0, 6.0, 7.0], [0.0, 0.0, 1.0, 0.0, 1.0],
                                    {"simple": 2.0, "complex": 0.0}, {"m1": (20, 2), "m2": (1, 0), "m3": (0, 0)})
    assert "it fails significantly more often for only 1 of 3 models" in analysis.explanation_reading(freq, rel)


def test_fail_rates_are_compared_by_fishers_exact_test():
    _, rel = _explanation_tables([1.0], [1.0], {"simple": 0.0, "complex": 0.0},
                                 {"a": (1, 0), "b": (10, 0), "c": (0, 5)})
    tests = analysis.fail_tests(rel).set_index("model")
    assert tests.loc["a", "p"] == pytest.approx(0.5) and tests.loc["b", "p"] < 0.01 and tests.loc["c", "p"] == 1.0
    assert list(tests.columns) == ["simple_fails", "simple_cells", "complex_fails", "complex_cells", "p", "p_reverse"]
    assert tests.loc["c", "p_reverse"] < 0.05 and tests.loc["b", "p_reverse"] == 1.0  # c: 5 complex misses, 0 simple


def test_the_answer_cap_note_says_which_answers_it_cut_and_what_recall_they_could_reach():
    rows = [{"model": "q", "needle": "complex", "setting": "full", "completion_tokens": 48, "recall": r}
            for r in (0.92, 0.85)]
    rows += [{"model": "q", "needle": "simple", "setting": "full", "completion_tokens": 12, "recall": 1.0},
             {"model": "s", "needle": "simple", "setting": "full", "completion_tokens": 48, "recall": 1.0},
             {"model": "s", "needle": "simple", "setting": "full", "completion_tokens": 20, "recall": 0.0},
             {"model": "q", "needle": "complex", "setting": "rag", "completion_tokens": 48, "recall": 0.5}]
    note = analysis.answer_cap_note(pd.DataFrame(rows), 48)
    assert ("in these groups (model, needle): q (complex): 2 of 2 capped, 2 below recall 1 (at most 0.92); in the "
            "other groups every capped answer still reached 1") in note
    mixed = pd.DataFrame(rows + [{"model": "s", "needle": "simple", "setting": "full", "completion_tokens": 48,
                                  "recall": 0.5}])
    assert "s (simple): 2 of 3 capped, 1 below recall 1. A capped" in analysis.answer_cap_note(mixed, 48)
    assert "where every answer stopped there, q (complex), the mean recall measures the cap" in note
    assert analysis.answer_cap_note(pd.DataFrame(rows), 300).startswith("**The answer cap.** No answer reached")
    full_words = pd.DataFrame(rows).assign(recall=1.0)
    assert analysis.answer_cap_note(full_words, 48).endswith("the cap cost no recall.")


def test_the_judge_at_the_floor_is_said_and_wordy_answers_are_counted_on_found():
    """A judge that gives (almost) every answer a 5 is at the floor, and the page says so from the counts; a found
    answer (recall >= 0.5, the complex needle's cap keeps recall below 1) scored below 7 counts as wordy-low."""
    rows = [{"model": "m", "needle": "complex", "recall": r, "judge_score": j, "judge_expected": 5.0}
            for r, j in ((0.92, 5), (0.9, 5), (0.6, 8), (0.0, 5), (0.1, 5), (0.0, 5), (0.92, 5), (0.0, 5),
                         (0.8, 5), (0.0, 5), (0.0, 5))]
    scored = analysis.add_found(pd.DataFrame(rows))
    table = analysis.scorer_agreement(scored, by=("model",))
    assert table.loc[0, "wordy_correct_low"] == 4  # 0.92, 0.9, 0.92, 0.8 found and scored 5; 0.6 got an 8
    assert str(table.loc[0, "kappa"]) != "-0.0"
    text = analysis.judge_score_sentence(scored)
    assert text.startswith("The judge gave 10 of the 11 answers it scored the same score, 5, and counted 1 as found")
    assert "barely varying (the floor would be all) for m (10 of 11 a 5)" in text
    assert "at the floor" not in text
    varied = analysis.judge_score_sentence(scored.assign(judge_score=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 5]))
    assert "barely vary" not in varied and "2 of the 11" in varied


def test_the_judge_at_the_floor_is_named_per_model():
    """The default run's judge gave every answer of three models a 5 (and 186 of SmolLM2's 192): the page names the
    three as at the floor, and the fourth as barely varying, not one pooled share for all."""
    spec = {"local/qwen2.5-coder-1.5b-instruct": (168, 0), "local/qwen2.5-coder-0.5b-instruct": (168, 0),
            "local/gemma3-270m": (96, 0), "local/smollm2-135m-instruct": (186, 6)}
    scored = pd.DataFrame([{"model": m, "judge_score": j} for m, (fives, threes) in spec.items()
                           for j in [5] * fives + [3] * threes])
    text = analysis.judge_score_sentence(scored)
    assert ("Per model: at the floor (one score for every answer) for Qwen2.5-Coder-1.5B-Instruct (168 a 5), "
            "Qwen2.5-Coder-0.5B-Instruct (168 a 5) and Gemma-3-270M (96 a 5); barely varying (the floor would be "
            "all) for SmolLM2-135M-Instruct (186 of 192 a 5).") in text


def test_a_rank_correlation_needs_more_than_one_item_off_a_tie():
    """Qwen-0.5B's complex needle under RAG: 41 of 42 cells at one recall and one expected rating, one cell off both:
    Spearman's rho is -1 there and says nothing, so it is not given; two items off the tie give a rho."""
    recall = pd.Series([0.92] * 41 + [0.84])
    expected = pd.Series([6.5] * 41 + [6.547])
    assert math.isnan(analysis._spearman(recall, expected))
    recall2, expected2 = pd.Series([0.92] * 40 + [0.84, 0.5]), pd.Series([6.5] * 40 + [6.547, 7.0])
    assert analysis._spearman(recall2, expected2) == pytest.approx(-1.0)  # both off-tie items agree in order


def test_the_expected_rating_is_compared_with_recall_by_rank():
    rows = [{"model": "m", "needle": "simple", "recall": r, "judge_score": 5, "judge_expected": e}
            for r, e in ((1.0, 6.1), (1.0, 5.2), (0.8, 5.9), (0.0, 3.9), (0.0, 5.5), (0.2, 4.0))]
    table = analysis.scorer_agreement(analysis.add_found(pd.DataFrame(rows)), by=("model",))
    row = table.iloc[0]
    assert row["auc_expected"] == pytest.approx(8 / 9)  # found: 6.1, 5.2, 5.9; missed: 3.9, 5.5, 4.0
    assert row["spearman_expected"] == pytest.approx(9.5 / (16.5 * 17.5) ** 0.5)  # by hand, on ranks with ties
    assert math.isnan(row["spearman"])  # the written score is constant
    assert row["kappa"] == 0
