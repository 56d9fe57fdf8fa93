"""Cross-references between the book's pages: every ``{ref}`` names a label that a page defines, and no chapter
cites book/verdicts.md by a rule number (its sections are headings, not numbered rules)."""

from __future__ import annotations

import re

from helpers import ROOT

PAGES = sorted((ROOT / "notebooks").glob("*.md")) + sorted((ROOT / "book").glob("*.md"))
_REF = re.compile(r"\{ref\}`(?:[^`<]*<)?([^`<>]+)>?`")
_LABEL = re.compile(r"^\(([\w-]+)\)=\s*$", re.MULTILINE)


def test_ref_pattern_reads_both_forms():
    assert _REF.findall("see {ref}`the floor <verdicts-floor>` and {ref}`synthesis`") == ["verdicts-floor", "synthesis"]


def test_every_ref_names_a_label_a_page_defines():
    labels = {m for p in PAGES for m in _LABEL.findall(p.read_text(encoding="utf-8"))}
    missing = [f"{p.relative_to(ROOT)}: {t}" for p in PAGES for t in _REF.findall(p.read_text(encoding="utf-8"))
               if t not in labels]
    assert not missing, missing
    assert "verdicts-floor" in labels  # the floor's section, which the chapters link


def test_no_chapter_cites_the_verdicts_page_by_a_rule_number():
    cited = [p.name for p in PAGES if re.search(r"verdicts`?,?\s+rule \d", p.read_text(encoding="utf-8"))]
    assert not cited, cited


_CITE = re.compile(r"\{cite\}`([^`]+)`")


def test_every_paper_chapter_cites_its_sources_and_every_key_is_in_the_bibliography():
    from lcrag import chapters

    keys = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "book" / "references.bib").read_text(encoding="utf-8"), re.M))
    assert len(keys) == 8
    cited = {p.stem: {k.strip() for m in _CITE.findall(p.read_text(encoding="utf-8")) for k in m.split(",")}
             for p in PAGES}
    unknown = {page: sorted(ks - keys) for page, ks in cited.items() if ks - keys}
    assert not unknown, unknown
    uncited = [c.name for c in chapters.chapters() if c.paper is not None and not cited.get(c.name)]
    assert not uncited, f"chapters that cite nothing: {uncited}"
