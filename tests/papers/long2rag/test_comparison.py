"""Long²RAG in the synthesis (lcrag.papers.long2rag.comparison): the headline comparison is read as claim C12 reads
the truncations (a cut down to the floor is the effect measured), and the whole-document arm says what it held."""

from __future__ import annotations

import pandas as pd
import pytest
from synthesis_runs import SMOL, long2rag_tables, write_book_runs, write_run

from lcrag import synthesis as S
from lcrag.book.claims import ClaimsLedger
from lcrag.papers.long2rag import claims as long2rag_claims
from lcrag.papers.long2rag import comparison, trend_claims
from lcrag.synthesis.family import ABOVE_FLOOR

#: What C12's verdict says, as the headline's reading (whole − truncated, paired over questions).
C12_READING = {"reproduced": "whole better", "inconclusive": "no clear difference",
               "not testable with this model": S.NOT_TESTABLE}


def _responses(recalls: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"judge": "j", "variant": v, "question_id": f"q{i}", "recall": r, "model": "m",
                          "source": "run"} for v, rs in recalls.items() for i, r in enumerate(rs)])


def _headline_and_c12(recalls: dict[str, list[float]]) -> tuple[pd.Series, str]:
    per = _responses(recalls)
    rows = comparison.comparisons(per, {"m": "j"}, n_boot=500)
    syn = S.Synthesis(runs=pd.DataFrame(columns=list(S.RUN_COLUMNS)), tables={},
                      comparisons=pd.DataFrame(rows, columns=list(S.COMPARISON_COLUMNS)), families=[comparison.FAMILY])
    ledger = ClaimsLedger("long2rag", paper="long2rag", model="m")
    long2rag_claims.run_claims(ledger, per.drop(columns=["model", "source"]), "j", n_boot=500)
    return S.headline(syn).iloc[0], ledger.table().set_index("claim_id").loc["C12", "verdict"]


WHOLE = [0.6, 0.7, 0.8, 0.9, 0.6, 0.7, 0.8, 0.9]
LOWER = [0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2]  # clearly below the whole documents
SAME = [0.6, 0.8, 0.8, 0.8, 0.5, 0.7, 0.9, 0.9]  # no clear difference
HIGHER = [0.95, 1.0, 0.95, 1.0, 0.95, 1.0, 0.95, 1.0]  # clearly above


@pytest.mark.parametrize("cuts, arm", [
    ({"trunc512": LOWER, "trunc1024": LOWER, "trunc2048": LOWER}, "trunc2048"),  # every cut lowers: the mildest
    ({"trunc512": LOWER, "trunc1024": SAME, "trunc2048": SAME}, "trunc2048"),  # the book's run: only 512 decides
    ({"trunc512": SAME, "trunc1024": LOWER, "trunc2048": LOWER}, "trunc512"),  # a harsh cut undecided: that one
    ({"trunc512": LOWER, "trunc1024": SAME, "trunc2048": HIGHER}, "trunc2048"),  # a cut that raises KPR
])
def test_the_headline_reads_the_truncations_as_claim_c12_does(cuts, arm):
    """Whole documents are "better" in the headline only when C12 (every truncation lowers KPR) is reproduced;
    never by the harshest cut alone (the old headline, whole − trunc512)."""
    head, verdict = _headline_and_c12({"none": WHOLE, **cuts})
    assert head["other_arm"] == arm
    assert head["reading"] == C12_READING.get(verdict, f"{arm} better"), (verdict, head["reading"])


