"""A chapter's page as readers get it: code and long outputs folded, the narrative, figures and short tables open.

The executed notebook keeps every cell; the page the book shows from it folds (behind a "show" toggle, nothing
removed) what is not the lesson:

- every code cell's source, unless the chapter tags the cell ``show-input`` (an exercise's code, a prompt the
  reader should read) or already decides (``remove-input``, ``hide-input``, ``hide-cell``);
- an output longer than :data:`LONG_OUTPUT_LINES` lines of text or :data:`LONG_TABLE_ROWS` table rows (a long
  table, a prompt printed in full), unless tagged ``show-output``; figures stay open.

A table's missing values (pandas prints ``NaN``, ``None``, ``<NA>`` or ``NaT``: a value that does not apply, or
was not measured) show as :data:`NO_VALUE`; the result tables saved beside the notebook keep them empty.

A figure's image gets its caption as its ``alt`` text (``mystnb.image.alt``: what a screen reader says, and what a
browser shows when the image does not load), unless the chapter gives one.

The cell papermill adds after the chapter's parameters cell (tagged ``injected-parameters``: the values this run
used) is headed :data:`INJECTED_HEADING`, so that a reader who unfolds both knows which values the run used and why
they differ from the defaults above them.

Measured on the book of this version with the browser test's page lengths (``tests/built_book/test_browser.py``).
"""

from __future__ import annotations

import json
import re

LONG_OUTPUT_LINES = 30
LONG_TABLE_ROWS = 25
_DECIDED_INPUT = {"remove-input", "hide-input", "hide-cell", "remove-cell", "show-input"}
_DECIDED_OUTPUT = {"remove-output", "hide-output", "hide-cell", "remove-cell", "show-output"}
NO_VALUE = "—"
_MISSING_CELL = re.compile(r"<td>\s*(?:NaN|None|&lt;NA&gt;|NaT)\s*</td>")
INJECTED_HEADING = "# The values this run used (papermill's parameters; they replace the defaults of the cell above)"


def _long(output: dict) -> bool:
    data = output.get("data", {})
    if any(kind.startswith("image/") for kind in data):
        return False
    if "text/html" in data:
        return "".join(data["text/html"]).count("<tr") > LONG_TABLE_ROWS + 1  # + the header row
    text = "".join(output.get("text", "")) or "".join(data.get("text/plain", ""))
    return text.count("\n") > LONG_OUTPUT_LINES


def _alt(cell: dict) -> dict:
    """The cell with its figure's caption (markup dropped, one line) as its image's alt text, if it has none."""
    nb_meta = cell.get("metadata", {}).get("mystnb") or {}
    caption = (nb_meta.get("figure") or {}).get("caption")
    if not caption or (nb_meta.get("image") or {}).get("alt"):
        return cell
    alt = " ".join(re.sub(r"[*`]|\{[a-z]+\}", "", str(caption)).split())
    image = {**(nb_meta.get("image") or {}), "alt": alt}
    return {**cell, "metadata": {**cell["metadata"], "mystnb": {**nb_meta, "image": image}}}


def _dash_missing(cell: dict) -> dict:
    """The cell with :data:`NO_VALUE` for each missing value of its HTML tables (pandas' plain ``<td>`` cells)."""
    outputs = cell.get("outputs", [])
    html = ["".join(o.get("data", {}).get("text/html", "")) for o in outputs]
    if not any(_MISSING_CELL.search(h) for h in html):
        return cell
    shown = [o if not _MISSING_CELL.search(h) else
             {**o, "data": {**o["data"], "text/html": _MISSING_CELL.sub(f"<td>{NO_VALUE}</td>", h)}}
             for o, h in zip(outputs, html, strict=True)]
    return {**cell, "outputs": shown}


def fold_cell(cell: dict) -> dict:
    """The cell with ``hide-input`` / ``hide-output`` added where the rules above fold it (both: ``hide-cell``, one
    toggle for the two), its figure's alt text (:func:`_alt`) and its tables' missing values (:func:`_dash_missing`)."""
    if cell.get("cell_type") != "code":
        return cell
    cell = _dash_missing(_alt(cell))
    tags = list(cell.get("metadata", {}).get("tags", []))
    if "injected-parameters" in tags:
        source = "".join(cell.get("source", ""))
        if not source.startswith(INJECTED_HEADING):
            cell = {**cell, "source": INJECTED_HEADING + "\n" + source.removeprefix("# Parameters\n")}
    if not _DECIDED_INPUT & set(tags):
        tags.append("hide-input")
    if not _DECIDED_OUTPUT & set(tags) and any(_long(o) for o in cell.get("outputs", [])):
        tags.append("hide-output")
    if {"hide-input", "hide-output"} <= set(tags):  # both folded: one toggle ("Show code cell content"), not two
        tags = [t for t in tags if t not in ("hide-input", "hide-output")] + ["hide-cell"]
    if tags == cell.get("metadata", {}).get("tags", []):
        return cell  # (a new object when the alt text, a table or the parameters' heading changed it)
    return {**cell, "metadata": {**cell.get("metadata", {}), "tags": tags}}


def folded_page(page: bytes) -> bytes:
    """An executed notebook's bytes with its cells folded (:func:`fold_cell`); the bytes as given when nothing is."""
    nb = json.loads(page)
    cells = [fold_cell(c) for c in nb["cells"]]
    if all(a is b for a, b in zip(cells, nb["cells"], strict=True)):
        return page
    nb["cells"] = cells
    return (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
