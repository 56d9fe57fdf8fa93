"""The thesis's run plan (lcrag.papers.thesis.run_plan): one request per run, prompts built on real cases."""

from __future__ import annotations

from lcrag.papers.thesis import cases as thesis_cases
from lcrag.papers.thesis import numbers, pipelines, run_plan


def test_plan_has_one_row_per_request_without_duplicates(cases):
    kept = cases[cases["kept"]]
    main, grid = thesis_cases.first_cases(kept, 3), thesis_cases.stratified_subset(kept, 2)
    plan = run_plan.plan_runs(
        main,
        grid,
        grid_pipelines=["CQT", "BET"],
        grid_prompts=["BAMBOO", "CTX1"],
        extra_full=cases[~cases["kept"]].head(2),
    )
    assert not plan.duplicated().any()
    # main: 6 cases x 3 runs; grid: 4 cases x 2 prompts x 4 runs; extra: 2; PaperQA case 1 is in main and grid,
    # so its Full, Evidence and CQT under BAMBOO are asked once
    assert len(plan) == 6 * 3 + 4 * 2 * 4 + 2 - 3
    assert set(plan.loc[plan["setting"] != "rag", "pipeline"]) == {numbers.NO_PIPELINE}


def test_retrieve_and_build_prompts_bm25_on_real_cases(cases):
    kept = cases[cases["kept"]]
    one = kept[(kept["task"] == "meetingqa") & (kept["case"] == 3)]
    r = pipelines.retrieve(one, ["BET", "BQT"])
    bet = r.set_index("pipeline").loc["BET"]
    assert bet["chunks"] == [5, 11, 6, 1, 26]  # Table 6.3, case 3, BM25 row
    assert bet["n_chunks"] == 38 and bet["evidence_recall"] == 1.0  # chunk 5 holds the evidence verbatim
    plan = run_plan.plan_runs(one, main_pipelines=["BET"])
    req = run_plan.build_prompts(plan, cases, r).set_index("setting")
    assert req.loc["rag", "chunks"] == [5, 11, 6, 1, 26]
    assert req.loc["evidence", "prompt_text"].count(one["evidence"].item()) == 1
    assert req.loc["full", "context_chars"] == len(one["content"].item())
    assert req.loc["rag", "prompt_text"].index("Article part n°1: ```" + bet["parts"][0][:30]) > 0
