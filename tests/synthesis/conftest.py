"""Fixtures of the synthesis's tests: one run of each chapter (``tests/synthesis_runs.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from synthesis_runs import write_book_runs


@pytest.fixture()
def book_runs(tmp_path) -> Path:
    return write_book_runs(tmp_path)
