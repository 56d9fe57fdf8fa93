"""What readers see on every page of the built book: no stderr, warnings, widget boxes, object reprs or paths of
the machine that built it (issue 20's "clean pages"), and a "Downloads" section on every executed chapter.

The book is the one ``built_book`` (``conftest.py``) builds from the committed store; ``LCRAG_BOOK_HTML=<dir>``
scans an existing build instead.
"""

from __future__ import annotations

import html as html_lib
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import ROOT

from lcrag.book.downloads import TITLE
from lcrag.book.toc import EXECUTED_DIR, book_toc, toc_files

pytestmark = pytest.mark.slow

PAGES = [f.removesuffix(".md").removesuffix(".ipynb") for f in toc_files(book_toc(ROOT))]

#: Text that must not appear on a page, by what it is.
NOISE = {
    "a warning": re.compile(r"\b[A-Z]\w*Warning\b:"),
    "a traceback": re.compile(r"Traceback \(most recent call last\)|\bKeyboardInterrupt\b"),
    "a matplotlib repr": re.compile(r"<(Axes|Figure|matplotlib\.[\w.]+)[ :>]"),
    "a numpy scalar repr": re.compile(r"\bnp\.(int|float|bool_?|str_)\d*\("),
    "a progress-bar widget": re.compile(r"IProgress|application/vnd\.jupyter\.widget|\d+%\|[█▏▎▍▌▋▊▉ ]+\|"),
    "llama.cpp's log": re.compile(r"llama_(context|model_load|new_context)\w*:|n_ctx_seq"),
}
_STDERR = re.compile(r'<div class="[^"]*\boutput\b[^"]*\bstderr\b')
_TAG = re.compile(r"<[^>]+>")


@pytest.fixture(scope="module")
def book_html(request) -> Path:
    if os.environ.get("LCRAG_BOOK_HTML"):
        return Path(os.environ["LCRAG_BOOK_HTML"]).resolve()
    book = request.getfixturevalue("built_book")
    assert book.html is not None, f"the book did not build: {book.error}"
    return book.html


@pytest.fixture(scope="module")
def machine_paths(book_html) -> list[str]:
    """Absolute paths of the machine that built (and tests) the book, which no page may show: the checkout,
    the home and Python directories, and the build's project copy with its data directory beside it."""
    build = book_html.parents[1]  # <project>/_build/html
    roots = {str(ROOT), str(Path.home()), sys.prefix, str(build),
             *([str(build.parent)] if not os.environ.get("LCRAG_BOOK_HTML") else [])}
    return sorted(p for p in roots if len(p) > 1)


def page_text(raw: str) -> str:
    """A page's readable text (tags dropped, entities decoded), scripts and styles left out."""
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    return html_lib.unescape(_TAG.sub(" ", raw))


@pytest.mark.parametrize("page_name", PAGES)
def test_the_page_shows_no_noise(page_name, book_html, machine_paths):
    raw = (book_html / f"{page_name}.html").read_text(encoding="utf-8")
    assert not _STDERR.search(raw), f"{page_name}: a cell's stderr is shown"
    text = page_text(raw)
    found = {what: m.group(0) for what, rx in NOISE.items() if (m := rx.search(text))}
    assert found == {}, f"{page_name}: {found}"
    paths = [p for p in machine_paths if p in raw]
    assert paths == [], f"{page_name} shows paths of the build machine"


@pytest.mark.parametrize("page_name", [p for p in PAGES if p.startswith(f"{EXECUTED_DIR.as_posix()}/")
                                       and (ROOT / "notebooks" / f"{Path(p).name}.md").exists()])
def test_an_executed_chapter_offers_its_tables_manifest_and_notebook(page_name, book_html):
    raw = (book_html / f"{page_name}.html").read_text(encoding="utf-8")
    assert TITLE.removeprefix("## ") in page_text(raw)
    links = re.findall(r'href="([^"]*_downloads/[^"]+)"', raw)
    names = {Path(link).name for link in links}
    assert "manifest.json" in names and f"{Path(page_name).name}.ipynb" in names
    assert any(n.endswith(".csv") for n in names)
    for link in links:
        assert (book_html / Path(page_name).parent / link).resolve().is_file(), link


