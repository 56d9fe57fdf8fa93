"""lcrag.synthesis.runs: what a re-run would cost, per run and per model that made its calls."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

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
