"""lcrag.stats.printing: how a difference, its interval and a table print on every page."""

from __future__ import annotations

import numpy as np

from lcrag import stats


def test_differences_print_with_their_sign_and_a_tie_as_plus_zero():
    assert stats.signed(-0.04) == "+0.0" and stats.signed(-0.06) == "-0.1" and stats.signed(0.0) == "+0.0"
    assert stats.signed(-0.0004, 3) == "+0.000" and stats.signed(0.1234, 3) == "+0.123"
    assert stats.signed_interval(0.095, 0.013, 0.177, " pp") == "+9.5 pp [+1.3, +17.7]"
    assert stats.signed_interval(-0.0003, -0.088, 0.088) == "+0.0 [-8.8, +8.8]"  # the paired tie of 8 cases
    assert stats.signed_interval(0.31, 0.05, 0.5, scale=1, digits=2) == "+0.31 [+0.05, +0.50]"


def test_a_bound_near_zero_shows_which_side_of_zero_it_lies():
    """The needle's 1.5B printed "-1.2 pp [-6.0, +0.0]" for an upper bound of exactly 0 and LongRAG's "+0.6 [+0.0,
    +2.8]" for a lower bound of -0.02 points: read as a verdict, a reader could not tell whether 0 was excluded."""
    assert stats.bound(0.0) == "0.0" and stats.bound(-0.0) == "0.0" and stats.bound(0.0, 0) == "0"
    assert stats.bound(-0.02) == "-0.02" and stats.bound(0.004) == "+0.004" and stats.bound(-0.3, 0) == "-0.3"
    assert stats.bound(1e-9) == "0.0" and stats.bound(-6.04) == "-6.0" and stats.bound(13.33) == "+13.3"
    assert stats.signed_interval(-0.0119, -0.0602, 0.0) == "-1.2 [-6.0, 0.0]"
    assert stats.signed_interval(0.006, -0.0002, 0.028) == "+0.6 [-0.02, +2.8]"


def test_rounded_tables_print_no_negative_zero():
    """The thesis's paired table printed "-0.000" for a bound of -0.0001: rounded clears the sign of a zero, keeps
    counts integers and text as it is."""
    import pandas as pd

    t = pd.DataFrame({"comparison": ["Full vs RAG", "Full vs CQS"], "n": [158, 80], "diff": [0.0633, 0.1],
                      "ci_low": [-0.0001, 0.0251], "ci_high": [0.1329, 0.2]})
    out = stats.rounded(t, 3)
    assert "-0.000" in t.round(3).to_string() and "-0.000" not in out.to_string() and "-0.000" not in out.to_html()
    assert " 0.000" in out.to_string() and not np.signbit(out["ci_low"]).any()
    assert str(out["n"].dtype) == "int64" and out["comparison"].tolist() == ["Full vs RAG", "Full vs CQS"]
    assert out["ci_low"].tolist() == [0.0, 0.025] and out["diff"].tolist() == [0.063, 0.1]
    assert str(stats.rounded(pd.Series([-0.0004, -0.2]), 3).tolist()) == "[0.0, -0.2]"
    assert stats.rounded(pd.Series(["a"])).tolist() == ["a"]
    # counts a missing value made floats print as counts again: n_* columns, and those named
    counted = stats.rounded(pd.DataFrame({"n_insights": [1419.0, None], "kept": [86.0, 1.0], "r": [1.0, 0.5]}),
                            counts=("kept",))
    assert counted["n_insights"].tolist()[0] == 1419 and str(counted["n_insights"].dtype) == "Int64"
    assert str(counted["kept"].dtype) == "Int64" and str(counted["r"].dtype) == "float64"


def test_a_share_prints_in_per_cent_to_its_callers_digits():
    assert stats.percent(0.0999) == "10.0" and stats.percent(0.099) == "9.9" and stats.percent(float("nan")) == "nan"
    assert stats.percent(0.81646, 2, "%", "n/a") == "81.65%"
    assert stats.percent(None, 2, "%", "n/a") == "n/a" and stats.percent(float("nan"), 2, "%", "n/a") == "n/a"
