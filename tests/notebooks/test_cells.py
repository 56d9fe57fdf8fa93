"""Thin notebooks (issue 19, item 5): a chapter's code cells are short calls into ``lcrag``.

A code cell holds at most ``MAX_LOGIC_LINES`` lines of logic: blank lines, comments and imports do not count, and
two kinds of cell are exempt: the ``parameters`` cell (one line per parameter, each documented) and a cell tagged
``show-input``, whose code is the lesson (a teaching exercise the reader edits).
"""

from __future__ import annotations

import jupytext
import pytest
from helpers import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.md"))
MAX_LOGIC_LINES = 8
EXEMPT_TAGS = {"parameters", "show-input"}


def logic_lines(source: str) -> list[str]:
    """The lines of ``source`` that are logic: not blank, not a comment, not part of an import statement."""
    lines, open_import = [], 0
    for raw in source.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if open_import or line.startswith(("import ", "from ")):
            open_import = max(0, open_import + line.count("(") - line.count(")"))
            continue
        lines.append(line)
    return lines


def test_logic_lines_skip_imports_comments_and_blank_lines():
    source = "import numpy as np\nfrom lcrag import (\n    book,\n    plots,\n)\n\n# a comment\nx = 1\ny = f(x,\n      2)\n"
    assert logic_lines(source) == ["x = 1", "y = f(x,", "2)"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_code_cell_is_a_few_short_calls(path):
    long = []
    for i, cell in enumerate(jupytext.read(path).cells):
        if cell.cell_type != "code" or EXEMPT_TAGS & set(cell.metadata.get("tags", [])):
            continue
        n = len(logic_lines(cell.source))
        if n > MAX_LOGIC_LINES:
            long.append(f"cell {i} ({n} lines): {cell.source.splitlines()[0][:60]}")
    assert not long, f"{path.name}: move the logic into lcrag; " + "; ".join(long)


def bare_series_cells(path) -> list[str]:
    """The code cells of ``path`` whose output is a raw pandas Series of counts (the cell's last line ends in
    ``.value_counts()``): it prints as "Name: count, dtype: int64" text, not as a table."""
    return [cell.source.splitlines()[-1] for cell in jupytext.read(path).cells
            if cell.cell_type == "code" and cell.source.strip()
            and cell.source.strip().splitlines()[-1].split("#")[0].strip().endswith(".value_counts()")]


def test_bare_series_cells_are_found(tmp_path):
    nb = tmp_path / "n.md"
    nb.write_text('```{code-cell} ipython3\nx = 1\nclaims["verdict"].value_counts()\n```\n\n'
                  '```{code-cell} ipython3\ns.value_counts().unstack()\n```\n', encoding="utf-8")
    assert bare_series_cells(nb) == ['claims["verdict"].value_counts()']


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_cell_prints_a_raw_series_of_counts(path):
    """Counts are shown as a table or in prose (each chapter's "What we found" counts its claims by verdict)."""
    assert not bare_series_cells(path), f"{path.name}: show it as a table (.to_frame()) or in prose"
