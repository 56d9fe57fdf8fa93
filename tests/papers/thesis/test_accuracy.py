"""The thesis's accuracies and interval decisions (lcrag.papers.thesis.accuracy), floor rule included."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import thesis_shaped
from helpers import with_grid as _with_grid
from scipy.stats import binomtest

from lcrag.book.claims import NOT_TESTABLE, ClaimsLedger
from lcrag.papers.thesis import accuracy, numbers
from lcrag.papers.thesis import claims as thesis_claims


def test_fig_6_3_counts_give_the_thesis_accuracies():
    assert sum(numbers.THESIS_FIG_6_3.values()) == 158
    acc = accuracy.accuracy_table(thesis_shaped()).set_index("run")
    assert acc.loc["Full", "correct"] == 129 and acc.loc["RAG CQT", "correct"] == 119
    assert acc.loc["Evidence", "correct"] == 143
    assert 100 * acc.loc["Evidence", "accuracy"] == pytest.approx(90.51, abs=0.01)


def test_an_interaction_is_the_mean_per_case_difference_of_differences():
    base = thesis_shaped()
    g = _with_grid(base, {("rag", "A", "P"): [True, True, False, False], ("rag", "B", "P"): [False, True, False, True],
                          ("rag", "A", "Q"): [True, False, False, False], ("rag", "B", "Q"): [True, False, False, False]})
    d = accuracy.interaction_difference(g, ("rag", "A", "P"), ("rag", "B", "P"), ("rag", "A", "Q"), ("rag", "B", "Q"),
                                        n_boot=200, seed=0)
    assert d["n"] == 4 and d["diff"] == pytest.approx(0.0) and d["ci"][0] < 0 < d["ci"][1]
    # "F-E nearly gone (at most 3 of 158)": 2 of 40 cannot show it, 40 of 158 refutes it, 0 of 500 shows it
    share = accuracy.largest_share_at_most
    assert share(pd.DataFrame({"count": [2, 1], "n": [40, 40]}), 3 / 158) is None
    assert share(pd.DataFrame({"count": [40], "n": [158]}), 3 / 158) is False
    assert share(pd.DataFrame({"count": [0], "n": [500]}), 3 / 158) is True
    # H11 counts "nearly gone" up to 5 % for another generator: 4 of 80 (Wilson [2.0, 12.2] %) cannot decide it,
    # where against the thesis's own 1.9 % it would have read "not reproduced" by 0.1 pp
    from lcrag.papers.thesis.claims import H11_NEARLY_GONE

    assert share(pd.DataFrame({"count": [4], "n": [80]}), 3 / 158) is False
    assert share(pd.DataFrame({"count": [4], "n": [80]}), H11_NEARLY_GONE) is None
    assert share(pd.DataFrame({"count": [20], "n": [80]}), H11_NEARLY_GONE) is False
    # H7's "F-E outnumbers F-- and --E": decided by an exact test against the next largest pattern
    largest = accuracy.largest_count
    fig = numbers.THESIS_FIG_6_3
    # the thesis's own counts, F-E 16 against --- 10, do not show it either (p = 0.16)
    assert largest(pd.Series({p: fig[p] for p in ("F-E", "F--", "--E", "---")}), "F-E") == (
        None, "F-E 16 against --- 10: one-sided exact binomial p = 0.16 that F-E is the larger")
    assert largest(pd.Series({"F-E": 21, "F--": 3, "--E": 10, "---": 32}), "F-E") == (
        None, "--- 32 against F-E 21: one-sided exact binomial p = 0.084 that --- is the larger")  # the larger first
    assert largest(pd.Series({"F-E": 30, "F--": 3, "--E": 10, "---": 5}), "F-E")[0] is True
    assert largest(pd.Series({"F-E": 5, "F--": 3, "--E": 10, "---": 32}), "F-E")[0] is False


def test_proportion_in_decides_on_the_wilson_interval():
    """(interval_in itself, the book's one interval decision: tests/book/test_claims.py)"""
    assert accuracy.proportion_in(53, 84, 0.72, 0.82) is None and accuracy.proportion_in(24, 84, 0.72, 0.82) is False


def _synthesis_rows(tmp_path, scored: pd.DataFrame) -> pd.DataFrame:
    """The synthesis's thesis rows (``lcrag.papers.thesis.comparison``) on a run of ``scored``: accuracy.csv and
    paired_tests.csv saved as the chapter saves them, read back as the synthesis reads them."""
    from lcrag.papers.thesis import comparison

    kept = scored[scored["kept"]]
    accuracy.accuracy_table(kept, n_boot=200).to_csv(tmp_path / "accuracy.csv", index=False)
    accuracy.paired_tests(kept, accuracy.standard_pairs(scored), n_boot=200).to_csv(
        tmp_path / "paired_tests.csv", index=False)
    runs = pd.DataFrame([{"chapter": "thesis", "model": "m", "slug": "m", "profile": "default", "finished": "",
                          "book": True, "run_dir": str(tmp_path)}])
    problems: list[str] = []
    rows = comparison.comparisons(runs, comparison.arms(runs, problems), problems)
    assert problems == []
    return pd.DataFrame(rows).set_index("other_arm")


@pytest.mark.parametrize("arm", ["RAG CQT", "Evidence"])
def test_the_claims_and_the_synthesis_share_the_chapters_floor_rule(tmp_path, arm):
    """One floor rule (:func:`accuracy.accuracy_floor`) for the claims and the synthesis's row: at the edge of the
    floor (50 of 158 right: the exact interval still reaches 1/4; 51: it does not) the claim on the arm (H7 for
    RAG, H8 for Evidence vs Full) is not testable and the synthesis's Full vs arm row names the same arm at the
    floor, or neither does; the row is read only because Full, above the floor, is clearly better."""
    from lcrag.papers.thesis import comparison
    from lcrag.synthesis import NOT_TESTABLE as SYNTHESIS_NOT_TESTABLE

    assert comparison.accuracy_floor is accuracy.accuracy_floor  # the synthesis asks the chapter's rule
    assert binomtest(50, 158, 0.25).proportion_ci(0.95, method="exact").low <= 0.25
    assert binomtest(51, 158, 0.25).proportion_ci(0.95, method="exact").low > 0.25
    claim = {"RAG CQT": "H7", "Evidence": "H8"}[arm]
    for right, floored in ((50, True), (51, False)):
        counts = {"FRE": right, "F-E": 158 - right} if arm == "RAG CQT" else {"FRE": right, "FR-": 158 - right}
        scored = thesis_shaped(counts)
        t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), scored,
                                       n_boot=200).set_index("claim_id")
        row = _synthesis_rows(tmp_path, scored).loc[arm]
        assert (t.loc[claim, "verdict"] == NOT_TESTABLE) is floored, (arm, right)
        assert row["reading"] != SYNTHESIS_NOT_TESTABLE and row["reading"] == "Full better", (arm, right)
        assert ("clearly above the arm at the floor" in row["evidence"]) is floored
        why = f"{right} of 158 right ({right / 158:.2f}), exact interval [24.5, 39.5] % reaches chance 25 %"
        assert (why in t.loc[claim, "evidence"]) is floored and (why in row["evidence"]) is floored
        # the same counts give the same answer from the chapter's floor_of and the shared rule
        run = ("rag", "CQT", "BAMBOO") if arm == "RAG CQT" else ("evidence", "-", "BAMBOO")
        assert (accuracy.floor_of(scored, [run]) is not None) is floored
        assert (accuracy.accuracy_floor({arm: (right, 158)}) is not None) is floored


