"""The built book in a real browser: headless Chromium (the system's, driven by Playwright) on a loopback server.

Every page of ``_toc.yml`` (the intro, each chapter, the claims page) is opened and must

- load with no console error, no uncaught exception, and no failed or >= 400 request to the book's server
  (requests leaving loopback, e.g. MathJax from its CDN, are blocked: CI has no internet; their load errors are
  not the book's);
- show every ``<img>`` loaded (``naturalWidth > 0``); a page built from an executed notebook shows at least one
  figure, and at least as many as its notebook has image outputs, each one shown (not in a folded output) under a
  visible caption that starts with its number ("Fig. N": the words are checked against the notebook in
  ``test_pages.py``); in each SVG figure, no two labels of a Venn diagram drawn over each other as the browser
  renders them (the thesis's 16 diagrams; matplotlib's own extents are checked in
  ``tests/papers/thesis/test_figures.py``);
- have only internal links that resolve: every ``<a href>`` to the book's server answers 200, and a
  ``#fragment`` names an ``id`` (or ``name``) in the target page.

A page is read once it has loaded and its late requests have finished (:func:`settle`, at most a minute; one
still in flight then is listed in the session's report). A full-page screenshot of each page is saved in ``$LCRAG_ARTIFACTS_DIR`` (default ``_build/screenshots/``),
listed in ``index.txt`` there.

The book is the one ``built_book`` (``conftest.py``) builds from the committed store; ``LCRAG_BOOK_HTML=<dir>``
browses an existing build instead (e.g. ``_build/html`` after ``lcrag book``). Chromium is found as
``$LCRAG_CHROMIUM`` or ``chromium`` on the PATH (Debian: ``apt-get install chromium``). Without it, or without
Playwright, the test skips, unless ``LCRAG_REQUIRE_BROWSER=1`` (set by ``.ci/run``), which makes it fail.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import threading
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import ROOT

from lcrag.book.toc import CLAIMS_PAGE, EXECUTED_DIR, book_toc, toc_files
from lcrag.papers.thesis.figures import VENN_LABEL

pytestmark = pytest.mark.slow

ARTIFACTS = Path(os.environ.get("LCRAG_ARTIFACTS_DIR") or ROOT / "_build" / "screenshots")
SCREEN = (1400, 1000)  # the window pages are read and measured in (issue 20: "screens at 1400x1000")
# Page length, folded parts folded: issue 20 asks for about 15 screens. The longest pages are the needle's (14.9),
# SummHay's (14.8) and the thesis's (14.7); they were 16.1, 16.3 and 15.9 before the side tables, the synthesis's
# other models and the downloads list were folded, and a fully folded cell got one toggle. A page that grows past
# 15 folds what is not its lesson; never raise the limit to let it grow.
MAX_SCREENS = 15.0
SETTLE_MS = 60_000  # the longest wait for a loaded page's late requests (fonts, scripts it adds) to finish
TIMEOUT_MS = 300_000  # a loaded 2-core machine renders the long chapters slowly (a limit, not a speed test: 120 s ran
#   out on the synthesis page while the machine was shared with a recording)


def book_pages(root: Path = ROOT) -> list[str]:
    """Document names to visit: every ``root``/``file`` of ``_toc.yml`` in order, and the claims page."""
    pages = [f.removesuffix(".md").removesuffix(".ipynb") for f in toc_files(book_toc(root))]
    claims = f"{EXECUTED_DIR.as_posix()}/{CLAIMS_PAGE}"
    return pages if claims in pages else [*pages, claims]


PAGES = book_pages()


def _require(reason: str):
    if os.environ.get("LCRAG_REQUIRE_BROWSER", "") not in {"", "0", "false", "False"}:
        pytest.fail(f"{reason} (LCRAG_REQUIRE_BROWSER is set)")
    pytest.skip(reason)


def chromium_executable() -> str | None:
    """``$LCRAG_CHROMIUM``, else the first Chromium on the PATH."""
    if os.environ.get("LCRAG_CHROMIUM"):
        return os.environ["LCRAG_CHROMIUM"]
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    return next((path for path in map(shutil.which, names) if path), None)


# ------------------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def book_html(request) -> Path:
    """The HTML directory to browse: ``$LCRAG_BOOK_HTML``, else the session's build from the store."""
    if os.environ.get("LCRAG_BOOK_HTML"):
        html = Path(os.environ["LCRAG_BOOK_HTML"]).resolve()
    else:
        book = request.getfixturevalue("built_book")
        assert book.html is not None, f"the book did not build: {book.error}\n" + "\n".join(book.log[-20:])
        html = book.html
    assert (html / "index.html").exists(), f"{html} holds no built book (no index.html)"
    return html


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def server(book_html):
    """An HTTP server for the book on 127.0.0.1 (a free port), in a thread."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(book_html)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    exe = chromium_executable()
    if exe is None:
        _require("no Chromium found (apt-get install chromium, or set LCRAG_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _require("Playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def screenshots(report) -> list[Path]:
    """Screenshots saved by the module's tests; their list goes to ``index.txt`` and the session's report."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    yield saved
    (ARTIFACTS / "index.txt").write_text("".join(f"{p}\n" for p in saved), encoding="utf-8")
    report.append(f"browser test: {len(saved)} screenshots in {ARTIFACTS} (listed in index.txt):")
    report.extend(f"  {p} ({p.stat().st_size // 1024} KiB)" for p in saved if p.exists())


