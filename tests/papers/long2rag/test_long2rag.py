"""Long²RAG: the loader (on our fixture), the SummHay-derived items (on the real mirror), KPR / KPP / KPF on
handmade values, the P5 / P6 / P7 / P8 parsers, the paper's tables and derived checks, and the chapter's smoke
profile executed end to end (slow: real model calls on the embedded model).

Expected values come from the paper (Tables 1-4, Fig. 11), the inventory, or hand computation, not from the code.
"""

from __future__ import annotations

import json
import math
import os
import warnings

import helpers
import numpy as np
import pandas as pd
import pytest

from lcrag import stats
from lcrag.book.claims import NOT_TESTABLE, ClaimsLedger
from lcrag.data import long2rag as D
from lcrag.data.records import DataWarning
from lcrag.data.summhay import load_eval_benchmark, load_haystack
from lcrag.metrics import kpr as K
from lcrag.papers.long2rag import checks as paper_checks
from lcrag.papers.long2rag import claims as long2rag_claims
from lcrag.papers.long2rag import generation, judges, key_points, lengths, numbers, prompts

FIXTURES = helpers.FIXTURES / "long2rag"


# ============================================================================================ loader


def test_loader_reads_the_fixture():
    df = D.load_long2rag(FIXTURES / "long2rag_sample.jsonl")
    assert list(df["question_id"]) == ["q1", "q2", "q3"]
    assert list(df["domain"]) == ["Biology", "Others", "Economics"]  # "others" canonicalised
    assert list(df["category"]) == ["Comparative", "Hypothetical", "Predictive"]  # from "type": "hypothetical"
    assert list(df["n_documents"]) == [5, 5, 3]
    assert list(df["n_key_points"]) == [2, 3, 1]
    assert df.loc[0, "doc_titles"][0] == "Bird song" and df.loc[0, "doc_titles"][1] is None
    assert df.loc[0, "key_points"][1].startswith("The nightingale's song")  # from an object key point
    assert df.loc[0, "doc_words"][0] == 11
    assert df.attrs["not_five_documents"] == ["q3"]
    report = df.attrs["report"]
    assert (report.n_read, report.n_kept, report.dropped) == (3, 3, [])


def test_loader_raises_naming_file_and_line():
    with pytest.raises(ValueError, match=r"long2rag_bad\.jsonl, line 2: unknown category 'Rhetorical'"):
        D.load_long2rag(FIXTURES / "long2rag_bad.jsonl")


def test_loader_drops_and_reports_every_bad_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = D.load_long2rag(FIXTURES / "long2rag_bad.jsonl", errors="drop")
    assert list(df["question_id"]) == ["q1", "q7"]
    report = df.attrs["report"]
    assert report.n_read == 5 and report.n_kept == 2
    assert [line for line, _ in report.dropped] == [2, 3, 4]
    assert "category" in report.dropped[0][1] and "key_points" in report.dropped[2][1]
    assert any(issubclass(w.category, DataWarning) for w in caught)


def test_loader_rejects_missing_file_and_duplicates(tmp_path):
    with pytest.raises(FileNotFoundError, match="not public"):
        D.load_long2rag(tmp_path / "nope.jsonl")
    line = (FIXTURES / "long2rag_sample.jsonl").read_text().splitlines()[0]
    dup = tmp_path / "dup.jsonl"
    dup.write_text(line + "\n" + line + "\n")
    with pytest.raises(ValueError, match="duplicate question ids"):
        D.load_long2rag(dup)
    with pytest.raises(ValueError, match="errors must be"):
        D.load_long2rag(dup, errors="ignore")


def test_key_points_table():
    df = D.load_long2rag(FIXTURES / "long2rag_sample.jsonl")
    kp = D.key_points_table(df)
    assert len(kp) == 6 and list(kp["key_point_id"][:2]) == ["q1#0", "q1#1"]


