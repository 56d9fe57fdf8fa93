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