@pytest.fixture(scope="module")
def link_checker(server):
    return LinkChecker(server)


# ------------------------------------------------------------------------------------------------ links


class _Anchors(HTMLParser):
    """Every ``id`` and ``<a name>`` of a page: the fragments a link may point to."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if value and (key == "id" or (key == "name" and tag == "a")):
                self.ids.add(value)


class LinkChecker:
    """Fetches each internal link target once: its HTTP status and the anchors it holds."""

    def __init__(self, base: str):
        self.base = base
        self._seen: dict[str, tuple[int, set[str]]] = {}

    def is_internal(self, url: str) -> bool:
        return url.startswith(self.base)

    def target(self, url: str) -> tuple[int, set[str]]:
        if url not in self._seen:
            try:
                with urllib.request.urlopen(url, timeout=30) as resp:
                    status, body = resp.status, resp.read()
                    is_html = "html" in resp.headers.get("Content-Type", "")
            except urllib.error.HTTPError as exc:
                status, body, is_html = exc.code, b"", False
            parser = _Anchors()
            if is_html:
                parser.feed(body.decode("utf-8", "replace"))
            self._seen[url] = (status, parser.ids)
        return self._seen[url]

    def broken(self, links: list[str]) -> list[str]:
        """The internal links of ``links`` that do not resolve, each with the reason."""
        problems = []
        for link in sorted(set(filter(self.is_internal, links))):
            url, fragment = urllib.parse.urldefrag(link)
            status, ids = self.target(url)
            if status != 200:
                problems.append(f"{link}: HTTP {status}")
            elif fragment and urllib.parse.unquote(fragment) not in ids:
                problems.append(f"{link}: no id {urllib.parse.unquote(fragment)!r} in {url}")
        return problems


# ------------------------------------------------------------------------------------------------ a page


_IMAGES_JS = """async () => {
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
  const article = document.querySelector('article') || document.querySelector('main') || document.body;
  return imgs.map(i => ({src: i.currentSrc || i.src, width: i.naturalWidth, inArticle: article.contains(i)}));
}"""


def notebook_figures(html: Path, page: str) -> int | None:
    """Image outputs of the page's notebook (``_sources/<page>.ipynb``); None when the page is not a notebook."""
    source = html / "_sources" / f"{page}.ipynb"
    if not source.exists():
        return None
    nb = json.loads(source.read_text(encoding="utf-8"))
    return sum(
        any(kind.startswith("image/") for kind in out.get("data", {}))
        for cell in nb["cells"]
        if cell["cell_type"] == "code"
        for out in cell.get("outputs", [])
    )


# Each figure a cell shows, with its caption as the browser renders it (visible, and what it reads); a figure in a
# folded output ("Show code cell output") is not shown until unfolded, and neither is its caption.
_CAPTIONS_JS = """() => [...document.querySelectorAll('div.cell_output img')].map(i => {
  const c = i.closest('figure') && i.closest('figure').querySelector('figcaption');
  return {src: i.currentSrc || i.src, caption: c ? c.textContent.trim() : null, shown: i.checkVisibility(),
          visible: !!c && c.checkVisibility({visibilityProperty: true})};
})"""

# The tallest output table as shown (book/_static/lcrag.css boxes them; the claims dashboard has its own box).
_TALLEST_TABLE_JS = """() => Math.max(0, ...[...document.querySelectorAll('div.cell_output div.output.text_html')]
    .filter(e => !e.querySelector('#claims-dashboard')).map(e => e.getBoundingClientRect().height))"""
TABLE_BOX_PX = 22 * 16  # lcrag.css: max-height 22rem


