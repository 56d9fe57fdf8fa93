"""The needle chapter in the synthesis (lcrag.papers.thesis.needle.comparison): the comparison says how long the
haystack of its paired cells was, which the chapter sets per model (8000 tokens for an 8K window, 32000 for 32K),
and reads an arm at the floor by the chapter's own rule, H4's."""

from __future__ import annotations

import pandas as pd

from lcrag.papers.thesis.needle import analysis, comparison
from lcrag.papers.thesis.needle import claims as needle_claims


def test_the_comparison_says_the_haystack_length_of_its_cells():
    cells = pd.DataFrame([{"model": m, "needle": "simple", "setting": s, "context_tokens": t, "depth": d,
                           "recall": 1.0 if s == "full" else 0.5, "source": "run"}
                          for m, longest in (("small", 8000), ("large", 32000))
                          for s, lengths in (("full", (1000, longest)), ("rag", (longest,)))
                          for t in lengths for d in (0, 100)])
    rows = {r["model"]: r for r in comparison.comparisons(cells, n_boot=100)}
    assert rows["small"]["long_context"] == "8000 tokens" and rows["large"]["long_context"] == "32000 tokens"
    assert rows["small"]["n"] == 2  # only the cells RAG ran: the longest length


def test_the_comparison_names_its_metric_mean_recall():
    """The chapter's section 6 counts cells found; the comparison ("What we found", the synthesis) is of mean
    recall, and its title and evidence say so."""
    cells = pd.DataFrame([{"model": "m", "needle": "simple", "setting": s, "context_tokens": 8000, "depth": d,
                           "recall": 1.0 if s == "full" else 0.4, "source": "run"}
                          for s in ("full", "rag") for d in (0, 100)])
    row = comparison.comparisons(cells, n_boot=100)[0]
    assert row["comparison"].endswith("(mean recall)") and row["evidence"].startswith("mean recall per cell")
    assert "not the share of cells found" in row["evidence"] and comparison.FAMILY.title.endswith(", mean recall")


def _cells(rag_lengths: dict[str, tuple[int, ...]]) -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "needle": "simple", "setting": s, "context_tokens": t, "depth": d,
                          "recall": 1.0, "source": "run"}
                         for m, rag in rag_lengths.items()
                         for s, lengths in (("full", (1000, 8000)), ("rag", rag)) for t in lengths for d in (0, 100)])


def test_the_detail_note_says_rag_ran_at_some_lengths_only_when_it_did():
    """rag="all" (RAG on every cell of every model): no note; rag="longest" for one model: the note names it and its
    counts; a model that ran no RAG at all has no comparison to qualify and is not named."""
    note = comparison.rag_cells_note
    assert comparison.FAMILY.detail_note is comparison.detail_note
    every = {"local/smollm2-135m-instruct": (1000, 8000), "local/gemma3-270m": (1000, 8000)}
    assert note({comparison.NAME: comparison.summary(_cells(every), n_boot=50)}) == ""
    some = {**every, "local/gemma3-270m": (8000,), "none": ()}
    text = note({comparison.NAME: comparison.summary(_cells(some), n_boot=50)})
    assert text.startswith("The RAG setting ran only at some lengths (") and "on 2 of its 4 cells" in text
    assert "pairs only the cells both ran" in text and "SmolLM2" not in text and "none" not in text
    assert note({}) == "" and note({comparison.NAME: pd.DataFrame()}) == ""


def test_the_detail_note_explains_an_interval_above_a_recall_every_cell_shares():
    """Rows whose cells all score the same recall inside (0, 1) (the Qwen models' complex needle, 0.92 at the answer
    cap) get the exact interval on the 0-1 scale, which reaches above the value: the note names those rows and
    says why; a row of 1.0s (or 0s) has no such interval to explain, and a table without one has no note."""
    cells = pd.DataFrame([{"model": "local/qwen2.5-coder-1.5b-instruct", "needle": n, "setting": s,
                           "context_tokens": t, "depth": d, "recall": r, "source": "run"}
                          for n, r in (("simple", 1.0), ("complex", 0.92)) for s in ("full", "rag")
                          for t in (1000, 8000) for d in (0, 100)])
    tables = {comparison.NAME: comparison.summary(cells, n_boot=50), f"{comparison.NAME}_cells": cells}
    text = comparison.detail_note(tables)
    assert text.startswith("Every cell of some rows has the same recall, below 1: Qwen2.5-Coder-1.5B-Instruct's complex "
                           "needle (full and rag, every cell 0.92).")
    assert "simple" not in text and "exact one on recall's 0-1 scale" in text
    hi = tables[comparison.NAME].set_index(["needle", "setting"]).loc[("complex", "full"), "ci_high"]
    assert hi > 0.92  # what the note explains
    varied = cells.assign(recall=[0.92 if i % 2 else 0.5 for i in range(len(cells))])
    assert comparison.same_recall_note({f"{comparison.NAME}_cells": varied}) == ""


