"""The papermill runner on tiny fixture chapters that make no model calls (they write usage lines
themselves, the way the model layer does)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import helpers
import nbformat
import pandas as pd
import pytest

from lcrag.book.manifest import TRACKED_PACKAGES
from lcrag.book.profiles import ProfileError, UsageError
from lcrag.book.runner import ChapterFailed, default_out_dir, model_slug, run_chapter
from lcrag.book.toc import toc_chapters

FIXTURES = helpers.FIXTURES / "notebooks"
MODEL = "openai-compatible/llama3.1@http://localhost:11434/v1"


def make_project(root: Path) -> Path:
    """A project root holding the fixture chapters and a profiles.yml for them."""
    (root / "notebooks").mkdir(parents=True)
    for src in FIXTURES.glob("*.md"):
        shutil.copy(src, root / "notebooks" / src.name)
    (root / "notebooks" / "profiles.yml").write_text(
        "fixture_ok:\n  smoke: {n_items: 2}\n  default: {}\n", encoding="utf-8"
    )
    return root


@pytest.fixture()
def project(tmp_path, monkeypatch):
    # the fixture chapters call no model: offline, so the runner's preflight does not ask for MODEL's server
    monkeypatch.setenv("LCRAG_OFFLINE", "1")
    monkeypatch.delenv("LCRAG_STORE", raising=False)
    monkeypatch.delenv("LCRAG_STORE_DIR", raising=False)
    monkeypatch.delenv("LCRAG_RUN_DIR", raising=False)
    return make_project(tmp_path / "proj")


def test_model_slug_is_a_file_name():
    slug = model_slug(MODEL)
    assert "/" not in slug and ":" not in slug
    assert model_slug("openai/gpt-4o-mini") != model_slug("openai/gpt-4o")


def test_run_writes_notebook_tables_usage_and_manifest(project):
    res = run_chapter(
        "fixture_ok", profile="smoke", model=MODEL, params={"scale": 2.0}, root=project, progress=False
    )
    out = default_out_dir("fixture_ok", "smoke", MODEL, project)
    assert res.ok and res.out_dir == out and res.notebook == out / "fixture_ok.ipynb"
    assert out == project / "runs" / model_slug(MODEL) / "smoke" / "fixture_ok"

    # parameters injected: profile value, override, model and profile
    nb = nbformat.read(res.notebook, as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1
    src = injected[0].source
    for line in ("n_items = 2", "scale = 2.0", 'label = "demo"', f'model = "{MODEL}"', 'profile = "smoke"'):
        assert line in src

    # tables saved next to the notebook, computed with the injected values
    results = pd.read_csv(out / "results.csv")
    assert results["value"].tolist() == [0.0, 2.0]
    env = pd.read_csv(out / "env.csv", keep_default_na=False).iloc[0]
    assert Path(env["LCRAG_RUN_DIR"]) == out
    assert env["LCRAG_CHAPTER"] == "fixture_ok" and env["LCRAG_MODEL"] == MODEL
    assert env["LCRAG_STORE"] == ""  # a plain run leaves the user's store mode alone
    assert Path(env["LCRAG_HOME"]) == project

    m = json.loads((out / "manifest.json").read_text())
    assert m == res.manifest
    assert (m["chapter"], m["status"], m["profile"], m["model"]) == ("fixture_ok", "ok", "smoke", MODEL)
    assert m["parameters"] == {"n_items": 2, "scale": 2.0, "label": "demo"}
    assert m["profile_values"] == {"n_items": 2} and m["overrides"] == {"scale": 2.0}
    assert m["store_mode"] == "read" and m["fresh"] is False and m["error"] is None
    assert set(m["versions"]) == set(TRACKED_PACKAGES) and {"llama-cpp-python", "torch"} <= set(TRACKED_PACKAGES)
    assert m["versions"]["papermill"] and m["python"] and m["platform"]
    assert {"commit", "dirty"} <= set(m["git"])
    assert m["started"] <= m["finished"] and m["wall_time_s"] > 0
    u = m["usage"]
    assert u["calls"] == 2 and u["by_source"] == {"network": 1, "store": 1} and u["by_kind"] == {"chat": 2}
    assert (u["prompt_tokens"], u["completion_tokens"]) == (22, 10)
    assert u["cost_usd"] == pytest.approx(0.001)
    assert u["serving"] == [{"n_ctx": 2048, "temperature": 0.0}]
    assert (out / "keys_used.txt").read_text().split() == ["k-fixture-1", "k-fixture-2"]

    # the manifest cell ends the notebook
    last = nb.cells[-1]
    assert last.cell_type == "markdown" and last.source.startswith("## Run manifest")
    assert "| status | ok |" in last.source and MODEL in last.source

    # the fixture's claim is "3 rows": with the smoke profile's 2 rows the computed verdict says no
    claims = pd.read_csv(out / "claims.csv")
    assert claims[["claim_id", "verdict", "chapter", "model", "our_value"]].values.tolist() == [
        ["F1", "not reproduced", "fixture_ok", MODEL, 2]
    ]


def test_rerun_clears_the_usage_log_and_keeps_other_files(project):
    first = run_chapter("fixture_ok", model=MODEL, root=project, progress=False)
    (first.out_dir / "cached-retrieval.pkl").write_bytes(b"keep me")
    second = run_chapter("fixture_ok", model=MODEL, root=project, progress=False)
    assert second.manifest["usage"]["calls"] == 2  # not 4
    assert pd.read_csv(second.out_dir / "claims.csv")["verdict"].tolist() == ["reproduced"]  # 3 rows
    assert (second.out_dir / "cached-retrieval.pkl").read_bytes() == b"keep me"
    nb = nbformat.read(second.notebook, as_version=4)
    assert sum("lcrag-manifest" in c.metadata.get("tags", []) for c in nb.cells) == 1


def test_out_dir_and_notebook_path(project, tmp_path):
    res = run_chapter(
        str(project / "notebooks" / "fixture_ok.md"),
        model=MODEL,
        out_dir=tmp_path / "elsewhere",
        root=project,
        progress=False,
    )
    assert res.chapter == "fixture_ok" and res.notebook == tmp_path / "elsewhere" / "fixture_ok.ipynb"
    assert (tmp_path / "elsewhere" / "results.csv").exists()


def test_failing_chapter_keeps_the_partial_notebook_and_records_failure(project):
    with pytest.raises(ChapterFailed) as exc:
        run_chapter("fixture_fail", model=MODEL, root=project, progress=False)
    res = exc.value.result
    assert res.status == "failed" and not res.ok
    assert "chapter 'fixture_fail'" in res.error and "ZeroDivisionError" in res.error
    assert "ratio = 1 / divisor" in res.error and "In [" in res.error
    m = json.loads((res.out_dir / "manifest.json").read_text())
    assert m["status"] == "failed" and m["error"]["ename"] == "ZeroDivisionError"
    assert "ratio = 1 / divisor" in m["error"]["source"]
    nb = nbformat.read(res.notebook, as_version=4)
    executed = {c.source.strip(): c.get("execution_count") for c in nb.cells if c.cell_type == "code"}
    assert executed["before_failure = True"] is not None
    assert executed["never_reached = True"] is None
    assert "| status | failed |" in nb.cells[-1].source

    again = run_chapter("fixture_fail", model=MODEL, root=project, progress=False, check=False)
    assert again.status == "failed" and again.error == res.error


def test_fresh_deletes_this_chapters_store_file_and_records(project, monkeypatch):
    store = project / "responses"
    mine = store / "fixture_ok" / f"{model_slug(MODEL)}.jsonl"
    other_model = store / "fixture_ok" / "other-model.jsonl"
    other_chapter = store / "fixture_fail" / f"{model_slug(MODEL)}.jsonl"
    for p in (mine, other_model, other_chapter):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text('{"key": "k"}\n')
    monkeypatch.setenv("LCRAG_STORE", "read")
    res = run_chapter("fixture_ok", model=MODEL, fresh=True, root=project, progress=False)
    assert not mine.exists() and other_model.exists() and other_chapter.exists()
    assert res.manifest["store_mode"] == "record" and res.manifest["deleted_store_file"] == str(mine)
    env = pd.read_csv(res.out_dir / "env.csv", keep_default_na=False).iloc[0]
    assert env["LCRAG_STORE"] == "record"
    assert os.environ["LCRAG_STORE"] == "read"  # restored after the run


def test_store_mode_is_passed_to_the_kernel(project, capfd):
    res = run_chapter("fixture_ok", model=MODEL, store_mode="off", root=project, progress=False)
    env = pd.read_csv(res.out_dir / "env.csv", keep_default_na=False).iloc[0]
    assert env["LCRAG_STORE"] == "off" and res.manifest["store_mode"] == "off"
    # the kernel's own log stays out of the build log (ipykernel's TCP warning, papermill's shutdown interrupt)
    assert "IPKernelApp" not in capfd.readouterr().err


def test_usage_errors_before_anything_runs(project):
    with pytest.raises(UsageError, match="no chapter 'missing'"):
        run_chapter("missing", root=project)
    with pytest.raises(ProfileError, match="its profiles are: smoke, default"):
        run_chapter("fixture_ok", profile="paper", root=project)
    with pytest.raises(ProfileError, match="no parameter 'nitems'"):
        run_chapter("fixture_ok", params={"nitems": 1}, root=project)
    assert not (project / "runs").exists()


def test_toc_chapters_of_the_real_book():
    assert "quickstart" in toc_chapters()
    assert "claims" not in toc_chapters()


SLEEPY = helpers.myst_notebook("seconds = 120", 'open("started.txt", "w").write("yes")', "import time\ntime.sleep(seconds)")


def _start_sleepy(project: Path, out: Path) -> subprocess.Popen:
    """``lcrag run sleepy --out out`` in its own process, returned once its notebook is running."""
    (project / "notebooks" / "sleepy.md").write_text(SLEEPY, encoding="utf-8")
    env = {**os.environ, "LCRAG_HOME": str(project)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lcrag.cli", "run", "sleepy", "-q", "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (out / "started.txt").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    return proc


def test_sigterm_still_writes_the_manifest(project, tmp_path):
    """A killed run (Ctrl-C, a CI time limit) keeps its partial notebook and says it was interrupted."""
    out = tmp_path / "sleepy-run"
    proc = _start_sleepy(project, out)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    # (the kernel may print its own shutdown noise; ours is one line, last)
    assert err.strip().splitlines()[-1] == "lcrag: error: terminated by SIGTERM"
    assert "lcrag/book/runner.py" not in err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "interrupted" and "was interrupted" in m["error"]["message"]
    nb = nbformat.read(out / "sleepy.ipynb", as_version=4)
    assert "| status | interrupted |" in nb.cells[-1].source


def test_a_second_run_of_the_same_directory_stops_at_once_and_touches_nothing(project, tmp_path):
    """Two runs of one chapter, model and profile share a run directory: the second stops in seconds with one line
    naming the first (exit 2), and the first run's files and result are untouched."""
    out = tmp_path / "shared-run"
    first = _start_sleepy(project, out)
    (out / "usage.jsonl").write_text('{"theirs": 1}\n')
    t0 = time.monotonic()
    second = subprocess.run(
        [sys.executable, "-m", "lcrag.cli", "run", "sleepy", "-q", "--out", str(out), "-p", "seconds=0"],
        env={**os.environ, "LCRAG_HOME": str(project)}, capture_output=True, text=True, timeout=60,
    )
    assert second.returncode == 2 and time.monotonic() - t0 < 20, second.stderr
    assert second.stderr.strip().splitlines()[-1].startswith(
        f"lcrag: error: run directory {out} is in use by another run (pid {first.pid} on "
    )
    assert (out / "usage.jsonl").read_text() == '{"theirs": 1}\n' and not (out / "manifest.json").exists()
    first.send_signal(signal.SIGTERM)
    first.communicate(timeout=60)
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert not (out / ".run.owner.json").exists()
    # the directory is free again once its run has ended
    again = run_chapter(str(project / "notebooks" / "sleepy.md"), params={"seconds": 0}, out_dir=out, root=project,
                        model=MODEL, progress=False)
    assert again.ok