def test_category_rule():
    assert D.assign_category("Did they compare Salesforce to competitors?") == ("Comparative", "compare")
    assert D.assign_category("Plans for future electric models?")[0] == "Predictive"
    assert D.assign_category("Impact of fuel types on performance?") == ("Causal", "impact")
    assert D.assign_category("Are they discussing lab tests?") == ("Factual", "")
    assert set(c for c, _ in D.CATEGORY_RULES) < set(D.CATEGORIES)


# ============================================================================================ SummHay items


@pytest.fixture(scope="module")
def haystacks(mirror):
    return {
        "news1": load_haystack("news1", mirror / "summhay" / "topic_news1.json"),
        "conv5": load_haystack("conv5", mirror / "summhay" / "harlyndn_data_cleaned" / "topic_conv5.json"),
    }


def test_summhay_items_follow_the_protocol(haystacks):
    items = D.summhay_items(haystacks)
    assert len(items) == 9 + 10  # news1 has 9 subtopics, conv5 10
    assert items["n_documents"].eq(5).all()
    h = haystacks["news1"]
    first = items.iloc[0]
    assert first["question"] == "Impact of fuel types on performance?"
    assert first["domain"] == "Cars" and first["category"] == "Causal"
    # every key point is an insight of the subtopic contained in one of the 5 chosen documents
    docs = h.documents.set_index("document_id").loc[first["document_ids"]]
    contained = {i for inc in docs["insights_included"] for i in inc}
    sub = h.insights[h.insights["subtopic_id"] == first["subtopic_id"]]
    assert set(first["key_point_ids"]) == contained & set(sub["insight_id"])
    # the 5 documents carry the highest oracle scores of the subtopic
    oracle = h.retriever_scores.query("retriever == 'oracle' and in_haystack and subtopic_id == @first.subtopic_id")
    assert sorted(first["oracle_scores"], reverse=True) == first["oracle_scores"]
    assert min(first["oracle_scores"]) >= oracle["score"].nlargest(5).min()
    assert items["n_key_points"].le(items["n_subtopic_insights"]).all() and items["n_key_points"].ge(1).all()
    # same columns as the real loader gives
    assert set(D.ITEM_COLUMNS) <= set(items.columns)


def test_items_summary_and_max_subtopics(haystacks):
    items = D.summhay_items(haystacks, max_subtopics=2)
    assert len(items) == 4
    s = D.items_summary(items).set_index("quantity")
    assert s.loc["documents per question", "ours"] == 5 and s.loc["key points", "paper"] == 2055


# ============================================================================================ KPR metrics


def judgments(rows):
    return pd.DataFrame(rows, columns=["question_id", "value"])


def test_kpr_is_macro_over_questions():
    # q1: 1 of 4 entailed; q2: 2 of 2 -> macro (0.25 + 1) / 2 = 0.625, micro 3/6 = 0.5
    j = judgments([("q1", 1), ("q1", 0), ("q1", 0), ("q1", 0), ("q2", 1), ("q2", 1)])
    r = K.kpr(j)
    assert r["kpr"] == pytest.approx(0.625) and r["micro"] == pytest.approx(0.5)
    assert (r["n_questions"], r["n_key_points"], r["n_unparseable"]) == (2, 6, 0)


def test_unparseable_counted_and_scored_by_policy():
    j = judgments([("q1", 1), ("q1", np.nan), ("q2", 0), ("q2", 1)])
    assert K.kpr(j)["kpr"] == pytest.approx(0.5)  # (1/2 + 1/2) / 2
    assert K.kpr(j)["n_unparseable"] == 1
    assert K.kpr(j, unparseable="drop")["kpr"] == pytest.approx(0.75)  # (1/1 + 1/2) / 2
    with pytest.raises(ValueError, match="0, 1 or NaN"):
        K.kpr(judgments([("q1", 0.5)]))