def _floor_grid(first_full: float, rag: float) -> pd.DataFrame:
    """Both needles at 5 lengths x 4 depths, full haystack and RAG on every cell: full recall 0 except
    ``first_full`` in each needle's first cell (mean ``first_full / 20``), RAG recall ``rag`` everywhere."""
    rows = [{"model": "m", "needle": needle, "setting": setting, "context_tokens": length, "depth": depth,
             "recall": (first_full if i == 0 else 0.0) if setting == "full" else rag, "source": "run"}
            for needle in ("simple", "complex") for setting in ("full", "rag")
            for i, (length, depth) in enumerate((t, d) for t in (1000, 2000, 4000, 8000, 16000) for d in (0, 33, 66, 100))]
    return analysis.add_found(pd.DataFrame(rows))


def test_h4_and_the_synthesis_share_the_chapters_floor_rule():
    """One floor rule (:func:`needle_claims.recall_floor`, mean recall below 0.05) for H4 and the synthesis's full
    vs RAG row: at the edge of the floor (full mean recall 0.045 against 0.05, which is not below it) H4's three
    parts and the row are all not testable, or none; RAG at the floor makes the row not testable, not H4 (which
    reads the full haystack only). The row is read where the arm above the floor is clearly better."""
    from lcrag.book.claims import ClaimsLedger
    from lcrag.papers.thesis.needle import comparison
    from lcrag.synthesis import NOT_TESTABLE

    assert comparison.recall_floor is needle_claims.recall_floor  # the synthesis asks the chapter's rule
    for first, rag, h4_floored, row_floored in ((0.9, 1.0, True, True), (1.0, 1.0, False, False),
                                                (1.0, 0.0, False, True)):
        cells = _floor_grid(first, rag)
        ledger = ClaimsLedger(None, paper="thesis", model="m")
        needle_claims.check_h4(ledger, cells, window=16000)
        t = ledger.table().set_index("claim_id")
        (row,) = comparison.comparisons(cells, n_boot=200)
        assert all((t.loc[c, "verdict"] == NOT_TESTABLE) is h4_floored for c in ("H4b", "H4c")), first
        # H4a is GPT-3.5-Turbo's perfect score: a level of the thesis's generator, shown but not compared for "m"
        assert t.loc["H4a", "verdict"] == NOT_TESTABLE and "perfect score" in t.loc["H4a", "evidence"]
        gpt = ClaimsLedger(None, paper="thesis", model="openai/gpt-3.5-turbo-0125")
        needle_claims.check_h4(gpt, cells, window=16000)
        assert (gpt.table().set_index("claim_id").loc["H4a", "verdict"] == NOT_TESTABLE) is h4_floored, first
        # one arm at the floor: read only when the other is clearly better (RAG 1.0 against 0.045: it is; Full
        # 0.05 against RAG 0: two cells of 40 found, not clearly)
        assert (row["reading"] == NOT_TESTABLE) is (rag == 0.0), (first, rag)
        assert ("clearly above the arm at the floor" in row["evidence"]) is (row_floored and rag == 1.0)
        if h4_floored:  # the same reason, from the same function
            assert t.loc["H4c", "evidence"].endswith("at the floor: full, both needles (mean recall): 4.5 points, "
                                                     "below 5")
            assert row["evidence"].endswith("at the floor: Full (mean recall): 4.5 points, below 5; decided: RAG "
                                            "is clearly above the arm at the floor")
    assert needle_claims.recall_floor({"Full": pd.Series([0.05]), "RAG": pd.Series(dtype=float)}) is None
