"""Fixtures of the LongRAG chapter's tests: the chapter's data (LongBench and the LongRAG eval files) copied from the
mirror, once per test module that asks for it."""

from __future__ import annotations

import pytest
from helpers import fetched_data_dir


@pytest.fixture(scope="module")
def longbench_data(mirror, tmp_path_factory):
    yield from fetched_data_dir(mirror, tmp_path_factory, ["longbench", "longrag_eval"])  # the chapter's data