def test_kpr_by_category():
    j = judgments([("a", 1), ("a", 0), ("b", 1), ("c", 0)])
    items = pd.DataFrame({"question_id": ["a", "b", "c"], "category": ["Causal", "Causal", "Factual"]})
    t = K.kpr_by(j, items, "category").set_index("category")
    assert t.loc["Causal", "kpr"] == pytest.approx(0.75) and t.loc["Causal", "n_questions"] == 2
    assert t.loc["Factual", "kpr"] == 0


def test_kpf_both_ways():
    pq = pd.DataFrame({"precision": [1.0, 0.0, np.nan], "recall": [0.5, 0.5, 1.0]})
    r = K.kpf(pq)
    assert r["kpp"] == pytest.approx(0.5) and r["kpr"] == pytest.approx(0.5)
    assert r["kpf_macro"] == pytest.approx((2 / 3 + 0) / 2)
    assert r["kpf_of_means"] == pytest.approx(0.5)
    assert r["n_skipped"] == 1
    assert K.f1(0.323, 0.579) == pytest.approx(0.4147, abs=1e-4)


@pytest.mark.parametrize(
    "text, default, strict, words",
    [
        ("[yes] The document says so.", "yes", "yes", "yes"),
        ("Answer: [ Neutral ]", "neutral", "neutral", "neutral"),
        ("[no]. Also [yes] later", "no", "no", "no"),
        ("Yes, the document supports it.", "yes", None, "yes"),
        ("The document does not entail the claim.", None, None, "no"),
        ("The claim entails the document's details.", None, None, "yes"),
        ("[yes], [no], or [neutral]", None, None, None),
        ("I'm ready to help.", None, None, None),
        ("", None, None, None),
    ],
)
def test_p6_parsers(text, default, strict, words):
    assert K.parse_entailment(text) == default
    assert K.parse_entailment_strict(text) == strict
    assert K.parse_entailment_words(text) == words


def test_entailment_values_and_agreement():
    assert [K.entailment_value(x) for x in ("yes", "no", "neutral")] == [1.0, 0.0, 0.0]
    assert math.isnan(K.entailment_value(None))
    assert math.isnan(K.entailment_value(float("nan")))  # None as stored in a pandas string column
    judged = pd.DataFrame({"raw": ["[yes]", "I cannot tell", "[no]"], "judge": ["llm", "llm", "llm"]})
    again = judges.reparse(judged, "strict")  # an unparseable answer among parsed ones (the quick profile's case)
    assert again["value"].tolist()[::2] == [1.0, 0.0] and math.isnan(again["value"].iloc[1])
    a = K.binary_agreement([1, 0, np.nan, 1], [1, 0, 1, 0])
    assert a["accuracy"] == 0.5 and a["n_unparseable"] == 1
    assert stats.cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0
    assert stats.cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == 0.0
    assert K.fit_binary_threshold([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1]) == 0.6


# ============================================================================================ pipeline pieces


def test_fit_documents_policy():
    count = lambda t: len(t.split())  # noqa: E731
    docs = ["a " * 10, "b " * 2, "c " * 10]
    same, n = generation.fit_documents(docs, 30, count)
    assert n == 0 and same == docs
    cut, n = generation.fit_documents(docs, 14, count)
    assert n == 2 and [count(d) for d in cut] == [6, 2, 6]


def test_generation_prompt_has_separators_question_and_p0():
    p = generation.generation_prompt("Why?", ["first doc", "second doc"])
    assert p.index("===== Document 1 =====") < p.index("first doc") < p.index("===== Document 2 =====")
    assert p.endswith(prompts.P0_GENERATION) and "Question: Why?" in p


def test_prompts_are_verbatim():
    p6 = prompts.P6_ENTAILMENT
    assert p6.startswith("Your task is to determine whether a claim is entailed with a document.")
    assert "Provide your answer as [yes], [no], or [neutral]." in prompts.P6_ENTAILMENT
    assert prompts.P8_AUTODS.endswith("You must respond with YES or NO.")
    assert set(prompts.PAPER_PROMPTS) == {f"P{i}" for i in range(9)}
    for name in ("P2", "P3"):
        assert "{topic}" in prompts.PAPER_PROMPTS[name] and "{question_type}" in prompts.PAPER_PROMPTS[name]


