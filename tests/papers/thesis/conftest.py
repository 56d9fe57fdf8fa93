"""Fixtures of the thesis chapter's tests: BAMBOO copied from the mirror, its cases read once per test module."""

from __future__ import annotations

import pytest
from helpers import fetched_data_dir

from lcrag.papers.thesis import cases as thesis_cases


@pytest.fixture(scope="module")
def bamboo_data(mirror, tmp_path_factory):
    yield from fetched_data_dir(mirror, tmp_path_factory, ["bamboo"])


@pytest.fixture(scope="module")
def cases(bamboo_data):
    return thesis_cases.load_cases(("meetingqa", "paperqa"), "4k")
