"""SummHay's claims on our runs (lcrag.papers.summhay.live_claims): each names the model whose outputs decide it."""

from __future__ import annotations

import pandas as pd

from lcrag.book.claims_page import summary_markdown
from lcrag.book.findings import claims_sentences
from lcrag.papers.summhay import live_claims

SMOL = "local/smollm2-135m-instruct"
QWEN = "local/qwen2.5-coder-1.5b-instruct"


def _ledger(judge_specs: dict[str, str] | None = None):
    live = pd.DataFrame([{"judge": "lexical", "kind": "retrieval", "setting": s, "joint": j, "coverage": 40.0,
                          "citation": 50.0} for s, j in (("oracle", 0.0), ("keywords", 0.4))])
    judges = pd.DataFrame([("llm:qwen2.5-coder-1.5b-instruct", "fit", 0.10, 713),
                           ("llm:qwen2.5-coder-1.5b-instruct", "held-out", 0.076, 706),
                           ("gpt-4o", "fit", 0.71, 713), ("gpt-4o", "held-out", 0.721, 706)],
                          columns=["evaluator", "half", "cov_corr", "n_insights"]).assign(judge="ours (LLM)")
    ceilings = pd.DataFrame([{"haystack": "all", "ceiling_f1": 0.887, "insights": 621, "budget_tokens": 15000,
                              "tokenizer": "SmolLM2-135M-Instruct.Q4_1.gguf"}])
    return live_claims.live_ledger(SMOL, live=live, position=pd.DataFrame(), ceilings=ceilings, judges=judges,
                                   n_subtopics=9, haystacks=["news3"], budget=7168, judge_specs=judge_specs)


def test_each_claim_names_the_model_whose_outputs_decide_it():
    t = _ledger({"llm:qwen2.5-coder-1.5b-instruct": QWEN}).table().set_index("claim_id")
    # the summarizer's live claims: its spec as every chapter spells it (no second spelling in the model filter)
    assert set(t.loc[["C1", "C4"], "model"]) == {SMOL} and set(t.loc[["C1", "C4"], "source"]) == {"our run"}
    # C15 is decided by the 1.5B's labels of the released summaries, not by the summarizer
    # the claim is GPT-4o's: the 1.5B's agreement is measured (to choose our judge), not a test of it
    assert t.loc["C15", ["model", "source", "verdict"]].tolist() == [QWEN, "our run", "not testable with this model"]
    assert t.loc["C15", "evidence"].startswith(f"{QWEN} judging the released summaries")
    assert "not testable: the paper's claim is about GPT-4o as the judge" in t.loc["C15", "evidence"]
    # C18 counts tokens: no model; with another tokenizer than the paper's, not testable
    assert t.loc["C18", ["model", "source", "verdict"]].tolist() == ["no model", "no model",
                                                                      "not testable with this model"]
    assert "tokens counted in SmolLM2-135M-Instruct.Q4_1.gguf" in t.loc["C18", "evidence"]
    assert "the released code's tokenizer (cl100k_base), which could not be loaded" in t.loc["C18", "evidence"]


