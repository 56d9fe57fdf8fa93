"""Fixtures of the Summary of a Haystack chapter's tests: the released files copied from the mirror into a tmp data
dir, read once per test module, and the benchmark's labels."""

from __future__ import annotations

import pytest
from helpers import fetched_data_dir

from lcrag.papers.summhay import evaluator_study


@pytest.fixture(scope="module")
def summhay_data(mirror, tmp_path_factory):
    from lcrag.data import load_eval_benchmark, load_haystacks

    for _ in fetched_data_dir(mirror, tmp_path_factory, ["summhay"]):
        yield load_haystacks("all"), load_eval_benchmark()


@pytest.fixture(scope="module")
def labels(summhay_data):
    return evaluator_study.benchmark_labels(summhay_data[1])
