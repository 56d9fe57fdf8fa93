"""The synthesis's experiment family (lcrag.synthesis.family): how a comparison is read (its interval, an arm at
the floor) and its verdict's words."""

from __future__ import annotations

import ast
import inspect

from synthesis_runs import SMOL, longrag_answers, thesis_tables, write_run

from lcrag import synthesis as S


def test_not_testable_is_the_ledgers_verdict_not_a_copy():
    """A comparison at the floor reads as the claims' verdict *not testable with this model*: the word is
    lcrag.book.claims's, imported, never retyped (a retyped copy could drift from the ledger's)."""
    from lcrag.book import claims
    from lcrag.synthesis import family

    tree = ast.parse(inspect.getsource(family))
    assigned = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets
                if isinstance(t, ast.Name)}
    assert "NOT_TESTABLE" not in assigned
    imported = {(node.module, a.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for a in node.names}
    assert ("lcrag.book.claims", "NOT_TESTABLE") in imported
    assert family.NOT_TESTABLE is claims.NOT_TESTABLE


def test_reading_needs_an_interval_that_excludes_zero():
    assert S.reading(0.1, 0.02, 0.2, "Full", "RAG") == "Full better"
    assert S.reading(-0.1, -0.2, -0.01, "Full", "RAG") == "RAG better"
    assert S.reading(0.1, -0.02, 0.2, "Full", "RAG") == "no clear difference"
    assert S.reading(0.0, 0.0, 0.0, "Full", "RAG") == "no clear difference"
    assert S.reading(-0.05, float("nan"), float("nan"), "Full", "oracle") == "oracle higher (point estimates)"
    assert S.reading(float("nan"), 0, 0, "Full", "RAG") == S.NOT_RUN
    assert S.format_diff(0.0949, 0.0127, 0.1772) == "+9.5 pp [+1.3, +17.7]"
    assert S.format_diff(-0.008, float("nan"), float("nan")) == "-0.8 pp (no interval)"
    assert S.format_diff(0.25, -0.0001, 0.75) == "+25.0 pp [-0.01, +75.0]"  # no "-0.0": the sign of a bound near 0


def test_a_comparison_with_an_arm_at_the_floor_is_read_only_for_the_arm_above_it(tmp_path):
    """RAG guesses (its interval reaches 1/4) and Full, at 0.8, is clearly above it: the row reads "Full better"
    and says RAG is at the floor; an arm at the floor is never shown equal or better (book/verdicts.md)."""
    write_run(tmp_path, "thesis", SMOL, thesis_tables(rag=0.2))
    write_run(tmp_path, "longrag", SMOL, {"answers": longrag_answers(SMOL)})
    c = S.synthesize(tmp_path, n_boot=500).comparisons.set_index(["family", "other_arm"])
    rag = c.loc[("thesis", "RAG CQT")]
    assert rag["reading"] == "Full better"
    assert "at the floor: RAG CQT: 10 of 40 right (0.25), exact interval [12.7, 41.2] % reaches chance 25 %" in rag["evidence"]
    assert rag["evidence"].endswith("; decided: Full is clearly above the arm at the floor")
    assert c.loc[("thesis", "Evidence"), "reading"] != S.NOT_TESTABLE  # Full 0.8 and Evidence 0.7: above it
    read = S.family.floor_reading
    floor = "RAG: at chance"
    assert read(0.3, 0.1, 0.5, "Full", "RAG", floor, ["RAG"]) == "Full better"
    assert read(-0.3, -0.5, -0.1, "Full", "RAG", floor, ["RAG"]) == S.NOT_TESTABLE  # the floored arm "better"
    assert read(0.1, -0.1, 0.3, "Full", "RAG", floor, ["RAG"]) == S.NOT_TESTABLE  # not clearly above
    assert read(0.3, 0.1, 0.5, "Full", "RAG", floor, ["Full", "RAG"]) == S.NOT_TESTABLE  # both at the floor
    assert read(0.3, 0.1, 0.5, "Full", "RAG", floor) == S.NOT_TESTABLE  # the chapter did not say which arm
    assert read(0.3, 0.1, 0.5, "Full", "RAG", None) == "Full better"