def test_parse_points_and_dedup():
    text = (" Point 1: <point_start>Calls are inherited.<point_end><span_start>Calls are genetic<span_end>\n"
            "Point 2: <point_start>Songs are learned.<point_end><span_start>a<span_end><span_start>b<span_end>\n"
            "Point 3: plain text point")
    pts = key_points.parse_points(text)
    assert [p["point"] for p in pts] == ["Calls are inherited.", "Songs are learned.", "plain text point"]
    assert pts[1]["spans"] == ["a", "b"]
    groups, check = key_points.parse_dedup("Point 1: Calls inherited. [1, 2]\nPoint 2: Songs. [3]", 3)
    assert check["ok"] and groups[0]["sources"] == [1, 2]
    _, bad = key_points.parse_dedup("Point 1: x [1, 2]\nPoint 2: y [2, 5]", 4)
    assert bad == {"ok": False, "missing": [3, 4], "repeated": [2], "unknown": [5]}


def test_autods_score():
    assert key_points.yes_no_score({"YES": math.log(0.6), " NO": math.log(0.2)}) == pytest.approx(0.75)
    assert key_points.yes_no_score({"Yes": -1.0, "yes": -0.5}) == 1.0
    assert math.isnan(key_points.yes_no_score({"The": -0.1}))


def test_length_bins():
    assert lengths.scaled_edges(numbers.PAPER_INPUT_EDGES, 32_000, 8192) == [2048, 4096, 6400, 8192]
    assert lengths.length_bins([100, 2048, 5000, 9000], [2048, 4096, 6400, 8192]) == [
        "<2048", "2048-4096", "4096-6400", ">8192"]


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


# ============================================================================================ the paper's numbers


def test_paper_tables_transcribed():
    t1 = numbers.paper_table1_wide()
    assert t1.shape == (9, 9)
    assert t1.loc["GPT-4o", "Factual"] == 0.621 and t1.loc["Phi-3-mini-128K", "Average"] == 0.434
    assert t1.loc["Qwen2-1.5B", "Predictive"] == 0.186
    assert numbers.paper_table2().set_index(["model", "variant"]).loc[("Qwen2-72B", "none"), "paper_kpr"] == 0.468
    t3 = numbers.paper_table3().set_index("model")
    assert t3.loc["GPT-4-Turbo", "paper_llama3"] == 0.578 and t3.loc["Claude-3-Sonnet", "paper_gpt4o"] == 0.477
    assert sum(numbers.PAPER_CATEGORY_COUNTS.values()) == 280


def test_paper_csvs_say_where_each_value_was_printed():
    from lcrag.papers.tables import paper_table

    for name in ("table1", "table2", "table3", "table4", "category_counts", "numbers", "length_bins"):
        t = paper_table("long2rag", name)
        assert len(t) and t["source"].str.strip().ne("").all(), name
    text = paper_table("long2rag", "numbers").set_index("quantity")
    assert text.loc["key points", "source"].startswith("§3.3")
    # values as the text states them (long2rag-paper.txt: abstract, §3.3, §6.2), typed as numbers
    assert numbers.PAPER_NUMBERS["words per document (abstract)"] == 2444
    assert numbers.PAPER_NUMBERS["key points"] == 2055 and isinstance(numbers.PAPER_NUMBERS["key points"], int)
    assert numbers.PAPER_NUMBERS["evaluator accuracy"] == 0.87 and key_points.AUTODS_THRESHOLD == 0.7
    assert numbers.paper_table4().set_index("model").loc["GPT-4o", "paper_length"] == 939.35
    assert numbers.PAPER_INPUT_EDGES == (8000, 16000, 25000, 32000) and numbers.PAPER_OUTPUT_EDGES[-1] == 5000
    assert numbers.TABLE2_COLUMNS == ("trunc512", "trunc1024", "trunc2048", "snippet", "summary", "none")


