"""Section 7 of the needle chapter (lcrag.papers.thesis.needle.analysis): how common each needle's words are in the
essays (without English stop words, mean and median) and the reading of the thesis's explanation generated from
its tables."""

from __future__ import annotations

import pandas as pd

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


def _explanation_tables(simple_per_10k, complex_per_10k, competitors, fails):
    """Word frequencies (per 10,000, one list per needle; a 0 does not occur) and the BM25 relation per model."""
    per_10k = {"simple": simple_per_10k, "complex": complex_per_10k}
    freq = pd.DataFrame([{"needle": n, "word": f"{n}{i}", "count": int(f > 0), "per_10k_words": f}
                         for n, values in per_10k.items() for i, f in enumerate(values)])
    relation = pd.DataFrame([{"model": m, "needle": n, "mean_rank": 1.0, "mean_competitors": competitors[n],
                              "fail_rate": f}
                             for m, pair in fails.items() for n, f in zip(("simple", "complex"), pair, strict=True)])
    return freq, relation


def test_the_explanation_is_read_from_the_tables():
    """Section 7 ends with a reading computed from its tables: the thesis's explanation needs frequent words,
    competitors and more failures for the simple needle; with none of the three it is not supported."""
    freq, rel = _explanation_tables([0.75, 0.75], [4.19, 4.19], {"simple": 0.0, "complex": 0.17},
                                    {"m1": (0.02, 0.0), "m2": (0.3, 0.8), "m3": (0.0, 0.0)})
    text = analysis.explanation_reading(freq, rel)
    assert "2 words occur 0.75 times per 10,000 essay words on average (median 0.75; 2 of 2 occur at all)" in text
    assert "complex needle's 2 occur 4.19 times" in text and "for 1 of 3 models (m1)" in text
    assert "one pair of needles" in text
    assert "do not support" in text and "Here its words are not the more frequent ones by both mean and median" in text
    assert "no more competitors" in text and "does not fail more often" in text
    freq, rel = _explanation_tables([5.0, 3.0], [1.0, 0.0], {"simple": 2.0, "complex": 0.0},
                                    {"m1": (0.5, 0.1), "m2": (0.4, 0.2)})
    assert analysis.explanation_reading(freq, rel).endswith(
        "consistent with the thesis's explanation, as far as one pair of needles can be.")
    assert "run both" in analysis.explanation_reading(freq[freq["needle"] == "simple"], rel)


def test_words_that_are_more_frequent_count_for_the_explanation_even_when_the_rest_fails():
    """The book's essays: the simple needle's words (best, thing, day, ...) are the more frequent once function
    words are dropped, by mean and median; the reading says so, and names what else the explanation lacks."""
    simple = [8.94, 13.77, 0.54, 0.36, 0.89, 0.0, 0.89, 0.0, 0.0, 0.09, 4.02]
    complex_ = [1.61, 1.43, 0.45] + [0.0] * 8 + [0.63, 1.97, 0.54, 2.5, 0.36, 0.09, 0.09, 0.0, 0.0, 0.63, 0.0,
                                                 0.0, 2.95, 0.0, 0.45, 0.0]
    freq, rel = _explanation_tables(simple, complex_, {"simple": 0.0, "complex": 0.14},
                                    {"m1": (0.02, 0.0), "m2": (0.3, 0.8), "m3": (0.0, 0.0), "m4": (0.3, 0.5)})
    text = analysis.explanation_reading(freq, rel)
    assert "11 words occur 2.68 times" in text and "(median 0.54; 8 of 11 occur at all)" in text
    assert "complex needle's 27 occur 0.51 times" in text and "(median 0.00; 13 of 27 occur at all)" in text
    assert "(Mann-Whitney) gives p = 0.053" in text
    assert text.endswith("do not support the thesis's explanation, which needs the simple needle's words to be "
                         "the frequent ones, to give it competitors and to make it fail more. As it needs, its "
                         "words are the more frequent ones (by mean and median); but it has no more competitors "
                         "than the complex needle; it does not fail more often for most models.")
    # a mean carried by one word, with the median the other way, does not count as "more frequent"
    freq, rel = _explanation_tables([30.0, 0.0, 0.0], [1.0, 1.0, 1.0], {"simple": 2.0, "complex": 0.0},
                                    {"m1": (0.5, 0.1)})
    assert "As it needs, it has more competitors than the complex needle; it fails more often for most models; "\
           "but its words are not the more frequent ones by both mean and median." in \
           analysis.explanation_reading(freq, rel)
