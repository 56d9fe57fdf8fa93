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
