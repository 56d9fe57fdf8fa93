"""The "What we found" section (lcrag.book.findings): written from a run's own tables, never typed."""

from __future__ import annotations

import dataclasses

import pandas as pd

from lcrag import chapters
from lcrag.book.claims import (
    FIGURE_ONLY_VERDICT,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    REPRODUCED,
    UNRELEASED,
)
from lcrag.book.findings import claims_sentences, findings_markdown
from lcrag.book.verdicts import NOTHING_CHECKED


def _claims(rows):
    return pd.DataFrame(rows, columns=["claim_id", "source", "verdict", "model"])


def test_claims_are_counted_by_source_and_verdict_and_the_floor_is_named():
    claims = _claims([
        ("C1", "paper tables", REPRODUCED, "the paper's tables"),
        ("C2", "paper tables", NOT_REPRODUCED, "the paper's tables"),
        ("C3", "released artefacts", REPRODUCED, "released"),
        ("H1", "our run", INCONCLUSIVE, "local/m"),
        ("H2", "our run", NOT_TESTABLE, "local/m"),
        ("H3", "our run", NOT_TESTABLE, "local/m"),
        ("D1", "no model", REPRODUCED, "no model"),
    ])  # fmt: skip
    text = " ".join(claims_sentences(claims))
    assert "published numbers or released files, 3 in all: 2 reproduced, 1 not reproduced." in text
    assert "checked on our run with local/m, 3 in all: 1 inconclusive, 2 not testable with this model." in text
    assert "The arms of H2, H3 are at the floor on this run" in text
    assert "call no language model (not about a language model's behaviour), 1 in all: 1 reproduced." in text
    assert claims_sentences(_claims([])) == ["This chapter checks no claim."]
    assert "not testable here" not in text


def test_claims_whose_data_were_never_released_are_not_counted_as_checked():
    """Long²RAG's C17 and C20 (its human labels and data set) and SummHay's C19 (its human study) cannot be tested by
    anyone; Long²RAG's C6 and C7 (values only in its Fig. 4) were not checked, but are not untestable: neither kind
    is "checked" nor "inconclusive", and one sentence each names them after the checked ones, the figures' claims
    never said to be untestable by anyone."""
    none = NOTHING_CHECKED
    claims = _claims([
        ("C1", "paper tables", REPRODUCED, "the paper's tables"),
        ("C6", none, FIGURE_ONLY_VERDICT, "the paper's tables"),
        ("C7", none, FIGURE_ONLY_VERDICT, "the paper's tables"),
        ("C17", none, UNRELEASED, "the paper's tables"),
        ("C19", none, UNRELEASED, "released"),
        ("C20", none, UNRELEASED, "the paper's tables"),
        ("H1", "our run", INCONCLUSIVE, "local/m"),
    ])  # fmt: skip
    sentences = claims_sentences(claims)
    assert sentences[:3] == [
        "Of the paper's claims checked on its own published numbers or released files, 1 in all: 1 reproduced.",
        "2 more (C6, C7) are not checked: the paper prints their values only in figures, which this book has not "
        "read off the plots.",
        "3 more (C17, C19, C20) cannot be tested by anyone: the data they need were never released.",
    ]
    text = " ".join(sentences)
    assert "checked on our run with local/m, 1 in all: 1 inconclusive." in text
    assert text.count("inconclusive") == 1 and UNRELEASED not in text
    # no claim checked on the paper's numbers: the sentence stands alone, in the singular for one claim
    alone = claims_sentences(_claims([("C21", none, UNRELEASED, "released")]))
    assert alone == ["1 of the paper's claims (C21) cannot be tested by anyone: the data it needs were never "
                     "released."]
    figure = claims_sentences(_claims([("C14", none, FIGURE_ONLY_VERDICT, "the paper's tables")]))
    assert figure == ["1 of the paper's claims (C14) is not checked: the paper prints its values only in figures, "
                      "which this book has not read off the plots."]


