"""The papers' printed tables as data (lcrag.papers.tables): every CSV reads, says where each row was printed,
and ships with the package; and claims as data: a claims file's ``test`` and ``tolerance`` columns, and the one
engine that applies them (lcrag.book.claims.declared_test)."""

from __future__ import annotations

from importlib import resources

import pytest
from helpers import ROOT

import lcrag.book.claims as claims_module
from lcrag import chapters
from lcrag.book.claims import NOT_REPRODUCED, REPRODUCED, ClaimsLedger, declared_test
from lcrag.papers.tables import (
    declared_claims,
    paper_table,
    parse_claims,
    printed_table,
    table_cell,
    table_path,
)

PAPERS = tuple(p.key for p in chapters.papers())  # every registered paper: a new one is checked without an edit
TABLES = [(paper, p.name.removesuffix(".csv")) for paper in PAPERS
          for p in resources.files(f"lcrag.papers.{paper}").joinpath("tables").iterdir() if p.name.endswith(".csv")]


def test_every_paper_has_tables():
    assert {paper for paper, _ in TABLES} == set(PAPERS)


@pytest.mark.parametrize(("paper", "name"), TABLES)
def test_every_row_says_where_it_was_printed(paper, name):
    df = paper_table(paper, name)
    assert len(df) > 0
    sources = df["source"].astype(str).str.strip()
    assert (sources != "").all() and df["source"].notna().all(), f"{paper}/{name}: a row without a source"


def test_printed_symbols_stay_strings_and_notes_are_skipped(tmp_path):
    t1 = paper_table("longrag", "table1")
    assert "-" in set(t1.astype(str).to_numpy().ravel())  # "-" (not run) is read as printed, not as NaN
    assert table_path("longrag", "table1").read_text(encoding="utf-8").startswith("# LongRAG")  # notes on top
    assert not any(str(c).startswith("#") for c in t1.columns)  # ... not read as the header


def test_a_printed_table_keeps_every_cell_as_its_text():
    t = printed_table("thesis", "accuracy_text").head(3)
    assert list(t["accuracy"]) == ["77", "75", "81.65"]  # paper_table reads 77.0, 75.0, 81.65
    assert list(paper_table("thesis", "accuracy_text").head(3)["accuracy"]) == [77.0, 75.0, 81.65]
    assert t["correct"].isna().all()  # an empty cell is missing, not ""


def test_a_missing_table_is_named():
    with pytest.raises(FileNotFoundError, match="no paper table 'nope' for 'thesis'"):
        paper_table("thesis", "nope")


def test_the_tables_ship_in_the_wheel():

    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "papers/*/tables/*.csv" in pyproject["tool"]["setuptools"]["package-data"]["lcrag"]


def test_a_cell_is_named_by_its_table_the_cells_of_its_row_and_its_column():
    assert table_cell("summhay", "table2", "human/joint", "Orac") == "56.1"  # the row holding both
    assert table_cell("summhay", "shape", "subtopics per haystack", "value") == "9.20"  # as printed
    assert table_cell("longrag", "table1", "LongRAG-Vicuna-v1.5-7B-16k", "average") == "44.66(17.25↑)"
    assert table_cell("longrag", "table1", "LongRAG-Vicuna-v1.5-7B-16k", "average", 2) == "17.25"
    assert table_cell("summhay", "table4", "Length to Delta Corr.", "gemini-1.5-pro", 1) == "0.081"  # unsigned
    with pytest.raises(ValueError, match="11 rows hold"):
        table_cell("summhay", "table2", "joint", "Orac")  # several rows (ten summarizers and the humans)
    with pytest.raises(ValueError, match="0 rows hold"):
        table_cell("summhay", "table2", "nobody/joint", "Orac")
    with pytest.raises(ValueError, match="no column 'Oracle'"):
        table_cell("summhay", "table2", "human/joint", "Oracle")
    with pytest.raises(ValueError, match="has no number 3"):
        table_cell("longrag", "table1", "LongRAG-Vicuna-v1.5-7B-16k", "average", 3)


def test_a_reference_may_format_its_number():
    """``!spec`` after a cell reference writes the cell's number in that Python format (a claim's "87%", "2,444"
    typed once as 0.87 and 2444 in the paper's table); a cell that is no number cannot be formatted."""
    claims = parse_claims(
        "claim_id,text,paper_value\n"
        "C1,\"{numbers:evaluator accuracy:value!.0%} of {numbers:key points:value!,}\",{numbers:evaluator accuracy:value}\n",
        "claims.csv", "long2rag")
    assert claims["C1"].text == "87% of 2,055" and claims["C1"].paper_value == 0.87
    with pytest.raises(ValueError, match="formats a number"):
        parse_claims("claim_id,text,paper_value\nC1,{numbers:questions:source!.1f},x\n", "claims.csv", "long2rag")


# ------------------------------------------------------------------ claims as data: test and tolerance

CLAIMS_HEADER = "claim_id,text,paper_value,test,tolerance\n"


def declared(test: str, tolerance: str, value: str = "6.94"):
    return parse_claims(f"{CLAIMS_HEADER}C1,up by {{paper_value}}% (within {{tolerance}}),{value},{test},{tolerance}\n",
                        "claims.csv")["C1"]