def test_derived_checks():
    av = paper_checks.table1_averages().set_index("model")
    assert av["weighted_within_tol"].all()
    assert av.loc["GPT-4o", "weighted_mean"] == pytest.approx(0.5809, abs=5e-5)
    assert av.loc["GPT-4-Turbo", "weighted_diff"] == pytest.approx(0.0026, abs=5e-5)
    c = paper_checks.table3_correlations()
    assert c["spearman"] == pytest.approx(0.983, abs=5e-4) and c["kendall"] == pytest.approx(0.944, abs=5e-4)
    assert sorted(c["swapped"]) == ["Claude-3-Sonnet", "GPT-4-Turbo"] and c["llama_higher_all"]
    k = paper_checks.table4_kpf().set_index("model")
    assert k.loc["GPT-4o", "f1_of_printed"] == pytest.approx(0.415, abs=5e-4)
    assert not k["kpf_is_f1_of_means"].any()
    table = paper_checks.derived_checks()
    assert list(table.columns) == ["check", "ours", "paper_expected", "agrees"]  # paper values: paper_ columns
    checks = table.set_index("check")["agrees"]
    # every check agrees with the inventory except its range for the unweighted mean (it is 0.0069-0.0154)
    assert list(checks[~checks].index) == ["Table 1: unweighted mean of categories is 0.007-0.013 too high"]
    assert len(paper_checks.inconsistencies()) == 13


def test_paper_claims():
    ledger = long2rag_claims.paper_claims(
        ClaimsLedger("long2rag", paper="long2rag", model=long2rag_claims.PAPER_TABLES_MODEL))
    v = ledger.table().set_index("claim_id")["verdict"]
    assert len(v) == 21 and set(v.index) == {f"C{i}" for i in range(1, 22)}
    assert all(v[c] == "reproduced" for c in ("C1", "C2", "C3", "C4", "C5", "C9", "C12", "C15", "C16", "C19"))
    assert v["C13"] == "not reproduced"  # Qwen2-72B's snippet beats trunks 512 and 1024
    assert all(v[c] == "inconclusive" for c in ("C6", "C7", "C8", "C10", "C11", "C14", "C17", "C18", "C20", "C21"))


def _responses(variant_recalls: dict[str, list[float]], judge: str = "j") -> pd.DataFrame:
    """Per-response KPR rows as response_kpr gives them: question i of each variant; input length 1000 for
    trunc*, snippet and summary, 5000 for none; generation length 10 * (i + 1)."""
    rows = []
    for variant, recalls in variant_recalls.items():
        for i, r in enumerate(recalls):
            rows.append({"judge": judge, "variant": variant, "question_id": f"q{i}", "recall": r,
                         "input_tokens": 5000 if variant == "none" else 1000, "completion_tokens": 10 * (i + 1)})
    return pd.DataFrame(rows)


def _verdicts(per, edges=None, rank=None):
    ledger = ClaimsLedger("long2rag", paper="long2rag", model="m")
    long2rag_claims.run_claims(ledger, per, "j", edges, rank, n_boot=500)
    return ledger.table().set_index("claim_id")


