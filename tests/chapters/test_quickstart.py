"""The quickstart chapter, executed for real with papermill on the embedded model (smoke profile)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from helpers import ROOT

from lcrag.book.runner import run_chapter
from lcrag.data.fetch import fetch

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _data(mirror, tmp_path_factory):
    os.environ["LCRAG_DATA_DIR"] = str(tmp_path_factory.mktemp("data"))
    assert fetch(datasets=["bamboo", "paul_graham_essays"], mirror=mirror).ok
    yield
    os.environ.pop("LCRAG_DATA_DIR")


def _tables(out):
    return {name: pd.read_csv(out / f"{name}.csv") for name in ("bamboo_answers", "bamboo_accuracy", "needle_answers")}


def test_smoke_run_produces_tables_manifest_and_is_repeatable(tmp_path):
    first = run_chapter("quickstart", profile="smoke", out_dir=tmp_path / "a", progress=False)
    assert first.ok
    t = _tables(first.out_dir)
    answers = t["bamboo_answers"]
    assert len(answers) == 2 * 2  # 2 questions x (full, rag)
    assert set(answers["setting"]) == {"full", "rag"}
    assert answers["answer"].isin(list("ABCD")).all()
    assert (answers["prompt_tokens"] > 100).all() and (answers["prompt_tokens"] <= 700).all()
    acc = t["bamboo_accuracy"]
    assert acc["accuracy"].between(0, 1).all() and (acc["n"] == 2).all()
    assert len(t["needle_answers"]) == 2 and t["needle_answers"]["recall"].between(0, 1).all()
    manifest = json.loads((first.out_dir / "manifest.json").read_text())
    assert manifest["status"] == "ok" and manifest["profile"] == "smoke"
    assert manifest["model"] == "local/smollm2-135m-instruct"
    nb = json.loads(first.notebook.read_text())
    assert "Run manifest" in "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    # same configuration twice: identical result tables (the second run is served by the cache)
    second = run_chapter("quickstart", profile="smoke", out_dir=tmp_path / "b", progress=False)
    u = [json.loads(x) for x in (second.out_dir / "usage.jsonl").read_text().splitlines()]
    assert u and all(r["source"] == "disk" for r in u)
    for name, df in _tables(second.out_dir).items():
        pd.testing.assert_frame_equal(df, t[name], check_exact=True)


def test_killed_runner_resumes_without_repeating_calls(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "lcrag.cli", "run", "quickstart", "--profile", "smoke", "--out", str(out)]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    usage_file = out.with_name("run.staging") / "usage.jsonl"  # a run writes in its staging directory
    deadline = time.time() + 300
    while time.time() < deadline:
        if usage_file.exists() and len(usage_file.read_text().splitlines()) >= 2:
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _kill_processes_in(usage_file.parent)  # the notebook kernel runs in its own session: kill it too, as a crash would
    done_before = [json.loads(x)["key"] for x in usage_file.read_text().splitlines() if x.strip()]
    assert len(done_before) >= 2
    cache = tmp_path / "cache" / "responses"
    for f in cache.rglob("*.json"):
        json.loads(f.read_text())  # no corrupt entry
    again = run_chapter("quickstart", profile="smoke", out_dir=out, progress=False)
    assert again.ok and again.out_dir == out and not usage_file.parent.exists()  # the killed run's staging: gone
    usage = [json.loads(x) for x in (out / "usage.jsonl").read_text().splitlines()]
    by_key = {r["key"]: r["source"] for r in usage}
    assert all(by_key[k] == "disk" for k in done_before)  # nothing answered before was asked again
    assert len(usage) == 6


def _kill_processes_in(cwd, timeout=15.0):
    """SIGKILL every process working in ``cwd`` (the notebook kernel runs there) and wait until they are gone."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        busy = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.readlink(f"/proc/{pid}/cwd") == str(cwd):
                    busy.append(int(pid))
                    os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        if not busy:
            return
        time.sleep(0.2)
    raise AssertionError(f"processes still running in {cwd}")


def test_api_key_never_lands_anywhere(tmp_path, fault_server, monkeypatch):
    """A run against an endpoint with a (fake) key, then a book built from it: the key is in no file."""
    from helpers import copy_book

    from lcrag.book.build import build_book

    key = "-".join(["sk", "lcrag", "fake", "0123456789ABCDEFGHIJ"])  # fake; built so scanners see no key
    monkeypatch.setenv("LCRAG_API_KEY", key)
    monkeypatch.delenv("LCRAG_STORE_DIR")  # the store of the book copy: scanned below
    book = copy_book(tmp_path / "book")
    shutil.copy(ROOT / "notebooks" / "quickstart.md", book / "notebooks")
    shutil.copy(ROOT / "notebooks" / "profiles.yml", book / "notebooks")
    spec = f"openai-compatible/fault-model@{fault_server.base_url}"
    res = build_book(["quickstart"], profile="smoke", model=spec, root=book, progress=False, log=lambda s: None)
    assert res.html and fault_server.count() == 6
    assert all(r["auth"] == f"Bearer {key}" for r in fault_server.requests)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    kinds = {p.suffix for p in files}
    assert {".ipynb", ".jsonl", ".html", ".json"} <= kinds
    for p in files:
        assert key.encode() not in p.read_bytes(), p
