"""The recordings of the response store (lcrag.book.recording): responses/recordings.yml read, checked, run."""

from __future__ import annotations

import shlex

import pytest

from lcrag.book.profiles import parse_cli_params, resolve
from lcrag.book.recording import Recording, recordings
from lcrag.cli import build_parser, main


def _write(tmp_path, text):
    (tmp_path / "recordings.yml").write_text(text)
    return tmp_path


def test_entries_are_read_in_order_with_their_run_model_and_parameters(tmp_path):
    store = _write(tmp_path, """
- chapter: long2rag
  model: local/qwen2.5-coder-1.5b-instruct
  run_model: local/smollm2-135m-instruct
  started: 2026-11-26
- chapter: longrag
  model: local/smollm2-135m-instruct
  profile: quick
  parameters: {n_questions: 3, datasets: [2wikimqa]}
""")
    recs = recordings(store)
    assert [(r.chapter, r.model, r.runs_as, r.profile) for r in recs] == [
        ("long2rag", "local/qwen2.5-coder-1.5b-instruct", "local/smollm2-135m-instruct", "default"),
        ("longrag", "local/smollm2-135m-instruct", "local/smollm2-135m-instruct", "quick")]
    assert recs[1].command() == ("lcrag run longrag --model local/smollm2-135m-instruct --profile quick "
                                 "-p n_questions=3 -p 'datasets=[2wikimqa]'")
    assert [r.chapter for r in recordings(store, chapter="longrag")] == ["longrag"]


def test_each_command_is_the_run_it_stands_for():
    rec = Recording("longrag", "local/smollm2-135m-instruct", "quick", None, {"n_questions": 3, "datasets": ["musique"]})
    args = build_parser().parse_args(shlex.split(rec.command())[1:])
    assert (args.chapter, args.model, args.profile) == ("longrag", rec.model, "quick")
    params = parse_cli_params(args.param)
    assert params == {"n_questions": 3, "datasets": ["musique"]}
    assert resolve("longrag", "quick", params)["n_questions"] == 3


@pytest.mark.parametrize("entry, message", [
    ("- {chapter: longrag, model: local/smollm2-135m-instruct, parameters: {n_questoins: 3}}", "n_questoins"),
    ("- {chapter: longrag, model: local/smollm2-135m-instruct, profile: huge}", "no profile 'huge'"),
    ("- {chapter: longrag, model: local/smollm2-135m-instruct, runs: 2}", "unknown keys \\['runs'\\]"),
    ("- {chapter: longrag, model: nosuch/model}", "entry 1"),
])
def test_a_bad_entry_names_the_file_and_entry_before_anything_runs(tmp_path, entry, message):
    store = _write(tmp_path, entry)
    with pytest.raises(ValueError, match=message) as err:
        recordings(store)
    assert "recordings.yml: entry 1" in str(err.value)


def test_the_projects_queue_is_valid_and_the_cli_lists_it(capsys, monkeypatch):
    from lcrag import config

    store = config.project_root() / "responses"
    monkeypatch.setenv("LCRAG_STORE_DIR", str(store))
    recs = recordings(store)  # responses/recordings.yml as committed (empty once every recording is complete)
    assert main(["store", "record", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ([f"LCRAG_STORE=record {r.command()}" for r in recs] if recs
                     else ["no recordings listed in responses/recordings.yml"])


@pytest.mark.slow
def test_a_listed_recording_is_recorded_and_a_second_pass_asks_no_model(tmp_path, mirror, monkeypatch):
    """A real recording (the quickstart's smoke run on SmolLM2) into an empty store, then the same queue again with
    an empty cache: every answer comes back from the store, none from the model, and the store file is unchanged."""
    import json

    from lcrag.book.recording import record
    from lcrag.data.fetch import fetch

    monkeypatch.setenv("LCRAG_DATA_DIR", str(tmp_path / "data"))
    assert fetch(datasets=["bamboo", "paul_graham_essays"], mirror=mirror).ok
    store = tmp_path / "store"  # conftest: LCRAG_STORE_DIR, empty
    store.mkdir()
    _write(store, "- {chapter: quickstart, model: local/smollm2-135m-instruct, profile: smoke,"
                  " parameters: {n_items: 1}}")
    recs = recordings(store)
    first = record(recs, progress=False, say=lambda _: None, out_root=tmp_path / "runs1")
    assert [r.ok for r in first] == [True]
    path = store / "quickstart" / "local--smollm2-135m-instruct.jsonl"
    recorded = path.read_bytes()
    assert len(recorded.splitlines()) == first[0].manifest["usage"]["calls"] > 0
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "cache2"))
    second = record(recs, progress=False, say=lambda _: None, out_root=tmp_path / "runs2")
    usage = [json.loads(x) for x in (second[0].out_dir / "usage.jsonl").read_text().splitlines()]
    assert usage and {u["source"] for u in usage} == {"store"}
    assert path.read_bytes() == recorded