def test_claims_not_testable_for_another_reason_are_not_called_at_the_floor():
    """The thesis's H1 (GPT-3.5's level) is not testable on another model whatever its size, H3 because the run
    left its arm out, H7 at the floor: three sentences, each naming its own."""
    claims = pd.DataFrame([
        ("H1", "our run", NOT_TESTABLE, "local/m", "bootstrap; not testable: a level of the thesis's generator"),
        ("H3", "our run", NOT_TESTABLE, "local/m", "paired; not run: Full CTX1 on these cases"),
        ("H7", "our run", NOT_TESTABLE, "local/m", "paired; at the floor: RAG CQT: 40 of 158 right (0.25)"),
    ], columns=["claim_id", "source", "verdict", "model", "evidence"])  # fmt: skip
    text = " ".join(claims_sentences(claims))
    assert ("The arms of H7 are at the floor on this run: those claims measure the run (its model, or the few items "
            "a section asked: the evidence column says which), not the paper.") in text
    assert "This run left out what H3 compare" in text
    assert ("H1 cannot be tested on this model's run whatever its size: it is about the paper's own set-up (the "
            "evidence column says what).") in text  # no list of reasons that may not apply (a judge, a tokenizer)
    # a second model with the same set-up claim: explained once, named again in short
    two = pd.concat([claims, claims.iloc[:1].assign(model="local/n")])
    text = " ".join(claims_sentences(two))
    assert text.count("whatever its size") == 1 and text.endswith("H1: the paper's own set-up, as above.")


def test_no_model_checks_that_need_the_papers_embedding_model_are_named():
    claims = _claims([("H6", "no model", REPRODUCED, "no model"), ("H6b", "no model", NOT_TESTABLE, "no model"),
                      ("H16", "no model", NOT_TESTABLE, "no model")])
    text = " ".join(claims_sentences(claims))
    assert "call no language model (not about a language model's behaviour), 3 in all: 1 reproduced, 2 not " in text
    assert text.endswith("H6b, H16: not testable here, because the paper's values come from a part of its set-up "
                         "these checks do not have (the evidence column says which).")
    assert "at the floor" not in text


def test_claims_on_our_runs_are_counted_per_model_and_no_model_checks_are_not_behaviour():
    claims = _claims([
        ("C1", "our run", NOT_TESTABLE, "local/small"),
        ("C15", "our run", NOT_REPRODUCED, "local/judge"),  # decided by another model's outputs (a judge)
        ("C18", "no model", NOT_REPRODUCED, "no model"),
    ])  # fmt: skip
    text = " ".join(claims_sentences(claims))
    assert "checked on our run with local/small, 1 in all: 1 not testable with this model." in text
    assert "checked on our run with local/judge, 1 in all: 1 not reproduced." in text
    assert "The arms of C1 are at the floor" in text and "C15:" not in text
    assert text.count("about behaviour") == 2 and "no model, 1" not in text


def test_claims_decided_without_their_floored_datasets_are_named():
    claims = pd.DataFrame([
        ("C4-ours", "our run", NOT_REPRODUCED, "local/m", "our runs; not deciding (at the floor): R&B on musique"),
        ("C8-ours", "our run", INCONCLUSIVE, "local/m", "our runs"),
    ], columns=["claim_id", "source", "verdict", "model", "evidence"])  # fmt: skip
    text = " ".join(claims_sentences(claims))
    assert "C4-ours was decided only where the arms are above the floor" in text
    assert "C8-ours" not in text and "at the floor on the arms" not in text  # C8: decided on every dataset


def test_the_section_reads_the_runs_tables(toy_registered, tmp_path, monkeypatch):
    run = tmp_path / "runs" / "local--m" / "default" / "toy"
    run.mkdir(parents=True)
    pd.DataFrame({"item": [1, 2, 1, 2], "arm": ["long", "long", "short", "short"],
                  "score": [1, 1, 0, 1]}).to_csv(run / "scores.csv", index=False)
    pd.DataFrame([{"chapter": "toy", "claim_id": "T1", "paper": "toy", "text": "long beats short",
                   "paper_value": "", "our_value": "", "model": "local/m", "source": "our run",
                   "verdict": INCONCLUSIVE, "evidence": "", "anchor": ""}]).to_csv(run / "claims.csv", index=False)
    md = findings_markdown("toy", run, "local/m")
    assert md.startswith("Long context against retrieval, on this run:\n\n")
    assert "- local/m: Toy: long vs short context: **long higher (point estimates)**; long − short = +50.0 pp" in md
    assert "checked on our run with local/m, 1 in all: 1 inconclusive." in md
    toy = chapters.chapter("toy")  # a family whose other arm is not retrieval names its comparison
    renamed = dataclasses.replace(toy, family=dataclasses.replace(toy.family, versus="Long documents against short ones"))
    monkeypatch.setattr(chapters, "chapter", lambda name: renamed if name == "toy" else None)
    assert findings_markdown("toy", run, "local/m").startswith("Long documents against short ones, on this run:")


