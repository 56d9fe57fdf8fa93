"""LongRAG's claims on our runs (lcrag.papers.longrag.claims_runs): each claim's text says what decides it, and a
dataset at the floor decides nothing."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.book.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, ClaimsLedger
from lcrag.papers.longrag import claims_runs

N = 40


def _results(per_dataset: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": d, "strategy": s, "f1": f, "question_id": f"{d}-{i}", "generator": "local/tiny"}
                         for d, by_s in per_dataset.items() for s, scores in by_s.items()
                         for i, f in enumerate(scores)])


def _c8(rl_minus_rb: dict[str, list[float]]):
    """C8-ours on datasets where R&B scores 0.5 and R&L 0.5 + the given per-question shifts."""
    base = [0.5] * N
    cells = {d: {s: base for s in ("R&B", "Ext", "Fil", "E&F")} | {"R&L": [0.5 + x for x in shift]}
             for d, shift in rl_minus_rb.items()}
    ledger = ClaimsLedger("longrag", paper="longrag", model="local/tiny")
    claims_runs.run_claims(ledger, _results(cells), n=500)
    return next(c for c in ledger.claims if c.claim_id == "C8-ours")


def test_c8_text_states_what_decides_it_and_the_verdicts_follow_it():
    noisy = [0.3 if i % 2 else -0.3 for i in range(N)]  # mean 0: an interval that contains 0
    below, above = [-0.2] * N, [0.2] * N
    c = _c8({"a": noisy, "b": noisy})
    assert c.text == ("R&L is not robustly better than R&B: on some dataset the 95 % CI of R&L − R&B lies at or "
                      "below 0 (if it lies above 0 on every dataset, not reproduced)")
    assert c.verdict == INCONCLUSIVE  # both intervals contain 0: neither at or below 0, nor above it
    assert _c8({"a": noisy, "b": below}).verdict == REPRODUCED
    assert _c8({"a": above, "b": above}).verdict == NOT_REPRODUCED


def test_c10_text_states_the_interval_rule():
    cell = {s: [0.5] * N for s in ("R&B", "R&L", "Ext", "Fil", "E&F")}
    ledger = ClaimsLedger("longrag", paper="longrag", model="local/tiny")
    claims_runs.run_claims(ledger, _results({"a": cell}), n=500)
    c10 = next(c for c in ledger.claims if c.claim_id == "C10-ours")
    assert c10.text.endswith("the 95 % CI of Fil − R&B lies at or below 2 points on every dataset")


def test_a_claim_whose_strategies_did_not_run_is_not_testable_and_says_which():
    """A run of R&B alone (the companion profile): every strategy claim is *not testable*, naming what did not
    run, never *inconclusive* as if an interval had been computed; with every strategy run, none says so."""
    from lcrag.book.claims import NOT_TESTABLE

    ledger = ClaimsLedger("longrag", paper="longrag", model="local/tiny")
    claims_runs.run_claims(ledger, _results({"a": {"R&B": [0.5] * N}}), n=200)
    by_id = {c.claim_id: c for c in ledger.claims}
    assert {"C1-ours", "C4-ours", "C8-ours", "C9a-ours", "C9b-ours", "C10-ours", "C11-ours"} <= set(by_id)
    assert all(c.verdict == NOT_TESTABLE for c in ledger.claims), [(c.claim_id, c.verdict) for c in ledger.claims]
    assert by_id["C4-ours"].evidence.endswith("not run: E&F (the run has R&B)")
    assert by_id["C9a-ours"].evidence.endswith("not run: Ext, R&L (the run has R&B)")
    assert by_id["C11-ours"].evidence.endswith("not run: R&L, Ext, Fil, E&F (the run has R&B)")
    assert by_id["C1-ours"].evidence.endswith("not run: E&F, Full (the run has R&B)")
    full = ClaimsLedger("longrag", paper="longrag", model="local/tiny")
    every = ("R&B", "R&L", "Ext", "Fil", "E&F", "Full")
    claims_runs.run_claims(full, _results({"a": {s: [0.5] * N for s in every}}), n=200)
    assert not any("not run" in c.evidence for c in full.claims)


def test_c11_names_the_pair_of_each_interval_and_single_pair_claims_do_not():
    """C11-ours lists E&F against every other strategy: each interval says which pair it is; C4-ours has one pair
    (its text names it), so its intervals go by dataset alone."""
    cell = {s: [0.5] * N for s in ("R&B", "R&L", "Ext", "Fil", "E&F")}
    ledger = ClaimsLedger("longrag", paper="longrag", model="local/tiny")
    claims_runs.run_claims(ledger, _results({"a": cell, "b": cell}), n=200)
    by_id = {c.claim_id: c for c in ledger.claims}
    parts = by_id["C11-ours"].our_value.split("; ")
    assert [p.split(" [")[0] for p in parts] == [f"{d} E&F − {b} +0.0" for d in "ab"
                                                 for b in ("R&B", "Ext", "Fil", "R&L")]
    assert by_id["C4-ours"].our_value.startswith("a +0.0 [")


def test_the_evidence_says_how_often_inputs_were_cut_and_the_filter_removed_nothing():
    """SmolLM2's run: R&L's inputs were cut to the window for a third of its answers, and the filter kept no chunk
    for some questions; Qwen's: it judged all 7 chunks relevant for most. The strategy claims' evidence says how
    often the filter removed nothing (per question: Fil and E&F read one filter run), naming what Fil and E&F then
    read, and says nothing where neither happened."""
    from lcrag.papers.longrag.claims_runs import inputs_note

    rows = pd.DataFrame({"dataset": "d", "question_id": ["q1", "q2", "q3"] * 2 + ["q1", "q2"] * 2,
                         "strategy": ["R&L"] * 3 + ["R&B"] * 3 + ["Fil"] * 2 + ["E&F"] * 2,
                         "truncated": [True, False, False] + [False] * 7,
                         "filter_fallback": [None] * 6 + [True, False, True, False],
                         "filter_removed": [None] * 6 + [0, 0, 0, 0]})
    assert inputs_note(rows) == (
        "; inputs cut to the generator's window in 1 of 10 answers (most in R&L: 33%); the filter removed no chunk "
        "for 2 of 2 questions (100%; for 1 it judged every chunk relevant, for 1 none, and the code then keeps all), "
        "so on those questions Fil read R&B's input and E&F read Ext's")
    assert inputs_note(rows[rows["strategy"] == "E&F"]).endswith(
        "so on those questions E&F read Ext's")  # C1-ours reads E&F and Full alone
    assert inputs_note(rows[rows["strategy"].isin(["R&L", "R&B"])]) == (
        "; inputs cut to the generator's window in 1 of 6 answers (most in R&L: 33%)")  # C8-ours: no filter
    clean = rows.assign(truncated=False, filter_fallback=[None] * 6 + [False] * 4,
                        filter_removed=[None] * 6 + [2, 1, 2, 1])
    assert inputs_note(clean) == "" and inputs_note(rows.drop(columns=["truncated", "filter_fallback"])) == ""


def _c1(ef_minus_full: dict[str, list[float]], full: float = 0.5):
    """C1-ours on datasets where Full scores ``full`` and E&F ``full`` + the given per-question shifts."""
    cells = {d: {"R&B": [0.5] * N, "Full": [full] * N, "E&F": [full + x for x in shift]}
             for d, shift in ef_minus_full.items()}
    ledger = ClaimsLedger("longrag", paper="longrag", model="local/tiny")
    diffs = claims_runs.run_claims(ledger, _results(cells), n=500)
    return next(c for c in ledger.claims if c.claim_id == "C1-ours"), diffs


def test_c1_compares_the_full_system_with_the_long_context_arm_on_every_dataset():
    """The paper's central claim on our run: E&F against Full, per dataset, decided by each paired interval (the
    reverse of section 5's Full − E&F row); a dataset where either is at the floor decides nothing."""
    noisy = [0.3 if i % 2 else -0.3 for i in range(N)]
    above, below = [0.2] * N, [-0.2] * N
    c, diffs = _c1({"2wikimqa": above, "musique": above})
    assert c.verdict == REPRODUCED and c.anchor == "longrag-differences"
    assert c.text.startswith("LongRAG (E&F) surpasses the long-context arm on every dataset")
    assert c.our_value.startswith("2wikimqa +20.0 [") and "(n=40); musique +20.0 [" in c.our_value
    assert "E&F − Full F1 difference in points (section 5's Full − E&F, reversed)" in c.evidence
    assert _c1({"2wikimqa": above, "musique": noisy})[0].verdict == INCONCLUSIVE
    assert _c1({"2wikimqa": above, "musique": below})[0].verdict == NOT_REPRODUCED
    # the interval is section 5's, mirrored: the chapter's Full − E&F row gives the same bounds, signs swapped
    from lcrag.papers.longrag.differences import strategy_differences

    rows = _results({"2wikimqa": {"Full": [0.5] * N, "E&F": [0.5 + x for x in noisy[:-3] + [0.4, 0.1, 0.0]]}})
    ef = strategy_differences(rows, [("E&F", "Full")], n=500).iloc[0]
    fe = strategy_differences(rows, [("Full", "E&F")], n=500).iloc[0]
    assert (ef["diff"], ef["diff_lo"], ef["diff_hi"]) == pytest.approx((-fe["diff"], -fe["diff_hi"], -fe["diff_lo"]))
    assert not diffs[(diffs["a"] == "E&F") & (diffs["b"] == "Full")].empty


