"""A missing answer read back from a table: pandas 3 stores None in a string column as NaN (which is truthy, so
``answer or ""`` lets it through). Every reader of model answers must take it as an empty answer."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lcrag.judges.entailment import PARSERS, entailment_value
from lcrag.metrics.qa import exact_match, qa_f1
from lcrag.papers.longrag.cot_filter import parse_status
from lcrag.papers.longrag.lrginstruction.judgement import parse_judgement
from lcrag.papers.thesis.solver import answer_status
from lcrag.text import as_text


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