def test_outside_a_chapter_run_it_says_so(monkeypatch):
    monkeypatch.delenv("LCRAG_RUN_DIR", raising=False)
    monkeypatch.delenv("LCRAG_CHAPTER", raising=False)
    assert "lcrag run" in findings_markdown()


def test_an_undecided_headline_says_how_many_items_would_decide_it():
    """Issue 18: a chapter says how many items its headline needed; one whose interval contains 0 gets the planning
    number (the half-width shrinks as 1/sqrt(n)); a decided one, one at the floor or one without an interval
    gets none."""
    from lcrag.book.findings import items_needed

    row = {"reading": "no clear difference", "diff": -0.024, "ci_low": -0.082, "ci_high": 0.055, "n": 20,
           "units": "questions"}
    assert items_needed(row) == (" As it is, the interval keeps the difference between -8.2 and +5.5 pp; "
                                 "a paired interval would exclude 0 at about 163 questions instead of 20, if the "
                                 "difference and its spread held (a planning number, not a result).")
    assert items_needed({**row, "diff": 0.003, "ci_low": -0.078, "ci_high": 0.087, "n": 96}) == (
        " As it is, the interval keeps the difference between -7.8 and +8.7 pp; the difference observed "
        "is too small for more questions to settle which arm is better at any practical size (a paired interval "  # ((0.087 + 0.078) / 2 / 0.003)^2 x 96
        "would exclude 0 at about 73,000 questions instead of 96, a planning number, not a result).")
    assert items_needed({**row, "reading": "Full better", "ci_low": 0.01}) == ""
    assert items_needed({**row, "reading": NOT_TESTABLE}) == ""
    assert items_needed({**row, "diff": 0.0, "ci_low": -0.1, "ci_high": 0.1}) == ""


def test_a_headline_whose_bound_toward_zero_is_exact_gets_no_planning_number():
    """The needle's 1.5B: one cell of 84 differs, in RAG's favour, so the bound toward 0 is the exact share of cells
    that could favour Full (lcrag.stats.one_sided_bounds), which narrows as 1/n: the 1/sqrt(n) planning number
    would read it as a spread (about 1,600 cells) and is not given."""
    from lcrag.book.findings import items_needed
    from lcrag.stats import bootstrap_diff
    from lcrag.synthesis.size_axis import exact_toward_zero, n_to_decide

    full, rag = [1.0] * 83 + [0.0], [1.0] * 84
    diff, lo, hi = bootstrap_diff(full, rag)
    row = {"reading": "no clear difference", "diff": diff, "ci_low": lo, "ci_high": hi, "n": 84, "units": "cells",
           "long_arm": "Full", "other_arm": "RAG"}
    assert exact_toward_zero(row) and n_to_decide(row) is None
    assert items_needed(row) == (f" As it is, the interval keeps the difference between {100 * lo:+.1f} and +4.3 pp; "
                                 "no cell favoured Full, so the bound toward 0 is the exact share of cells that could "
                                 "(at 84), not a measured spread: it gives no number of cells to plan for.")
    mirrored = {**row, "diff": -diff, "ci_low": -hi, "ci_high": -lo}
    assert exact_toward_zero(mirrored) and "no cell favoured RAG" in items_needed(mirrored)
    measured = {**row, "ci_high": 0.05}  # a bound the data put there: planned from as before
    assert not exact_toward_zero(measured) and n_to_decide(measured) is not None
