"""lcrag.text (the package's own helpers): one_line, a model's answer on one line for a table."""

from __future__ import annotations

from lcrag.text import one_line


def test_line_breaks_become_spaces_and_long_text_is_cut_with_an_ellipsis():
    assert one_line('```json\n{\n  "status": "False"\n}\n```') == '```json { "status": "False" } ```'
    assert one_line("[neutral]\n\nThe claim is", width=12) == "[neutral] T…"
    assert one_line("short", width=12) == "short"
    assert one_line(None) == "" and one_line(float("nan"), 5) == ""


def test_counts_in_words_names_each_value_most_first():
    from lcrag.text import counts_in_words

    words = {"store": "from the store", "network": "from the model"}
    assert counts_in_words(["store"] * 3, words) == "all 3 from the store"
    assert counts_in_words(["network", "store", "store", "odd"], words) == "2 from the store, 1 from the model, 1 odd"