def test_the_tolerance_is_read_as_written_and_as_a_number():
    claim = declared("within", "0.01")
    assert claim.text == "up by 6.94% (within 0.01)" and claim.tolerance == 0.01 and claim.test == "within"
    assert declared("", "20%").tolerance == 0.2 and declared("", "20%").text.endswith("(within 20%)")
    assert declared("", "").tolerance is None
    old = parse_claims("claim_id,text,paper_value\nC2,x,1\n", "claims.csv")["C2"]  # the short header still reads
    assert (old.test, old.tolerance) == ("", None)


@pytest.mark.parametrize(
    ("test", "tolerance", "ours", "passed"),
    [
        ("within", "0.01", 6.95, True),
        ("within", "0.01", 6.96, False),
        ("within", "0.01", 6.93 + 1e-12, True),  # a difference of printed numbers off by float rounding
        ("at least", "0.5", 6.44, True),
        ("at least", "0.5", 6.43, False),
        ("at most", "", 6.94, True),
        ("at most", "", 6.95, False),
        ("greater", "1", 7.95, True),
        ("greater", "1", 7.94, False),
        ("less", "", 6.9, True),
        ("less", "", 6.94, False),
        ("within", "0.01", None, None),
        ("within", "0.01", float("nan"), None),
    ],
)
def test_the_engine_applies_the_declared_comparison(test, tolerance, ours, passed):
    assert declared_test(declared(test, tolerance), ours) is passed


def test_a_claim_without_a_test_is_decided_by_its_code():
    with pytest.raises(ValueError, match="C1 declares no test"):
        declared_test(declared("", "3"), 1.0)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("C1,x,6.94,near,0.01", "test 'near' is not one of"),
        ("C1,x,6.94,within,a lot", "tolerance 'a lot' is not a number"),
        ("C1,x,6.94,within,-1", "tolerance '-1' is negative"),
        ("C1,x,all datasets,within,1", "test 'within' compares with the paper's value, but 'all datasets' is no number"),
        ("C1,x,6.94", "expected a new claim id, a text and a value, a test and a tolerance"),
    ],
)
def test_a_malformed_test_or_tolerance_names_its_line(row, message):
    with pytest.raises(ValueError, match=f"claims.csv line 2: {message}"):
        parse_claims(f"{CLAIMS_HEADER}{row}\n", "claims.csv")


def test_the_ledger_reads_a_claims_tolerance_and_refuses_a_missing_one():
    ledger = ClaimsLedger("longrag", paper="longrag", model="m")
    assert ledger.tolerance("C14c") == 3.0 and ledger.test("C1", 6.945) is True and ledger.test("C1", 6.96) is False
    with pytest.raises(ValueError, match="C1b of 'longrag' declares no tolerance"):
        ledger.tolerance("C1b")
    with pytest.raises(KeyError, match="C99 is not declared"):
        ledger.test("C99", 1.0)


def _edited(monkeypatch, paper: str, claim_id: str, old: str, new: str) -> None:
    """Make the ledger read ``paper``'s claims file with ``old`` replaced by ``new`` on ``claim_id``'s line."""
    path = resources.files(f"lcrag.papers.{paper}").joinpath("claims.csv")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    [i] = [i for i, line in enumerate(lines) if line.startswith(f"{claim_id},")]
    assert old in lines[i]
    lines[i] = lines[i].replace(old, new)
    edited = parse_claims("".join(lines), path, paper)
    monkeypatch.setattr(claims_module, "declared_claims", lambda p: edited if p == paper else declared_claims(p))


def _verdicts(paper_claims, paper: str, model: str) -> dict[str, str]:
    ledger = paper_claims(ClaimsLedger(paper, paper=paper, model=model))
    return {c.claim_id: c.verdict for c in ledger.claims}


def test_a_longrag_claim_uses_the_test_and_tolerance_its_claims_file_declares(monkeypatch):
    from lcrag.papers.longrag.claims_paper import PAPER_TABLES_MODEL, paper_claims

    before = _verdicts(paper_claims, "longrag", PAPER_TABLES_MODEL)
    assert before["C1"] == REPRODUCED and before["C14c"] == REPRODUCED
    _edited(monkeypatch, "longrag", "C1", ",within,0.01", ",greater,0.01")  # 6.94 is not above 6.94 + 0.01
    assert _verdicts(paper_claims, "longrag", PAPER_TABLES_MODEL)["C1"] == NOT_REPRODUCED
    _edited(monkeypatch, "longrag", "C14c", ",,3", ",,0.5")  # MuSiQue's transfer arm differs by 1.51 points
    after = _verdicts(paper_claims, "longrag", PAPER_TABLES_MODEL)
    assert after["C14c"] == NOT_REPRODUCED and after["C1"] == REPRODUCED
    edited = ClaimsLedger("longrag", paper="longrag", model="m").check("C14c", our_value=1, passed=None)
    assert "(within 0.5 F1 points on MuSiQue, Figure 4)" in edited.text


def test_a_long2rag_claim_uses_the_tolerance_its_claims_file_declares(monkeypatch):
    from lcrag.papers.long2rag.claims import PAPER_TABLES_MODEL, paper_claims

    assert _verdicts(paper_claims, "long2rag", PAPER_TABLES_MODEL)["C4"] == REPRODUCED  # Phi-3 0.015 below Qwen2
    _edited(monkeypatch, "long2rag", "C4", ",,0.02", ",,0.01")
    assert _verdicts(paper_claims, "long2rag", PAPER_TABLES_MODEL)["C4"] == NOT_REPRODUCED