def test_c18_in_the_papers_tokenizer_is_decided_and_names_the_mean_recall():
    """With cl100k_base (lcrag.papers.summhay.dataset_shape.paper_tokenizer) the ceiling is the paper's quantity: a
    verdict, no model; the first pooled row (the paper's budget and tokenizer) decides, not the run's own."""
    def ledger(f1: float):
        rows = [{"haystack": "all", "ceiling_f1": f1, "ceiling_recall": 0.839, "insights": 621,
                 "budget_tokens": 15000, "tokenizer": "tiktoken:cl100k_base"},
                {"haystack": "all", "ceiling_f1": 0.5, "ceiling_recall": 0.4, "insights": 621,
                 "budget_tokens": 7168, "tokenizer": "SmolLM2-135M-Instruct.Q4_1.gguf"}]
        live = pd.DataFrame([{"judge": "lexical", "kind": "retrieval", "setting": "oracle", "joint": 0.0,
                              "coverage": 40.0, "citation": 50.0}])
        return live_claims.live_ledger(SMOL, live=live, position=pd.DataFrame(), ceilings=pd.DataFrame(rows),
                                       judges=None, n_subtopics=9, haystacks=["news3"],
                                       budget=7168).table().set_index("claim_id").loc["C18"]

    far, near = ledger(0.905), ledger(0.85)
    # the verdict is on the claim as printed (citation F1); the recall the paper's number matches is in our value
    assert (far["verdict"], far["our_value"]) == (
        "not reproduced", "0.905 as citation F1, the score the paper names; 0.839 as mean citation recall, which "
        "matches the paper's value (within the claim's tolerance), though the paper calls it F1")
    assert near["verdict"] == "reproduced" and far["source"] == "no model"
    assert "counted in tiktoken:cl100k_base" in far["evidence"]
    assert "the verdict is on the claim as printed, citation F1" in far["evidence"]
    # why the match with recall is not credited: the paper's own definitions make the number an F1 (§4, §6)
    assert ("it is not credited as recall: the paper defines its Citation Score as the F1 of citation precision and "
            "recall (§4) and calls this ceiling F1 (§6, Model Choice)") in far["evidence"]
    # the chapter's "What we found" names it with both values, so "1 not reproduced" is not read as a wrong ceiling
    text = " ".join(claims_sentences(far.to_frame().T.reset_index(names="claim_id")))
    assert "C18 is not reproduced as the paper states it: the paper's 0.84, ours 0.905 as citation F1" in text
    assert "0.839 as mean citation recall, which matches the paper's value" in text


def test_c14_without_position_runs_is_not_testable_and_says_why():
    """No position run (the companion profile's ``position_orders: []``): C14 is recorded as not testable, with
    the reason, not left out of the ledger."""
    c14 = _ledger().table().set_index("claim_id").loc["C14"]
    assert c14["verdict"] == "not testable with this model" and c14["our_value"] == "not run"
    assert c14["evidence"].endswith("not run: a position run (its position_orders are empty)")


def test_without_the_judges_specs_c15_names_the_judges_evaluator():
    t = _ledger().table().set_index("claim_id")
    assert t.loc["C15", "model"] == "llm:qwen2.5-coder-1.5b-instruct"


def test_what_we_found_counts_each_model_apart_and_no_model_claims_not_as_behaviour():
    claims = _ledger({"llm:qwen2.5-coder-1.5b-instruct": QWEN}).table()
    text = " ".join(claims_sentences(claims))
    assert "checked on our run with SmolLM2-135M-Instruct, 3 in all: 3 not testable with this model." in text
    assert "checked on our run with Qwen2.5-Coder-1.5B-Instruct, 1 in all: 1 not testable with this model." in text
    assert ("call no language model (not about a language model's behaviour), 1 in all: 1 not testable with this "
            "model.") in text


def test_the_claims_page_counts_the_no_model_source_and_lists_each_model_once():
    md = summary_markdown(_ledger({"llm:qwen2.5-coder-1.5b-instruct": QWEN}).table())
    assert "| no model | 0 | 0 | 0 | 1 | 0 | 0 | 1 |" in md  # reproduced, not, inconclusive, not testable, figure, not released, rows
    models = md[md.index('id="claims-dashboard-model"'):].split("</select>")[0]
    assert models.count("smollm2") == 2  # one option: its value and its label
    assert '<option value="no model">' in models


def _live(coverage: dict[str, list[float]], citation: dict[str, list[float]] | None = None):
    """A live table and its per-summary table: one summary per subtopic and setting (lists over subtopics, 0-100);
    Joint is coverage x citation / 100 per summary, the live table pools each column's mean."""
    citation = citation or {s: [60.0] * len(v) for s, v in coverage.items()}
    per = pd.DataFrame([{"judge": "lexical", "decides": True, "kind": "retrieval", "setting": s, "haystack": "news1",
                         "subtopic_id": f"t{i}", "coverage": c, "citation": citation[s][i],
                         "joint": c * citation[s][i] / 100, "n_insights": 8}
                        for s, cs in coverage.items() for i, c in enumerate(cs)])
    live = per.groupby("setting", as_index=False)[["coverage", "citation", "joint"]].mean().assign(
        judge="lexical", kind="retrieval")
    return live, per


