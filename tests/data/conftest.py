"""Fixtures of the loaders' tests: every required data file copied from the mirror into a tmp data dir (no network),
once per test module that asks for it."""

from __future__ import annotations

import pytest
from helpers import fetched_data_dir


@pytest.fixture(scope="module")
def data_dir(mirror, tmp_path_factory):
    """LCRAG_DATA_DIR -> a fresh tmp dir holding every required file, copied from the mirror."""
    yield from fetched_data_dir(mirror, tmp_path_factory, None)
