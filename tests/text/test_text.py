"""lcrag.text's own helpers (its ``__init__``): one_line (a model's answer on one line for a table), the sentence
helpers (counts_in_words, join_words, count), and as_text, through which every reader of model answers takes a
missing answer as empty."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lcrag.judges.entailment import PARSERS, entailment_value
from lcrag.metrics.qa import exact_match, qa_f1
from lcrag.papers.longrag.cot_filter import parse_status
from lcrag.papers.longrag.lrginstruction.judgement import parse_judgement
from lcrag.papers.thesis.solver import answer_status
from lcrag.text import as_text, one_line


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


# ----------------------------------------------------------------------------- a missing answer read back from a table
# pandas 3 stores None in a string column as NaN (which is truthy, so ``answer or ""`` lets it through). Every reader
# of model answers must take it as an empty answer: each reads it through as_text.


@pytest.fixture()
def missing():
    value = pd.DataFrame({"answer": ["[yes] it is", None]})["answer"].iloc[1]
    assert value is not None and value != value  # NaN: what pandas 3 gives back, the case under test
    return value


def test_as_text(missing):
    assert as_text(missing) == as_text(None) == ""
    assert as_text("Paris") == "Paris" and as_text(0.5) == "0.5"


def test_every_answer_reader_takes_a_missing_answer_as_empty(missing):
    assert qa_f1(missing, ["Paris"]) == qa_f1("", ["Paris"]) == 0.0
    assert exact_match(missing, ["Paris"]) == 0.0
    for name, parse in PARSERS.items():
        assert parse(missing) is None, name
    assert math.isnan(entailment_value(missing))
    assert parse_status(missing) is False
    assert parse_judgement(missing) == parse_judgement("")
    assert answer_status(missing, missing) == "unparseable"
