"""Long²RAG's judges (lcrag.papers.long2rag.judges): the lexical judge, its calibration, the trusted judge."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.data.summhay import load_eval_benchmark
from lcrag.papers.long2rag import judges


def test_lexical_calibration_on_summhay_labels(mirror):
    bench = load_eval_benchmark(mirror / "summhay" / "eval_benchmark_data.json")
    pairs = judges.benchmark_pairs(bench)
    assert len(pairs) == 1419 and pairs["human"].sum() == 567  # fully_covered labels
    t, agreement = judges.calibrate(pairs)
    held = agreement.set_index("half").loc["held-out"]
    assert 0 < t < 1
    assert held["accuracy"] > 0.7 and held["kappa"] > 0.4  # a useful judge, measured on unseen records
    s = judges.sample_pairs(pairs, 6, seed=0)
    assert len(s) == 6 and s["human"].sum() == 3 and (s["half"] == "held-out").all()


def test_judge_lexical_on_handmade_pairs():
    pairs = pd.DataFrame({"question_id": ["q", "q"], "variant": ["none", "none"],
                          "key_point": ["Sea levels rise by 70 metres.", "Agriculture shifts poleward."],
                          "response": ["Oceans: sea levels rise by 70 metres. Cities move.", "Cities move."]})
    j = judges.judge_lexical(pairs, 0.5)
    assert list(j["value"]) == [1.0, 0.0] and (j["judge"] == "lexical").all()


def test_trusted_judge_is_the_best_held_out_kappa_among_judges_with_enough_pairs():
    agree = pd.DataFrame({"judge": ["lexical", "lexical", "m", "m+words"], "half": ["fit", "held-out"] * 2,
                          "n": [700, 706, 40, 40], "kappa": [0.9, 0.57, 0.05, 0.6]})
    # held-out only: m has none, m+words not asked
    assert judges.trusted_judge(agree, ["lexical", "m"]) == "lexical"
    assert judges.trusted_judge(agree, ["lexical", "m+words"]) == "m+words"
    no_kappa = agree[agree["judge"] != "lexical"]
    assert judges.trusted_judge(no_kappa, ["lexical", "m"]) == "lexical"  # no kappa: sorted
    few = agree.assign(n=[700, 706, 40, 4], kappa=[0.9, 0.57, 0.05, 1.0])  # kappa 1.0 on 4 pairs decides nothing
    assert judges.trusted_judge(few, ["lexical", "m+words"]) == "lexical"
    with pytest.raises(ValueError):
        judges.trusted_judge(agree, [])


class _NoCalls:
    """A judge model that must not be asked (the trusted lexical judge makes no call)."""

    spec = "local/qwen2.5-coder-1.5b-instruct"

    def map(self, *args, **kwargs):
        raise AssertionError("a judge call")


def test_answers_are_judged_by_both_judges_or_only_the_trusted_one():
    agree = pd.DataFrame({"judge": ["lexical", _NoCalls.spec], "half": ["held-out"] * 2, "n": [706, 200],
                          "kappa": [0.57, 0.29]})
    pairs = pd.DataFrame({"question_id": ["q", "q"], "variant": ["none", "none"], "key_point_id": [0, 1],
                          "key_point": ["The cat sat on the mat.", "Dogs bark loudly at night."],
                          "response": ["Yesterday the cat sat on the mat.", "Nothing about animals."]})
    trusted = judges.judge_answers(_NoCalls(), pairs, 0.5, agree, "trusted")
    assert list(trusted["judge"]) == ["lexical", "lexical"] and list(trusted["value"]) == [1.0, 0.0]
    for which, llm_kappa in (("both", 0.29), ("trusted", 0.8)):  # both judges, or the LLM trusted: it is asked
        with pytest.raises(AssertionError, match="a judge call"):
            judges.judge_answers(_NoCalls(), pairs, 0.5, agree.assign(kappa=[0.57, llm_kappa]), which)
    with pytest.raises(ValueError, match="judge_answers must be one of"):
        judges.judge_answers(_NoCalls(), pairs, 0.5, agree, "all")


def test_the_judges_rank_agreement_is_one_row_naming_both_judges():
    kpr = pd.DataFrame({"variant": ["a", "b", "c"] * 2, "judge": ["lexical"] * 3 + ["llm"] * 3,
                        "kpr": [0.1, 0.2, 0.3, 0.2, 0.4, 0.5]})
    table = judges.rank_agreement_table(judges.judge_rank_agreement(kpr))
    assert len(table) == 1 and table.loc[0, "judges"] == "lexical, llm"
    assert table.loc[0, "spearman"] == pytest.approx(1.0) and table.loc[0, "n_systems"] == 3
    lexical_only = kpr[kpr["judge"] == "lexical"]  # judge_answers="trusted": nothing to compare, an empty table
    assert judges.judge_rank_agreement(lexical_only) is None and judges.rank_agreement_table(None).empty
