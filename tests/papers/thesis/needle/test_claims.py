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
    assert "lengths above the median, needle late (depth ≥ 50 %: the lower right as the heatmaps draw it)" in h4c["text"]


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


def test_the_page_says_which_parts_no_run_on_its_grid_can_reproduce():
    """On the default grid a model that finds every needle still gets inconclusive: H4b's early window holds 24 cells
    for a Qwen model (14.2 % with no miss, above 10 %) and H4c/H4d's quadrants 18 (18.5 %, above 15 %); SmolLM2's
    24-cell quadrants can decide. 36 and 23 cells are the fewest that can show 10 % and 15 % with no miss."""
    from lcrag.papers.thesis.needle.claims import cells_needed, resolution, resolution_sentence

    assert (cells_needed(0.10), cells_needed(0.15)) == (36, 23)
    t = resolution({"local/qwen2.5-coder-1.5b-instruct": [1000, 2000, 4000, 8000, 16000, 24000, 32000],
                    "local/smollm2-135m-instruct": list(range(1000, 8001, 1000))}, [0, 20, 40, 60, 80, 100])
    row = t.set_index(["model", "part"])
    assert tuple(row.loc[("local/qwen2.5-coder-1.5b-instruct", "H4d"), ["cells", "decidable"]]) == (18, False)
    assert tuple(row.loc[("local/smollm2-135m-instruct", "H4c"), ["cells", "decidable"]]) == (24, True)
    text = resolution_sentence(t)
    assert ("in H4b's early window 14.2 % (24 cells: Qwen2.5-Coder-1.5B-Instruct), 26.5 % (12 cells: "
            "SmolLM2-135M-Instruct), above the 10 % margin (36 cells needed)") in text
    assert "in the H4c and H4d quadrants 18.5 % (18 cells: Qwen2.5-Coder-1.5B-Instruct), above the 15 % margin (23 " \
           "cells needed)" in text and "gets *inconclusive*" in text
    assert resolution_sentence(t[t["decidable"]]) == ""


def test_the_thesis_s_words_and_the_book_s_readings_are_told_apart():
    """The intro quotes the thesis on the simple needle and marks "never below 30 %" as the inventory's reading; H4b's
    text and value do too; H4d is labelled the book's alternative reading, H4c the thesis's words."""
    from lcrag.papers.tables import declared_claims
    from lcrag.papers.thesis.needle.claims import h4_statement, rules

    text = h4_statement()
    assert ('"it occasionally failed with the simple needle when more than 30% of the context was used" (the '
            "inventory reads: never below 30 % of the window)") in text and "only beyond" not in text
    d = declared_claims("thesis")
    assert "the inventory's reading" in d["H4b"].paper_value and "as the inventory does" in d["H4b"].text
    assert "the book's alternative reading, not the thesis's words" in d["H4d"].text
    assert "(large context, end of context)" in d["H4c"].text and "H4d, the book's alternative reading" in rules()
