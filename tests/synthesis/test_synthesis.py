"""The synthesis chapter as a whole: no floor rule of its own anywhere in lcrag.synthesis, its page's reading rules,
and its notebook executed by the runner and by the book on run directories laid out as the runner writes them
(``tests/synthesis_runs.py``); its modules are tested in tests/synthesis/test_<module>.py."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from synthesis_runs import GEMMA, SMOL

from lcrag import synthesis as S


def test_the_synthesis_has_no_floor_rule_of_its_own():
    """Whether an arm is at the floor is each chapter's rule, declared once in its package for its claims and its
    family (e.g. ``lcrag.papers.thesis.accuracy.accuracy_floor``): neither the synthesis nor a family's comparison
    module applies :func:`lcrag.book.verdicts.floor_reason` itself, so a row cannot disagree with its chapter."""
    import inspect
    import sys

    assert not hasattr(S, "score_floor")
    modules = {sys.modules[f.compare.__module__] for f in S.families()} | {
        sys.modules[m] for m in list(sys.modules) if m.startswith("lcrag.synthesis")}
    assert {m.__name__ for m in modules} >= {f"lcrag.papers.{p}.comparison" for p in ("thesis", "long2rag",
                                                                                      "longrag", "summhay")}
    assert [m.__name__ for m in modules if "floor_reason" in inspect.getsource(m)] == []


def test_how_to_read_states_when_an_arm_at_the_floor_makes_a_row_not_testable():
    """The page's reading rules say the floor's exception in one clear clause (the thesis's, the needle's and
    Long²RAG's rows are read when the other arm is itself above the floor and clearly above the floored one:
    family.floor_reading; both arms at the floor, however far apart, are not testable), as book/verdicts.md does."""
    from lcrag import config

    text = " ".join((config.project_root() / "notebooks" / "synthesis.md").read_text(encoding="utf-8").split())
    assert ("in the thesis's, the needle's and Long²RAG's rows, unless the other arm is itself above the floor and "
            "clearly above the floored one") in text
    assert ": and the other arm" not in text and "not clearly above the floored one" not in text
    verdicts = " ".join((config.project_root() / "book" / "verdicts.md").read_text(encoding="utf-8").split())
    assert ("with the whole documents at the floor, a cut decides only when it is itself above the floor and clearly "
            "above them, and a cut at the floor too leaves the row *not testable*") in verdicts
    assert "so a cut clearly above whole documents at the floor decides" not in verdicts
    read = S.family.floor_reading
    assert read(0.3, 0.1, 0.5, "Full", "RAG", "RAG: at chance", ["RAG"]) == "Full better"
    assert read(0.1, -0.1, 0.3, "Full", "RAG", "RAG: at chance", ["RAG"]) == S.NOT_TESTABLE
    assert read(0.3, 0.1, 0.5, "Full", "RAG", "both at chance", ["Full", "RAG"]) == S.NOT_TESTABLE  # both floored


@pytest.mark.slow
def test_the_synthesis_notebook_runs_on_the_fixture_runs(book_runs):
    """The chapter itself, executed by the runner against a project root holding only these runs."""
    import nbformat

    from lcrag import config
    from lcrag.book.runner import run_chapter

    root = config.project_root()
    (book_runs / "notebooks").mkdir()
    shutil.copy(root / "notebooks" / "profiles.yml", book_runs / "notebooks" / "profiles.yml")
    shutil.copy(root / "notebooks" / "synthesis.md", book_runs / "notebooks" / "synthesis.md")
    shutil.rmtree(book_runs / "runs" / "local--smollm2-135m-instruct" / "default" / "longrag")  # not run yet
    res = run_chapter(
        "synthesis",
        "smoke",
        SMOL,
        root=book_runs,
        progress=False,
        out_dir=book_runs / "runs" / "local--smollm2-135m-instruct" / "smoke" / "synthesis",
        params={"profiles": ["default"]},
    )
    assert res.ok, res.error
    nb = nbformat.read(res.notebook, as_version=4)
    outputs = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert "image/png" in outputs and S.NOT_RUN in outputs and GEMMA in outputs
    assert "The RAG setting ran only at some lengths" in outputs  # these runs' needle RAG: the longest length only
    assert res.manifest["usage"]["calls"] == 0
    comparisons = pd.read_csv(res.out_dir / "comparisons.csv")
    assert set(comparisons["family"]) == {"needle", "thesis", "long2rag", "summhay"}


@pytest.mark.slow
def test_the_book_runs_the_synthesis_after_the_chapters_and_with_any_chapter(tmp_path, monkeypatch, mirror):
    """`lcrag book --chapter quickstart` re-runs the synthesis too, after the chapter, into the book."""
    from helpers import FIXTURES, copy_book

    from lcrag import config
    from lcrag.book.build import build_book

    for var in ("LCRAG_STORE", "LCRAG_STORE_DIR", "LCRAG_RUN_DIR", "LCRAG_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LCRAG_DATA_DIR", str(mirror))  # laid out alike: the runner checks the quickstart's data
    book = copy_book(tmp_path / "book")
    shutil.copy(FIXTURES / "notebooks" / "fixture_ok.md", book / "notebooks" / "quickstart.md")
    shutil.copy(config.project_root() / "notebooks" / "synthesis.md", book / "notebooks" / "synthesis.md")
    res = build_book(["quickstart"], root=book, build=False, progress=False, log=lambda s: None)
    assert [r.chapter for r in res.runs] == ["quickstart", "synthesis"]
    assert res.pages["synthesis"] == "executed" and res.ok
    assert (book / "book" / "executed" / "synthesis.ipynb").exists()
