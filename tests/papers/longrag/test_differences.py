"""LongRAG's paired differences (lcrag.papers.longrag.differences): the sentence about the full-context arm is
written from the table, so it never claims more than the intervals say."""

from __future__ import annotations

import pandas as pd

from lcrag.papers.longrag.differences import arm_sentence


def _diffs(rows):
    return pd.DataFrame(rows, columns=["dataset", "a", "b", "n_questions", "diff", "diff_lo", "diff_hi"])


def test_every_interval_containing_zero_says_the_run_cannot_tell_the_arm_apart():
    # the 1.5B's run: 30 questions per dataset, every Full-vs-strategy interval contains 0
    d = _diffs([("2wikimqa", "Full", "R&B", 30, -0.086, -0.268, 0.100), ("2wikimqa", "Full", "E&F", 30, 0.021, -0.141, 0.2),
                ("musique", "Full", "R&B", 30, 0.008, -0.099, 0.148), ("musique", "Full", "E&F", 30, 0.0, -0.127, 0.145),
                ("musique", "R&B", "Closed", 30, 0.076, -0.002, 0.214)])
    assert arm_sentence(d) == ("With 30 questions per dataset, every one of the 4 paired 95 % intervals of a "
                               "difference with the Full arm above contains 0: this run cannot tell the Full arm "
                               "from any strategy it was compared with.")


def test_intervals_that_exclude_zero_are_named_with_their_values():
    d = _diffs([("2wikimqa", "Full", "R&B", 30, -0.071, -0.139, -0.016), ("musique", "Full", "R&B", 20, -0.075, -0.15, 0.01),
                ("musique", "E&F", "Full", 20, 0.1, 0.02, 0.2)])
    assert arm_sentence(d) == (
        "With 30 questions on 2wikimqa, 20 questions on musique, 2 of the 3 paired 95 % intervals of a difference "
        "with the Full arm above exclude 0: Full − R&B on 2wikimqa -7.1 points [-13.9, -1.6]; E&F − Full on musique "
        "+10.0 points [+2.0, +20.0]; the other 1 contain 0.")
    assert arm_sentence(d[d["a"] == "X"]) == "No difference with the Full arm was computed."
