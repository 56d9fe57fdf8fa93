"""LongRAG's claims on the grid (C16a-ours) and the transfer (C14-ours), decided on our runs by the rules of the
chapter's other run claims (lcrag.papers.longrag.claims_sections): each interval decides its dataset, a dataset at
the floor decides nothing, a run without the section cannot test it, and the value names the number of questions."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import ROOT

from lcrag.book.claims import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, ClaimsLedger
from lcrag.papers.longrag import claims_runs

GEN, GEMMA = "local/tiny", "local/gemma3-270m"
STRATEGIES = ("R&B", "R&L", "Ext", "Fil", "E&F", "Full")


def _rows(per: dict[str, dict[str, list[float]]], **extra) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": d, "strategy": s, "f1": f, "question_id": f"{d}-{i}", "generator": GEN, **extra}
                         for d, by_s in per.items() for s, scores in by_s.items() for i, f in enumerate(scores)])


def _main(n: int = 40, ef: float = 0.5) -> pd.DataFrame:
    """Section 3's results: every strategy at 0.5 on ``n`` questions of two datasets, E&F at ``ef``."""
    return _rows({d: {s: [ef if s == "E&F" else 0.5] * n for s in STRATEGIES} for d in ("2wikimqa", "musique")})


def _settings(small: dict[str, list[float]], large: dict[str, list[float]]) -> pd.DataFrame:
    """The grid's E&F rows at 200*7 and 500*3 (and R&B, which C16a does not read)."""
    return pd.concat([_rows({d: {"E&F": f, "R&B": f} for d, f in small.items()}, setting="200*7"),
                      _rows({d: {"E&F": f, "R&B": [0.0] * len(f)} for d, f in large.items()}, setting="500*3")],
                     ignore_index=True)


def _claim(cid: str, main: pd.DataFrame, **kw):
    ledger = ClaimsLedger("longrag", paper="longrag", model=GEN)
    claims_runs.run_claims(ledger, main, n=500, **kw)
    return next(c for c in ledger.claims if c.claim_id == cid)


MIXED = [1.0, 0.0, 1.0, 0.5, 0.0, 1.0]  # six questions, spread
LESS = [0.0, 0.0, 1.0, 0.5, 0.0, 0.5]  # below MIXED on two of them, above on none


def test_c16a_on_the_grid_of_six_questions_is_inconclusive_and_names_them():
    c = _claim("C16a-ours", _main(), settings=_settings({"2wikimqa": MIXED, "musique": MIXED},
                                                          {"2wikimqa": MIXED[::-1], "musique": MIXED[1:] + MIXED[:1]}))
    assert c.verdict == INCONCLUSIVE and c.anchor == "longrag-grid"
    assert c.our_value.count("(n=6)") == 2
    assert "the chunk size × top-k grid (section 6), 6 questions per dataset: E&F at 200×7 − E&F at 500×3" in c.evidence


def test_c16a_with_500x3_at_the_floor_everywhere_is_not_testable():
    """The 1.5B's grid: E&F at 500×3 scores 0 on both datasets' six questions."""
    c = _claim("C16a-ours", _main(), settings=_settings({"2wikimqa": MIXED, "musique": MIXED},
                                                          {"2wikimqa": [0.0] * 6, "musique": [0.0] * 6}))
    assert c.verdict == NOT_TESTABLE
    assert c.evidence.endswith("at the floor: on the grid's 6 questions per dataset, 500*3 on 2wikimqa (mean F1): 0.0 "
                               "points, below 5; 500*3 on musique (mean F1): 0.0 points, below 5")


def test_c16a_at_the_floor_on_the_grid_questions_says_when_section_3_is_above_it():
    """The 1.5B's grid: on MuSiQue's first six questions every arm scores 0, while E&F at 200×7 scores 11.7 on all
    48 in section 3; on 2WikiMQA only 500×3 is at 0. The floor is said to be the six questions', and the claim stays
    *not testable*: 200×7 and 500×3 are two settings, not a cut of one (the rule for a change that lowers a score
    does not apply), so 2WikiMQA with 500×3 at the floor decides nothing."""
    main = _main(ef=0.0)
    main.loc[(main["strategy"] == "E&F") & (main["dataset"] == "musique"), "f1"] = [0.5] * 10 + [0.0] * 30
    c = _claim("C16a-ours", main, settings=_settings({"2wikimqa": MIXED, "musique": [0.0] * 6},
                                                     {"2wikimqa": [0.0] * 6, "musique": [0.0] * 6}))
    assert c.verdict == NOT_TESTABLE
    assert c.evidence.endswith(
        "at the floor: on the grid's 6 questions per dataset, 500*3 on 2wikimqa (mean F1): 0.0 points, below 5; "
        "200*7 on musique (mean F1): 0.0 points, below 5; 500*3 on musique (mean F1): 0.0 points, below 5 (E&F at "
        "200×7 scores 12.5 points on all 40 musique questions in section 3: the floor there is the grid's few "
        "questions', which more of them could lift)")


