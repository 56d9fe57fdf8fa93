"""Long²RAG's judges (lcrag.papers.long2rag.judges): the lexical judge, its calibration, the trusted judge."""

from __future__ import annotations

import math

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


def test_trusted_judge_is_chosen_on_the_samples_fit_half_among_judges_with_enough_pairs():
    fit, held = judges.SAMPLE_FIT, judges.SAMPLE_HELD_OUT
    agree = pd.DataFrame({"judge": ["lexical"] * 3 + ["m"] * 2 + ["m+words"] * 2,
                          "half": ["held-out", fit, held, fit, held, fit, held],
                          "n": [706, 99, 101, 99, 101, 99, 101], "kappa": [0.9, 0.58, 0.62, 0.35, 0.7, 0.6, 0.1]})
    # chosen on the sample's fit half: not on the benchmark's held-out half (lexical 0.9 there), nor on the
    # sample's held-out half, where the choice is reported (m 0.7 there)
    assert judges.trusted_judge(agree, ["lexical", "m"]) == "lexical"
    assert judges.trusted_judge(agree, ["lexical", "m+words"]) == "m+words"
    no_sample = agree[agree["half"] == "held-out"]  # no LLM judge sample: the lexical judge, measured without calls
    assert judges.trusted_judge(no_sample, ["m", "lexical"]) == "lexical"
    assert judges.trusted_judge(no_sample, ["m", "a"]) == "a"  # no lexical judge either: sorted
    few = agree.assign(n=[706, 99, 101, 99, 101, 4, 4], kappa=[0.9, 0.58, 0.62, 0.35, 0.7, 1.0, 1.0])
    assert judges.trusted_judge(few, ["lexical", "m+words"]) == "lexical"  # kappa 1.0 on 4 pairs decides nothing
    with pytest.raises(ValueError):
        judges.trusted_judge(agree, [])
    said = judges.judge_choice(agree, ["lexical", "m"])
    assert said.startswith("The claims' judge is lexical, the best on the sample's fit half (lexical: kappa 0.580 "
                           "on 99 pairs; m: kappa 0.350 on 99 pairs); on its held-out half, lexical: kappa 0.620")
    assert "by default" in judges.judge_choice(no_sample, ["lexical", "m"])


