"""benchmarks/size_axis_report.py: the closing table of the size axis from a runs directory."""

from __future__ import annotations

import json
import sys

import pandas as pd
from helpers import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import size_axis_report  # noqa: E402


def _run(runs, model, profile, chapter, calls, latency_s):
    d = runs / model.replace("/", "--") / profile / chapter
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps({"chapter": chapter, "model": model, "profile": profile,
                                                 "usage": {"calls": calls, "latency_s": latency_s}}))
    return d


def test_one_row_per_chapter_and_model_with_calls_hours_and_the_headline(tmp_path):
    runs = tmp_path / "runs"
    _run(runs, "local/a", "default", "needle", 10, 7200.0)  # the needle page runs both models
    syn = _run(runs, "local/a", "default", "synthesis", 0, 0.0)
    pd.DataFrame([
        {"family": "needle", "model": "local/a", "comparison": "full vs rag", "diff": -0.5, "ci_low": -0.75,
         "ci_high": -0.25, "n": 12, "units": "cells", "reading": "RAG better"},
        {"family": "needle", "model": "local/b", "comparison": "full vs rag", "diff": 0.1, "ci_low": float("nan"),
         "ci_high": float("nan"), "n": 2, "units": "cells", "reading": "no clear difference"},
    ]).to_csv(syn / "size_axis.csv", index=False)
    lines = size_axis_report.report(runs).splitlines()
    assert len(lines) == 4 and "synthesis" not in "".join(lines)
    a, b = lines[2], lines[3]  # by chapter and model
    assert "local/b" in b and "(inside the page's run)" in b and "+10.0 pp (no interval)" in b
    assert "local/a" in a and "| default " in a and " 10 " in a and " 2 " in a and "-50.0 pp [-75.0, -25.0]" in a
