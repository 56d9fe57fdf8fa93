"""Every figure of the book has a numbered caption (issue 20, "Figures").

The chapters are MyST notebooks; MyST-NB wraps a code cell's outputs in a numbered figure when the cell carries
``mystnb: figure: {caption, name}``. A cell that draws a figure must carry both, and show nothing but its
figure(s): MyST-NB wraps *every* display output of the cell (a table, a repr) in a figure of the same name,
which the book's ``-W`` build rejects as a duplicate target. The built pages are checked in
``tests/built_book/test_pages.py``.
"""

from __future__ import annotations

import ast
import re

import jupytext
import pytest
from helpers import ROOT, rendered_text

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.md"))

#: A call that draws: the book's plotting helpers, matplotlib, seaborn, the synthesis's model figures.
DRAWS = re.compile(r"\bplots\.\w+\(|\bplt\.(subplots|figure|plot|bar|barh|scatter|imshow|show)\(|\bsns\.\w+\("
                   r"|\bvenn[23]\(|\.plot_models?\(")
#: Calls harmless as a cell's last line: their value is None, or the figure itself (``plots.as_svg``: the figure
#: as an SVG image, closed, so it is the one image the cell shows).
NONE_CALLS = re.compile(r"(\bfig|\bplt)\.(tight_layout|show)\(|^plots\.as_svg\(")


def code_cells(path):
    nb = jupytext.read(path)
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def figure_options(cell) -> dict:
    return ((cell.metadata.get("mystnb") or {}).get("figure")) or {}


def test_the_detector_sees_the_figure_cells():
    """Guards the regex: each chapter that draws figures is seen drawing some."""
    drawing = {p.stem for p in NOTEBOOKS for _, c in code_cells(p) if DRAWS.search(c.source)}
    assert {"quickstart", "thesis", "needle", "longrag", "summhay", "long2rag", "synthesis"} <= drawing


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_cell_has_a_numbered_caption(path):
    missing = []
    for i, cell in code_cells(path):
        if not DRAWS.search(cell.source):
            continue
        opts = figure_options(cell)
        caption, name = str(opts.get("caption", "")).strip(), str(opts.get("name", ""))
        if not caption or not name.startswith(f"fig-{path.stem}-"):
            missing.append((i, cell.source.splitlines()[0]))
    assert missing == [], f"{path.name}: cells that draw without a caption and a fig-{path.stem}-* name"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_captioned_cell_shows_only_its_figure(path):
    """No display() and no bare last expression (a table, an Axes repr) beside the figure: MyST-NB would
    wrap it in a second figure of the same name."""
    for i, cell in code_cells(path):
        if not figure_options(cell):
            continue
        assert "display(" not in cell.source, (path.name, i)
        body = [ln for ln in cell.source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
        tree = ast.parse("\n".join(body))
        last = tree.body[-1] if tree.body else None
        if isinstance(last, ast.Expr):
            line = body[last.end_lineno - 1].rstrip()
            assert line.endswith(";") or NONE_CALLS.search(ast.get_source_segment("\n".join(body), last) or ""), (
                f"{path.name} cell {i}: its last line {line!r} shows a value beside the figure")


def test_figure_names_and_captions_are_unique_in_the_book():
    names, captions = [], []
    for path in NOTEBOOKS:
        for _, cell in code_cells(path):
            opts = figure_options(cell)
            if opts:
                names.append(opts.get("name"))
                captions.append(" ".join(str(opts.get("caption", "")).split()))
    assert len(names) == len(set(names)), names
    assert len(captions) == len(set(captions))


def test_captions_type_no_number_of_a_run():
    """A caption says how to read a figure; a run's numbers belong in the glued prose. Decimal numbers other
    than the fixed ones a reader needs (chance 0.25, a box plot's 1.5 × IQR whiskers) are taken as typed-in
    results."""
    allowed = {"0.25", "1.5"}
    for path in NOTEBOOKS:
        for i, cell in code_cells(path):
            caption = str(figure_options(cell).get("caption", ""))
            caption = re.sub(r"\b(Figs?|Tables?|Eq)\.?\s+\d+(\.\d+)?", "", caption)  # the papers' numbering
            decimals = set(re.findall(r"(?<![\w.])\d+\.\d+(?![\w.])", caption)) - allowed
            assert decimals == set(), (path.name, i, decimals)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_prose_and_captions_print_the_hyphens_they_have(path):
    """Sphinx's smart quotes print "--" as an en dash and "---" as an em dash: the thesis's patterns F--, --E and
    --- must be code (backticks) in prose and captions, or the page shows "F–", "–E", "—". No markdown cell or
    caption prints a dash its source does not have."""
    nb = jupytext.read(path)
    texts = [c.source for c in nb.cells if c.cell_type == "markdown"]
    texts += [str(figure_options(c)["caption"]) for _, c in code_cells(path) if figure_options(c).get("caption")]
    made = [t.strip()[:60] for t in texts
            if sum(map(rendered_text(t).count, "–—")) > sum(map(t.count, "–—"))]
    assert made == [], f"{path.name}: text whose '--' prints as a dash"