def _claims(live, per):
    ceilings = pd.DataFrame([{"haystack": "all", "ceiling_f1": 0.84, "insights": 621, "budget_tokens": 15000,
                              "tokenizer": "t"}])
    return live_claims.live_ledger(QWEN, live=live, position=pd.DataFrame(), ceilings=ceilings, judges=None,
                                   n_subtopics=len(per["subtopic_id"].unique()), haystacks=["news1"], budget=15000,
                                   per_summary=per).table().set_index("claim_id")


def test_claims_comparing_settings_are_decided_by_paired_intervals_over_subtopics():
    n = 9
    live, per = _live({"random": [20.0 + i % 3 for i in range(n)], "vector": [40.0 + i % 4 for i in range(n)],
                       "oracle": [50.0 + i % 2 for i in range(n)], "full": [35.0 + i % 5 for i in range(n)]},
                      citation={"random": [10.0 + i % 2 for i in range(n)], "vector": [30.0] * n,
                                "oracle": [40.0 + i % 3 for i in range(n)], "full": [25.0] * n})
    t = _claims(live, per)
    # every setting covers more than Random on every subtopic: the intervals exclude 0
    assert t.loc["C6", "verdict"] == "reproduced" and "vector − random +" in t.loc["C6", "our_value"]
    assert t.loc["C7", "verdict"] == "reproduced" and "oracle − random" in t.loc["C7", "our_value"]
    assert t.loc["C4", "verdict"] == "reproduced"  # Oracle's Joint above each other setting's, subtopic by subtopic
    assert t.loc["C1", "verdict"] == "reproduced" and "mean over subtopics" in t.loc["C1", "our_value"]
    assert "paired bootstrap 95 % intervals over the subtopics the settings share (9 in all" in t.loc["C6", "evidence"]


def test_claims_comparing_full_say_it_is_not_the_whole_haystack():
    """The live full setting is the haystack's first documents up to the retrievers' budget, not the paper's Full
    (the whole haystack): the evidence of the claims that compare settings says so, with its documents."""
    live, per = _live({"random": [20.0, 21.0], "oracle": [50.0, 51.0], "full": [35.0, 36.0]})
    t = _claims(live.assign(n_documents=[15.667, 15.0, 16.0]), per)
    said = ("full: the haystack's first 15.7 documents in stored order, cut at the same budget (not the whole "
            "haystack, the paper's Full)")
    assert all(said in t.loc[c, "evidence"] for c in ("C1", "C4", "C6"))
    assert "full:" not in _claims(*_live({"random": [20.0, 21.0], "oracle": [50.0, 51.0]})).loc["C6", "evidence"]


def test_a_lower_pooled_value_alone_decides_nothing():
    """Random lowest in the pooled Coverage, but not on every subtopic: the paired interval contains 0, so C6 is
    inconclusive (it was reproduced from the point values before); without per-summary scores it is too."""
    live, per = _live({"random": [30.0, 10.0, 50.0, 20.0], "vector": [20.0, 40.0, 30.0, 25.0],
                       "oracle": [60.0, 15.0, 45.0, 50.0]})
    assert live.set_index("setting")["coverage"].idxmin() == "random"
    assert _claims(live, per).loc["C6", "verdict"] == "inconclusive"
    no_per = live_claims.live_ledger(QWEN, live=live, position=pd.DataFrame(), ceilings=pd.DataFrame(
        [{"haystack": "all", "ceiling_f1": 0.84, "insights": 621, "budget_tokens": 15000, "tokenizer": "t"}]),
        judges=None, n_subtopics=4, haystacks=["news1"], budget=15000).table().set_index("claim_id")
    assert no_per.loc["C6", "verdict"] == "inconclusive"
    assert "per-summary scores of fewer than 2 subtopics: no interval" in no_per.loc["C6", "evidence"]


def test_a_setting_clearly_below_random_refutes_c6():
    n = 8
    live, per = _live({"random": [30.0 + i % 2 for i in range(n)], "vector": [10.0 + i % 3 for i in range(n)],
                       "oracle": [50.0] * n})
    assert _claims(live, per).loc["C6", "verdict"] == "not reproduced"


