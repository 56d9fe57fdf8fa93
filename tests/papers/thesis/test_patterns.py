"""The thesis's correctness patterns (lcrag.papers.thesis.patterns): counts, F-E grid, paired tests."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import thesis_shaped
from scipy.stats import binomtest

from lcrag.papers.thesis import numbers, patterns


def test_patterns_and_counts_round_trip():
    pats = patterns.patterns(thesis_shaped())
    counts = patterns.pattern_counts(pats).set_index("pattern")["count"].to_dict()
    assert counts == numbers.THESIS_FIG_6_3
    assert list(patterns.pattern_counts(pats)["pattern"]) == list(numbers.PATTERNS)


def test_fe_grid_and_jaccard():
    pats = pd.DataFrame(
        {
            "task": ["meetingqa"] * 6,
            "case": [28, 28, 7, 7, 9, 9],
            "pipeline": ["CQT"] * 6,
            "prompt": ["BAMBOO", "CTX1"] * 3,
            "pattern": ["F-E", "F-E", "F-E", "FRE", "FRE", "FRE"],
            "full": True,
            "rag": False,
            "evidence": True,
        }
    )
    grid = patterns.fe_grid(pats)
    assert list(grid.index) == ["meetingqa 7", "meetingqa 28"] or set(grid.index) == {
        "meetingqa 7",
        "meetingqa 28",
    }
    assert list(grid.columns) == ["CQT / BAMBOO", "CQT / CTX1"]
    assert grid.loc["meetingqa 28"].tolist() == [1, 1] and grid.loc["meetingqa 7"].tolist() == [1, 0]
    jac = patterns.fe_jaccard(pats).iloc[0]
    assert (jac["n_a"], jac["n_b"], jac["shared"], jac["jaccard"]) == (2, 1, 1, 0.5)
    one_prompt = patterns.fe_jaccard(pats[pats["prompt"] == pats["prompt"].iloc[0]])
    assert one_prompt.empty and list(one_prompt.columns) == list(patterns.FE_JACCARD_COLUMNS)


def test_paired_tests_from_the_thesis_counts():
    t = patterns.paired_from_patterns(numbers.THESIS_FIG_6_3).set_index("comparison")
    # Full right / RAG wrong: F-E + F-- = 20; RAG right / Full wrong: -RE + -R- = 10
    assert (t.loc["Full vs RAG", "a_only"], t.loc["Full vs RAG", "b_only"]) == (20, 10)
    assert t.loc["Full vs RAG", "mcnemar_p"] == pytest.approx(binomtest(20, 30).pvalue)
    assert t.loc["Full vs RAG", "diff"] == pytest.approx(10 / 158)
    assert (t.loc["Evidence vs Full", "a_only"], t.loc["Evidence vs Full", "b_only"]) == (19, 5)
    assert (t.loc["Evidence vs RAG", "a_only"], t.loc["Evidence vs RAG", "b_only"]) == (25, 1)
    assert t.loc["Evidence vs Full", "ci_low"] > 0
    lines = patterns.paired_sentences(t.reset_index().assign(source="thesis")).splitlines()
    assert lines[0].startswith("thesis, Full vs RAG: +6.3 points [") and lines[0].endswith(
        "20 against 10 discordant cases, McNemar p = 0.099"
    )
    assert "(excludes 0)" in lines[1] and "19 against 5" in lines[1]
    assert lines[2].endswith("25 against 1 discordant cases, McNemar p < 0.001")


def test_our_paired_comparisons_have_the_paired_tables_intervals():
    """Section 9's lines for our run (paired_from_runs) carry the intervals of the chapter's paired table
    (accuracy.paired_tests), Evidence vs RAG being its RAG vs Evidence row mirrored; the same counts in pattern
    order (paired_from_patterns) give the same intervals, since a bootstrap reads the cases' values, not their
    order (before intervals were made order-free, [+1.9, +16.5] against [+1.9, +15.8] in the book's run)."""
    import numpy as np

    from lcrag.papers.thesis import accuracy

    scored = thesis_shaped()
    order = np.random.default_rng(1).permutation(158) + 1  # the cases' order is not the patterns' order
    scored["case"] = order[scored["case"] - 1]
    scored["task"] = np.where(scored["case"] <= 84, "meetingqa", "paperqa")
    ours = patterns.paired_from_runs(scored, "CQT", "BAMBOO", n_boot=500).set_index("comparison")
    table = accuracy.paired_tests(scored, accuracy.standard_pairs(scored), n_boot=500).set_index(["a", "b"])
    cols = ["n", "diff", "ci_low", "ci_high", "a_only", "b_only", "mcnemar_p"]
    assert ours.loc["Full vs RAG", cols].tolist() == table.loc[("Full / BAMBOO", "RAG CQT / BAMBOO"), cols].tolist()
    assert ours.loc["Evidence vs Full", cols].tolist() == table.loc[("Evidence / BAMBOO", "Full / BAMBOO"), cols].tolist()
    mirrored = table.loc[("RAG CQT / BAMBOO", "Evidence / BAMBOO")]
    assert (ours.loc["Evidence vs RAG", "ci_low"], ours.loc["Evidence vs RAG", "ci_high"]) == pytest.approx(
        (-mirrored["ci_high"], -mirrored["ci_low"]))
    from_counts = patterns.paired_from_patterns(numbers.THESIS_FIG_6_3, n_boot=500).set_index("comparison")
    assert (from_counts[["a_only", "b_only"]] == ours[["a_only", "b_only"]]).all().all()  # the same cases
    assert (from_counts[["ci_low", "ci_high"]] == ours[["ci_low", "ci_high"]]).all().all()  # order-free
    both = pd.concat([from_counts.reset_index().assign(source="thesis"), ours.reset_index().assign(source="ours")])
    lines = patterns.paired_sentences(both).splitlines()
    assert lines[3].startswith("ours, Full vs RAG: +6.3 points [") and "; 20 against 10 discordant cases" in lines[3]
