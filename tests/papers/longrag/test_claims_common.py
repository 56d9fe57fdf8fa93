"""What LongRAG's claims on our runs share (lcrag.papers.longrag.claims_common): the chapter's floor rule, which its
synthesis comparison asks too, how per-dataset verdicts combine, and how a claim's intervals are shown."""

from __future__ import annotations

import pandas as pd

from lcrag.papers.longrag import claims_common


def _results(per_dataset: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": d, "strategy": s, "f1": f, "question_id": f"{d}-{i}", "generator": "local/tiny"}
                         for d, by_s in per_dataset.items() for s, scores in by_s.items()
                         for i, f in enumerate(scores)])


def test_dataset_floor_names_the_deciding_datasets():
    rows = _results({"2wikimqa": {"Full": [0.12] * 4, "R&B": [0.2] * 4},
                     "musique": {"Full": [0.03] * 4, "R&B": [0.11] * 4}})
    deciding, reason, note = claims_common.dataset_floor(rows, ("Full", "R&B"))
    assert deciding == ["2wikimqa"] and reason is None
    assert note == "; not deciding (at the floor): Full on musique (mean F1): 3.0 points, below 5"
    deciding, reason, _ = claims_common.dataset_floor(rows[rows["dataset"] == "musique"], ("Full", "R&B"))
    assert deciding == [] and reason == "Full on musique (mean F1): 3.0 points, below 5"


def test_floor_reason_and_note_are_the_rules_parts():
    rows = _results({"2wikimqa": {"Full": [0.12] * 4, "R&B": [0.2] * 4},
                     "musique": {"Full": [0.03] * 4, "R&B": [0.11] * 4}})
    assert claims_common.floored_datasets(rows, ("Full", "R&B")) == {
        "musique": "Full on musique (mean F1): 3.0 points, below 5"}
    assert claims_common.f1_floor(rows, ("Full", "R&B")) is None
    assert claims_common.floor_note(rows, ("Full", "R&B")) == claims_common.dataset_floor(rows, ("Full", "R&B"))[2]
    only = rows[rows["dataset"] == "musique"]
    assert claims_common.f1_floor(only, ("Full", "R&B")) == "Full on musique (mean F1): 3.0 points, below 5"
    assert claims_common.floor_note(only, ("Full", "R&B")) == ""


def test_majority_passes_on_more_than_half_and_fails_once_half_cannot_pass():
    assert claims_common.majority([True, True, None]) is True
    assert claims_common.majority([True, None, None]) is None
    assert claims_common.majority([False, False, True]) is False
    assert claims_common.majority([True, False]) is False  # 1 of 2 is not more than half, and no test is left
    assert claims_common.majority([True, None]) is None and claims_common.majority([]) is None


def test_not_run_names_the_strategies_the_run_left_out():
    rows = _results({"a": {"R&B": [0.5]}})
    assert claims_common.not_run(rows, ["R&B"]) is None
    assert claims_common.not_run(rows, ["E&F", "R&B"]) == "E&F (the run has R&B)"  # the ledger prefixes "not run: "


def test_an_interval_bound_just_below_zero_prints_its_sign():
    """The 1.5B's 2wikimqa E&F − Ext: +0.6 with a lower bound of -0.0002 F1, which printed "[-0.0, +2.8]", then
    "[+0.0, +2.8]", as if the interval excluded 0 (stats.bound)."""
    rows = pd.DataFrame({"dataset": ["2wikimqa", "2wikimqa"], "a": ["E&F", "E&F"], "b": ["Ext", "R&B"],
                         "diff": [0.006, -0.059], "diff_lo": [-0.0002, -0.174], "diff_hi": [0.028, 0.031],
                         "n_questions": [48, 48]})
    text = claims_common.intervals_text(rows)
    assert text == "2wikimqa E&F − Ext +0.6 [-0.02, +2.8] (n=48); 2wikimqa E&F − R&B -5.9 [-17.4, +3.1] (n=48)"
    assert "-0.0," not in text and "+0.0," not in text