def _position_claim(joint_by_order: dict[str, list[float]]):
    per = pd.DataFrame([{"judge": "lexical", "decides": True, "kind": "position", "setting": f"pos-{o}",
                         "haystack": "news1", "subtopic_id": f"t{i}", "coverage": 50.0, "citation": 50.0,
                         "joint": j, "n_insights": 8} for o, js in joint_by_order.items() for i, j in enumerate(js)])
    pooled = {o: sum(js) / len(js) for o, js in joint_by_order.items()}
    position = pd.DataFrame([{**pooled, "sensitivity": max(abs(pooled[o] - pooled["random"]) for o in ("top", "bottom"))}])
    live, _ = _live({"random": [20.0, 21.0], "oracle": [40.0, 41.0]})
    ceilings = pd.DataFrame([{"haystack": "all", "ceiling_f1": 0.84, "insights": 621, "budget_tokens": 15000,
                              "tokenizer": "t"}])
    t = live_claims.live_ledger(QWEN, live=live, position=position, ceilings=ceilings, judges=None, n_subtopics=6,
                                haystacks=["news1"], budget=15000, per_summary=per).table().set_index("claim_id")
    return t.loc["C14"]


def test_position_sensitivity_is_decided_by_its_interval_over_subtopics():
    big = _position_claim({"random": [20, 22, 18, 21, 19, 20], "top": [40, 45, 38, 41, 44, 39],
                           "bottom": [21, 20, 19, 22, 18, 20]})
    assert big["verdict"] == "reproduced" and "over subtopics" in big["our_value"]
    small = _position_claim({"random": [20, 22, 18, 21, 19, 20], "top": [21, 22, 19, 21, 20, 21],
                             "bottom": [20, 21, 18, 22, 19, 20]})
    assert small["verdict"] == "not reproduced"  # the whole interval below 9 points
    noisy = _position_claim({"random": [20, 22, 18, 21, 19, 20], "top": [10, 40, 15, 35, 12, 38],
                             "bottom": [20, 21, 18, 22, 19, 20]})
    assert noisy["verdict"] == "inconclusive"


def test_settings_equal_on_every_subtopic_get_the_exact_interval_and_a_sentence_saying_so():
    """The book's 1.5B run: Oracle, vector, keywords and full all score 0 Joint on each of 9 subtopics, and C4 shows
    "oracle − vector +0.0 [-33.6, +33.6]": not a bootstrap's interval (nothing varies) but the exact one for none
    of 9 subtopics differing (1 − 0.025^(1/9) of the range each way). Where no subtopic favours one setting but
    some favour the other (the run's "oracle − random -0.2 [-0.9, +33.6]"), only that side's bound is the exact
    one. The sentence under the ledger names both kinds with their bound."""
    n = 9
    live, per = _live({"random": [20.0 + i % 3 for i in range(n)], "vector": [40.0] * n, "oracle": [50.0] * n},
                      citation={"random": [10.0 if i == 0 else 0.0 for i in range(n)], "vector": [0.0] * n,
                                "oracle": [0.0] * n})
    t = _claims(live, per)
    assert "oracle − vector +0.0 [-33.6, +33.6]" in t.loc["C4", "our_value"]
    assert "oracle − random " in t.loc["C4", "our_value"] and ", +33.6]" in t.loc["C4", "our_value"]
    said = live_claims.equal_settings_sentence(live, per)
    assert said.startswith("Exact bounds, not a bootstrap's, where no subtopic favours one setting (±: neither): ")
    # C4: oracle − random one-sided (no subtopic has oracle above), oracle − vector the same everywhere; C7 (Citation
    # of oracle − random) one-sided too
    assert "(C4 (Joint, 9 subtopics): oracle − random +33.6, oracle − vector ±33.6; C7 (Citation, 9 subtopics): " \
           "oracle − random +33.6). Such" in said and "decides nothing on its side" in said
    varied, per2 = _live({"random": [20.0 + i % 3 for i in range(n)], "oracle": [50.0 + i % 2 for i in range(n)]},
                         citation={"random": [10.0 + i % 2 for i in range(n)], "oracle": [40.0] * n})
    assert live_claims.equal_settings_sentence(varied, per2) == ""
    assert live_claims.equal_settings_sentence(varied, None) == ""
    seven = {"random": [5.0, 0, 0, 0, 0, 0, 0], "oracle": [0.0] * 7}
    live7, per7 = _live({"random": [20.0] * 7, "oracle": [30.0] * 7}, citation=seven)
    assert "C7 (Citation, 7 subtopics): oracle − random +41.0)." in live_claims.equal_settings_sentence(live7, per7)