def test_run_claims_decide_with_intervals():
    edges = {"input_tokens": [2048], "completion_tokens": [25]}
    rank = {"spearman": 1.0, "kendall": 1.0, "n_systems": 4, "judges": ["j", "k"]}
    clear = _responses({"none": [0.6, 0.7, 0.8, 0.9, 0.6, 0.7], "trunc512": [0.4, 0.5, 0.5, 0.6, 0.4, 0.5],
                        "snippet": [0.1, 0.2, 0.1, 0.2, 0.1, 0.2], "summary": [0.1, 0.1, 0.2, 0.1, 0.1, 0.1]})
    v = _verdicts(clear, edges, rank)
    assert v.loc["C12", "verdict"] == "reproduced" and v.loc["C13", "verdict"] == "reproduced"
    assert v.loc["C10", "verdict"] == "not reproduced"  # the long inputs (none, 5000 tokens) recall the most
    assert v.loc["C14", "verdict"] == "inconclusive"  # generation length unrelated to recall here
    assert "none - trunc512 +0.2" in v.loc["C12", "our_value"] and "[" in v.loc["C12", "our_value"]
    assert v.loc["C15", "verdict"] == "reproduced"
    # a difference of one key point in one question is noise, not a trend: inconclusive
    noise = _responses({"none": [0.2, 0.2, 0.2, 0.3, 0.2, 0.2], "trunc512": [0.2] * 6})
    v = _verdicts(noise, edges)
    assert v.loc["C12", "verdict"] == "inconclusive" and v.loc["C13", "verdict"] == "inconclusive"
    # a model that recalls (almost) nothing: every comparison is at the floor, not testable with this model
    v = _verdicts(_responses({"none": [0.0, 0.0, 0.0, 0.1, 0.0, 0.0], "trunc512": [0.0] * 6}), edges, rank)
    assert set(v.loc[["C12", "C10", "C14", "C15"], "verdict"]) == {"not testable with this model"}
    assert v.loc["C12", "evidence"].endswith("at the floor: none (mean KPR): score 0.017 below 0.05")
    assert v.loc["C14", "evidence"].endswith("at the floor: all responses (mean KPR): score 0.008 below 0.05")
    # truncation taking KPR to the floor is the effect C12 measures (the full documents are above it); a C13 pair
    # whose truncated arm is at the floor decides nothing, the other pair decides (here: not lower, inconclusive)
    cut = _responses({"none": [0.6, 0.7, 0.8, 0.9, 0.6, 0.7], "trunc512": [0.0] * 6,
                      "trunc2048": [0.5, 0.6, 0.5, 0.6, 0.5, 0.6], "snippet": [0.5, 0.6, 0.6, 0.5, 0.6, 0.5]})
    v = _verdicts(cut, edges, rank)
    assert v.loc["C12", "verdict"] == "reproduced" and "at the floor" not in v.loc["C12", "evidence"]
    assert v.loc["C13", "verdict"] == "inconclusive"
    assert "not deciding (at the floor): trunc512 (mean KPR): score 0.000 below 0.05" in v.loc["C13", "evidence"]
    assert v.loc["C15", "verdict"] == "reproduced"  # the pooled KPR is above the floor
    assert v.loc["C13", "evidence"].count("trunc512 (mean KPR)") == 1
    # two judges' rankings of 6 systems: rho 0.71 has an interval from about -0.4 to 0.97, which holds 0.95
    for rho, n, verdict in [(0.714, 6, "inconclusive"), (0.6, 40, "not reproduced"), (0.995, 30, "reproduced")]:
        v = _verdicts(cut, edges, {"spearman": rho, "kendall": rho, "n_systems": n, "judges": ["j", "k"]})
        assert v.loc["C15", "verdict"] == verdict, (rho, n)
    assert "rho 0.995 [0.99, 1.00]" in v.loc["C15", "our_value"]
    # every C13 pair floored: not testable
    v = _verdicts(_responses({"none": [0.6] * 6, "trunc512": [0.0] * 6, "snippet": [0.0] * 6}), edges)
    assert v.loc["C13", "verdict"] == "not testable with this model"
    # a pair above the floor that goes the other way refutes C13 even when another pair is floored
    v = _verdicts(_responses({"none": [0.6] * 6, "trunc512": [0.0] * 6, "trunc2048": [0.2, 0.1, 0.2, 0.1, 0.2, 0.1],
                              "snippet": [0.5, 0.6, 0.6, 0.5, 0.6, 0.5]}), edges)
    assert v.loc["C13", "verdict"] == "not reproduced"
    # truncation clearly raising KPR: not reproduced
    v = _verdicts(_responses({"none": [0.1] * 6, "trunc512": [0.5, 0.6, 0.5, 0.6, 0.5, 0.6]}), edges)
    assert v.loc["C12", "verdict"] == "not reproduced" and v.loc["C10", "verdict"] == "reproduced"
    # one length bin only: inconclusive, with the reason
    v = _verdicts(_responses({"none": [0.5] * 4}), {"input_tokens": [8000], "completion_tokens": [1000]})
    assert v.loc["C10", "verdict"] == "inconclusive" and "fewer than two length bins" in v.loc["C10", "evidence"]


