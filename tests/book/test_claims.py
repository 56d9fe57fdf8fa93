"""Claims ledger: verdicts follow from computed tests, never from typed strings."""

from __future__ import annotations

import math
from html import unescape

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT, rendered_text

from lcrag import chapters
from lcrag.book.claims import (
    CLOSED,
    COLUMNS,
    NEITHER,
    OPEN,
    ClaimsLedger,
    absent,
    at_least,
    below_margin,
    greater,
    interval_in,
    less,
    read_claims,
    save_and_show,
    verdict,
    within,
    within_margin,
)
from lcrag.book.claims_page import summary_markdown, verdict_counts


def test_verdict_from_test_outcome():
    assert verdict(True) == "reproduced"
    assert verdict(False) == "not reproduced"
    assert verdict(None) == "inconclusive"
    assert verdict(np.float64(0.7) > 0.5) == "reproduced"  # numpy bool from a comparison


@pytest.mark.parametrize("typed", ["reproduced", 1, 0.0, "yes"])
def test_typed_verdicts_are_refused(typed):
    with pytest.raises(TypeError, match="test's outcome"):
        verdict(typed)


def test_within():
    assert within(0.52, 0.50, tol=0.03) is True
    assert within(0.54, 0.50, tol=0.03) is False
    assert within(0.50, 0.50, tol=0) is True
    assert within(55, 50, tol=0.1, relative=True) is True
    assert within(56, 50, tol=0.1, relative=True) is False
    assert within(None, 0.5, tol=1) is None
    assert within(math.nan, 0.5, tol=1) is None
    with pytest.raises(ValueError):
        within(1, 1, tol=-1)


def test_greater_on_point_values():
    assert greater(0.7, 0.6) is True
    assert greater(0.6, 0.6) is False
    assert greater(0.7, 0.6, margin=0.2) is False
    assert greater(None, 0.6) is None


def test_greater_with_a_confidence_interval_of_the_difference():
    assert greater(0.7, 0.6, ci=(0.02, 0.18)) is True
    assert greater(0.7, 0.6, ci=(-0.03, 0.23)) is None  # straddles 0: inconclusive
    assert greater(0.5, 0.6, ci=(-0.2, -0.01)) is False
    assert greater(0.7, 0.6, margin=0.05, ci=(0.02, 0.18)) is None
    with pytest.raises(ValueError, match="lo <= hi"):
        greater(0.7, 0.6, ci=(0.2, 0.1))


def test_less_mirrors_greater():
    assert less(0.5, 0.6) is True
    assert less(0.6, 0.5) is False
    assert less(0.5, 0.6, ci=(-0.2, -0.01)) is True
    assert less(0.5, 0.6, ci=(-0.2, 0.05)) is None


def test_interval_in_decides_a_band_only_on_the_whole_interval():
    assert interval_in((0.73, 0.80), 0.72, 0.82) is True
    assert interval_in((0.524, 0.726), 0.72, 0.82) is None  # MeetingQA 53/84 against 77 ± 5
    assert interval_in((0.50, 0.71), 0.72, 0.82) is False
    assert interval_in((0.83, 0.90), 0.72, 0.82) is False
    assert interval_in((float("nan"), 0.5), 0.1) is None and interval_in((None, 0.5), high=0.6) is None
    with pytest.raises(ValueError, match="bounds"):
        interval_in((0.1, 0.2), 0.0, bounds="inclusive")


def test_interval_in_at_a_bound_follows_its_stated_rule():
    """An interval touching a bound exactly: CLOSED counts the bound inside the range, OPEN outside it, NEITHER on
    no side (undecided). An interval strictly inside or outside reads alike under the three rules."""
    touch_low, touch_high = (0.05, 0.2), (-0.1, 0.05)  # lo == 0.05; hi == 0.05
    assert [interval_in(touch_low, low=0.05, bounds=b) for b in (CLOSED, OPEN, NEITHER)] == [True, None, None]
    assert [interval_in(touch_high, low=0.05, bounds=b) for b in (CLOSED, OPEN, NEITHER)] == [None, False, None]
    assert [interval_in(touch_high, high=0.05, bounds=b) for b in (CLOSED, OPEN, NEITHER)] == [True, None, None]
    assert [interval_in(touch_low, high=0.05, bounds=b) for b in (CLOSED, OPEN, NEITHER)] == [None, False, None]
    for b in (CLOSED, OPEN, NEITHER):
        assert interval_in((0.1, 0.2), 0.05, 0.3, bounds=b) is True
        assert interval_in((0.31, 0.4), 0.05, 0.3, bounds=b) is False
        assert interval_in((0.0, 0.1), 0.05, 0.3, bounds=b) is None