# The labels of each Venn diagram in an SVG figure (lcrag.papers.thesis.figures.pattern_venn draws each label as an
# SVG group of id VENN_LABEL, its text kept as text) where the browser renders them: every pair whose boxes
# intersect by more than half a pixel each way (two lines set one under the other may touch).
_VENN_JS = """(label) => {
  const boxes = [...document.querySelectorAll(`g[id="${label}"]`)].map(g => {
    const r = g.getBoundingClientRect();
    return {text: g.textContent.trim(), x0: r.left, x1: r.right, y0: r.top, y1: r.bottom,
            axes: (g.closest('g[id^="axes_"]') || {id: ''}).id};
  });
  const clashes = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0.5 && Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5)
      clashes.push(`${a.axes}: "${a.text}" over "${b.text}"`);
  }
  return {labels: boxes.length, diagrams: new Set(boxes.map(b => b.axes)).size, clashes};
}"""


def venn_labels(context, svgs: list[str]) -> dict:
    """Open each SVG figure of a page and check its Venn diagrams' labels (:data:`_VENN_JS`): the number of
    diagrams found and every pair of labels drawn over each other, named by figure."""
    found = {"diagrams": 0, "clashes": []}
    page = context.new_page()
    for src in svgs:
        page.goto(src, wait_until="load")
        result = page.evaluate(_VENN_JS, VENN_LABEL)
        found["diagrams"] += result["diagrams"] if result["labels"] else 0
        found["clashes"] += [f"{src.rsplit('/', 1)[-1]}: {c}" for c in result["clashes"]]
    page.close()
    return found


def settle(page, pending: dict, quiet_ms: int = 500, limit_ms: int = SETTLE_MS) -> list[str]:
    """Wait until the page's fonts are ready and none of its requests has been in flight for ``quiet_ms``, at most
    ``limit_ms``; the URLs still in flight then (none when the page settled).

    Playwright's own ``networkidle`` is not used: it sometimes never fires although every request has finished (it
    held a CI run for the whole 300 s limit on one chapter or another, microsoft/playwright#19835). What this test
    asserts is checked after the wait in any case: images by ``naturalWidth``, requests by their failures and
    statuses."""
    page.evaluate("document.fonts.ready.then(() => true)")
    quiet = waited = 0
    while quiet < quiet_ms and waited < limit_ms:
        page.wait_for_timeout(100)
        waited += 100
        quiet = quiet + 100 if not pending else 0
    return sorted(set(pending.values())) if quiet < quiet_ms else []


def visit(browser, base: str, page_name: str) -> dict:
    """Open one page; what it logged, which requests failed, its images and links, and a screenshot."""
    origin = base.rstrip("/")
    found: dict = {"console": [], "exceptions": [], "failed": [], "blocked": []}
    context = browser.new_context(viewport=dict(zip(("width", "height"), SCREEN, strict=True)))
    context.set_default_timeout(TIMEOUT_MS)

    def route(r):
        if r.request.url.startswith(origin):
            r.continue_()
        else:
            found["blocked"].append(r.request.url)
            r.abort()

    def on_console(msg):
        where = msg.location.get("url", "") if msg.location else ""
        if msg.type == "error" and not (where and not where.startswith(origin)):
            found["console"].append(f"{msg.text} ({where})")

    def on_failed(req):
        if req.url.startswith(origin):
            found["failed"].append(f"{req.url}: {req.failure}")

    def on_response(resp):
        if resp.url.startswith(origin) and resp.status >= 400:
            found["failed"].append(f"{resp.url}: HTTP {resp.status}")

    pending: dict = {}  # request -> its URL, while in flight

    def on_done(req):
        pending.pop(req, None)

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", on_console)
    page.on("pageerror", lambda exc: found["exceptions"].append(str(exc)))
    page.on("request", lambda req: pending.__setitem__(req, req.url))
    page.on("requestfinished", on_done)
    page.on("requestfailed", on_done)
    page.on("requestfailed", on_failed)
    page.on("response", on_response)
    try:
        response = page.goto(f"{base}{page_name}.html", wait_until="load")
        found["unsettled"] = settle(page, pending)
        found["status"] = response.status if response else None
        found["images"] = page.evaluate(_IMAGES_JS)
        found["links"] = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        found["height"] = page.evaluate("document.documentElement.scrollHeight")  # folded parts folded
        found["tallest_table"] = page.evaluate(_TALLEST_TABLE_JS)
        found["captions"] = page.evaluate(_CAPTIONS_JS)
        found["venn"] = venn_labels(context, sorted({i["src"] for i in found["images"]
                                                     if i["src"].startswith(origin) and i["src"].endswith(".svg")}))
        shot = ARTIFACTS / f"{page_name.replace('/', '__')}.png"
        page.screenshot(path=str(shot), full_page=True)
        found["screenshot"] = shot
        found["url"] = page.url
    finally:
        context.close()
    return found