def test_a_length_bin_with_one_response_is_left_out_of_the_length_claims():
    """Gemma-3's companion run: one response alone in the longest input bin (a one-value group has no bootstrap
    interval); the claims compare the bins that hold two or more."""
    per = _responses({"none": [0.5, 0.6, 0.7], "trunc512": [0.1, 0.2, 0.1, 0.2]})  # none: 5000 tokens
    per.loc[0, "input_tokens"] = 9000  # alone in the last bin
    v = _verdicts(per, {"input_tokens": [2048, 8000], "completion_tokens": [1000]})
    assert "2048-8000 - <2048" in v.loc["C10", "our_value"] and "(n=1)" not in v.loc["C10", "our_value"]
    one_bin = _verdicts(per.assign(input_tokens=[9000] + [1000] * 6), {"input_tokens": [2048], "completion_tokens": [1]})
    assert "two or more responses" in one_bin.loc["C10", "evidence"]


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


def test_one_judge_on_the_answers_leaves_the_rank_claim_not_run():
    v = _verdicts(_responses({"none": [0.6, 0.7, 0.8, 0.9], "trunc512": [0.4, 0.5, 0.5, 0.6]}))
    assert v.loc["C15", "verdict"] == NOT_TESTABLE and "not run" in v.loc["C15", "evidence"]
    assert "judge_answers is 'trusted'" in v.loc["C15", "evidence"]


# ============================================================================================ the chapter


