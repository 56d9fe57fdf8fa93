"""Fixtures of the needle chapter's tests: the Paul Graham essays copied from the mirror, read once per test module."""

from __future__ import annotations

import os

import pytest

from lcrag.data.fetch import fetch


@pytest.fixture(scope="module")
def essays(mirror, tmp_path_factory):
    os.environ["LCRAG_DATA_DIR"] = str(tmp_path_factory.mktemp("data"))
    try:
        assert fetch(datasets=["paul_graham_essays"], mirror=mirror, download=False).ok
        from lcrag.data import load_essays

        yield list(load_essays()["text"])
    finally:
        os.environ.pop("LCRAG_DATA_DIR")
