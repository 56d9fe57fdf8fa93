"""The Paul Graham essays' loader (lcrag.data.essays) on the real files (copied from the mirror into a tmp data
dir; no network). Expected counts come from the data MANIFEST.md, not from the loader itself."""

from __future__ import annotations

import pytest

from lcrag.data import load_essays

pytestmark = pytest.mark.usefixtures("data_dir")


def test_essays_49_files_about_112k_words(mirror):
    df = load_essays()
    assert len(df) == 49 and list(df.columns) == ["name", "text", "n_chars", "n_words"]
    assert df["name"].tolist() == sorted(df["name"]) and df["name"].iloc[0] == "addiction"
    assert df["n_words"].sum() == 111_913  # MANIFEST.md: ~112k words (wc -w)
    assert df.set_index("name").loc["rss", "n_words"] == 10  # the 10-word stub upstream
    assert (
        df.set_index("name").loc["worked", "text"].encode()
        == (mirror / "paul_graham_essays/worked.txt").read_bytes()
    )
    assert load_essays(mirror / "paul_graham_essays")[["name", "n_chars"]].equals(df[["name", "n_chars"]])
