"""Each paper number is typed once (issue 19): a value of a paper's tables (``lcrag/papers/<paper>/tables/*.csv``,
the paper inventory's derived values included) is not typed again in its chapter's modules, claims file or notebook,
and a number of three decimals or more is not typed twice in a chapter's modules (an expected value once as a string
and once as a float: it belongs in the tables, written from the number). The declared claims' own values are
checked in ``test_claims.py`` (``test_each_declared_paper_number_is_typed_once``)."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT

#: The chapters whose paper tables are typed once: chapter -> (the paper whose tables it reads, its package).
TYPED_ONCE = {"long2rag": ("long2rag", "long2rag"), "summhay": ("summhay", "summhay"),
              "longrag": ("longrag", "longrag"), "needle": ("thesis", "thesis/needle"), "thesis": ("thesis", "thesis")}
#: A table's numbers that are too common to be the paper's when typed elsewhere: score scales, chunk sizes,
#: bootstrap resamples, record counts.
COMMON = {"100", "200", "300", "500", "1000", "2000"}
#: A table value typed in a chapter's sources for another reason: (chapter, value, file) -> why.
COINCIDENCES = {
    ("summhay", "0.02", "src/lcrag/papers/summhay/claims.csv"): "C18's tolerance",
    ("summhay", "10.0", "src/lcrag/papers/summhay/live_contexts.py"): "the score the Middle order gives half the irrelevant documents",
    ("summhay", "30.7", "notebooks/summhay.md"): "a Joint score of Fig. 4's Rerank3-Opus summary, recomputed",
}
#: A number of three decimals or more typed twice in a chapter's modules for another reason: (package, value) -> why.
TYPED_TWICE = {
    ("summhay", "0.025"): "the unseen-bound formula 1 - 0.025^(1/n), in a docstring and in the evidence it explains",
    ("thesis", "0.001"): "the smallest p-value printed as a number (p < 0.001 below it)",
    ("thesis", "0.005"): "H16's tolerance for the embedding sanity cosines, applied and stated in its evidence",
}


def test_every_chapter_of_a_paper_is_checked():
    """A chapter added to a paper fails here until it joins :data:`TYPED_ONCE` (so it is never skipped silently)."""
    from lcrag import chapters

    missing = [c.name for c in chapters.chapters() if c.paper is not None and c.name not in TYPED_ONCE]
    assert missing == [], f"add {missing} to TYPED_ONCE: chapter -> (its paper, its package under lcrag/papers)"


def _distinctive_numbers(paper: str) -> set[str]:
    """The numbers printed in ``paper``'s tables (in its cells of numbers, not in names or sources) that are
    unlikely to be typed by chance: two decimals or more, one decimal after two digits or more, or an integer of
    three digits or more."""
    from importlib import resources

    from lcrag.papers.tables import paper_table

    out = set()
    for path in resources.files(f"lcrag.papers.{paper}").joinpath("tables").iterdir():
        if path.name.endswith(".csv"):
            table = paper_table(paper, path.name.removesuffix(".csv"), dtype=str).drop(columns="source")
            for cell in table.to_numpy().ravel():
                if re.fullmatch(r"[-\d.,() ↑]+", str(cell)):  # a number, or Table 1's "value(gain↑)"
                    out.update(re.findall(r"\d+\.\d{2,}|\d{2,}\.\d|\d{3,}", str(cell)))
    return out - COMMON


@pytest.mark.parametrize("chapter", list(TYPED_ONCE))
def test_each_paper_table_value_is_typed_once(chapter):
    """No number of a paper's tables is typed again in the chapter's modules, claims file or notebook: the code
    reads the table, a claims file names the cell (lcrag.papers.tables), and prose is generated."""
    paper, package = TYPED_ONCE[chapter]
    folder = ROOT / "src" / "lcrag" / "papers" / package
    sources = [*folder.rglob("*.py"), *folder.glob("claims.csv"), ROOT / "notebooks" / f"{chapter}.md"]
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sources}
    typed = []
    for value in sorted(_distinctive_numbers(paper)):
        forms = {value, f"{int(value):,}"} if value.isdigit() else {value}
        pattern = re.compile(r"(?<![\w.])(?<!\d,)(?:" + "|".join(map(re.escape, forms)) + r")(?![\w]|[.,]\d)")
        typed += [f"{value} in {name}" for name, text in texts.items()
                  if pattern.search(text) and (chapter, value, name) not in COINCIDENCES]
    assert typed == [], f"{chapter}: values of the paper's tables typed again: {typed}"


@pytest.mark.parametrize("package", sorted({package for _, package in TYPED_ONCE.values()}))
def test_no_number_of_three_decimals_is_typed_twice_in_a_chapters_modules(package):
    """An expected value typed once as a string and once as a float (``"0.983"`` and ``0.983``), or a tolerance typed
    where it is applied and again where it is stated, is typed twice: the value belongs in a table (``tables/``) or a
    constant, and the strings are written from it."""
    folder = ROOT / "src" / "lcrag" / "papers" / package
    counts: dict[str, int] = {}
    for path in folder.rglob("*.py"):
        for value in re.findall(r"(?<![\w.])(\d+\.\d{3,})(?![\w]|[.,]\d)", path.read_text(encoding="utf-8")):
            counts[value] = counts.get(value, 0) + 1
    twice = {v: n for v, n in counts.items() if n > 1 and (package.split("/")[0], v) not in TYPED_TWICE}
    assert twice == {}, f"{package}: numbers typed more than once (times): {twice}"
