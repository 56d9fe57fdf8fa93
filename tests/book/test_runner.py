"""The papermill runner on tiny fixture chapters that make no model calls (they write usage lines
themselves, the way the model layer does)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
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
    assert Path(env["LCRAG_RUN_DIR"]) == out.with_name("fixture_ok.staging")  # swapped in when it succeeded
    assert not out.with_name("fixture_ok.staging").exists() and not out.with_name("fixture_ok.failed").exists()
    assert env["LCRAG_CHAPTER"] == "fixture_ok" and env["LCRAG_MODEL"] == MODEL
    assert env["LCRAG_STORE"] == ""  # a plain run leaves the user's store mode alone
    assert Path(env["LCRAG_HOME"]) == project

    m = json.loads((out / "manifest.json").read_text())
    assert m == res.manifest
    assert (m["chapter"], m["status"], m["profile"], m["model"]) == ("fixture_ok", "ok", "smoke", MODEL)
    assert m["run_dir"] == str(out) and nb.metadata.papermill.output_path == str(res.notebook)
    assert m["store_skipped_lines"] == []
    assert m["parameters"] == {"n_items": 2, "scale": 2.0, "label": "demo"}
    assert m["profile_values"] == {"n_items": 2} and m["overrides"] == {"scale": 2.0}
    assert m["store_mode"] == "read" and m["fresh"] is False and m["error"] is None and m["rerecorded_store_file"] is None
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


def test_a_successful_rerun_replaces_the_run_directory_whole(project):
    first = run_chapter("fixture_ok", model=MODEL, root=project, progress=False)
    (first.out_dir / "stale.csv").write_text("a table no later run writes\n")
    second = run_chapter("fixture_ok", model=MODEL, root=project, progress=False)
    assert second.out_dir == first.out_dir and second.manifest["usage"]["calls"] == 2  # not 4
    assert pd.read_csv(second.out_dir / "claims.csv")["verdict"].tolist() == ["reproduced"]  # 3 rows
    assert not (second.out_dir / "stale.csv").exists()  # the directory holds this run's tables only
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
    out = default_out_dir("fixture_fail", "default", MODEL, project)
    assert res.status == "failed" and not res.ok
    assert res.out_dir == out.with_name("fixture_fail.failed") and res.notebook.parent == res.out_dir
    assert not out.exists()  # a run directory only ever holds a successful run
    assert "chapter 'fixture_fail'" in res.error and "ZeroDivisionError" in res.error
    assert "ratio = 1 / divisor" in res.error and "In [" in res.error
    assert f"are in {res.out_dir}; {out} holds no successful run yet" in res.error
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


FLAKY = helpers.myst_notebook(
    "fail = False",
    'import pandas as pd\nfrom lcrag.book import save_table\n'
    'save_table(pd.DataFrame({"run": ["failing" if fail else "good"]}), "early")',
    'if fail:\n    raise RuntimeError("this run breaks here")\nsave_table(pd.DataFrame({"x": [1]}), "late")',
)


def test_a_failed_rerun_leaves_the_previous_successful_run_whole_and_read(project):
    """A re-run that fails keeps its partial notebook and manifest beside the run directory (``<dir>.failed``); the
    previous successful run stays whole, the one place the synthesis reads, and no table of the two runs mixes."""
    from lcrag.synthesis.runs import find_runs

    (project / "notebooks" / "flaky.md").write_text(FLAKY, encoding="utf-8")
    good = run_chapter("flaky", model=MODEL, root=project, progress=False)
    out = good.out_dir
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert {"early.csv", "late.csv", "flaky.ipynb", "manifest.json"} <= set(before)

    bad = run_chapter("flaky", model=MODEL, params={"fail": True}, root=project, progress=False, check=False)
    assert bad.status == "failed" and bad.out_dir == out.with_name("flaky.failed")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the good run, byte for byte
    assert pd.read_csv(bad.out_dir / "early.csv")["run"].tolist() == ["failing"]
    assert not (bad.out_dir / "late.csv").exists()
    m = json.loads((bad.out_dir / "manifest.json").read_text())
    assert m["status"] == "failed" and m["run_dir"] == str(bad.out_dir) and "| status | failed |" in str(
        nbformat.read(bad.notebook, as_version=4).cells[-1].source)
    assert f"are in {bad.out_dir}; {out} keeps the previous successful run" in bad.error
    runs = find_runs(project, profiles=["default"], chapters=["flaky"])  # what the synthesis reads
    assert runs["run_dir"].tolist() == [out]

    again = run_chapter("flaky", model=MODEL, root=project, progress=False)  # success clears the failed attempt
    assert again.ok and again.out_dir == out and not bad.out_dir.exists()
    assert sorted(p.name for p in out.parent.iterdir()) == [".flaky.run.lock", "flaky"]


def test_a_run_killed_between_the_two_renames_of_its_swap_gets_its_previous_run_back(tmp_path):
    from lcrag.book import staging

    out = tmp_path / "ch"
    (out.with_name("ch.replaced")).mkdir()  # the previous run, renamed away just before the process died
    (out.with_name("ch.replaced") / "manifest.json").write_text("{}")
    (out.with_name("ch.staging")).mkdir()
    stage = staging.prepare(out)
    assert (out / "manifest.json").exists() and stage.exists() and list(stage.iterdir()) == []
    assert not out.with_name("ch.replaced").exists() and staging.is_attempt(stage) and not staging.is_attempt(out)


MODEL_OPENAI = "openai/gpt-4o-mini"  # the fixtures call no model; an openai spec needs no server probe
RECORDS = helpers.myst_notebook(
    "fail = False",
    "import os\nfrom lcrag.models.store import default_store\nstore = default_store()\n"
    'assert store.get("k1") is None, "the old file was not set aside"\n'
    'for k in ("k1", "k3"):\n    store.append(os.environ["LCRAG_CHAPTER"], "openai--gpt-4o-mini", k, {"text": "new " + k})',
    'if fail:\n    raise RuntimeError("the recording breaks")',
)


@pytest.fixture()
def recording(project, monkeypatch):
    """A chapter that records two answers (k1 again, k3 new), and its store file holding k1 and k2 (another
    profile's answer)."""
    monkeypatch.delenv("LCRAG_OFFLINE")
    (project / "notebooks" / "records.md").write_text(RECORDS, encoding="utf-8")
    sf = project / "responses" / "records" / f"{model_slug(MODEL_OPENAI)}.jsonl"
    sf.parent.mkdir(parents=True)
    sf.write_text("".join(json.dumps({"key": k, "response": {"text": "old " + k}}) + "\n" for k in ("k1", "k2")))
    return sf


@pytest.fixture
def openai_endpoint(monkeypatch):
    """What preflight asks of an ``openai/`` model that may be called (a --fresh run is not offline): a key, and an
    endpoint that accepts a connection; here a listening loopback socket (the fixture chapters call no model)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.getsockname()[1]}/v1")
        yield


def test_fresh_rerecords_this_runs_answers_and_keeps_the_files_other_entries(recording, openai_endpoint):
    res = run_chapter("records", model=MODEL_OPENAI, fresh=True, root=project_of(recording), progress=False)
    lines = [json.loads(ln) for ln in recording.read_text().splitlines()]
    assert [(e["key"], e["response"]["text"]) for e in lines] == [("k1", "new k1"), ("k2", "old k2"),
                                                                  ("k3", "new k3")]
    assert res.manifest["store_mode"] == "record" and res.manifest["rerecorded_store_file"] == str(recording)
    assert not recording.with_name(recording.name + ".before-fresh").exists()
    env_store = os.environ.get("LCRAG_STORE")
    assert env_store is None  # restored after the run


def test_a_failed_fresh_run_puts_the_store_file_back(recording, openai_endpoint):
    before = recording.read_bytes()
    res = run_chapter("records", model=MODEL_OPENAI, fresh=True, params={"fail": True}, root=project_of(recording),
                      progress=False, check=False)
    assert res.status == "failed" and recording.read_bytes() == before
    # a fresh run killed before it could put the file back leaves it aside: the next run of the chapter restores it
    recording.rename(recording.with_name(recording.name + ".before-fresh"))
    recording.write_text('{"key": "k1", "response": {"text": "partial"}}\n')
    run_chapter("records", model=MODEL_OPENAI, params={"fail": True}, root=project_of(recording), progress=False,
                check=False)
    assert recording.read_bytes() == before


def test_fresh_is_refused_offline_or_when_the_store_is_not_to_be_written(recording, monkeypatch):
    before = recording.read_bytes()
    monkeypatch.setenv("LCRAG_OFFLINE", "1")
    with pytest.raises(UsageError, match="LCRAG_OFFLINE=1 allows no model call"):
        run_chapter("records", model=MODEL_OPENAI, fresh=True, root=project_of(recording))
    monkeypatch.delenv("LCRAG_OFFLINE")
    for mode in ("read", "off"):
        monkeypatch.setenv("LCRAG_STORE", mode)
        with pytest.raises(UsageError, match=f"LCRAG_STORE={mode} says not to"):
            run_chapter("records", model=MODEL_OPENAI, fresh=True, root=project_of(recording))
    assert recording.read_bytes() == before and not (project_of(recording) / "runs").exists()


def project_of(store_file: Path) -> Path:
    return store_file.parents[2]


def test_store_mode_is_passed_to_the_kernel(project, capfd):
    res = run_chapter("fixture_ok", model=MODEL, store_mode="off", root=project, progress=False)
    env = pd.read_csv(res.out_dir / "env.csv", keep_default_na=False).iloc[0]
    assert env["LCRAG_STORE"] == "off" and res.manifest["store_mode"] == "off"
    # the kernel's own log stays out of the build log (ipykernel's TCP warning, papermill's shutdown interrupt)
    assert "IPKernelApp" not in capfd.readouterr().err


def test_usage_errors_before_anything_runs(project):
    with pytest.raises(UsageError, match="no chapter 'missing'"):
        run_chapter("missing", root=project)
    with pytest.raises(UsageError, match=r"\(chapters: fixture_fail, fixture_ok, .*\); did you mean 'fixture_ok'\?"):
        run_chapter("fixture_okk", root=project)
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
    while not (out.with_name(out.name + ".staging") / "started.txt").exists():  # it runs in its staging directory
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    return proc


def test_sigterm_still_writes_the_manifest_and_keeps_the_previous_run(project, tmp_path):
    """A killed run (Ctrl-C, a CI time limit) keeps its partial notebook beside the run directory, says it was
    interrupted, where its notebook is and how to resume, and leaves the previous successful run in place."""
    out = tmp_path / "sleepy-run"
    (project / "notebooks" / "sleepy.md").write_text(SLEEPY, encoding="utf-8")
    good = run_chapter(str(project / "notebooks" / "sleepy.md"), params={"seconds": 0}, out_dir=out, root=project,
                       model=MODEL, progress=False)
    proc = _start_sleepy(project, out)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    # (the kernel may print its own shutdown noise; ours is one line, last)
    failed = out.with_name("sleepy-run.failed")
    assert err.strip().splitlines()[-1] == (
        f"lcrag: error: chapter 'sleepy' was interrupted (terminated by SIGTERM). The partial notebook and its "
        f"manifest are in {failed}; {out} keeps the previous successful run; run the same command again to resume "
        "(answers already received come from the response cache)")
    assert "lcrag/book/runner.py" not in err
    m = json.loads((failed / "manifest.json").read_text())
    assert m["status"] == "interrupted" and "was interrupted" in m["error"]["message"]
    nb = nbformat.read(failed / "sleepy.ipynb", as_version=4)
    assert "| status | interrupted |" in nb.cells[-1].source
    assert json.loads((out / "manifest.json").read_text()) == good.manifest  # the previous run, whole


def test_a_second_run_of_the_same_directory_stops_at_once_and_touches_nothing(project, tmp_path):
    """Two runs of one chapter, model and profile share a run directory: the second stops in seconds with one line
    naming the first (exit 2), and the first run's files and result are untouched."""
    out = tmp_path / "shared-run"
    first = _start_sleepy(project, out)
    stage = out.with_name("shared-run.staging")
    (stage / "usage.jsonl").write_text('{"theirs": 1}\n')
    t0 = time.monotonic()
    second = subprocess.run(
        [sys.executable, "-m", "lcrag.cli", "run", "sleepy", "-q", "--out", str(out), "-p", "seconds=0"],
        env={**os.environ, "LCRAG_HOME": str(project)}, capture_output=True, text=True, timeout=60,
    )
    assert second.returncode == 2 and time.monotonic() - t0 < 20, second.stderr
    busy = second.stderr.strip().splitlines()[-1]
    assert busy.startswith(f"lcrag: error: run directory {out} is in use by another run (pid {first.pid} on ")
    assert busy.endswith("wait for it to finish, or give this run its own directory (`lcrag run --out DIR`)")
    assert (stage / "usage.jsonl").read_text() == '{"theirs": 1}\n' and not (stage / "manifest.json").exists()
    first.send_signal(signal.SIGTERM)
    first.communicate(timeout=60)
    assert json.loads((out.with_name("shared-run.failed") / "manifest.json").read_text())["status"] == "interrupted"
    assert not out.exists() and not (tmp_path / ".shared-run.run.owner.json").exists()
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


def test_the_manifest_names_the_store_lines_a_run_could_not_read(project, monkeypatch):
    from lcrag.book.runner import skipped_store_lines

    sf = project / "responses" / "fixture_ok" / "m.jsonl"
    sf.parent.mkdir(parents=True)
    sf.write_text('{"key": "a", "response": {}}\n{"key": "b", "resp\n{"key": "c", "response": {}}\n')
    monkeypatch.setenv("LCRAG_HOME", str(project))
    assert skipped_store_lines("fixture_ok") == [f"{sf} line 2"]
    res = run_chapter("fixture_ok", model=MODEL, root=project, progress=False)
    assert res.manifest["store_skipped_lines"] == [f"{sf} line 2"]
