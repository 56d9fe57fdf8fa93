"""Fixtures of the loaders' tests: every required data file copied from the mirror into a tmp data dir (no network),
once per test module that asks for it."""

from __future__ import annotations

import pytest

from lcrag.data.fetch import fetch


@pytest.fixture(scope="module")
def data_dir(mirror, tmp_path_factory):
    """LCRAG_DATA_DIR -> a fresh tmp dir holding every required file, copied from the mirror."""
    dest = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCRAG_DATA_DIR", str(dest))
        report = fetch(mirror=mirror, download=False)
        assert report.ok, report.summary()
        yield dest
