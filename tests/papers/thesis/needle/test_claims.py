"""H4 of the needle chapter (lcrag.papers.thesis.needle.claims): H4c's quadrant named as the heatmaps draw it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from lcrag import plots  # noqa: E402
from lcrag.book import ClaimsLedger  # noqa: E402
from lcrag.papers.thesis.needle import analysis  # noqa: E402
from lcrag.papers.thesis.needle import claims as needle_claims  # noqa: E402


def test_h4c_names_its_quadrant_as_the_heatmaps_draw_it():
    """H4c tests lengths above the median with depth >= 50 %; the heatmaps draw depth 0 on top, so that quadrant
    is their lower right, and the claim's text and value say so (the thesis's words "upper right" are quoted)."""
    cells = pd.DataFrame([{"model": "m", "needle": n, "setting": "full", "context_tokens": t, "depth": d,
                           "recall": 0.0 if (t == 8000 and d == 100) else 1.0}
                          for n in ("simple", "complex") for t in (1000, 8000) for d in (0, 50, 100)])
    ax = plots.needle_heatmap(cells[cells["needle"] == "simple"], annot=False)
    assert ax.get_ylim()[0] > ax.get_ylim()[1]  # the y axis runs downwards: the first row (depth 0) is on top
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0", "50", "100"]
    ledger = ClaimsLedger(None, paper="thesis", model="m")
    needle_claims.check_h4(ledger, analysis.add_found(cells), window=8000)
    h4c = ledger.table().set_index("claim_id").loc["H4c"]
    assert "lower right" in h4c["our_value"] and "upper right" not in h4c["our_value"]
    assert "the lower right: lengths above the median, depth ≥ 50 %" in h4c["text"]


def test_the_heatmap_sets_the_rag_columns_apart_from_the_full_context_ones():
    """With the RAG arm at every length, a panel holds the full-context columns, then "RAG <length>" ones: one
    white rule between them, and none when the panel has only full-context columns."""
    cells = pd.DataFrame([{"model": "m", "needle": "simple", "setting": s, "context_tokens": t, "depth": d,
                           "recall": 1.0} for s in ("full", "rag") for t in (1000, 2000, 4000) for d in (0, 100)])
    hm = analysis.heatmap_table(cells)
    ax = plots.needle_heatmap(hm, x="length", annot=False)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1000", "2000", "4000", "RAG 1000", "RAG 2000", "RAG 4000"]
    assert [line.get_xdata()[0] for line in ax.get_lines()] == [3]
    ax = plots.needle_heatmap(hm[hm["setting"] == "full"], x="length", annot=False)
    assert ax.get_lines() == []