def test_whole_documents_at_the_floor_make_c12_not_testable_and_a_cut_clearly_above_them_decides_the_headline():
    """C12 ("truncating lowers KPR") needs the whole documents above the floor. The synthesis reads one arm at the
    floor as it does for the thesis and the needle (book/verdicts.md): a cut itself above the floor and clearly
    above whole documents at the floor shows that this model does the task from the cut documents; a cut at the
    floor too decides nothing, even when clearly above them (SmolLM2-135M's trunc2048: 3.2 points against 0.6)."""
    head, verdict = _headline_and_c12({"none": [0.0] * 8, "trunc512": [0.0] * 8, "trunc2048": LOWER})
    assert verdict == S.NOT_TESTABLE
    assert (head["other_arm"], head["reading"]) == ("trunc2048", "trunc2048 better")
    assert ABOVE_FLOOR in head["evidence"] and "whole (mean KPR): 0.0 points" in head["evidence"]
    rows = comparison.comparisons(_responses({"none": [0.0] * 8, "trunc512": [0.0] * 8, "trunc2048": LOWER}),
                                  {"m": "j"}, n_boot=200)
    assert [r["reading"] for r in rows] == ["trunc2048 better", S.NOT_TESTABLE]  # trunc512: both at the floor
    head, verdict = _headline_and_c12({"none": [0.0] * 8, "trunc512": [0.0] * 8, "trunc2048": [0.0] * 8})
    assert verdict == head["reading"] == S.NOT_TESTABLE
    low = [0.03, 0.04, 0.02, 0.03, 0.04, 0.03, 0.02, 0.03]  # clearly above 0, but at the floor itself (3 points)
    (row,) = comparison.comparisons(_responses({"none": [0.0] * 8, "trunc2048": low}), {"m": "j"}, n_boot=200)
    assert row["ci_high"] < 0  # whole − trunc2048: the cut is clearly above the whole documents
    assert row["reading"] == S.NOT_TESTABLE and "trunc2048 (mean KPR): 3.0 points, below 5" in row["evidence"]


def test_the_comparisons_come_least_severe_cut_first_and_the_family_states_its_rule():
    rows = comparison.comparisons(_responses({"none": WHOLE, "trunc512": LOWER, "trunc2048": LOWER,
                                              "trunc1024": LOWER}), {"m": "j"}, n_boot=200)
    assert [r["other_arm"] for r in rows] == ["trunc2048", "trunc1024", "trunc512"]
    # a cut down to the floor is the effect measured, so the row is read, and the floored cut is named
    (row,) = comparison.comparisons(_responses({"none": WHOLE, "trunc512": [0.03] * 8}), {"m": "j"}, n_boot=200)
    assert row["reading"] == "whole better"
    assert row["evidence"].endswith("; the cut at the floor (trunc512 (mean KPR): 3.0 points, below 5): a cut down "
                                    "to it is the effect measured")
    assert "at the floor" not in rows[0]["evidence"]  # LOWER is at 15 points: above the floor
    f = comparison.FAMILY
    assert f.headline_pick is comparison.headline and "C12" in f.headline_rule
    assert f.wins == ("whole documents beat truncated ones", "truncated documents beat whole ones")


def test_the_whole_documents_arm_says_whether_it_was_cut_to_the_window(tmp_path):
    runs = []
    for model, cut in (("a", 0), ("b", 3)):
        d = tmp_path / model
        d.mkdir()
        pd.DataFrame([{"variant": "none", "responses": 20, "documents_cut": cut, "mean_input_tokens": 5000.0},
                      {"variant": "trunc512", "responses": 20, "documents_cut": 0, "mean_input_tokens": 500.0}]
                     ).to_csv(d / "context_policy.csv", index=False)
        runs.append({"chapter": "long2rag", "model": model, "slug": model, "profile": "default",
                     "finished": "2026-01-01", "book": True, "run_dir": d})
    context = comparison.whole_context(pd.DataFrame(runs, columns=list(S.RUN_COLUMNS)))
    assert context == {"a": "whole documents", "b": "cut to the window in 3 of 20 responses"}
    rows = comparison.comparisons(_responses({"none": WHOLE, "trunc512": LOWER}), {"m": "j"}, n_boot=100,
                                  context={"m": "whole documents"})
    assert rows[0]["long_context"] == "whole documents"


