"""lcrag.book.toc: _toc.yml as written, plus every registered chapter with a notebook that it does not list."""

from __future__ import annotations

import yaml

from lcrag import chapters
from lcrag.book.toc import book_toc, read_toc, toc_chapters, write_book_toc

PARTS = """format: jb-book
root: book/intro
parts:
  - caption: Getting started
    chapters:
      - file: book/executed/quickstart
  - caption: Thesis (Lu 2024)
    chapters:
      - file: book/executed/thesis
  - caption: Synthesis
    chapters:
      - file: book/executed/synthesis
      - file: book/executed/claims
"""


def _book(tmp_path, notebooks):
    (tmp_path / "notebooks").mkdir()
    for name in notebooks:
        (tmp_path / "notebooks" / f"{name}.md").write_text("# x\n")
    (tmp_path / "_toc.yml").write_text(PARTS)
    return tmp_path


def test_a_registered_chapter_joins_its_papers_part_or_a_new_one_before_the_synthesis(tmp_path):
    root = _book(tmp_path, ["quickstart", "thesis", "needle", "longrag", "synthesis"])
    toc = book_toc(root)
    captions = [p["caption"] for p in toc["parts"]]
    assert captions == ["Getting started", "Thesis (Lu 2024)", chapters.paper("longrag").name, "Synthesis"]
    assert [e["file"] for e in toc["parts"][1]["chapters"]] == ["book/executed/thesis", "book/executed/needle"]
    assert toc_chapters(root) == ["quickstart", "thesis", "needle", "longrag", "synthesis"]
    assert read_toc(root) == yaml.safe_load(PARTS)  # _toc.yml itself is never written
    written = write_book_toc(root)
    assert yaml.safe_load(written.read_text()) == toc and written.parent.name == "_build"


def test_a_chapter_without_a_notebook_is_not_added_and_an_unchanged_table_is_not_written(tmp_path):
    root = _book(tmp_path, ["quickstart", "thesis", "synthesis"])
    assert book_toc(root) == read_toc(root) and write_book_toc(root) is None
