"""Summary of a Haystack with a model in the loop (lcrag.papers.summhay: prompts, llm_judge, retrievers,
live_contexts, live_runs, synthetic): the released prompts, the judge's answer parsing, the released retriever
scoring and token budget, position orders, synthesis schema.

Expected values come from the released repository (salesforce/summary-of-a-haystack, commit 3e2007f: prompt file
sizes, ``populate_*.py`` rules), from the haystack files themselves (``label_<subtopic_id>`` fields), or from hand
computation. Tests that call the embedded model are marked slow and kept to a few calls.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lcrag.judges.insight import PARSE_STATUSES
from lcrag.judges.similarity import Thresholds
from lcrag.metrics.summhay import FULL, NONE, PARTIAL
from lcrag.papers.summhay import (
    dataset_shape,
    evaluator_study,
    live_claims,
    live_contexts,
    live_runs,
    llm_judge,
    our_judges,
    prompts,
    retrievers,
    synthetic,
)

# ------------------------------------------------------------------------------------------- prompts


def test_prompts_are_the_released_files_verbatim():
    # sizes of prompts/summarization_news.txt, summarization_conv.txt at commit 3e2007f (eval_summhay.txt: the
    # insight judge's, tests/judges/test_insight.py)
    assert len(prompts.SUMMARIZATION_PROMPTS["news"]) == 865 and len(prompts.SUMMARIZATION_PROMPTS["conv"]) == 1037
    assert (
        'In some of the conversation the following topic is discussed: "[SUBTOPIC]".'
        in (prompts.SUMMARIZATION_PROMPTS["news"])
    )


# ------------------------------------------------------------------------------------------- parsing


def test_parse_report_shows_unparseable_answers_per_judge():
    judged = pd.DataFrame(
        {"evaluator": ["llm:b"] * 4 + ["llm:a"] * 2,
         "parse": ["json", "unparseable", "unparseable", "lenient", "json", "json"],
         "label": [FULL, NONE, NONE, PARTIAL, FULL, FULL],
         "link_outside": [True, False, False, False, False, True]}
    )
    r = llm_judge.parse_report(judged)
    assert list(zip(r["evaluator"], r["parse"].astype(str), strict=True)) == [
        ("llm:b", "json"), ("llm:b", "lenient"), ("llm:b", "unparseable"), ("llm:a", "json")]  # judges in run order
    b = r[r["evaluator"] == "llm:b"].set_index("parse")
    assert b["answers"].sum() == 4 and b.loc["unparseable", "share"] == 0.5 and b.loc["json", "links_outside"] == 1
    a = r[r["evaluator"] == "llm:a"].iloc[0]
    assert (a["answers"], a["share"], a["links_outside"]) == (2, 1.0, 1)


def test_the_answers_read_off_json_are_counted_in_words_and_shown_only_when_there_are_some():
    judged = pd.DataFrame({"evaluator": ["llm:b"] * 3 + ["llm:a"] * 2, "record": [0, 1, 2, 0, 1],
                           "insight_id": [5, 6, 7, 5, 6], "parse": ["json"] * 5, "label": [FULL] * 5,
                           "answer": ['{"coverage": "FULL_COVERAGE"}'] * 5})  # fmt: skip
    assert llm_judge.off_json_answers(judged).empty
    assert llm_judge.parse_sentence(judged) == (
        "Every answer of llm:b and llm:a (5 in all) held the JSON object the prompt asks for, with a known coverage "
        "label: none had to be read leniently and none is unparseable, so there is no such answer to show.")
    judged.loc[[1, 2], "parse"] = ["lenient", "unparseable"]
    off = llm_judge.off_json_answers(judged, n=1)
    assert list(zip(off["evaluator"], off["record"], off["parse"], strict=True)) == [("llm:b", 1, "lenient")]
    assert llm_judge.parse_sentence(judged, shown=1) == (
        "Answers that are not the JSON object the prompt asks for: llm:b, 2 of its 3 (1 read leniently, 1 "
        "unparseable and scored as no coverage); llm:a, none of its 2. Up to 1 of each judge's such answers are "
        "folded below: they show how a judge answers when it does not return that object.")


def test_label_shares_put_each_judges_favourite_label_beside_the_humans():
    judged = pd.DataFrame({"evaluator": ["llm:a"] * 4 + ["llm:b"] * 4, "record": [0, 0, 1, 1] * 2,
                           "insight_id": [0, 1, 0, 1] * 2,
                           "label": [PARTIAL, PARTIAL, PARTIAL, FULL, NONE, FULL, NONE, NONE]})  # fmt: skip
    labels = pd.DataFrame({"evaluator": ["human"] * 5 + ["gpt-4o"], "record": [0, 0, 1, 1, 2, 0],
                           "insight_id": [0, 1, 0, 1, 0, 0],
                           "label": ["fully_covered", "partially_covered", "not_covered", "not_covered",
                                     "fully_covered", FULL]})  # fmt: skip  (the annotation file's spellings)
    shares = llm_judge.label_shares(judged, labels)
    human = shares[shares["evaluator"] == "human"].set_index("label")["n"]
    assert human.to_dict() == {FULL: 1, PARTIAL: 1, NONE: 2}  # record 2 was not judged: not counted
    assert llm_judge.label_sentence(shares) == (
        f"On these insights llm:a labels 75.0 % of them *{PARTIAL}* (the humans: 25.0 %); "
        f"llm:b labels 75.0 % of them *{NONE}* (the humans: 50.0 %)."
    )
    assert llm_judge.label_sentence(shares[shares["evaluator"] == "human"]) == ""


# ------------------------------------------------------------------------------------------- retrievers


def test_token_limited_truncates_the_last_document_as_released():
    tok = _WordTokenizer()
    texts = ["a b c", "d e f g", "h i j k l"]
    # 3 + 4 = 7 < 8, then 7 + 5 >= 8: the third is cut to the 1 token left
    assert live_contexts.token_limited(texts, [0, 1, 2], 8, tok) == [("a b c", 0), ("d e f g", 1), ("h", 2)]
    # the released `>=`: a document that would exactly fill the budget also ends the context
    assert live_contexts.token_limited(texts, [0, 1, 2], 7, tok) == [("a b c", 0), ("d e f g", 1)]
    assert live_contexts.token_limited(texts, [2, 0], 3, tok) == [("h i j", 2)]
    assert live_contexts.token_limited(texts, [0, 1, 2], 100, tok) == [(t, i) for i, t in enumerate(texts)]


def test_ranking_and_position_orders_follow_the_released_sorts():
    oracle = np.array([0.0, 2.0, 0.0, 3.0, 2.0, 0.0])
    assert retrievers.ranked(oracle) == [3, 1, 4, 0, 2, 5]  # ties keep the stored order
    pos = [0, 1, 2, 3, 4, 5]
    assert live_contexts.position_order(pos, oracle, "top") == [3, 1, 4, 0, 2, 5]
    assert live_contexts.position_order(pos, oracle, "bottom") == [0, 2, 5, 1, 4, 3]
    assert live_contexts.position_order(pos, oracle, "random") == pos
    middle = live_contexts.position_order(pos, oracle, "middle", seed=0)
    relevant = [i for i, k in enumerate(middle) if oracle[k] > 0]
    assert sorted(middle) == pos and relevant == list(range(relevant[0], relevant[0] + 3))  # one block
    assert [middle[i] for i in relevant] == [3, 1, 4]
    assert live_contexts.position_order(pos, oracle, "middle", seed=0) == middle
    with pytest.raises(ValueError, match="unknown order"):
        live_contexts.position_order(pos, oracle, "sideways")


def test_window_haystack_fills_half_the_budget_with_relevant_documents():
    oracle = np.array([0.0, 2.0, 0.0, 3.0, 1.0, 0.0])
    ntok = [100, 100, 100, 100, 100, 100]
    # relevant by rank 3, 1, 4: two fit in half of 450; then irrelevant 0, 2 while the whole fits (400 <= 450)
    assert live_contexts.window_haystack(oracle, ntok, 450) == [0, 1, 2, 3]
    assert live_contexts.window_haystack(oracle, [1000] * 6, 450) == [3]  # at least one relevant document


def test_random_scores_are_seeded_per_subtopic(haystack):
    sids = list(haystack.subtopics["subtopic_id"])
    a = retrievers.retriever_scores(haystack, sids[0], "random", seed=0)
    assert len(a) == 100 and np.array_equal(a, retrievers.retriever_scores(haystack, sids[0], "random", seed=0))
    assert not np.array_equal(a, retrievers.retriever_scores(haystack, sids[1], "random", seed=0))
    assert not np.array_equal(a, retrievers.retriever_scores(haystack, sids[0], "random", seed=1))


def test_oracle_scores_equal_the_files_label_fields(haystack):
    raw = json.loads(open(haystack.source).read())
    for sid in haystack.subtopics["subtopic_id"]:
        expected = [d[f"label_{sid}"] for d in raw["documents"]]
        assert retrievers.oracle_scores(haystack, sid).tolist() == expected


def test_summary_prompt_is_filled_as_populate_summaries(haystack):
    sid = haystack.subtopics["subtopic_id"].iloc[0]
    p = live_contexts.summary_prompt(haystack, sid, [("first text", 4), ("second", 0)])
    assert p.startswith(f'You are given 2 news articles about the main subject "{haystack.topic}."')
    assert "```\nArticle 5:\nfirst text\n\nArticle 1:\nsecond\n\n\n```" in p
    # news3's first subtopic: 9 insights, all in at least one document
    assert "summarize the 9 main insights" in p
    assert f'discussed: "{haystack.subtopics["description"].iloc[0]}"' in p


def test_live_contexts_respect_the_budget(haystack):
    tok = _WordTokenizer()
    subs = live_runs.pick_subtopics({"news3": haystack}, ["news3"], 1)
    ctx = live_contexts.live_contexts(
        {"news3": haystack},
        subs,
        tok,
        2000,
        retrievers=["oracle", "full", "keywords"],
        orders=["top", "bottom"],
    )
    assert list(ctx["setting"]) == ["oracle", "full", "keywords", "pos-top", "pos-bottom"]
    retrieval = ctx[ctx["kind"] == "retrieval"]
    assert retrieval["context_tokens"].eq(2000).all() and retrieval["last_truncated"].all()
    assert ctx.loc[ctx["setting"] == "full", "documents"].iloc[0] == [1, 2, 3]  # ~700 words each
    top, bottom = ctx.iloc[3], ctx.iloc[4]
    assert sorted(top["documents"]) == sorted(bottom["documents"]) and top["context_tokens"] <= 2000
    oracle = retrievers.oracle_scores(haystack, subs[0][1])
    assert oracle[top["documents"][0] - 1] == oracle.max() and oracle[bottom["documents"][0] - 1] == 0


def test_oracle_citation_ceiling_cites_the_gold_documents_in_context(tmp_path):
    h = synthetic.load_synthetic(_raw_haystack(), tmp_path / "h.json")
    c = live_runs.oracle_citation_ceiling({"toy": h}, _WordTokenizer(), 6).set_index("haystack")
    # subtopic S1's oracle context: d0 (2 insights), d1 (1), cut: 3 + 3 = 6 tokens -> d0, d1 whole then nothing
    # I1 gold {1, 2}: recall 1 -> F1 1; I2 gold {1, 3}: recall 1/2 -> F1 2/3; S2's I3 gold {3}: context d2 -> 1
    assert c.loc["all", "ceiling_f1"] == pytest.approx((1 + 2 / 3 + 1) / 3)
    assert c.loc["all", "insights"] == 3


def test_oracle_citation_ceilings_hold_one_set_of_rows_per_distinct_budget(tmp_path):
    """The paper's 15k-token budget and the run's own: a model whose budget is also 15k (the 1.5B) gets one set
    of rows, so claim C18 reads one value, not a two-row frame."""
    h = synthetic.load_synthetic(_raw_haystack(), tmp_path / "h.json")
    both = live_runs.oracle_citation_ceilings({"toy": h}, _WordTokenizer(), (6, 3))
    assert both["budget_tokens"].tolist() == [6, 6, 3, 3] and both["haystack"].tolist() == ["toy", "all"] * 2
    same = live_runs.oracle_citation_ceilings({"toy": h}, _WordTokenizer(), (6, 6))
    assert same["budget_tokens"].tolist() == [6, 6]
    assert same.set_index("haystack").loc["all", "ceiling_f1"] == pytest.approx((1 + 2 / 3 + 1) / 3)


def test_the_ceiling_reading_mentions_a_second_budget_only_when_the_run_has_one(tmp_path):
    h = synthetic.load_synthetic(_raw_haystack(), tmp_path / "h.json")
    same = live_runs.oracle_citation_ceilings({"toy": h}, _WordTokenizer(), (6, 6))
    assert same.set_index("haystack")["subtopics"].to_dict() == {"toy": 2, "all": 2}
    # at 6 tokens: F1 (1 + 2/3 + 1) / 3 = 0.889, recall (1 + 1/2 + 1) / 3 = 0.833, and 2 of the 3 insights complete
    assert live_runs.ceiling_reading(same) == (
        "The ceiling is computed on all 2 subtopics of the 1 haystack (3 insights). At the paper's 6 tokens, counted "
        "in not the released code's but `words`: 0.889 as citation F1 (precision 1), 0.833 as mean citation recall, with "
        "66.7 % of the insights complete. Our live contexts have the same budget and tokenizer, so there is no "
        "second row. The rows per haystack are in `oracle_citation_ceiling.csv` (under Downloads, at the end of the "
        "page).")
    both = live_runs.oracle_citation_ceilings({"toy": h}, _WordTokenizer(), (6, 3))
    small = both[both["budget_tokens"] == 3].set_index("haystack").loc["all"]
    text = live_runs.ceiling_reading(both)
    assert "no second row" not in text and (
        f"; in our live contexts, 3 tokens of `words` (the second row): {small['ceiling_f1']:.3f} as citation F1 "
        f"(precision 1), {small['ceiling_recall']:.3f} as mean citation recall, with "
        f"{100 * small['full_recall_share']:.1f} % of the insights complete. The rows per haystack" in text)


def test_the_papers_budget_is_counted_in_the_papers_tokenizer_and_the_runs_in_the_models(tmp_path):
    """C18's row counts the paper's 15k tokens in cl100k_base (here a stand-in named so): a run whose own budget
    is also the paper's still gets its second set of rows, in its model's tokenizer."""
    h = synthetic.load_synthetic(_raw_haystack(), tmp_path / "h.json")
    paper = _WordTokenizer()
    paper.name = "tiktoken:cl100k_base"
    c = live_runs.oracle_citation_ceilings({"toy": h}, _WordTokenizer(), (6, 6), paper_tokenizer=paper)
    assert c["tokenizer"].tolist() == ["tiktoken:cl100k_base"] * 2 + ["words"] * 2
    assert live_runs.ceiling_reading(c).startswith(
        "The ceiling is computed on all 2 subtopics of the 1 haystack (3 insights). At the paper's 6 tokens, counted "
        "in the released code's `tiktoken:cl100k_base`: 0.889 as citation F1")


# ------------------------------------------------------------------------------------------- judging and scoring


def test_lexical_judgments_link_the_best_bullet_or_none():
    js = live_runs.lexical_judgments(
        [("a", "Library opens 12 May 2025"), ("b", "Budget of 4 million dollars")],
        ["Intro.", "The library opens on 12 May 2025 [1][2]."],
        Thresholds(0.3, 0.9),
    )
    assert js == [
        {"insight_id": "a", "coverage": FULL, "bullet_id": 2},
        {"insight_id": "b", "coverage": NONE, "bullet_id": "NA"},
    ]
    assert live_runs.lexical_judgments([("a", "x y")], [], Thresholds(0.3, 0.9))[0]["coverage"] == NONE


def test_score_live_uses_the_released_metrics(tmp_path):
    h = synthetic.load_synthetic(_raw_haystack(), tmp_path / "h.json")
    summaries = pd.DataFrame(
        [
            {
                "haystack": "toy",
                "subtopic_id": "S1",
                "setting": "oracle",
                "kind": "retrieval",
                "bullets": ["- Opening day is 12 May 2025 [1][2].", "- Nothing here [3]."],
            }
        ]
    )
    scores = live_runs.score_live(summaries, {"toy": h}, thresholds=Thresholds(0.5, 0.9))
    i1 = scores.set_index("insight_id").loc["I1"]
    assert i1["coverage"] == 1.0 and i1["f1"] == 1.0 and i1["joint"] == 1.0
    assert scores.set_index("insight_id").loc["I2", "coverage"] == 0.0
    with pytest.raises(ValueError, match="exactly one judge"):
        live_runs.score_live(summaries, {"toy": h})


# ------------------------------------------------------------------------------------------- synthesis


def test_parse_list_reads_bullets_and_numbers_once():
    text = "Here you go:\n- Opening hours\n2. **Funding**\n* opening hours\n\u2022 Staff\nplain line"
    assert synthetic.parse_list(text) == ["Opening hours", "Funding", "Staff"]
    # no list markers: the non-empty lines, without a preamble ending in ":"
    assert synthetic.parse_list("Here are two:\nThe library opens in May.\n\nIt cost $4M.") == [
        "The library opens in May.",
        "It cost $4M.",
    ]


def test_parse_question_takes_the_first_real_question_or_falls_back():
    assert synthetic.parse_question("What a great question! Is the budget discussed? Yes.", "budget") == (
        "Is the budget discussed?"
    )
    assert synthetic.parse_question("Sure. Budget?", "the budget") == 'Is "the budget" discussed?'


def test_plan_documents_spreads_insights_over_two_subtopics():
    plan = synthetic.plan_documents([["a1", "a2", "a3"], ["b1", "b2", "b3"]], 6, per_subtopic=1, seed=0)
    assert all(len(d) == 2 and d[0][0] != d[1][0] for d in plan)
    uses = pd.Series([i for d in plan for i in d]).value_counts()
    assert set(uses.index) == {"a1", "a2", "a3", "b1", "b2", "b3"} and uses.max() - uses.min() <= 1


def test_verify_document_finds_stated_insights():
    ins = {"x": "The library opens on 12 May 2025", "y": "It cost 4 million dollars"}
    assert synthetic.verify_document("Opening on 12 May 2025, the new library ...", ins, 0.75) == ["x"]


def test_synthetic_haystack_loads_with_the_summhay_loader(tmp_path):
    h = synthetic.load_synthetic(_raw_haystack(), tmp_path / "topic.json")
    assert h.name == "synthetic"
    assert len(h.documents) == 3 and list(h.subtopics["subtopic_id"]) == ["S1", "S2"]
    assert h.insights["insight_id"].tolist() == ["I1", "I2", "I3"]
    shape = dataset_shape.shape_table({"synthetic": h})
    assert shape.loc[0, "insights"] == 3 and shape.loc[0, "docs_per_insight_min"] == 1
    rep = synthetic.synthesis_report(_raw_haystack())
    assert rep["found_in"].tolist() == [2, 2, 1]


def test_a_degenerate_synthetic_haystack_is_called_so():
    """SmolLM2's haystack had one insight, its subtopic's title again: its 100 % coverage measures nothing."""
    raw = _raw_haystack()
    text = synthetic.synthesis_reading(raw, synthetic.synthesis_report(raw), planned_insights=4, calls=12)
    assert text == "The model wrote 2 subtopics with 3 insights (4 planned) and 3 documents, in 12 model calls."
    raw["subtopics"] = raw["subtopics"][:1]
    raw["subtopics"][0]["insights"] = [{"insight_id": "I1", "insight_name": "t", "insight": "The opening day."}]
    text = synthetic.synthesis_reading(raw, synthetic.synthesis_report(raw), planned_insights=4, calls=9)
    assert text.startswith("The model wrote 1 subtopic with 1 insight (4 planned)")
    assert "**This haystack is degenerate** (only 1 insight; insights that only repeat their subtopic's title: 1 of 1)" in text


# ------------------------------------------------------------------------------------------- real model (slow)


@pytest.mark.slow
def test_llm_judge_on_one_annotated_summary(bench):
    from lcrag.models import get_model

    labels = evaluator_study.benchmark_labels(bench)
    judged = llm_judge.llm_judge_benchmark(
        bench, labels, get_model("local/smollm2-135m-instruct"), [1], max_tokens=32
    )
    n = len(bench.set_index("record").loc[1, "annotation"])
    assert len(judged) == n and judged["evaluator"].eq("llm:smollm2-135m-instruct").all()
    assert set(judged["parse"]) <= set(PARSE_STATUSES)
    assert set(judged["label"]) <= {FULL, PARTIAL, NONE}
    assert judged.loc[judged["parse"] == "unparseable", "score"].eq(0).all()
    assert judged["link_outside"].dtype == bool
    t = our_judges.judges_table(pd.concat([labels[labels["record"] == 1],
                                           judged.drop(columns=["answer", "parse", "link_outside"])]))
    assert "ours (LLM)" in set(t["judge"])


@pytest.mark.slow
def test_one_live_summary_is_scored(haystack):
    from lcrag.models import get_model

    m = get_model("local/smollm2-135m-instruct")
    subs = live_runs.pick_subtopics({"news3": haystack}, ["news3"], 1)
    ctx = live_contexts.live_contexts({"news3": haystack}, subs, m.tokenizer, 600, retrievers=["oracle"], orders=[])
    s = live_runs.summarize(m, ctx, max_tokens=64)
    assert s["prompt_tokens"].iloc[0] < 600 + 400 and s["completion_tokens"].iloc[0] <= 64
    scores = live_runs.score_live(s, {"news3": haystack}, thresholds=Thresholds(0.4, 0.8))
    assert len(scores) == 9 and scores["coverage"].isin([0, 0.5, 1]).all()


# ------------------------------------------------------------------------------------------- helpers


class _WordTokenizer:
    """Whitespace words as tokens (ids index a vocabulary built on the fly): exact, easy budgets for tests."""

    name = "words"

    def __init__(self):
        self.vocab: list[str] = []

    def encode(self, text: str) -> list[int]:
        out = []
        for w in text.split():
            if w not in self.vocab:
                self.vocab.append(w)
            out.append(self.vocab.index(w))
        return out

    def decode(self, tokens: list[int]) -> str:
        return " ".join(self.vocab[t] for t in tokens)


def _raw_haystack() -> dict:
    docs = [
        ("d0", "library opens 12may", ["I1", "I2"]),
        ("d1", "library opens again", ["I1"]),
        ("d2", "four million budget", ["I2", "I3"]),
    ]
    return {
        "topic_id": "T",
        "topic": "A new library",
        "topic_metadata": {},
        "subtopics": [
            {
                "subtopic_id": "S1",
                "subtopic_name": "opening",
                "subtopic": "opening day",
                "query": "Opening?",
                "insights": [
                    {"insight_id": "I1", "insight_name": "date", "insight": "Opening day is 12 May 2025"},
                    {"insight_id": "I2", "insight_name": "hours", "insight": "Open 9 to 5 on weekdays"},
                ],
                "retriever": {"oracle": {"d0": 2, "d1": 1, "d2": 1}},
                "summaries": {},
                "eval_summaries": {},
            },
            {
                "subtopic_id": "S2",
                "subtopic_name": "budget",
                "subtopic": "the budget",
                "query": "Budget?",
                "insights": [
                    {"insight_id": "I3", "insight_name": "cost", "insight": "It cost 4 million dollars"}
                ],
                "retriever": {"oracle": {"d0": 0, "d1": 0, "d2": 1}},
                "summaries": {},
                "eval_summaries": {},
            },
        ],
        "documents": [
            {
                "document_id": d,
                "document_text": t,
                "idx": k,
                "insights_included": inc,
                "planned_insights": inc,
            }
            for k, (d, t, inc) in enumerate(docs)
        ],
    }


@pytest.fixture(scope="module")
def data_dir(mirror, tmp_path_factory):
    from helpers import fetched_data_dir

    yield from fetched_data_dir(mirror, tmp_path_factory, ["summhay"])


@pytest.fixture(scope="module")
def haystack(data_dir):
    from lcrag.data import load_haystack

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCRAG_DATA_DIR", str(data_dir))
        return load_haystack("news3")


@pytest.fixture(scope="module")
def bench(data_dir):
    from lcrag.data import load_eval_benchmark

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCRAG_DATA_DIR", str(data_dir))
        return load_eval_benchmark()


def _live(joint: dict[str, float], coverage: float = 40.0) -> pd.DataFrame:
    return pd.DataFrame([{"judge": "lexical", "kind": "retrieval", "setting": s, "joint": j, "coverage": coverage,
                          "citation": 50.0} for s, j in joint.items()])


def _claims_of(table: pd.DataFrame, position: pd.DataFrame) -> pd.DataFrame:
    from lcrag.book.claims import ClaimsLedger

    ledger = ClaimsLedger("summhay", paper="summhay", model="m")
    ceiling = pd.DataFrame([{"haystack": "all", "ceiling_f1": 0.84, "insights": 10, "budget_tokens": 15000,
                             "tokenizer": "tiktoken:cl100k_base"}])
    live_claims.check_live_claims(ledger, live=table, position=position, ceiling=ceiling, judges=None, scope="s")
    return ledger.table().set_index("claim_id")


def test_live_claims_at_the_floor_are_not_testable():
    """Joint scores of a model at the floor (a few points) decide nothing about retrieval or position."""
    low = _claims_of(_live({"oracle": 0.0, "keywords": 0.8, "random": 0.4}),
                     pd.DataFrame([{"random": 0.4, "reverse": 2.3, "sensitivity": 1.9}]))
    assert {c: low.loc[c, "verdict"] for c in ("C1", "C4", "C14")} == dict.fromkeys(
        ("C1", "C4", "C14"), "not testable with this model")
    assert "keywords (pooled joint): 0.8 points, below 5" in low.loc["C4", "evidence"]
    assert low.loc["C18", "verdict"] == "reproduced"  # no model in it: the floor does not apply
    high = _claims_of(_live({"oracle": 30.0, "keywords": 20.0, "random": 10.0}),
                      pd.DataFrame([{"random": 20.0, "reverse": 31.0, "sensitivity": 11.0}]))
    # above the floor, without per-summary scores: C1, C4 and C14 compare settings and have no interval, so they
    # decide nothing (tests/papers/summhay/test_live_claims.py decides them on paired intervals)
    assert {c: high.loc[c, "verdict"] for c in ("C1", "C4", "C14")} == dict.fromkeys(
        ("C1", "C4", "C14"), "inconclusive")


def test_the_context_budget_is_the_papers_15k_where_the_window_holds_it():
    assert live_contexts.context_budget(32768) == 15000  # the 1.5B: the paper's budget, not its whole window
    assert live_contexts.context_budget(8192) == 8192 - 1024  # SmolLM2: its window less the reserve
    assert live_contexts.context_budget(8192, token_budget=2000) == 2000
    assert live_contexts.context_budget(16000, reserve=1000) == 15000
    with pytest.raises(ValueError, match="leaves nothing"):
        live_contexts.context_budget(1000)


def _agreement(rows: list[tuple[str, str, float, int]]) -> pd.DataFrame:
    """Rows of our_judges.judges_table (whose ``judge`` column is the kind of judge)."""
    t = pd.DataFrame(rows, columns=["evaluator", "half", "cov_corr", "n_insights"])
    return t.assign(judge=["ours (LLM)" if e.startswith("llm:") else "ours (no LLM)" for e in t["evaluator"]])


def test_the_live_judge_is_chosen_on_the_fit_half_among_judges_that_can_judge_a_live_summary():
    t = _agreement([("lexical-recall", "fit", 0.66, 713), ("lexical-recall", "held-out", 0.65, 706),
                    ("minilm-cosine", "fit", 0.90, 713),  # cannot judge a live summary: never chosen
                    ("llm:big", "fit", 0.70, 713), ("llm:big", "held-out", 0.60, 706),
                    ("llm:small", "fit", 0.50, 713), ("llm:tiny", "fit", 0.99, 5)])  # 5 insights: not eligible
    llms = ["llm:big", "llm:small", "llm:tiny"]
    assert our_judges.live_judge("best", t, llms) == "llm:big"  # its held-out 0.60 plays no part in the choice
    assert our_judges.live_judge("best", t, ["llm:small"]) == "lexical-recall"
    assert our_judges.live_judge("best", t[t["half"] == "held-out"], llms) == "lexical-recall"  # nothing on fit
    assert our_judges.live_judge("lexical", t, llms) == "lexical-recall"
    assert our_judges.live_judge("llm:small", t, llms) == "llm:small"
    with pytest.raises(ValueError, match="live_evaluator .llm:nope. is none of"):
        our_judges.live_judge("llm:nope", t, llms)
    t = pd.concat([t, _agreement([("gpt-4o", "held-out", 0.72, 706)])])
    assert our_judges.judge_choice_sentence(t, "llm:big") == (
        "The judge of ours that agrees best with the humans on the fit half is **llm:big** (r = 0.700 on 713 "
        "insights); on the held-out half it reaches r = 0.600 on 706 insights, against gpt-4o's r = 0.720 on 706 "
        "insights.")
    assert our_judges.judge_choice_sentence(t, "llm:small", chosen_by="llm:small").startswith(
        "The live summaries are judged by **llm:small**, as `live_evaluator` asks (fit half: r = 0.500 on 713 insights); "
        "on the held-out half it reaches not measured")


def test_the_live_table_marks_the_deciding_judge_and_the_synthesis_reads_its_rows(tmp_path):
    from lcrag.papers.summhay import comparison

    scores = pd.DataFrame([{"judge": j, "kind": "retrieval", "setting": s, "haystack": "news3", "subtopic_id": t,
                            "coverage": c, "f1": c, "joint": c + t / 10, "precision": c, "recall": c}
                           for j, c in (("lexical", 0.2), ("llm:big", 0.6)) for s in ("full", "oracle")
                           for t in (0, 1)])
    summaries = pd.DataFrame({"setting": ["full", "oracle"], "summary": ["a", "b"], "bullets": [["x"], ["y"]],
                              "n_documents": [3, 2], "relevant_in_context": [1, 2]})
    per = live_runs.per_summary(scores, decides="llm:big")  # one row per judge and summary, 0-100
    assert len(per) == 8 and per.set_index(["judge", "setting", "subtopic_id"]).loc[
        ("llm:big", "full", 1), ["decides", "joint", "n_insights"]].tolist() == [True, 70.0, 1]
    t = live_runs.live_table(scores, summaries, decides="llm:big")
    assert t.set_index(["judge", "setting"])["decides"].to_dict() == {
        ("lexical", "full"): False, ("lexical", "oracle"): False, ("llm:big", "full"): True, ("llm:big", "oracle"): True}
    run = tmp_path / "run"
    run.mkdir()
    t.to_csv(run / "live_results.csv", index=False)
    old = tmp_path / "old"
    old.mkdir()
    t.drop(columns="decides").to_csv(old / "live_results.csv", index=False)  # a run from before the column
    runs = pd.DataFrame([{"chapter": "summhay", "model": m, "finished": "2026", "run_dir": d, "profile": "default",
                          "book": True} for m, d in (("new", run), ("older", old))])
    got = comparison.settings(runs, problems := []).set_index(["model", "setting"])["joint"]
    assert problems == [] and got.to_dict() == pytest.approx({("new", "full"): 0.65, ("new", "oracle"): 0.65,
                                                              ("older", "full"): 0.25, ("older", "oracle"): 0.25})
    assert live_runs.live_judge_name("lexical-recall") == "lexical" and live_runs.live_judge_name("llm:x") == "llm:x"


def _c15(rows) -> pd.Series:
    """C15's row when the LLM judges and GPT-4o agree with the humans as ``rows`` say (evaluator, half, r, n)."""
    from lcrag.book.claims import ClaimsLedger

    ceiling = pd.DataFrame([{"haystack": "all", "ceiling_f1": 0.84, "insights": 10, "budget_tokens": 15000,
                             "tokenizer": "t"}])
    ledger = ClaimsLedger("summhay", paper="summhay", model="m")
    live_claims.check_live_claims(ledger, live=_live({"oracle": 30.0}), position=pd.DataFrame(), ceiling=ceiling,
                                  judges=_agreement(rows), scope="s")
    return ledger.table().set_index("claim_id").loc["C15"]