# ------------------------------------------------------------------------------------------------ tests


def test_the_book_lists_its_chapters():
    assert "book/intro" in PAGES
    assert f"{EXECUTED_DIR.as_posix()}/{CLAIMS_PAGE}" in PAGES
    assert sum(p.startswith(f"{EXECUTED_DIR.as_posix()}/") for p in PAGES) >= 2


@pytest.mark.parametrize("page_name", PAGES)
def test_page_renders_with_figures_and_working_links(
    page_name, book_html, server, browser, link_checker, screenshots, report
):
    assert (book_html / f"{page_name}.html").exists(), f"{page_name} is in _toc.yml but not in the build"
    found = visit(browser, server, page_name)
    screenshots.append(found["screenshot"])
    report.append(f"page length: {page_name}: {found['height'] / SCREEN[1]:.1f} screens at {SCREEN[0]}x{SCREEN[1]}")
    if found["unsettled"]:  # reported, not failed: what the page shows is checked below either way
        report.append(f"unsettled: {page_name}: in flight after {SETTLE_MS // 1000} s: {found['unsettled']}")
    assert found["screenshot"].stat().st_size > 0

    assert found["status"] == 200
    assert found["exceptions"] == [], "uncaught JavaScript exceptions"
    assert found["console"] == [], "console errors"
    assert found["failed"] == [], "failed requests to the book's server"

    assert found["tallest_table"] <= TABLE_BOX_PX + 1, "an output table taller than its box (lcrag.css not applied?)"
    assert found["height"] / SCREEN[1] <= MAX_SCREENS, f"{page_name} is longer than {MAX_SCREENS} screens"

    broken = [i["src"] for i in found["images"] if i["width"] == 0]
    assert broken == [], "images that did not load"
    expected = notebook_figures(book_html, page_name)
    if expected is not None:  # an executed chapter
        shown = sum(i["inArticle"] for i in found["images"])
        assert expected >= 1, f"{page_name}: an executed chapter shows no figure"
        assert shown >= expected, f"{page_name}: {shown} images shown, its notebook has {expected} figures"
        uncaptioned = [c["src"] for c in found["captions"] if c["shown"] and not (c["visible"] and re.match(r"Fig\. \d", c["caption"] or ""))]
        assert uncaptioned == [], f"{page_name}: figures shown without a visible numbered caption"

    assert found["venn"]["clashes"] == [], f"{page_name}: Venn labels drawn over each other in the browser"
    if page_name == f"{EXECUTED_DIR.as_posix()}/thesis":  # the thesis's Fig. 6.3 Venn and the grid's 15
        assert found["venn"]["diagrams"] >= 16, f"{page_name}: its Venn diagrams were not found as SVG"

    internal = [link for link in found["links"] if link_checker.is_internal(link)]
    assert internal, "a book page links to other pages (navigation, table of contents)"
    assert link_checker.broken(internal) == [], "broken internal links"


def test_the_root_leads_to_the_intro(server, browser):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server + "index.html", wait_until="load", timeout=TIMEOUT_MS)
        page.wait_for_url("**/book/intro.html", timeout=TIMEOUT_MS)
        assert page.title()
    finally:
        context.close()


def test_every_option_of_the_claims_filters_shows_rows(server, browser):
    """Each paper, verdict, source and model the claims page offers matches some of its rows, curly apostrophes
    and all (the page's Markdown curls "book's" in the table, not in the options)."""
    from lcrag.book.claims_page import DASHBOARD_ID

    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{server}{EXECUTED_DIR.as_posix()}/{CLAIMS_PAGE}.html", wait_until="load", timeout=TIMEOUT_MS)
        count = page.locator(f"#{DASHBOARD_ID}-count")
        total = int(re.search(r"of (\d+) rows", count.text_content()).group(1))
        empty = []
        for name in ("paper", "verdict", "source", "model"):
            select = page.locator(f"#{DASHBOARD_ID}-{name}")
            for value in [v for v in select.locator("option").evaluate_all("os => os.map(o => o.value)") if v]:
                select.select_option(value)
                if int(re.search(r"showing (\d+)", count.text_content()).group(1)) == 0:
                    empty.append(f"{name}={value}")
            select.select_option("")
        assert total > 0 and empty == [], f"filter options that show no row: {empty}"
        page.locator(f"#{DASHBOARD_ID}-text").fill("book's")
        assert int(re.search(r"showing (\d+)", count.text_content()).group(1)) > 0
    finally:
        context.close()