def test_the_interval_decisions_at_exact_ties():
    """Each named decision keeps its rule at a bound (what the chapters decided before they shared one helper):
    greater (an open bound: the margin itself is not "more than"), within_margin and at_least (closed: the margin
    counts), below_margin (the needle's miss rates: an interval touching the margin is undecided), absent (inside
    [-margin, margin], bounds included)."""
    assert greater(0.7, 0.6, margin=0.05, ci=(0.05, 0.2)) is None  # lo == margin: not clear of it
    assert greater(0.7, 0.6, margin=0.05, ci=(-0.1, 0.05)) is False  # hi == margin: not more than it
    assert greater(0.7, 0.6, margin=0.05, ci=(0.0500001, 0.2)) is True
    assert less(0.5, 0.6, ci=(-0.2, 0.0)) is None and less(0.5, 0.6, ci=(0.0, 0.2)) is False  # 0 is not below 0
    assert within_margin((-0.1, 0.02), 0.02) is True and within_margin((0.02, 0.1), 0.02) is None
    assert within_margin((0.01, 0.11), 0.02) is None and within_margin((0.03, 0.11), 0.02) is False
    assert at_least(0.1, (0.05, 0.2), 0.05) is True and at_least(0.0, (-0.1, 0.05), 0.05) is None
    assert at_least(0.0823, (0.032, 0.139), 0.05) is None  # H8's case: crosses the threshold
    assert at_least(0.09, (0.06, 0.15), 0.05) is True and at_least(0.01, (-0.02, 0.04), 0.05) is False
    assert at_least(float("nan"), (0.06, 0.15), 0.05) is None
    assert below_margin((0.0, 0.1), 0.1) is None and below_margin((0.1, 0.3), 0.1) is None  # touching: undecided
    assert below_margin((0.0, 0.0999), 0.1) is True and below_margin((0.1001, 0.3), 0.1) is False
    assert below_margin((float("nan"), 0.05), 0.1) is None
    assert absent(0.0, (-0.05, 0.05), 0.05) is True and absent(0.06, (0.02, 0.1), 0.05) is False
    assert absent(0.05, (0.01, 0.09), 0.05) is False and absent(0.04, (0.01, 0.07), 0.05) is None


def test_ledger_records_computed_verdicts(tmp_path, monkeypatch):
    """(X-ids: claims a test makes up, not declared in the thesis's claims.csv.)"""
    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path))
    monkeypatch.setenv("LCRAG_CHAPTER", "thesis_bamboo")
    monkeypatch.setenv("LCRAG_MODEL", "local/tiny")
    ledger = ClaimsLedger(None, paper="thesis")
    ledger.check("X1", "RAG is close to full context", 0.61, 0.58, within(0.58, 0.61, 0.05), evidence="n=158")
    ledger.check("X2", "evidence beats full", 0.9, 0.7, greater(0.7, 0.9))
    ledger.check(
        "X3", "gap is significant", 0.1, 0.02, greater(0.52, 0.5, ci=(-0.01, 0.05)), anchor="thesis-h3"
    )
    ledger.check("X2", "evidence beats full", 0.9, 0.95, greater(0.95, 0.9))  # re-run cell replaces
    assert [c.claim_id for c in ledger.claims] == ["X1", "X2", "X3"]
    assert ledger.counts() == {"reproduced": 2, "not reproduced": 0, "inconclusive": 1,
                               "not testable with this model": 0, "not checked (values only in a figure)": 0,
                               "not testable (data not released)": 0}
    table = ledger.table()
    assert list(table.columns) == list(COLUMNS)
    assert table["verdict"].tolist() == ["reproduced", "reproduced", "inconclusive"]
    assert set(table["chapter"]) == {"thesis_bamboo"} and set(table["model"]) == {"local/tiny"}
    assert set(table["source"]) == {"our run"}
    path = ledger.save()
    assert path == tmp_path / "claims.csv"
    back = read_claims(path)
    assert back["claim_id"].tolist() == ["X1", "X2", "X3"] and back.loc[2, "anchor"] == "thesis-h3"


def test_explicit_chapter_and_model_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("LCRAG_CHAPTER", "env_chapter")
    ledger = ClaimsLedger("mine", "longrag", "openai/gpt-4o")
    c = ledger.check("X1", "t", 1, 1, True)
    assert (c.chapter, c.paper, c.model) == ("mine", "longrag", "openai/gpt-4o")


