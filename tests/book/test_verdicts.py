"""The verdict rules (lcrag.book.verdicts, book/verdicts.md) on constructed cases: one per verdict and floor."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.book import verdicts as V
from lcrag.book.claims import ClaimsLedger, absent, greater, read_claims


def test_an_accuracy_whose_interval_contains_chance_is_at_the_floor():
    assert V.accuracy_at_floor(40, 158, 0.25)  # 0.25: chance itself
    assert V.accuracy_at_floor(3, 8, 0.25)  # 0.375 on 8 cases: the interval reaches far below 0.25
    assert V.accuracy_at_floor(10, 100, 0.25)  # below chance is the floor too
    assert not V.accuracy_at_floor(60, 158, 0.25)  # 0.38 on 158: the interval [0.30, 0.46] clears chance
    assert V.accuracy_at_floor(0, 0, 0.25)


def test_the_floor_reason_says_whether_the_interval_reaches_chance_or_lies_below_it():
    """28 of 158 (Gemma-3-270M's RAG CQT): the exact interval [12.1, 24.6] % lies wholly below chance, so the reason
    must not say it contains chance; 40 of 158 contains it."""
    assert V.accuracy_at_floor(28, 158, 0.25)
    below = V.accuracy_floor_text(28, 158, 0.25)
    assert below == "28 of 158 right (0.18), exact interval [12.1, 24.6] % lies below chance 25 %"
    assert V.accuracy_floor_text(40, 158, 0.25) == "40 of 158 right (0.25), exact interval [18.7, 32.8] % reaches chance 25 %"
    assert "contains" not in V.floor_reason({"RAG CQT": {"correct": 28, "n": 158, "chance": 0.25}})
    assert V.floor_reason({"RAG CQT": {"correct": 28, "n": 158, "chance": 0.25}}) == f"RAG CQT: {below}"
    assert V.accuracy_floor_text(0, 0, 0.25) == "0 of 0 right"


def test_scores_unparseable_answers_and_constant_judges():
    assert V.score_at_floor(0.0) and V.score_at_floor(0.049) and V.score_at_floor(float("nan"))
    assert not V.score_at_floor(0.05) and not V.score_at_floor(0.4)
    assert V.unparseable_at_floor(739, 744) and not V.unparseable_at_floor(15, 40)
    assert V.constant([5] * 168) and not V.constant([5, 7, 5]) and not V.constant([5])


def test_floor_reason_names_each_arm_at_the_floor_and_why():
    reason = V.floor_reason({"Full": {"correct": 30, "n": 158, "chance": 0.25},
                             "RAG": {"correct": 90, "n": 158, "chance": 0.25},
                             "judge": {"values": [5, 5, 5]}, "CTX2": {"unparseable": 56, "n": 56}})
    assert "Full: 30 of 158 right (0.19), exact interval [13.2, 26.0] % reaches chance 25 %" in reason
    assert "RAG" not in reason and "judge: constant (5" in reason and "CTX2: 56 of 56 answers unparseable" in reason
    assert V.floor_reason({"Full": {"correct": 100, "n": 158, "chance": 0.25}, "LC": {"score": 0.4}}) is None


@pytest.mark.parametrize("passed, floor, expected", [
    (True, None, "reproduced"),
    (False, None, "not reproduced"),
    (None, None, "inconclusive"),
    (False, "Full: 0.0 points, below 5", "not testable with this model"),  # never "not reproduced" at the floor
    (True, "RAG: 5 of 6 answers unparseable", "not testable with this model"),
])
def test_each_verdict_from_a_constructed_case(passed, floor, expected, tmp_path):
    ledger = ClaimsLedger("ch", "thesis", "local/m")
    c = ledger.check("X1", "long context beats RAG", 0.1, 0.0, passed, evidence="n = 8", floor=floor)
    assert c.verdict == expected and c.source == "our run"
    if floor:
        assert c.evidence == f"n = 8; at the floor: {floor}"
    ledger.save(tmp_path / "claims.csv")
    assert read_claims(tmp_path / "claims.csv")["verdict"].tolist() == [expected]


def test_a_claim_the_run_cannot_test_says_why_without_calling_it_a_floor():
    """A reason other than an arm at the floor (the paper's embedding model is not ours) also gives "not testable",
    with the reason in the evidence under its own label."""
    c = ClaimsLedger("ch", "thesis", "no model").check("X16", "davinci-002 tells the families apart", 0.84, 0.84,
                                                       True, evidence="0.8415 > 0.8051", untestable="not davinci-002")
    assert c.verdict == "not testable with this model" and c.source == "no model"
    assert c.evidence == "0.8415 > 0.8051; not testable: not davinci-002" and "floor" not in c.evidence


def test_point_values_inside_noise_are_inconclusive_not_a_verdict():
    # "+0.00 pp vs +0.00 pp" on 8 cases: the paired interval contains 0, so the claim cannot be decided
    assert greater(0.0, 0.0, ci=(-0.25, 0.25)) is None


def test_sources_are_inferred_from_the_ledger_and_checked():
    assert ClaimsLedger("c", "longrag", "the paper's published tables").source == "paper tables"
    assert ClaimsLedger("c", "summhay", "released artefacts (GPT-4o judge)").source == "released artefacts"
    assert ClaimsLedger("c", "thesis", "local/smollm2-135m-instruct").source == "our run"
    ledger = ClaimsLedger("c", "thesis", "local/m")
    assert ledger.check("X5", "BM25 top-5", 1, 1, True, source="no model").source == "no model"
    with pytest.raises(ValueError, match="source must be one of"):
        ledger.check("X6", "t", 1, 1, True, source="vibes")


def test_a_claim_decided_by_another_models_outputs_or_by_none_names_it():
    assert V.source_of("no model") == V.source_of("no model (a tokenizer's count)") == "no model"
    ledger = ClaimsLedger("c", "summhay", "local/summarizer")
    judged = ledger.check("X7", "the judge agrees", 1, 0, False, model="local/judge")
    assert (judged.model, judged.source) == ("local/judge", "our run")
    counted = ledger.check("X8", "a ceiling", 1, 1, True, model="no model")
    assert (counted.model, counted.source) == ("no model", "no model")
    assert ledger.check("X9", "t", 1, 1, True).model == "local/summarizer"  # the ledger's model otherwise


def test_a_judge_needs_enough_labelled_pairs_to_decide():
    agree = pd.DataFrame({"judge": ["lexical", "P6 on Gemma-3"], "half": ["held-out"] * 2, "n": [706, 4],
                          "kappa": [0.57, 1.0]})
    assert V.choose_judge(agree, ["lexical", "P6 on Gemma-3"]) == "lexical"
    assert V.choose_judge(agree, ["P6 on Gemma-3"]) is None
    assert V.choose_judge(agree.assign(n=[706, 40]), ["lexical", "P6 on Gemma-3"]) == "P6 on Gemma-3"
    # another agreement measure, on another half (SummHay: Pearson r on the fit half)
    r = agree.assign(n=[706, 713], half=["fit", "fit"], cov_corr=[0.65, 0.71])
    assert V.choose_judge(r, ["lexical", "P6 on Gemma-3"], half="fit", metric="cov_corr") == "P6 on Gemma-3"
    assert V.choose_judge(r, ["lexical", "P6 on Gemma-3"], half="held-out", metric="cov_corr") is None


def test_per_unit_floor_is_not_testable_only_when_every_unit_is_floored():
    from lcrag.book.verdicts import PARTIAL_FLOOR, per_unit_floor

    assert per_unit_floor({}, ["a", "b"]) == (None, "")
    assert per_unit_floor({"b": "R&B on b"}, ["a", "b"]) == (None, f"; {PARTIAL_FLOOR}: R&B on b")
    assert per_unit_floor({"a": "x on a", "b": "y on b"}, ["a", "b", "b"]) == ("x on a; y on b", "")


def test_not_testable_is_defined_for_both_of_its_reasons():
    """book/verdicts.md and the glossary define *not testable with this model* by both reasons the ledger gives it
    (``ClaimsLedger.check``'s ``floor``, ``not_run`` and ``untestable``: the thesis's H6b and H16, whose embedding
    model is not ours), and name the three labels its evidence carries."""
    from pathlib import Path

    from lcrag.book.claims import NOT_TESTABLE
    from lcrag.book.verdicts import AT_FLOOR, NOT_RUN, OTHER_REASON, not_run, untestable_because

    ledger = ClaimsLedger("c", "thesis", "no model")
    floored = ledger.check("F1", "t", 1, 1, True, evidence="e", floor="Full: 0.0 points, below 5")
    other = ledger.check("F2", "t", 1, 1, True, evidence="e", untestable="the thesis's embedding model is not ours")
    unrun = ledger.check("F3", "t", 1, 1, True, evidence="e", not_run=not_run(["E&F", "R&B"], ["R&B", "R&B"]))
    assert floored.verdict == other.verdict == unrun.verdict == NOT_TESTABLE
    assert "; at the floor: " in floored.evidence and "; not testable: " in other.evidence
    assert unrun.evidence == "e; not run: E&F (the run has R&B)"
    assert [untestable_because(c.evidence) for c in (floored, other, unrun)] == [AT_FLOOR, OTHER_REASON, NOT_RUN]
    assert untestable_because("at the floor: R&B; not run: E&F") == NOT_RUN and untestable_because("e") is None
    assert not_run(["R&B"], ["R&B"]) is None and not_run(["Fil"], []) == "Fil (the run has none)"
    root = Path(__file__).resolve().parents[2] / "book"
    row = next(line for line in (root / "verdicts.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| not testable with this model |"))
    assert "at the floor" in row and "as the paper ran it" in row
    verdicts = (root / "verdicts.md").read_text(encoding="utf-8")
    assert '"not testable:"' in verdicts and '"at the floor:"' in verdicts and '"not run:"' in verdicts
    glossary = (root / "glossary.md").read_text(encoding="utf-8").split("\nverdict\n", 1)[1].split("\n\n", 1)[0]
    assert "at the floor" in glossary and "as the paper ran it" in glossary


def test_every_verdict_is_defined_and_unreleased_data_are_not_inconclusive():
    """book/verdicts.md has one row per verdict (VERDICTS), the glossary names each; a claim whose data were never
    released has its own verdict there (its evidence after "not released:"), and *inconclusive* is only an interval
    that contains both answers."""
    from pathlib import Path

    from lcrag.book.claims import FIGURE_ONLY_VERDICT, INCONCLUSIVE, UNRELEASED, VERDICTS

    ledger = ClaimsLedger("c", "long2rag", "the paper's published tables")
    c = ledger.check("X20", "the data set's size", "280 questions", None, unreleased="the data set")
    assert (c.verdict, c.evidence) == (UNRELEASED, f"{V.NOT_RELEASED}: the data set")
    assert V.untestable_because(c.evidence) is None  # none of the labels of *not testable with this model*
    root = Path(__file__).resolve().parents[2] / "book"
    page = (root / "verdicts.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0][2:]: line for line in page.splitlines() if line.startswith("| ")
            and line.split(" | ")[0][2:] in VERDICTS}
    assert set(rows) == set(VERDICTS) and len(VERDICTS) == 6 and "one of six verdicts" in page
    assert "released" not in rows[INCONCLUSIVE] and "both answers" in rows[INCONCLUSIVE]
    assert "never released" in rows[UNRELEASED] and '"not released:"' in rows[UNRELEASED]
    # values printed only in a figure are not "data not released": a row of their own, and the sources' table names
    # the source of a claim on which nothing was checked
    assert "figure" not in rows[UNRELEASED] and '"values only in a figure:"' in rows[FIGURE_ONLY_VERDICT]
    assert f"| {V.NOTHING_CHECKED} |" in page and V.NOTHING_CHECKED in V.SOURCES
    assert "reproduced only when\nevery part is" in page or "reproduced only when every part is" in " ".join(page.split())
    glossary = (root / "glossary.md").read_text(encoding="utf-8").split("\nverdict\n", 1)[1].split("\n\n", 1)[0]
    assert all(f"*{v}*" in " ".join(glossary.split()) for v in VERDICTS)


def test_an_absent_effect_needs_its_interval_inside_the_margin():
    """book/verdicts.md: an absence claim is reproduced only by an equivalence test; an interval that merely holds 0
    is inconclusive, and it is not reproduced only when significant and at least the margin."""
    assert absent(0.01, (-0.05, 0.07), 0.1) is True
    assert absent(-0.078, (-0.214, 0.061), 0.1) is None  # no effect found, but none ruled out: inconclusive
    assert absent(0.3, (0.17, 0.42), 0.1) is False  # significant and above the margin
    assert absent(0.06, (0.01, 0.11), 0.1) is None  # significant but smaller than the margin
    assert absent(float("nan"), (-0.1, 0.1), 0.1) is None


def test_the_prose_states_the_second_judges_kappa_threshold_the_code_uses():
    """The κ a second judge needs to corroborate a length-biased one (MIN_CHECK_KAPPA) is typed in three places of
    prose: each must say the value the rule uses."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    k = f"{V.MIN_CHECK_KAPPA:g}"
    assert f"κ of {k} or more" in (root / "book" / "verdicts.md").read_text(encoding="utf-8")
    assert f"Cohen's kappa {k} or more" in (root / "notebooks" / "long2rag.md").read_text(encoding="utf-8")
    assert f"(κ ≥ {k})" in (root / "notebooks" / "synthesis.md").read_text(encoding="utf-8")


def test_the_glossary_defines_the_short_names_claims_use_and_the_intervals_the_code_gives():
    """The claims' short names (the thesis's CTX1/CTX2, Long²RAG's KPP, AutoDS, FPR, IAA) have glossary entries, and
    the glossary's ci_low says what book/verdicts.md and the code do: Wilson for a share on its own, the exact
    interval for the needle's miss rates and the quickstart's accuracy table."""
    import re
    from pathlib import Path

    glossary = (Path(__file__).resolve().parents[2] / "book" / "glossary.md").read_text(encoding="utf-8")
    terms = set(re.findall(r"^(\S[^\n]*)$", glossary, flags=re.M))
    assert {"CTX1", "CTX2", "KPP", "AutoDS", "FPR", "IAA"} <= terms
    ci = " ".join(glossary.split("\nci_high\n", 1)[1].split("\n\n", 1)[0].split())
    assert "the Wilson score interval" in ci and "needle's miss rates and the quickstart's accuracy table" in ci
    assert "(k of n, the quickstart's accuracy table) the exact" not in ci
