"""Derived tables computed once per cache directory (lcrag.models.cache.cached_table)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd

from lcrag import config
from lcrag.models import cache


def table(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"case": [1, 2, 3], "ranker": ["bm25", "svm", "naive"], "distance": rng.random(3) / 3})


def counting(seed: int, calls: list, pause_s: float = 0.0):
    def compute() -> pd.DataFrame:
        calls.append(seed)
        time.sleep(pause_s)
        return table(seed)

    return compute


def test_a_table_is_computed_once_and_read_back_exactly():
    calls: list = []
    first = cache.cached_table("demo", {"cases": [[1, "a"]], "k": 5}, counting(0, calls))
    again = cache.cached_table("demo", {"cases": [[1, "a"]], "k": 5}, counting(0, calls))
    assert calls == [0]
    pd.testing.assert_frame_equal(again, first, check_exact=True)  # floats to the last bit, dtypes kept
    assert again["distance"].tolist() == table(0)["distance"].tolist()
    assert len(list((config.cache_dir() / "tables").glob("*/*.pkl"))) == 1


def test_other_inputs_or_kind_compute_it_again():
    calls: list = []
    cache.cached_table("demo", {"k": 5}, counting(0, calls))
    cache.cached_table("demo", {"k": 10}, counting(1, calls))
    cache.cached_table("other", {"k": 5}, counting(2, calls))
    assert calls == [0, 1, 2]


def test_a_code_change_computes_it_again(monkeypatch):
    calls: list = []
    cache.cached_table("demo", {"k": 5}, counting(0, calls))
    monkeypatch.setattr(cache, "_code_sha256", lambda: "another version of lcrag")
    cache.cached_table("demo", {"k": 5}, counting(1, calls))
    assert calls == [0, 1]


def test_an_unreadable_file_is_computed_again_and_replaced():
    calls: list = []
    cache.cached_table("demo", {"k": 5}, counting(0, calls))
    (path,) = (config.cache_dir() / "tables").glob("*/*.pkl")
    path.write_bytes(b"not a pickle")
    pd.testing.assert_frame_equal(cache.cached_table("demo", {"k": 5}, counting(0, calls)), table(0))
    assert calls == [0, 0]
    cache.cached_table("demo", {"k": 5}, counting(0, calls))
    assert calls == [0, 0]


def test_two_callers_at_once_compute_it_once():
    calls: list = []
    out: list = []
    threads = [threading.Thread(target=lambda: out.append(cache.cached_table("demo", {"k": 5}, counting(0, calls, 0.5))))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [0] and len(out) == 2
    pd.testing.assert_frame_equal(out[0], out[1])