def test_a_kernel_that_dies_before_its_first_reply_is_started_once_more(tmp_path, monkeypatch):
    from lcrag.book import runner

    calls = []

    def dies(times):
        def papermill(*args):
            calls.append(1)
            if len(calls) <= times:
                raise RuntimeError(f"{runner.STARTUP_DEATH} (ports taken)")
            return "ok", None, None
        return papermill

    monkeypatch.setattr(runner, "_papermill", dies(1))
    assert runner._execute(tmp_path / "x.md", tmp_path / "x.ipynb", {}, False) == ("ok", None, None)
    assert len(calls) == 2
    calls.clear()
    monkeypatch.setattr(runner, "_papermill", dies(2))  # twice: the run fails, naming the kernel's death
    status, error, _ = runner._execute(tmp_path / "x.md", tmp_path / "x.ipynb", {}, False)
    assert status == "failed" and runner.STARTUP_DEATH in str(error) and len(calls) == 2

    def cell_error(*args):
        calls.append(1)
        raise RuntimeError("ZeroDivisionError in a cell")
    calls.clear()
    monkeypatch.setattr(runner, "_papermill", cell_error)  # a cell that raised is not run again
    assert runner._execute(tmp_path / "x.md", tmp_path / "x.ipynb", {}, False)[0] == "failed" and len(calls) == 1