def test_c16a_decided_when_the_intervals_clear_zero_and_not_run_without_the_grid():
    many = {"2wikimqa": [0.9] * 30, "musique": [0.9] * 30}
    low = {"2wikimqa": [0.2] * 30, "musique": [0.2] * 30}
    assert _claim("C16a-ours", _main(), settings=_settings(many, low)).verdict == REPRODUCED
    assert _claim("C16a-ours", _main(), settings=_settings(low, many)).verdict == NOT_REPRODUCED
    only_default = _settings(many, {})  # a profile without a grid: the 200*7 rows alone
    c = _claim("C16a-ours", _main(), settings=only_default)
    assert c.verdict == NOT_TESTABLE and c.our_value == "not run"
    assert c.evidence == f"our runs ({GEN}); the chunk size × top-k grid (section 6); not run: 500*3 (the run has 200*7)"


def _transfer(per: dict[str, list[float]], component: str = GEMMA) -> pd.DataFrame:
    return _rows({d: {"E&F": f} for d, f in per.items()}, component=component)


def test_c14_compares_the_moved_components_with_the_generators_own_on_the_same_questions():
    main = _main(ef=0.5)  # 40 questions; the transfer ran on the first six
    c = _claim("C14-ours", main, transfer=_transfer({"2wikimqa": MIXED, "musique": MIXED}))
    assert c.verdict == INCONCLUSIVE and c.anchor == "longrag-transfer"
    assert c.our_value.startswith("2wikimqa +8.3 [") and c.our_value.count("(n=6)") == 2  # 0.583 − 0.5 on six
    assert f"the transfer (section 7), 6 questions per dataset: E&F with the extractor and filter on {GEMMA}" in (
        c.evidence)
    assert c.text.startswith("E&F with its extractor and filter moved to another model (here not fine-tuned)")


def test_c14_below_zero_is_not_reproduced_and_a_floored_dataset_decides_nothing():
    """The moved components lose on every question of 2WikiMQA (the interval lies below 0); on MuSiQue both arms
    score 0 and decide nothing."""
    main = pd.concat([_rows({"2wikimqa": {s: [1.0] * 6 for s in STRATEGIES}}),
                      _rows({"musique": {s: [0.0] * 6 for s in STRATEGIES}})], ignore_index=True)
    c = _claim("C14-ours", main, transfer=_transfer({"2wikimqa": LESS, "musique": [0.0] * 6}))
    assert c.verdict == NOT_REPRODUCED
    assert c.evidence.endswith("; not deciding (at the floor) on the transfer's 6 questions per dataset: E&F on "
                               "musique (mean F1): 0.0 points, below 5; "
                               f"E&F (E and F on {GEMMA}) on musique (mean F1): 0.0 points, below 5")
    every = _claim("C14-ours", main[main["dataset"] == "musique"], transfer=_transfer({"musique": [0.0] * 6}))
    assert every.verdict == NOT_TESTABLE


def test_c14_losing_on_two_questions_of_six_and_winning_on_none_is_inconclusive():
    """Resampling six questions of which two differ, the same way, gives an upper bound of exactly 0 (no resample
    can favour the moved components): not evidence that they never win, so the bound on that side is the exact
    one (lcrag.stats.one_sided_bounds) and the claim stays open."""
    main = _rows({"2wikimqa": {s: MIXED for s in STRATEGIES}})
    c = _claim("C14-ours", main, transfer=_transfer({"2wikimqa": LESS}))
    assert c.verdict == INCONCLUSIVE
    assert c.our_value == "2wikimqa -25.0 [-58.3, +45.9] (n=6)"  # 0 would have decided "not reproduced"


def test_c14_without_a_transfer_section_is_not_run_and_several_components_are_refused():
    c = _claim("C14-ours", _main(), transfer=pd.DataFrame())
    assert c.verdict == NOT_TESTABLE and c.evidence.endswith("the run has no transfer section: transfer_questions is 0)")
    ledger = ClaimsLedger("longrag", paper="longrag", model=GEN)
    claims_runs.run_claims(ledger, _main(), n=200)  # a caller that passes neither section checks neither claim
    assert not {"C14-ours", "C16a-ours"} & {x.claim_id for x in ledger.claims}
    two = pd.concat([_transfer({"2wikimqa": MIXED}), _transfer({"musique": MIXED}, component="local/other")])
    with pytest.raises(ValueError, match="several component models"):
        _claim("C14-ours", _main(), transfer=two)


def test_the_claims_anchors_are_labels_of_the_chapter():
    text = (ROOT / "notebooks" / "longrag.md").read_text(encoding="utf-8")
    for label in ("longrag-differences", "longrag-grid", "longrag-transfer"):
        assert f"({label})=" in text, label