def test_the_judge_note_says_the_judge_was_chosen_on_the_fit_half_and_reports_the_held_out_kappa():
    """The synthesis said "best held-out kappa with the humans", but the judge is chosen on the sample's fit half
    (judges.trusted_judge); the held-out kappa is only reported. Here the held-out half would pick the other."""
    agree = pd.DataFrame({"judge": ["lexical", "lexical", "llm", "llm"],
                          "half": ["sample fit", "sample held-out"] * 2, "n": [99, 101, 99, 101],
                          "kappa": [0.585, 0.2, 0.348, 0.5]})
    note = comparison.judge_note(agree, "lexical", ["lexical", "llm"])
    assert note == ("best agreement with the human labels on the judged sample's half used to choose the judge (99 "
                    "pairs), Cohen's kappa 0.585, 0.200 on its held-out half (101 pairs)")
    assert comparison.judge_note(agree.assign(n=5), "lexical", ["lexical", "llm"]) == (
        "by default: no judge measured on the judged sample's fit half")
    rows = comparison.comparisons(_responses({"none": WHOLE, "trunc512": LOWER}), {"m": "j"}, n_boot=100,
                                  notes={"m": note})
    assert rows[0]["evidence"].endswith(f"judge j ({note})")
    rows = comparison.comparisons(_responses({"none": WHOLE, "trunc512": LOWER}), {"m": "j"}, n_boot=100)
    assert "held-out kappa with" not in rows[0]["evidence"] and comparison.RULE in rows[0]["evidence"]


def test_a_row_the_lexical_judge_decides_for_the_longer_answers_needs_a_second_judge_as_c12_does():
    """The synthesis reads the whole-vs-truncated rows as claim C12 reads its pairs (trend_claims.lexical_pair):
    with the lexical judge, whole documents "better" where their answers are longer stands only where a second
    judge with kappa >= 0.4 agrees; otherwise the row reads S.UNCORROBORATED and says why."""
    per = pd.concat([_responses({"none": WHOLE, "trunc512": LOWER}).assign(judge="lexical"),
                     _responses({"none": WHOLE, "trunc512": LOWER}).assign(judge="llm")], ignore_index=True)
    lengths = pd.DataFrame([{"model": "m", "question_id": f"q{i}", "variant": v, "completion_tokens": n}
                            for v, n in (("none", 169), ("trunc512", 146)) for i in range(8)])
    (row,) = comparison.comparisons(per, {"m": "lexical"}, n_boot=200, lengths=lengths,
                                    held_out={"m": {"llm": 0.24}})
    assert row["reading"] == S.UNCORROBORATED
    assert ("not corroborated: whole's answers are longer (mean 169.0 vs 146.0 tokens), which the lexical judge "
            "favours; the llm judge agrees with the humans too weakly") in row["evidence"]
    (row,) = comparison.comparisons(per, {"m": "lexical"}, n_boot=200, lengths=lengths, held_out={"m": {"llm": 0.5}})
    assert row["reading"] == "whole better" and "corroborated: whole's answers are longer" in row["evidence"]
    assert f"{S.family.UNCORROBORATED_NOTE}" == f"{trend_claims.UNCORROBORATED}: "  # the reason's prefix, read back
    (row,) = comparison.comparisons(per, {"m": "lexical"}, n_boot=200, lengths=lengths.iloc[:0], held_out={})
    assert row["reading"] == S.UNCORROBORATED and "the run saved no answer lengths" in row["evidence"]
    shorter = lengths.assign(completion_tokens=[100] * 8 + [146] * 8)
    (row,) = comparison.comparisons(per, {"m": "lexical"}, n_boot=200, lengths=shorter, held_out={"m": {}})
    assert row["reading"] == "whole better" and "corroborated" not in row["evidence"]


def test_truncating_to_the_floor_is_the_long2rag_effect_not_a_floor(tmp_path):
    """Long²RAG compares whole documents with truncated ones (the claim: truncating lowers KPR): a truncated arm at
    the floor is the effect measured; only whole documents at the floor make it not testable (book/verdicts.md)."""
    book_runs = write_book_runs(tmp_path)
    tables = long2rag_tables()
    j = tables["judgments"]
    j.loc[j["variant"] == "trunc512", "value"] = j.loc[j["variant"] == "trunc512", "value"] * 0.0
    write_run(book_runs, "long2rag", SMOL, tables)
    row = S.synthesize(book_runs, n_boot=200).comparisons.set_index("family").loc["long2rag"]
    assert row["other_value"] == 0.0 and row["reading"] == "whole better"
    j.loc[j["variant"] == "none", "value"] = j.loc[j["variant"] == "none", "value"] * 0.0
    write_run(book_runs, "long2rag", SMOL, tables)
    row = S.synthesize(book_runs, n_boot=200).comparisons.set_index("family").loc["long2rag"]
    assert row["reading"] == S.NOT_TESTABLE and "whole (mean KPR): 0.0 points, below 5" in row["evidence"]