def test_claims_comparing_settings_show_the_means_their_differences_are_taken_over():
    """The book's 1.5B run showed "random 23.6" (the live table's micro-average over insights) beside "vector − random
    +13.3", a mean over subtopics (random 21.7 there): each claim's value now gives the settings' means over the
    subtopics beside their paired differences, one averaging throughout, and never the pooled values."""
    n = 9
    live, per = _live({"random": [20.0 + i % 3 for i in range(n)], "vector": [40.0 + i % 4 for i in range(n)],
                       "oracle": [50.0 + i % 2 for i in range(n)]})
    live.loc[live["setting"] == "random", "coverage"] = 23.6  # pooled over insights: weighted otherwise
    t = _claims(live, per)
    c6 = t.loc["C6", "our_value"]
    assert c6.startswith("means over 9 subtopics: random 21.0, oracle 50.4, vector 41.3; oracle − random +29.4 [")
    assert "; vector − random +20.3 [" in c6 and "23.6" not in c6
    assert t.loc["C4", "our_value"].startswith("means over 9 subtopics: oracle 30.3, random 12.6, vector 24.8; oracle − "
                                               "random +17.7 [")
    assert t.loc["C1", "our_value"].startswith("oracle: pooled over insights ")


def test_a_claim_over_fewer_subtopics_than_the_run_says_how_many_and_why():
    """The 1.5B's C7: citation means over 7 subtopics beside an evidence of 9 (two subtopics had no citation score
    in a compared setting): the value says "7 of the 9" and why, and so does the evidence (it said "9 in all")."""
    n = 9
    cite = {"random": [10.0 + i % 2 for i in range(n)], "oracle": [40.0 + i % 3 for i in range(n)]}
    cite["random"][0] = cite["random"][1] = float("nan")  # no citation to score in those two summaries
    live, per = _live({"random": [20.0 + i % 3 for i in range(n)], "oracle": [50.0 + i % 2 for i in range(n)]},
                      citation=cite)
    t = _claims(live, per)
    assert t.loc["C7", "our_value"].startswith("means over 7 of the 9 subtopics (the others lack a citation score in "
                                               "one of these settings): oracle ")
    assert t.loc["C6", "our_value"].startswith("means over 9 subtopics: ")
    assert "the subtopics the settings share (7 of the 9; " in t.loc["C7", "evidence"]
    assert "the subtopics the settings share (9 in all; " in t.loc["C6", "evidence"]


def test_position_sensitivity_is_the_papers_top_and_bottom_against_the_stored_order():
    """§5.4: "the maximum absolute difference in Joint Score between the Random ordering and Top and Bottom
    conditions": the unreported Middle order does not count (as rescoring's ``sensitivity`` keeps it apart from
    ``sensitivity_with_middle``), in the pooled table and in the interval that decides C14."""
    from lcrag.papers.summhay.live_runs import position_sensitivity

    pooled = pd.DataFrame([{"kind": "position", "judge": "lexical", "setting": f"pos-{o}", "joint": j}
                           for o, j in {"top": 21.0, "bottom": 19.0, "random": 20.0, "middle": 40.0}.items()])
    pos = position_sensitivity(pooled).iloc[0]
    assert (pos["sensitivity"], pos["sensitivity_with_middle"]) == (1.0, 20.0)
    far_middle = _position_claim({"random": [20, 22, 18, 21, 19, 20], "top": [21, 22, 19, 21, 20, 21],
                                  "bottom": [20, 21, 18, 22, 19, 20], "middle": [40, 45, 38, 41, 44, 39]})
    assert far_middle["verdict"] == "not reproduced"  # the Middle's 20 points do not count
    assert "Top or Bottom (the paper's; the Middle order not counted)" in far_middle["evidence"]


def test_c17_states_its_size_on_the_scale_of_its_values():
    """C17's "roughly 0.05" is on the 0-1 scale of its paper values (0.062 / 0.067 / 0.049), not "5 points"."""
    from lcrag.papers.tables import declared_claims

    c17 = declared_claims("summhay")["C17"]
    assert "roughly 0.05 (coverage on a 0-1 scale)" in c17.text and "5 points" not in c17.text
    assert str(c17.paper_value).startswith("0.06")