def test_read_claims_rejects_a_typed_verdict(tmp_path):
    ledger = ClaimsLedger("ch", "thesis", "m")
    ledger.check("X1", "t", 1, 1, True)
    df = ledger.table()
    df.loc[0, "verdict"] = "mostly reproduced"
    df.to_csv(tmp_path / "claims.csv", index=False)
    with pytest.raises(ValueError, match=r"claims.csv line 2: verdict 'mostly reproduced'"):
        read_claims(tmp_path / "claims.csv")


def _claims() -> pd.DataFrame:
    rows = []
    for paper, chapter, cid, v, anchor in [
        ("thesis", "thesis_bamboo", "H1", "reproduced", "thesis-h1"),
        ("thesis", "thesis_bamboo", "H2", "inconclusive", ""),
        ("summhay", "summhay", "C1", "not reproduced", ""),
    ]:
        rows.append(
            dict(
                chapter=chapter,
                claim_id=cid,
                paper=paper,
                text="a | b",
                paper_value="0.5",
                our_value="0.4",
                model="m",
                source="our run",
                verdict=v,
                evidence="",
                anchor=anchor,
            )
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def test_verdict_counts():
    counts = verdict_counts(_claims())
    assert list(counts.columns) == ["reproduced", "not reproduced", "inconclusive", "not testable with this model",
                                    "not checked (values only in a figure)", "not testable (data not released)",
                                    "rows (claim × model)", "distinct claims"]
    assert counts.loc["thesis"].tolist() == [1, 0, 1, 0, 0, 0, 2, 2]
    assert counts.loc["summhay"].tolist() == [0, 1, 0, 0, 0, 0, 1, 1]
    assert counts.loc["all papers"].tolist() == [1, 1, 1, 0, 0, 0, 3, 3]
    by_source = verdict_counts(_claims(), by="source")
    assert by_source.loc["our run"].tolist() == [1, 1, 1, 0, 0, 0, 3] and "all sources" in by_source.index
    assert "distinct claims" not in by_source.columns


def test_per_paper_totals_count_rows_and_distinct_claims():
    """A claim checked on two models is two rows but one claim: the per-paper table says both, its columns labelled
    as rows (claim × model) and distinct claims (the thesis's 33 rows were 21 claims)."""
    df = _claims()
    twice = pd.concat([df, df.iloc[[0]].assign(model="other")], ignore_index=True)
    counts = verdict_counts(twice)
    assert counts.loc["thesis", "rows (claim × model)"] == 3 and counts.loc["thesis", "distinct claims"] == 2
    assert counts.loc["all papers", "rows (claim × model)"] == 4 and counts.loc["all papers", "distinct claims"] == 3
    md = summary_markdown(twice)
    assert "| Thesis (Lu 2024) | 2 | 0 | 1 | 0 | 0 | 0 | 3 | 2 |" in md
    assert "The counts are rows, one per claim and model" in md


def test_the_books_reading_is_tallied_apart_from_the_papers_claims():
    """A claim that is the book's reading of a paper's words (the thesis's H4d: "the book's alternative reading, not
    the thesis's words") gets a paper key of its own, so the per-paper table counts it apart from the thesis's claims
    and the dashboard names it so; its text and paper value still come from the thesis's claims.csv."""
    from lcrag.book.claims import BOOK_READING
    from lcrag.papers.tables import declared_claims

    ledger = ClaimsLedger("needle", "thesis", "m")
    c = ledger.check("H4d", our_value="fail 0 %", passed=None, book_reading=True)
    assert c.paper == "thesis" + BOOK_READING and c.text == declared_claims("thesis")["H4d"].text
    assert ledger.check("H4c", our_value="fail 0 %", passed=None).paper == "thesis"
    df = pd.concat([_claims(), ledger.table().assign(anchor="")], ignore_index=True)
    md = summary_markdown(df)
    assert "| Thesis (Lu 2024) | 1 | 0 | 2 | 0 | 0 | 0 | 3 | 3 |" in md  # H1, H2, H4c
    assert "| Thesis (Lu 2024): the book's readings, not the paper's claims | 0 | 0 | 1 | 0 | 0 | 0 | 1 | 1 |" in md
    assert "| Thesis (book's reading) | {ref}`H4d" in md or "| Thesis (book's reading) | H4d |" in md


def test_summary_markdown():
    md = summary_markdown(_claims(), failed=["longrag"], sections={"summhay"})
    assert "| Thesis (Lu 2024) | 1 | 0 | 1 | 0 | 0 | 0 | 2 | 2 |" in md
    assert "| all papers | 1 | 1 | 1 | 0 | 0 | 0 | 3 | 3 |" in md
    assert "## Verdicts per source of evidence" in md and "| our run | 1 | 1 | 1 | 0 | 0 | 0 | 3 |" in md
    assert "{ref}`H1 <thesis-h1>`" in md and "{doc}`thesis_bamboo`" in md
    assert "{ref}`C1 <summhay-claims>`" in md  # no section of its own: the chapter's claims section
    assert "| H2 |" in md  # no anchor, and its chapter labels no claims section: plain text, no link to nowhere
    assert "a \\| b" in md  # pipes in cells are escaped
    assert "not counted: longrag" in md
    empty = summary_markdown(pd.DataFrame(columns=list(COLUMNS)))
    assert "No chapter has checked a claim yet." in empty
    assert "## Our runs, per model" not in md  # one model: nothing to split
    two = _claims()
    two.loc[2, "model"] = "other"
    md = summary_markdown(two)
    assert "## Our runs, per model" in md
    assert "| m | 1 | 0 | 1 | 0 | 0 | 0 | 2 |" in md and "| other | 0 | 1 | 0 | 0 | 0 | 0 | 1 |" in md
    assert "| all models | 1 | 1 | 1 | 0 | 0 | 0 | 3 |" in md


def test_unreleased_data_give_a_verdict_of_their_own(tmp_path):
    """A claim whose data were never released is *not testable (data not released)*, not *inconclusive* (an interval
    that includes both answers): ``unreleased=`` says what is missing, written first in the evidence after "not
    released:" as before, and read_claims accepts the verdict."""
    from lcrag.book.claims import UNRELEASED, VERDICTS
    from lcrag.book.verdicts import NOT_RELEASED, NOTHING_CHECKED

    assert UNRELEASED == "not testable (data not released)" and VERDICTS[-3:] == (
        "not testable with this model", "not checked (values only in a figure)", UNRELEASED)
    ledger = ClaimsLedger("ch", "long2rag", "the paper's published tables")
    c = ledger.check("X1", "t", "1,051 points", None, unreleased="the human labels", evidence="our runs decide C10")
    assert c.verdict == UNRELEASED and c.source == NOTHING_CHECKED == "none (nothing released or digitised to check)"
    assert c.evidence == f"{NOT_RELEASED}: the human labels; our runs decide C10"
    assert ledger.check("X2", "u", 1, None, passed=None, unreleased="the human labels").evidence == (
        "not released: the human labels")
    assert ledger.counts()[UNRELEASED] == 2 and ledger.counts()["inconclusive"] == 0
    back = read_claims(ledger.save(tmp_path / "claims.csv"))
    assert back["verdict"].tolist() == [UNRELEASED, UNRELEASED]
    assert back["source"].tolist() == [NOTHING_CHECKED] * 2


def test_values_only_in_a_figure_are_not_checked_and_not_unreleased(tmp_path):
    """A claim whose values the paper prints only in a figure (Long²RAG's Fig. 4) was not checked, but its data exist:
    *not checked (values only in a figure)*, not *not testable (data not released)*; the evidence names the figure
    after "values only in a figure:", the source is "none" (no value checked), and a test's outcome is refused."""
    from lcrag.book.claims import CHECKED_VERDICTS, FIGURE_ONLY_VERDICT, UNRELEASED
    from lcrag.book.verdicts import FIGURE_ONLY, NOTHING_CHECKED

    ledger = ClaimsLedger("ch", "long2rag", "the paper's published tables")
    c = ledger.check("X1", "t", "radar plot only", None, figure_only="the paper's Fig. 4", evidence="see C10")
    assert (c.verdict, c.source) == (FIGURE_ONLY_VERDICT, NOTHING_CHECKED)
    assert c.evidence == f"{FIGURE_ONLY}: the paper's Fig. 4; see C10" and c.evidence.startswith("values only in a figure:")
    assert FIGURE_ONLY_VERDICT not in CHECKED_VERDICTS and UNRELEASED not in CHECKED_VERDICTS
    assert read_claims(ledger.save(tmp_path / "claims.csv"))["verdict"].tolist() == [FIGURE_ONLY_VERDICT]
    with pytest.raises(ValueError, match="figure_only"):
        ledger.check("X2", "t", 1, None, figure_only="Fig. 6", passed=True)
    with pytest.raises(ValueError, match="figure_only"):
        ledger.check("X3", "t", 1, None, figure_only="Fig. 6", unreleased="the data set")

@pytest.mark.parametrize("outcome", [dict(passed=True), dict(passed=False), dict(passed=np.bool_(True)),
                                     dict(floor="RAG: 0.0 points, below 5"), dict(untestable="not its embedder"),
                                     dict(not_run="E&F (the run has R&B)")])
def test_unreleased_with_a_test_or_another_reason_is_an_error(outcome):
    """A claim nobody can test has no test: ``unreleased`` with a test's outcome, or with the reason of another
    verdict, is refused, and nothing is recorded."""
    ledger = ClaimsLedger("ch", "thesis", "m")
    with pytest.raises(ValueError, match="unreleased"):
        ledger.check("X1", "t", 1, None, unreleased="the data set", **outcome)
    assert ledger.claims == []


def test_claims_page_counts_unreleased_claims_apart():
    """The claims page counts the claims no run can test in a column of their own, lists the verdict in the
    dashboard's filter, and its introduction says they were not checked."""
    df = _claims()
    none = "none (nothing released or digitised to check)"
    extra = df.iloc[[2, 2]].assign(claim_id=["C20", "C6"], paper="long2rag", chapter="long2rag", source=none,
                                   verdict=["not testable (data not released)", "not checked (values only in a figure)"],
                                   evidence=["not released: the data set", "values only in a figure: Fig. 4"])
    md = summary_markdown(pd.concat([df, extra], ignore_index=True))
    assert "| paper | reproduced | not reproduced | inconclusive | not testable with this model | not checked (values " \
           "only in a figure) | not testable (data not released) | rows (claim × model) | distinct claims |" in md
    assert "| all papers | 1 | 1 | 1 | 0 | 1 | 1 | 5 | 5 |" in md and f"| {none} | 0 | 0 | 0 | 0 | 1 | 1 | 2 |" in md
    assert "| paper tables |" not in md  # no value was checked on the paper's tables: none credited to them
    assert '<option value="not testable (data not released)">' in md
    assert '<option value="not checked (values only in a figure)">' in md
    intro = rendered_text(md.split("## Verdicts per paper")[0])
    assert "not testable (data not released) when the data it needs were never released" in intro
    assert "not checked (values only in a figure) when the paper prints the values it needs only in a plot" in intro
    assert "these two have no test, and no value was checked" in intro and "Every claim below was checked" not in intro
    assert "inconclusive when the test could not decide" in intro
    for source in ("(paper tables)", "(released artefacts)", "(our run)", "(no model)", "(none: no value"):
        assert source in intro  # what the value checked is, for every source


def test_pattern_names_print_with_their_hyphens():
    """The thesis's H7 lists its patterns ("F-- 3 --E 10 --- 32"): the page sets each word with "--" as code, so
    Sphinx's smart quotes do not print "F– 3 –E 10 — 32"; other words, and a cell already in code, are left."""
    df = _claims()
    df.loc[0, "our_value"] = "FRE 81 FR- 1 F-E 21 F-- 3 -RE 7 -R- 3 --E 10 --- 32"
    df.loc[1, "evidence"] = "none right (---); E−F `--x`"
    md = summary_markdown(df)
    assert "| FRE 81 FR- 1 F-E 21 `F--` 3 -RE 7 -R- 3 `--E` 10 `---` 32 |" in md
    assert "none right (`---`); E−F `--x` |" in md
    text = rendered_text(md)
    assert "FRE 81 FR- 1 F-E 21 F-- 3 -RE 7 -R- 3 --E 10 --- 32" in text and "none right (---)" in text
    assert "–" not in text and "—" not in text


def test_several_ledgers_are_saved_as_one_claims_file(tmp_path):
    from lcrag.book.claims import ClaimsLedger, read_claims, save_ledgers

    a = ClaimsLedger("ch", paper="p", model="the paper's published tables")
    a.check("C1", "x", 1, 1, True)
    b = ClaimsLedger("ch", paper="p", model="local/m")
    b.check("C1", "x", 1, 2, False)
    b.check("C2", "y", 1, None, None)
    df = read_claims(save_ledgers([a, b], tmp_path / "claims.csv"))
    assert df[["claim_id", "model", "verdict"]].values.tolist() == [
        ["C1", "the paper's published tables", "reproduced"], ["C1", "local/m", "not reproduced"],
        ["C2", "local/m", "inconclusive"],
    ]
    assert df["source"].tolist() == ["paper tables", "our run", "our run"]


def test_dashboard_lists_every_claim_with_filters_and_no_network():
    from lcrag.book.claims_page import DASHBOARD_COLUMNS, DASHBOARD_ID

    md = summary_markdown(_claims())
    assert f":name: {DASHBOARD_ID}" in md and "```{table}" in md
    assert "| " + " | ".join(DASHBOARD_COLUMNS) + " |" in md
    rows = [ln for ln in md.splitlines() if ln.startswith("| Thesis |") or ln.startswith("| SummHay |")]
    assert len(rows) == 3 and "**not reproduced**" in rows[2] and rows[2].endswith("{doc}`summhay` |")
    assert f'<select id="{DASHBOARD_ID}-paper"><option value="">all</option><option value="Thesis">' in md
    assert '<option value="inconclusive">inconclusive</option>' in md
    assert f'<input id="{DASHBOARD_ID}-text" type="search"' in md
    script = md[md.index("<script>"):]
    assert "src=" not in script and "http" not in script  # inline, nothing fetched
    assert "COLS = {paper: 0, model: 6, source: 7, verdict: 2}" in script


def _dashboard_html(md: str, df: pd.DataFrame) -> str:
    """The page as the HTML builder renders it: the raw-HTML blocks verbatim, the table as a <table> with the id."""
    from html import escape

    from lcrag.book.claims_page import DASHBOARD_COLUMNS, DASHBOARD_ID, paper_name

    controls = md[md.index("<style>"):md.index("```{table}")]
    script = md[md.index("<script>"):]
    body = "".join(
        "<tr>" + "".join(f"<td><p>{escape(str(v))}</p></td>" for v in (
            paper_name(r.paper, short=True), r.claim_id, r.verdict, r.text, r.paper_value, r.our_value, r.model,
            r.source, r.evidence, r.chapter)) + "</tr>"
        for r in df.itertuples())
    head = "".join(f"<th>{c}</th>" for c in DASHBOARD_COLUMNS)
    table = f'<table class="table" id="{DASHBOARD_ID}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return f"<!DOCTYPE html><html><body>{controls}{table}{script}</body></html>"


@pytest.mark.slow
@pytest.mark.skipif(not __import__("shutil").which("chromium"), reason="needs Debian's chromium")
def test_dashboard_filters_rows_in_a_real_browser(tmp_path):
    import re
    import subprocess

    df = _claims()
    df.loc[1, "model"] = "other/model"
    page = _dashboard_html(summary_markdown(df), df)
    drive = """<script>
    var set = function (id, v, ev) { var e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event(ev)); };
    set("claims-dashboard-paper", "Thesis", "change");
    document.body.setAttribute("data-after-paper", document.getElementById("claims-dashboard-count").textContent);
    set("claims-dashboard-model", "m", "change");
    document.body.setAttribute("data-after-model", document.getElementById("claims-dashboard-count").textContent);
    set("claims-dashboard-paper", "", "change"); set("claims-dashboard-model", "", "change");
    set("claims-dashboard-text", "SUMMHAY", "input");
    </script>"""
    (tmp_path / "page.html").write_text(page.replace("</body>", drive + "</body>"), encoding="utf-8")
    out = subprocess.run(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
         "--dump-dom", (tmp_path / "page.html").as_uri()],
        capture_output=True, text=True, timeout=120, check=True)
    dom, log = out.stdout, out.stderr
    assert 'data-after-paper="showing 2 of 3 rows (claim × model): 1 reproduced, 0 not reproduced, 1 inconclusive, 0 not testable' in dom
    assert 'data-after-model="showing 1 of 3 rows (claim × model): 1 reproduced, 0 not reproduced, 0 inconclusive, 0 not testable' in dom
    assert re.search(r'claims-dashboard-count"[^>]*>showing 1 of 3 rows \(claim × model\): 0 reproduced, 1 not reproduced', dom)
    assert dom.count('style="display: none;"') == 2
    assert not re.search(r"CONSOLE.*(Uncaught|Error)", log)


