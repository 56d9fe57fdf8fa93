"""lcrag.text (the package's own helpers): one_line (a model's answer on one line for a table), the sentence helpers
(counts_in_words, join_words, count)."""

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


def test_join_words_puts_items_into_a_sentence():
    from lcrag.text import join_words

    assert join_words(["a"]) == "a" and join_words(("a", "b")) == "a and b"
    assert join_words(x for x in "abc") == "a, b and c"  # no Oxford comma, any iterable


def test_count_gives_the_singular_for_one():
    from lcrag.text import count

    assert [count(n, u) for n, u in ((1, "summaries"), (2, "summaries"), (1, "questions"), (0, "cells"))] == [
        "1 summary", "2 summaries", "1 question", "0 cells"]
    assert [count(n, "model calls") for n in (0, 1, 2)] == ["0 model calls", "1 model call", "2 model calls"]


def test_the_sentence_helpers_have_one_home():
    import lcrag.text
    from lcrag import synthesis
    from lcrag.papers.longrag import corpus
    from lcrag.papers.thesis.needle import analysis, claims
    from lcrag.synthesis import family

    assert family.count is lcrag.text.count and analysis.join_words is claims.join_words is lcrag.text.join_words
    assert corpus.join_words is lcrag.text.join_words
    assert not {"_and", "_and_list"} & (set(vars(analysis)) | set(vars(claims)) | set(vars(corpus)))
    assert not {"count", "join_words"} & set(synthesis.__all__)


def test_the_synthetic_haystacks_reading_counts_as_before():
    import pandas as pd

    from lcrag.papers.summhay.synthetic import synthesis_reading

    raw = {"subtopics": [{}], "documents": [{}, {}]}
    report = pd.DataFrame({"insight": ["Sales rose 5 % in 2022."], "subtopic": ["Q4 results"]})
    assert synthesis_reading(raw, report, 3, 1).startswith(
        "The model wrote 1 subtopic with 1 insight (3 planned) and 2 documents, in 1 model call. **This haystack is "
        "degenerate** (only 1 insight): ")
