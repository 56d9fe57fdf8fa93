"""lcrag.synthesis.runs: which run of each chapter and model is read (the profiles in order, the book's companion
run, a model's own run), its tables or why not, and what a re-run would cost, per run and per model that made its
calls."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from synthesis_runs import GEMMA, needle_answers, write_run

from lcrag import synthesis as S

SMOL, QWEN = "local/smollm2-135m-instruct", "local/qwen2.5-coder-1.5b-instruct"


def _run(root: Path, chapter: str, model: str, usage: dict, calls: list[dict] | None = None) -> None:
    d = root / "runs" / model.replace("/", "--") / "default" / chapter
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps({"chapter": chapter, "status": "ok", "profile": "default",
                                                 "model": model, "finished": "2026-01-01", "usage": usage}))
    if calls is not None:
        (d / "usage.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls))


def test_rerun_cost_attributes_calls_to_the_models_that_made_them(tmp_path):
    """The needle run of one model asks the others too: each model's calls are its own row, not the run model's."""
    calls = [{"model": QWEN, "prompt_tokens": 30_000, "completion_tokens": 20, "latency_s": 360.0}] * 3 + [
        {"model": SMOL, "prompt_tokens": 8_000, "completion_tokens": 10, "latency_s": 36.0}] * 2
    _run(tmp_path, "needle", QWEN, {"calls": 5, "prompt_tokens": 106_000, "completion_tokens": 80,
                                    "latency_s": 1152.0}, calls)
    cost = S.rerun_cost(S.find_runs(tmp_path), ["openai/gpt-4o-mini"]).set_index("calls_model")
    assert cost["run_model"].tolist() == [QWEN, QWEN] and cost["chapter"].tolist() == ["needle", "needle"]
    assert cost.loc[QWEN, ["calls", "prompt_tokens", "completion_tokens", "model_hours"]].tolist() == [
        3, 90_000, 60, 0.3]
    assert cost.loc[SMOL, ["calls", "prompt_tokens"]].tolist() == [2, 16_000]
    assert cost["calls"].sum() == 5  # every call once


def test_rerun_cost_prices_the_recorded_tokens_in_usd_columns(tmp_path):
    """Without a usage log, the manifest's totals, under the run's model; each price column says its unit."""
    _run(tmp_path, "thesis", SMOL, {"calls": 10, "prompt_tokens": 2_000_000, "completion_tokens": 10_000,
                                    "latency_s": 5400.0})
    cost = S.rerun_cost(S.find_runs(tmp_path), ["openai/gpt-4o-mini", "openai/o9-unpriced"])
    assert list(cost.columns) == ["chapter", "profile", "run_model", "calls_model", "calls", "model_hours",
                                  "prompt_tokens", "completion_tokens", "cost_usd_openai/gpt-4o-mini",
                                  "cost_usd_openai/o9-unpriced"]
    row = cost.iloc[0]
    assert row["model_hours"] == 1.5 and row["calls_model"] == row["run_model"] == SMOL
    assert row["calls"] == 10 and row["cost_usd_openai/gpt-4o-mini"] == pytest.approx(2 * 0.15 + 0.01 * 0.60)
    assert np.isnan(row["cost_usd_openai/o9-unpriced"])


def test_the_read_order_is_said_from_the_profiles_read_and_the_rerun_page_says_the_same():
    """The synthesis page states the order from the code (read_order); the static re-run page must agree."""
    from lcrag import config

    order = " → ".join(f"`{p}`" for p in S.profiles_to_read("default"))
    assert order == "`default` → `companion` → `quick`"
    text = S.read_order(S.profiles_to_read("default"))
    assert order in text and "companions.yml" in text and "`smoke` run is never read" in text
    assert "never read" not in S.read_order(["smoke"])
    rerun = " ".join((config.project_root() / "book" / "rerun.md").read_text(encoding="utf-8").split())
    assert f"`default` reads {order}" in rerun


def test_find_runs_keeps_the_latest_successful_run_of_the_preferred_profile(tmp_path):
    write_run(tmp_path, "thesis", SMOL, {}, profile="quick", finished="2026-01-03T00:00:00+00:00")
    write_run(tmp_path, "thesis", SMOL, {}, profile="default", finished="2026-01-01T00:00:00+00:00")
    write_run(tmp_path, "needle", SMOL, {}, status="failed")
    write_run(tmp_path, "summhay", SMOL, {}, status="interrupted")
    (tmp_path / "runs" / "x" / "default" / "longrag").mkdir(parents=True)  # being recorded: no manifest yet
    write_run(tmp_path, "quickstart", SMOL, {})  # not a family

    runs = S.find_runs(tmp_path, profiles=["default", "quick"])
    assert runs[["chapter", "profile"]].values.tolist() == [["thesis", "default"]]
    runs = S.find_runs(tmp_path, profiles=["quick", "default"])
    assert runs[["chapter", "profile"]].values.tolist() == [["thesis", "quick"]]
    assert S.find_runs(tmp_path, profiles=["smoke"]).empty


def test_find_runs_prefers_the_companion_run_the_book_makes(tmp_path):
    """A run of another profile left in runs/ (an earlier lineup) does not hide the companion run that
    notebooks/companions.yml lists, even when it is the preferred profile and the later one."""
    write_run(tmp_path, "thesis", SMOL, {}, profile="companion", finished="2026-01-01T00:00:00+00:00")
    write_run(tmp_path, "thesis", SMOL, {}, profile="default", finished="2026-01-03T00:00:00+00:00")
    assert S.find_runs(tmp_path, profiles=["default", "companion"])["profile"].tolist() == ["default"]

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "thesis.md").write_text("# thesis\n", encoding="utf-8")
    (tmp_path / "notebooks" / "companions.yml").write_text(
        f"- model: {SMOL}\n  profile: companion\n  chapters: [thesis]\n", encoding="utf-8")
    assert S.find_runs(tmp_path, profiles=["default", "companion"])["profile"].tolist() == ["companion"]
    # a profile the synthesis does not read stays unread
    assert S.find_runs(tmp_path, profiles=["default"])["profile"].tolist() == ["default"]


def test_a_models_own_run_wins_over_rows_inside_another_run(book_runs):
    write_run(
        book_runs,
        "needle",
        GEMMA,
        {"answers": needle_answers(GEMMA, [1, 1, 1, 1], [1, 1])},
        finished="2025-01-01T00:00:00+00:00",
    )  # older, but Gemma's own run
    syn = S.synthesize(book_runs, n_boot=200)
    g = syn.comparisons.set_index(["family", "model"]).loc[("needle", GEMMA)]
    assert g["long_value"] == 1.0 and "inside" not in g["source"]
    assert len(syn.tables["needle_cells"].query("model == @GEMMA")) == 6


def test_a_missing_or_malformed_table_is_reported_and_skipped(book_runs):
    d = book_runs / "runs" / "local--smollm2-135m-instruct" / "default"
    (d / "summhay" / "live_results.csv").unlink()
    pd.DataFrame({"dataset": ["x"], "f1": [1.0]}).to_csv(d / "longrag" / "answers.csv", index=False)
    syn = S.synthesize(book_runs, n_boot=200)
    assert any("summhay/live_results.csv: missing" in p for p in syn.problems)
    assert any(
        "longrag/answers.csv: no column(s) ['question_id', 'generator', 'strategy']" in p
        for p in syn.problems
    )
    assert set(syn.comparisons["family"]) == {"needle", "thesis", "long2rag"}
    assert S.coverage(syn).loc["longrag", SMOL] == S.NOT_RUN


def test_profiles_read_are_the_run_profile_then_the_cheaper_ones_but_smoke():
    assert S.profiles_to_read("default") == ["default", "companion", "quick"]
    assert S.profiles_to_read("paper") == ["paper", "default", "companion", "quick"]
    assert S.profiles_to_read("companion") == ["companion", "quick"]
    assert S.profiles_to_read("quick") == ["quick"]
    assert S.profiles_to_read("smoke") == ["smoke"]
    assert S.profiles_to_read("default", ["quick", "quick", "paper"]) == ["quick", "paper"]
    with pytest.raises(ValueError, match="unknown profile 'fast'"):
        S.profiles_to_read("fast")