def test_c15_tests_the_llm_judge_chosen_on_the_fit_half_on_the_held_out_half():
    gpt4o = [("gpt-4o", "fit", 0.71, 713), ("gpt-4o", "held-out", 0.72, 706)]
    c15 = _c15([("llm:gpt-4o-08", "fit", 0.70, 713), ("llm:gpt-4o-08", "held-out", 0.60, 706),
                ("llm:gpt-4o-05", "fit", 0.50, 713), ("llm:gpt-4o-05", "held-out", 0.69, 706), *gpt4o])
    assert c15["our_value"] == "llm:gpt-4o-08: 0.600 [0.551, 0.645] (GPT-4o on the same summaries 0.720)"
    assert c15["verdict"] == "not reproduced" and "the best of our LLM judges on the fit half" in c15["evidence"]  # 0.645 < 0.67
    # 0.69 [0.65, 0.73] on 706 insights: the interval reaches below 0.67, so the point value alone decides nothing
    close = _c15([("llm:gpt-4o-08", "fit", 0.70, 713), ("llm:gpt-4o-08", "held-out", 0.69, 706), *gpt4o])
    assert close["verdict"] == "inconclusive"
    # a judge that is not the paper's (GPT-4o): measured, not a test of the claim
    other = _c15([("llm:qwen", "fit", 0.70, 713), ("llm:qwen", "held-out", 0.75, 706), *gpt4o])
    assert other["verdict"] == "not testable with this model"


def test_the_live_reading_says_when_no_summary_cites_and_what_that_does_to_joint():
    summaries = pd.DataFrame({"bullets": [["- a fact", "- another"], ["- a third"]]})
    table = pd.DataFrame([{"judge": "lexical", "kind": "retrieval", "setting": s, "coverage": c, "citation": 0.0,
                           "joint": 0.0} for s, c in (("random", 23.6), ("oracle", 40.3))])
    text = live_runs.live_reading(summaries, table, "lexical")
    assert text.startswith("0 of 2 summaries cite at least one document")
    assert "Coverage runs from 23.6 (random) to 40.3 (oracle)" in text and "not testable with this model" in text
    citing = pd.DataFrame({"bullets": [["- a fact [3][8]"], ["- a third"]]})
    text = live_runs.live_reading(citing, table.assign(citation=[20.0, 35.0], joint=[5.0, 14.0]), "lexical")
    assert text.startswith("1 of 2 summaries") and "Joint reaches 14.0 at most." in text
    assert "not testable" not in text
