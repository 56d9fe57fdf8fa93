"""Derived tables computed once per cache directory (lcrag.models.cache.cached_table), and memos of one JSON file
(lcrag.models.cache.json_memo)."""

from __future__ import annotations

import json
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


def test_a_json_memo_computes_a_key_once_and_keeps_the_others(tmp_path):
    memo = tmp_path / "state" / "digests.json"
    calls: list = []
    assert cache.json_memo(memo, "a|1|2", lambda: calls.append("a") or "sha-a") == "sha-a"
    assert cache.json_memo(memo, "a|1|2", lambda: calls.append("a") or "other") == "sha-a"
    assert cache.json_memo(memo, "b", lambda: calls.append("b") or {"use_extra_bufts": False, "detail": "ok"}) == {
        "use_extra_bufts": False, "detail": "ok"}
    assert calls == ["a", "b"]
    assert memo.read_text() == json.dumps({"a|1|2": "sha-a", "b": {"use_extra_bufts": False, "detail": "ok"}},
                                          indent=1)
    assert (tmp_path / "state" / "digests.lock").exists()


def test_a_json_memo_reads_a_file_written_before_it_and_recomputes_an_unreadable_one(tmp_path):
    memo = tmp_path / "llama_probes.json"
    memo.write_text(json.dumps({"v1|cpu|x": {"use_extra_bufts": True, "detail": "ok"}}, indent=1))
    assert cache.json_memo(memo, "v1|cpu|x", lambda: 1 / 0) == {"use_extra_bufts": True, "detail": "ok"}
    for broken in ("{not json", "[1, 2]"):
        memo.write_text(broken)
        assert cache.json_memo(memo, "k", lambda: 7) == 7
        assert json.loads(memo.read_text()) == {"k": 7}


def test_two_callers_of_a_json_memo_compute_it_once(tmp_path):
    calls: list = []
    out: list = []

    def compute():
        calls.append(1)
        time.sleep(0.5)
        return "value"

    threads = [threading.Thread(target=lambda: out.append(cache.json_memo(tmp_path / "m.json", "k", compute)))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and out == ["value", "value"]
