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
    assert t.loc["C15", ["model", "source", "verdict"]].tolist() == [QWEN, "our run", "not reproduced"]
    assert t.loc["C15", "evidence"].startswith(f"{QWEN} judging the released summaries")
    # C18 counts tokens: no model
    assert t.loc["C18", ["model", "source", "verdict"]].tolist() == ["no model", "no model", "not reproduced"]
    assert "tokenizer of SmolLM2-135M-Instruct.Q4_1.gguf" in t.loc["C18", "evidence"]


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
    assert f"checked on our run with {SMOL}, 3 in all: 3 not testable with this model." in text
    assert f"checked on our run with {QWEN}, 1 in all: 1 not reproduced." in text
    assert "call no language model (not about a language model's behaviour), 1 in all: 1 not reproduced." in text


def test_the_claims_page_counts_the_no_model_source_and_lists_each_model_once():
    md = summary_markdown(_ledger({"llm:qwen2.5-coder-1.5b-instruct": QWEN}).table())
    assert "| no model | 0 | 1 | 0 | 0 | 1 |" in md
    models = md[md.index('id="claims-dashboard-model"'):].split("</select>")[0]
    assert models.count("smollm2") == 2  # one option: its value and its label
    assert '<option value="no model">' in models