@pytest.mark.slow
def test_chapter_smoke(mirror, tmp_path):
    from lcrag.book.runner import run_chapter
    from lcrag.data.fetch import fetch

    os.environ["LCRAG_DATA_DIR"] = str(tmp_path / "data")
    try:
        assert fetch(datasets=["summhay"], mirror=mirror, download=False).ok
        run = run_chapter("long2rag", profile="smoke", out_dir=tmp_path / "run", progress=False)
    finally:
        os.environ.pop("LCRAG_DATA_DIR")
    assert run.ok
    nb = json.loads(run.notebook.read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    out = run.out_dir
    items = pd.read_csv(out / "items.csv")
    assert len(items) == 2 and set(items["haystack"]) == {"news3", "conv5"}
    kpr = pd.read_csv(out / "kpr.csv")
    assert set(kpr["variant"]) == {"trunc512"} and len(kpr) == 2  # P6 judge + lexical
    assert kpr["n_key_points"].eq(4).all() and kpr["kpr"].between(0, 1).all()
    judged = pd.read_csv(out / "judgments.csv")
    assert len(judged) == 8  # 2 items x 2 key points x 2 judges
    agreement = pd.read_csv(out / "judge_agreement.csv")
    assert {"lexical"} < set(agreement["judge"])
    claims = pd.read_csv(out / "claims.csv")
    assert len(claims) == 21 + 5
    assert pd.read_csv(out / "paper_checks.csv")["agrees"].sum() == 13


def test_a_point_without_content_words_is_not_counted_in_kpp():
    """The 1.5B's P5 extraction can give a point of stop words only; it states nothing, so it is neither a point
    nor supported (it made the chapter fail with "the needle has no content words")."""
    point_support = key_points.point_support
    doc = "The Demon 170 reaches 1,025 hp on E85. Its tank drains in seven minutes."
    assert point_support(["The Demon 170 reaches 1,025 hp on E85.", "It is what it is.", "The tank lasts a day."],
                         doc, 0.6) == (2, 1)
    assert point_support(["It is."], doc, 0.6) == (0, 0)


def test_c12_and_the_synthesis_share_the_chapters_floor_rule():
    """One floor rule for "truncating lowers KPR" (:func:`claims.truncation_floor`): at the edge of the floor (the
    whole documents' mean KPR 0.045 against 0.05, which is not below it) claim C12 and the synthesis's whole vs
    truncated rows are both not testable, or neither, with the same reason; the truncated arm's KPR (here 0) never
    makes them so."""
    from lcrag.papers.long2rag import comparison
    from lcrag.synthesis import NOT_TESTABLE as SYNTHESIS_NOT_TESTABLE

    assert comparison.truncation_floor is long2rag_claims.truncation_floor  # the synthesis asks the chapter's rule
    assert comparison.question_kpr is long2rag_claims.question_kpr  # ... on the same per-question KPR
    for first, floored in ((0.9, True), (1.0, False)):  # mean over 20 questions: 0.045, 0.05
        per = _responses({"none": [first] + [0.0] * 19, "trunc512": [0.0] * 20, "trunc2048": [0.0] * 20})
        claim = _verdicts(per).loc["C12"]
        rows = comparison.comparisons(per.assign(model="m", source="run"), {"m": "j"}, n_boot=200)
        assert [r["other_arm"] for r in rows] == ["trunc2048", "trunc512"]  # the least severe cut first
        assert (claim["verdict"] == NOT_TESTABLE) is floored, first
        assert all((r["reading"] == SYNTHESIS_NOT_TESTABLE) is floored for r in rows), first
        why = long2rag_claims.truncation_floor(long2rag_claims.question_kpr(per, "j"))
        assert (why is not None) is floored
        if floored:
            assert why == "none (mean KPR): score 0.045 below 0.05"
            assert claim["evidence"].endswith(f"at the floor: {why}")
            assert all(r["evidence"].endswith(f"at the floor: {why}") for r in rows)


def test_the_judges_rank_agreement_is_one_row_naming_both_judges():
    kpr = pd.DataFrame({"variant": ["a", "b", "c"] * 2, "judge": ["lexical"] * 3 + ["llm"] * 3,
                        "kpr": [0.1, 0.2, 0.3, 0.2, 0.4, 0.5]})
    table = judges.rank_agreement_table(judges.judge_rank_agreement(kpr))
    assert len(table) == 1 and table.loc[0, "judges"] == "lexical, llm"
    assert table.loc[0, "spearman"] == pytest.approx(1.0) and table.loc[0, "n_systems"] == 3
    lexical_only = kpr[kpr["judge"] == "lexical"]  # judge_answers="trusted": nothing to compare, an empty table
    assert judges.judge_rank_agreement(lexical_only) is None and judges.rank_agreement_table(None).empty


def test_the_key_point_pipeline_on_no_item_asks_nothing_and_says_so():
    """``kp_items = 0`` (the companion profile): every stage's table is empty with its columns, and the summary
    says the section ran on no item."""
    from lcrag.models import get_model

    model = get_model("local/smollm2-135m-instruct")
    items = pd.DataFrame({"question_id": ["q"], "question": ["Q?"], "key_points": [["a b c"]], "documents": [["d"]]})
    run = key_points.pipeline(model, items.head(0), 0.5, 8, 8, autods_points=4)
    assert run["recovery"].empty and list(run["recovery"].columns) == list(key_points.RECOVERY_COLUMNS)
    assert run["extracted"].empty and run["deduped"].empty and run["scored"].empty
    summary, note = key_points.stage_summary(run)
    assert summary.empty and note == "the key-point pipeline ran on no item (kp_items = 0)"