def test_the_judged_sample_is_split_by_record_and_every_judge_is_measured_on_both_halves(mirror):
    bench = load_eval_benchmark(mirror / "summhay" / "eval_benchmark_data.json")
    pairs = judges.benchmark_pairs(bench)
    sample = judges.sample_pairs(pairs, 60, seed=0)
    lexical = judges.judge_lexical(sample, 0.375)
    halves = judges.sample_halves(lexical)
    assert list(halves["half"]) == [judges.SAMPLE_FIT, judges.SAMPLE_HELD_OUT] and halves["n"].sum() == 60
    fit = lexical[(lexical["record"] // 2) % 2 == 0]  # records 1, 5, 9, ... (the sample is from odd records)
    assert halves.loc[0, "n"] == len(fit) and halves.loc[0, "accuracy"] == pytest.approx(
        (fit["value"] == fit["human"]).mean())
    assert set(fit["record"] % 4) == {1}


class _NoCalls:
    """A judge model that must not be asked (the trusted lexical judge makes no call)."""

    spec = "local/qwen2.5-coder-1.5b-instruct"

    def map(self, *args, **kwargs):
        raise AssertionError("a judge call")


def test_answers_are_judged_by_both_judges_or_only_the_trusted_one():
    agree = pd.DataFrame({"judge": ["lexical", _NoCalls.spec], "half": [judges.SAMPLE_FIT] * 2, "n": [99, 99],
                          "kappa": [0.58, 0.35]})
    pairs = pd.DataFrame({"question_id": ["q", "q"], "variant": ["none", "none"], "key_point_id": [0, 1],
                          "key_point": ["The cat sat on the mat.", "Dogs bark loudly at night."],
                          "response": ["Yesterday the cat sat on the mat.", "Nothing about animals."]})
    trusted = judges.judge_answers(_NoCalls(), pairs, 0.5, agree, "trusted")
    assert list(trusted["judge"]) == ["lexical", "lexical"] and list(trusted["value"]) == [1.0, 0.0]
    for which, llm_kappa in (("both", 0.35), ("trusted", 0.8)):  # both judges, or the LLM trusted: it is asked
        with pytest.raises(AssertionError, match="a judge call"):
            judges.judge_answers(_NoCalls(), pairs, 0.5, agree.assign(kappa=[0.58, llm_kappa]), which)
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


def test_reparse_reads_the_same_answers_with_another_parser():
    judged = pd.DataFrame({"raw": ["[yes]", "I cannot tell", "[no]"], "judge": ["llm", "llm", "llm"]})
    again = judges.reparse(judged, "strict")  # an unparseable answer among parsed ones (the quick profile's case)
    assert again["value"].tolist()[::2] == [1.0, 0.0] and math.isnan(again["value"].iloc[1])


def test_a_judge_that_read_one_half_has_no_all_row_and_the_parse_modes_are_compared():
    """The P6 judge reads a sample of the held-out half only: an "all" row would repeat that half's (the book's 1.5B
    run showed both, identical); a judge that read both halves keeps it. The three readings of the answers are
    compared in a sentence, so that identical rows are said to be so."""
    judged = pd.DataFrame({"raw": ["[yes] it is", "[no]", "[neutral]", "[yes]"], "human": [1, 0, 0, 0],
                           "half": "held-out", "record": [1, 3, 5, 7], "judge": "llm"})
    judged["value"] = judges.reparse(judged, "default")["value"]
    assert list(judges.llm_agreement(judged)["half"]) == ["held-out"]
    both = judged.assign(half=["fit", "held-out", "fit", "held-out"])
    assert list(judges.llm_agreement(both)["half"]) == ["fit", "held-out", "all"]
    said = judges.parse_modes_sentence(judged)
    assert said.startswith("The P6 judge read only these 4 pairs (held-out half)")
    assert said.endswith("give the same label to every one of the 4 answers (unparseable: strict 0, default 0, "
                         "words 0), so their rows are identical: the parse mode (`parse`) changes nothing on these "
                         "answers.")
    words = judged.assign(raw=["[yes]", "The document does not entail the claim.", "[no]", "[yes]"])
    assert "differ on 1 of the 4 answers (unparseable: strict 1, default 1, words 0)" in (
        judges.parse_modes_sentence(words))
    assert judges.parse_modes_sentence(None) == ""


def test_section_5_warns_that_our_llm_judges_kpr_is_not_comparable_with_gpt4os():
    """The paper's Table 2 (GPT-4o whole 0.579) is printed above our LLM judge's row; a judge that says yes far
    more often than the humans inflates KPR, and the note beside the tables says so from the run's numbers."""
    agreement = pd.DataFrame([
        {"judge": "lexical", "half": "held-out", "n": 706, "kappa": 0.574, "judge_yes_rate": 0.493,
         "human_yes_rate": 0.408},
        {"judge": "llm", "half": "held-out", "n": 200, "kappa": 0.29, "judge_yes_rate": 0.815, "human_yes_rate": 0.5},
        {"judge": "llm", "half": judges.SAMPLE_HELD_OUT, "n": 101, "kappa": 0.2398, "judge_yes_rate": 0.81,
         "human_yes_rate": 0.45}])
    ours = pd.DataFrame({"none": [0.190, 0.685], "trunc512": [0.071, 0.514]}, index=["lexical", "llm"])
    note = judges.table2_note(agreement, ours)
    assert note.startswith("**The two tables are not comparable.**")
    assert ("the llm judge says yes to 81.5 % of the 200 human-labelled benchmark pairs it read, the humans to 50.0 % "
            "(Cohen's kappa 0.290; 0.240 on the judged sample's held-out half): a judge that says yes this readily "
            "inflates KPR, so its 0.685 with whole documents, above GPT-4o's 0.579 in the paper's table, is no "
            "evidence that our generator beats GPT-4o") in note
    modest = judges.table2_note(agreement, ours.assign(none=[0.19, 0.5]))
    assert "says yes to 81.5 %" in modest and "beats GPT-4o" not in modest  # below GPT-4o: nothing to warn of
    assert judges.table2_note(agreement[agreement["judge"] == "lexical"], ours.loc[["lexical"]]) == ""


def test_the_judged_examples_read_as_a_table_without_escapes():
    """§2 printed the judge's first answers as a pandas string with literal ``\\n`` escapes and "..." cuts."""
    judged = pd.DataFrame({"key_point": ["The doctor informs the patient that the lab results will take about "
                                         "three to five business days to come back."] * 2,
                           "human": [0, 1], "label": ["neutral", None],
                           "raw": ['[neutral]\n\nThe claim "The doctor informs the patient"', "I cannot say."]})
    shown = judges.judged_examples(judged, n=4, width=40)
    assert list(shown.columns) == ["key_point", "human", "judge_label", "judge_answer"]
    assert shown["key_point"].tolist() == ["The doctor informs the patient that the…"] * 2
    assert shown["judge_answer"].tolist() == ['[neutral] The claim "The doctor informs…', "I cannot say."]
    assert shown["judge_label"].tolist() == ["neutral", "unparseable"]
    assert "\\n" not in shown.to_html()