def test_a_declared_claim_takes_its_text_and_value_from_the_papers_claims_file():
    ledger = ClaimsLedger("longrag", paper="longrag", model="the paper's published tables")
    c = ledger.check("C1", our_value=6.94, passed=True)
    assert c.text == ("LongRAG beats long-context LLMs 'up by 6.94%' (the paper names no pair; LongRAG-Llama2-13B-4k vs "
                      "LongLoRA-13B-32k, average, is our reading of Table 1 [derived])")  # the pair is ours, marked so
    assert c.paper_value == 6.94 and isinstance(c.paper_value, float)
    assert ledger.check("C1b", our_value="6/6", passed=True).paper_value == "all datasets"  # a text value


def test_a_declared_claim_typed_again_or_an_undeclared_one_without_text_is_refused():
    ledger = ClaimsLedger("longrag", paper="longrag", model="m")
    with pytest.raises(ValueError, match="C1 of 'longrag' is declared in its claims.csv"):
        ledger.check("C1", "LongRAG beats long-context LLMs", paper_value=6.94, our_value=6.9, passed=True)
    with pytest.raises(ValueError, match="C99 of 'longrag' is not declared"):
        ledger.check("C99", our_value=1, passed=True)
    assert ledger.check("C99", "a claim whose text depends on the run", "x", 1, True).text.startswith("a claim")