def _acc(runs, floors, ps):
    return pd.DataFrame({"run": runs, "prompt": "BAMBOO", "at_floor": floors, "prior_p": ps, "letter_prior": 0.3})


def test_the_baselines_reading_names_runs_at_the_floor_and_below_their_letter_prior():
    from lcrag.papers.thesis.accuracy import baselines_reading

    text = baselines_reading(_acc(["Full", "Evidence", "RAG CQT"], [False, False, True], [0.001, 0.2, 0.5]))
    assert "chance (0.25)" in text and "up to 0.30" in text
    assert "At the floor (exact interval reaching chance): RAG CQT (BAMBOO)." in text
    assert "not above its letter prior (permutation p ≥ 0.05): Evidence (BAMBOO)." in text
    assert text.endswith("The other 1 run beat both.")
    most = baselines_reading(_acc(["Full", "Evidence", "RAG CQT"], [True, False, True], [0.5, 0.001, 0.5]))
    assert "2 of 3 runs, all but Evidence (BAMBOO)." in most
    assert baselines_reading(_acc(["Full"], [False], [0.001])).endswith("No run is at the floor. All 1 run beat both.")
    assert "every one." in baselines_reading(_acc(["Full"], [True], [0.9]))


def test_the_accuracy_table_carries_chance_the_letter_prior_and_the_floor():
    from lcrag.papers.thesis.accuracy import accuracy_table

    rows = [{"setting": "full", "pipeline": "-", "prompt": "BAMBOO", "answer": g, "pred_lenient": "A", "correct": g == "A",
             "correct_raw": g == "A", "pred_logprob": None, "correct_logprob": False, "status": "letter",
             "prompt_tokens": 10, "truncated": False} for g in "AAABCDBCDBCD"]
    acc = accuracy_table(pd.DataFrame(rows), n_boot=200).iloc[0]
    assert acc["accuracy"] == 0.25 and acc["chance"] == 0.25 and acc["letter_prior"] == 0.25
    assert acc["prior_p"] == 1.0 and bool(acc["at_floor"])


def test_runs_are_ordered_as_the_accuracy_picture_reads_them():
    acc = pd.DataFrame({"run": ["Evidence", "RAG BQT", "Full", "RAG CQT", "Other", "RAG BQT"],
                        "prompt": ["BAMBOO", "CTX1", "BAMBOO", "BAMBOO", "BAMBOO", "BAMBOO"]})
    out = accuracy.in_run_order(acc, ["CQT", "CQS", "BQT"])
    assert out["run"].tolist() == ["Full", "RAG CQT", "RAG BQT", "RAG BQT", "Evidence", "Other"]
    assert list(out["run"].cat.categories) == ["Full", "RAG CQT", "RAG BQT", "Evidence", "Other"]  # none unrun
    assert out.loc[out["run"] == "RAG BQT", "prompt"].tolist() == ["CTX1", "BAMBOO"]  # as they came
    assert not isinstance(acc["run"].dtype, pd.CategoricalDtype)  # the table saved before is left as it was
