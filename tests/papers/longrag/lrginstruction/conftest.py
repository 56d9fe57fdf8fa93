"""Fixtures of the LRGinstruction tests: the LongBench files copied from the mirror (a clean clone has no
data/files), and the inventory whose prompts and tables they are checked against."""

from __future__ import annotations

import pytest
from helpers import SHARED, fetched_data_dir

INVENTORY = SHARED / "papers" / "longrag.md"


@pytest.fixture(scope="module", autouse=True)
def longbench_data(mirror, tmp_path_factory):
    """A clean clone has no data/files: the LongBench files come from the mirror, as in CI."""
    yield from fetched_data_dir(mirror, tmp_path_factory, ["longbench"])


@pytest.fixture(scope="module")
def inventory() -> str:
    if not INVENTORY.exists():
        pytest.skip(f"inventory not found at {INVENTORY}")
    return INVENTORY.read_text(encoding="utf-8")