@pytest.mark.parametrize("paper", [p.key for p in chapters.papers()])
def test_each_declared_paper_number_is_typed_once(paper):
    """A number the claims file declares appears in no module or notebook of the paper: the code reads it."""
    from lcrag.papers.tables import declared_claims

    root = ROOT
    sources = [*(root / "src" / "lcrag" / "papers" / paper).rglob("*.py"), *(root / "notebooks").glob("*.md")]
    texts = {p: p.read_text(encoding="utf-8") for p in sources}
    declared = declared_claims(paper)
    assert declared  # every paper declares its claims
    for claim in declared.values():
        if isinstance(claim.paper_value, float):
            typed = [str(p.relative_to(root)) for p, t in texts.items() if claim.written in t]
            assert typed == [], f"{paper} {claim.claim_id}: {claim.written} typed again in {typed}"


def test_a_malformed_claims_file_names_its_line(tmp_path):
    from lcrag.papers.tables import parse_claims

    path = tmp_path / "claims.csv"
    path.write_text("# notes\nclaim_id,text,paper_value\nC1,ok,1\nC1,again,2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"claims.csv line 4: expected a new claim id"):
        parse_claims(path.read_text(encoding="utf-8"), path)
    path.write_text("id,text\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"claims.csv: the header must be claim_id,text,paper_value"):
        parse_claims(path.read_text(encoding="utf-8"), path)
    assert parse_claims("claim_id,text,paper_value\nC2,up by {paper_value}%,6.5\n", path)["C2"].text == "up by 6.5%"


def test_a_claims_file_names_a_table_cell_instead_of_typing_it(tmp_path):
    from lcrag.papers.tables import parse_claims

    path = tmp_path / "claims.csv"
    content = ("claim_id,text,paper_value\n"
               "C1,below the human {table2:human/joint:Orac},{table2:gpt-4o/joint:Full} / {table3:gpt-4o:Sensitivity}\n"
               "C2,up by {paper_value}%,{table4:Average:gpt-4o}\n")
    claims = parse_claims(content, path, "summhay")
    assert (claims["C1"].text, claims["C1"].paper_value) == ("below the human 56.1", "11.4 / 12.6")
    assert (claims["C2"].text, claims["C2"].paper_value) == ("up by 0.062%", 0.062)
    with pytest.raises(ValueError, match=r"claims.csv line 2: .*no column 'Nope'"):
        parse_claims("claim_id,text,paper_value\nC1,x,{table2:human/joint:Nope}\n", path, "summhay")
    with pytest.raises(ValueError, match=r"line 2: \{table2:human/joint:Orac\} names a table cell, but no paper"):
        parse_claims("claim_id,text,paper_value\nC1,x,{table2:human/joint:Orac}\n", path)


def test_the_chapter_view_shows_every_claim_with_its_evidence_in_full(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # save_ledgers writes claims.csv into the run directory (here: the cwd)
    long = "Fisher's exact test of fail rates, " + "x" * 300 + " END"
    a, b = ClaimsLedger("ch", "thesis", "local/m"), ClaimsLedger("ch", "thesis", "no model")
    a.check("X1", "long context beats RAG", 0.1, 0.2, True, evidence=long)
    b.check("X2", "BM25 ranks first", "1", "1", True, evidence="rank 1")
    html = unescape(save_and_show([a, b]).to_html())  # the cells' text is HTML-escaped: "Fisher&#39;s"
    assert long in html and "rank 1" in html  # not cut at display.max_colwidth
    assert html.index("X1") < html.index("X2") and ">evidence<" in html
    assert (tmp_path / "claims.csv").is_file()


def test_values_are_shown_as_a_reader_reads_them(tmp_path, monkeypatch):
    from lcrag.book.claims import shown

    assert [shown(v) for v in (6.94, 0.7160446273099768, 15000.0, -7.03, 44.6, 3, np.int64(12))] == [
        "6.94", "0.716", "15000", "-7.03", "44.6", "3", "12"]
    assert shown(-0.0) == shown(np.float64(-0.0)) == "0"  # a difference of zero has no sign
    assert [shown(v) for v in (None, float("nan"), True, np.bool_(False), "E 90.5 > F 81.7")] == [
        "", "", "yes", "no", "E 90.5 > F 81.7"]
    monkeypatch.chdir(tmp_path)
    ledger = ClaimsLedger("ch", "thesis", "local/m")
    ledger.check("X1", "up", 6.94, float("nan"), None)
    ledger.check("X2", "held", 0.716, True, True)
    html = save_and_show([ledger]).to_html()
    assert "6.94<" in html and "6.940000" not in html and "nan" not in html and ">yes<" in html


def test_all_of_passes_only_when_every_test_passes_and_fails_when_any_fails():
    from lcrag.book.claims import all_of

    assert all_of([True, True]) is True
    assert all_of([True, None]) is None and all_of([]) is None
    assert all_of([True, None, False]) is False
    assert all_of([np.float64(0.05) <= 3 / 158, True]) is False  # a numpy bool counts
    assert all_of([np.float64(0.01) <= 3 / 158, True]) is True


def test_asterisks_and_underscores_print_as_themselves():
    """LongRAG's C16a reads "E&F (200*7) beat 500*3": unescaped, Markdown set "7) beat 500" in italics. The page
    escapes ``*`` and ``_`` outside code (a code span, and a pattern set as code, keep theirs)."""
    df = _claims()
    df.loc[0, "our_value"] = "E&F (200*7) beat 500*3; live_results `a_b*c` F--"
    md = summary_markdown(df)
    assert "| E&F (200\\*7) beat 500\\*3; live\\_results `a_b*c` `F--` |" in md
    text = rendered_text(md)
    assert "E&F (200*7) beat 500*3; live_results a_b*c F--" in text


def test_the_chapter_view_escapes_html_in_its_cells(tmp_path, monkeypatch):
    """A claim about the needle's front half ("depth < 50 %") or a test's threshold ("p < 0.05") prints as written:
    the Styler's HTML holds "&lt;", not a "<" a browser reads as the start of a tag; values keep their format."""
    monkeypatch.chdir(tmp_path)
    ledger = ClaimsLedger("ch", "thesis", "local/m")
    ledger.check("X1", "recall at depth < 50 % is higher", 0.7160446, 0.5, True, evidence="Fisher (p < 0.05) & <b>")
    html = save_and_show([ledger]).to_html()
    assert "depth &lt; 50 %" in html and "(p &lt; 0.05) &amp; &lt;b&gt;" in html
    assert "depth < 50" not in html and "<b>" not in html
    assert ">0.716<" in html and ">0.5<" in html


def test_every_paper_value_the_paper_does_not_print_is_marked_derived_and_the_page_says_what_that_means():
    """The papers' claims.csv mark a paper value computed from the paper's printed numbers (a difference, a ratio,
    a count of cells) "[derived]", never "(inventory)"; the claims page explains the mark."""
    from lcrag import config
    from lcrag.book.claims_page import DERIVED

    values = pd.concat([pd.read_csv(p, comment="#", dtype=str)["paper_value"].dropna()
                        for p in sorted((config.project_root() / "src" / "lcrag" / "papers").glob("*/claims.csv"))])
    assert values.str.contains(DERIVED, regex=False).sum() >= 15
    assert not values.str.contains("(inventory)", regex=False).any()
    for derived in ("+8.86 pp", "47x; +0.003 at 3.8x", "12/33", "+0.080 to +0.128"):  # auditor's examples
        assert values[values.str.contains(derived, regex=False)].str.contains(DERIVED, regex=False).all(), derived
    assert f"A paper value marked {DERIVED} is not printed in the paper" in summary_markdown(_claims())


def test_every_chapter_that_checks_claims_labels_its_claims_section():
    """The claims page links a claim without an anchor of its own to ``<chapter>-claims``: each chapter with a
    claims ledger defines that label in its notebook (else the link would point nowhere)."""
    from lcrag.book.claims_page import claims_section, labelled_sections

    papers_chapters = [c.name for c in chapters.chapters() if c.paper is not None]  # the ones with claims
    assert papers_chapters
    for name in papers_chapters:
        assert f"({claims_section(name)})=" in (ROOT / "notebooks" / f"{name}.md").read_text(encoding="utf-8"), name
    assert labelled_sections([*papers_chapters, "quickstart"], ROOT / "notebooks") == set(papers_chapters)