def test_c1_at_the_floor_is_not_testable_and_a_floored_dataset_decides_nothing():
    from lcrag.book.claims import NOT_TESTABLE

    above = [0.2] * N
    c, _ = _c1({"2wikimqa": above, "musique": above}, full=0.0)  # Full scores 0 everywhere
    assert c.verdict == NOT_TESTABLE and "at the floor: Full on 2wikimqa (mean F1): 0.0 points" in c.evidence
    cells = {"2wikimqa": {"Full": [0.5] * N, "E&F": [0.7] * N}, "musique": {"Full": [0.0] * N, "E&F": [0.01] * N}}
    ledger = ClaimsLedger("longrag", paper="longrag", model="local/tiny")
    claims_runs.run_claims(ledger, _results(cells), n=500)
    c = next(c for c in ledger.claims if c.claim_id == "C1-ours")
    assert c.verdict == INCONCLUSIVE  # "every dataset": musique cannot confirm it
    assert c.evidence.endswith("; not deciding (at the floor): Full on musique (mean F1): 0.0 points, below 5; E&F "
                               "on musique (mean F1): 1.0 points, below 5")


def test_c11_lists_e_and_f_against_the_strategies_only():
    """The Full arm's interval decides C1-ours; C11-ours (E&F the best strategy) does not list it."""
    cell = {s: [0.5] * N for s in ("R&B", "R&L", "Ext", "Fil", "E&F", "Full")}
    ledger = ClaimsLedger("longrag", paper="longrag", model="local/tiny")
    claims_runs.run_claims(ledger, _results({"a": cell}), n=200)
    assert "Full" not in next(c for c in ledger.claims if c.claim_id == "C11-ours").our_value
