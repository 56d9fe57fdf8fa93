"""The page readers get from an executed notebook (:mod:`lcrag.book.reading`): code and long outputs folded,
lessons, figures and short tables open, nothing removed."""

from __future__ import annotations

import json

from lcrag.book.reading import LONG_TABLE_ROWS, NO_VALUE, fold_cell, folded_page


def code(tags=(), outputs=()):
    return {"cell_type": "code", "source": "x = 1", "metadata": {"tags": list(tags)}, "outputs": list(outputs)}


def table(rows: int) -> dict:
    html = "<table><tr><th>a</th></tr>" + "<tr><td>1</td></tr>" * rows + "</table>"
    return {"output_type": "execute_result", "data": {"text/html": [html], "text/plain": ["a\n1"]}}


def tags(cell) -> list[str]:
    return cell["metadata"]["tags"]


def test_code_is_folded_and_a_lesson_or_a_decided_cell_is_left_as_it_is():
    assert tags(fold_cell(code())) == ["hide-input"]
    for decided in ("show-input", "remove-input", "hide-input"):
        assert tags(fold_cell(code([decided]))) == [decided]
    markdown = {"cell_type": "markdown", "source": "# t", "metadata": {}}
    assert fold_cell(markdown) is markdown


def test_a_long_table_or_text_is_folded_a_short_one_or_a_figure_is_not():
    # a long output folds with the code under one toggle (hide-cell), not a toggle for each
    assert tags(fold_cell(code(outputs=[table(LONG_TABLE_ROWS + 5)]))) == ["hide-cell"]
    assert tags(fold_cell(code(outputs=[table(LONG_TABLE_ROWS)]))) == ["hide-input"]
    long_print = {"output_type": "stream", "name": "stdout", "text": ["line\n"] * 40}
    assert tags(fold_cell(code(outputs=[long_print]))) == ["hide-cell"]
    assert tags(fold_cell(code(["hide-output"], outputs=[table(1)]))) == ["hide-cell"]  # folded by its notebook
    assert tags(fold_cell(code(["show-input", "hide-output"], outputs=[table(1)]))) == ["show-input", "hide-output"]
    figure = {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": ["<Figure>\n" * 50]}}
    assert "hide-output" not in tags(fold_cell(code(outputs=[figure])))
    assert tags(fold_cell(code(["show-output"], outputs=[table(100)]))) == ["show-output", "hide-input"]


def test_a_page_keeps_every_cell_and_output_and_is_unchanged_when_nothing_folds():
    nb = {"cells": [code(outputs=[table(40)]), {"cell_type": "markdown", "source": "t", "metadata": {}}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    page = folded_page(json.dumps(nb).encode())
    back = json.loads(page)
    assert [c["cell_type"] for c in back["cells"]] == ["code", "markdown"]
    assert back["cells"][0]["outputs"] == nb["cells"][0]["outputs"] and back["cells"][0]["source"] == "x = 1"
    assert tags(back["cells"][0]) == ["hide-cell"]
    assert folded_page(page) == page  # folded once: nothing more to fold, the bytes as given


def test_the_run_values_cell_says_it_replaces_the_defaults():
    from lcrag.book.reading import INJECTED_HEADING

    injected = {"cell_type": "code", "metadata": {"tags": ["injected-parameters"]}, "outputs": [],
                "source": '# Parameters\nmodel = "local/qwen2.5-coder-1.5b-instruct"\n'}
    folded = fold_cell(injected)
    assert folded["source"] == INJECTED_HEADING + '\nmodel = "local/qwen2.5-coder-1.5b-instruct"\n'
    assert "replace the defaults" in INJECTED_HEADING and tags(folded) == ["injected-parameters", "hide-input"]
    assert fold_cell(folded)["source"] == folded["source"]  # folding twice changes nothing


def test_a_figure_gets_its_caption_as_alt_text_unless_it_has_one():
    cell = code()
    cell["metadata"]["mystnb"] = {"figure": {"caption": "Accuracy per run: *Full* against `RAG`\n  and more.",
                                             "name": "fig-x"}}
    folded = fold_cell(cell)
    assert folded["metadata"]["mystnb"]["image"] == {"alt": "Accuracy per run: Full against RAG and more."}
    assert folded["metadata"]["mystnb"]["figure"]["name"] == "fig-x" and cell["metadata"]["mystnb"].get("image") is None
    cell["metadata"]["mystnb"]["image"] = {"alt": "given"}
    assert fold_cell(cell)["metadata"]["mystnb"]["image"] == {"alt": "given"}


def test_a_tables_missing_values_show_as_a_dash_and_nothing_else_changes():
    html = ("<table><tr><th>NaN</th><th>a</th></tr><tr><td>NaN</td><td>0.5</td></tr><tr><td>None</td>"
            "<td>&lt;NA&gt;</td></tr><tr><td>NaT</td><td>NaN and more</td></tr></table>")
    out = {"output_type": "execute_result", "data": {"text/html": [html], "text/plain": ["a\nNaN"]}}
    cell = fold_cell(code(["show-input"], [out]))
    shown = "".join(cell["outputs"][0]["data"]["text/html"])
    assert shown.count(f"<td>{NO_VALUE}</td>") == 4
    assert "<th>NaN</th>" in shown and "<td>0.5</td>" in shown and "<td>NaN and more</td>" in shown
    assert cell["outputs"][0]["data"]["text/plain"] == ["a\nNaN"]  # the plain text, and the saved tables, keep them
    assert out["data"]["text/html"] == [html]  # the executed notebook's cell is not changed in place
    complete = code(["show-input"], [table(2)])
    assert fold_cell(complete) is complete