class _Figures(HTMLParser):
    """The images of a page's cell outputs, each with the id of the ``<figure>`` around it (None: none), and
    each figure's caption text (its ``<figcaption>``)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str, str | None]] = []  # (tag, class, id)
        self.images: list[tuple[str, str | None]] = []  # (src, figure id)
        self.captions: dict[str, str] = {}  # figure id -> caption text

    def _figure(self) -> str | None:
        return next((i for t, _, i in reversed(self.stack) if t == "figure"), None)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img" and any(t == "div" and "cell_output" in c.split() for t, c, _ in self.stack):
            self.images.append((a.get("src") or "", self._figure()))
        if tag in self.VOID:
            return
        self.stack.append((tag, a.get("class") or "", a.get("id")))
        if tag == "figure" and a.get("id"):
            self.captions.setdefault(a["id"], "")

    def handle_endtag(self, tag):  # also called for a self-closed "<img ... />": only an open tag is closed
        if any(t == tag for t, _, _ in self.stack):
            while self.stack.pop()[0] != tag:
                pass

    def handle_data(self, data):
        fig = self._figure()
        if fig and any(t == "figcaption" for t, _, _ in self.stack):
            self.captions[fig] += data


def _captioned_cells(chapter: str) -> dict[str, str]:
    """Figure name -> caption of the chapter notebook's captioned code cells."""
    import jupytext

    out = {}
    for cell in jupytext.read(ROOT / "notebooks" / f"{chapter}.md").cells:
        fig = (cell.metadata.get("mystnb") or {}).get("figure") or {}
        if cell.cell_type == "code" and fig.get("name"):
            out[fig["name"]] = " ".join(str(fig.get("caption", "")).split())
    return out


@pytest.mark.parametrize("page_name", [p for p in PAGES if p.startswith(f"{EXECUTED_DIR.as_posix()}/")
                                       and (ROOT / "notebooks" / f"{Path(p).name}.md").exists()])
def test_every_figure_on_a_chapter_page_has_its_numbered_caption(page_name, book_html):
    """Each image a cell shows sits in a ``<figure>`` whose ``<figcaption>`` starts with its number ("Fig. N")
    and says what the notebook's caption says; every captioned cell of the chapter shows its figure."""
    parser = _Figures()
    parser.feed((book_html / f"{page_name}.html").read_text(encoding="utf-8"))
    bare = [src for src, fig in parser.images if fig is None]
    assert bare == [], f"{page_name}: figures without a caption"
    shown = {fig for _, fig in parser.images}
    want = _captioned_cells(Path(page_name).name)
    assert shown == set(want), f"{page_name}: captioned cells without a figure, or figures of no captioned cell"
    numbers = []
    for fig in shown:
        text = " ".join(parser.captions.get(fig, "").split())
        m = re.match(r"Fig\. (\d+(?:\.\d+)*)\s+(.*)", text)
        assert m, f"{page_name}: {fig} has no numbered caption ({text[:60]!r})"
        numbers.append(m.group(1))
        words = re.findall(r"\w+", re.sub(r"[*`]", "", want[fig]))[:8]  # markup renders away; the words stay
        assert re.findall(r"\w+", m.group(2))[:8] == words, f"{page_name}: {fig}'s caption is not the notebook's"
    assert len(numbers) == len(set(numbers)), f"{page_name}: two figures share a number"


def glossary_terms(page: Path) -> list[str]:
    """The terms of the ``{glossary}`` blocks of a MyST page (a term line: unindented, inside the block)."""
    terms, inside = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```{glossary}"):
            inside = True
        elif line.startswith("```"):
            inside = False
        elif inside and line.strip() and not line.startswith(" "):
            terms.append(line.strip())
    return terms


def test_every_glossary_column_is_a_column_of_the_books_tables(request):
    """A glossary term written as an identifier names a column: some tidy table of the built book has it (so the
    glossary does not define columns no chapter writes), and the page renders as a glossary."""
    import pandas as pd

    terms = glossary_terms(ROOT / "book" / "glossary.md")
    columns = [t for t in terms if re.fullmatch(r"[a-z_]+", t) and t not in {"arm", "item", "floor", "profile", "inventory"}]
    assert len(terms) >= 20 and {"setting", "n", "ci_low", "verdict", "kpr"} <= set(columns)
    book = request.getfixturevalue("built_book")
    runs = [r.out_dir for r in [*book.runs.values(), *book.companion_runs]]
    seen = {c for d in runs for f in Path(d).glob("*.csv") for c in pd.read_csv(f, nrows=0).columns}
    assert sorted(set(columns) - seen) == []
    html = (book.html / "book" / "glossary.html").read_text(encoding="utf-8")
    assert 'id="term-ci_low"' in html or 'id="term-ci-low"' in html
