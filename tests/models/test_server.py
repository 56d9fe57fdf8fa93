"""Integration tests against the real embedded llama.cpp server (SmolLM2 and Gemma-3-270M)."""

from __future__ import annotations

import math
import re

import pytest

from lcrag.models import get_model, server
from lcrag.models.tokens import ContextWindowExceeded

pytestmark = pytest.mark.slow

SMOL = "local/smollm2-135m-instruct"
GEMMA = "local/gemma3-270m"


def test_server_is_shared_and_healthy():
    a = server.start(SMOL)
    b = server.start(SMOL)
    assert a.pid == b.pid and a.base_url == b.base_url
    assert server.healthy(a.base_url)
    listed = [s for s in server.status() if s["spec"] == SMOL and not s.get("logits_all")]
    assert listed and listed[0]["healthy"] and listed[0]["settings"]["logits_all"] is False


def test_chat_answers_deterministically():
    m = get_model(SMOL)
    r = m.chat([{"role": "user", "content": "What is the capital of France? Answer in one word."}], max_tokens=8)
    assert "paris" in r.text.lower()
    assert r.prompt_tokens > 10 and 0 < r.completion_tokens <= 8 and r.source == "network"
    assert r.cost_usd == 0.0
    again = m.chat([{"role": "user", "content": "What is the capital of France? Answer in one word."}], max_tokens=8)
    assert again.text == r.text and again.source == "disk"


def test_greedy_is_reproducible_without_cache(monkeypatch, tmp_path):
    """The same request asked again of the server (no response cache) gives the same answer. Not compared with
    the very first asking: that one evaluated its prompt after whatever the server held before (another test's
    prompt shares the chat template), in one batch, where the repeats evaluate only the last prompt token over the
    cached rest; llama.cpp's batched and single-token products differ in the last bits, enough to part a
    135M model's near-ties (seen once in a full test run)."""
    m = get_model(SMOL)
    msg = [{"role": "user", "content": "Name three colours."}]
    first = m.chat(msg, max_tokens=16)
    repeats = []
    for i in range(2):
        monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / f"fresh{i}"))
        repeats.append(m.chat(msg, max_tokens=16))
    assert first.text and {r.source for r in repeats} == {"network"} and repeats[0].text == repeats[1].text


def test_logprobs_for_letter_scoring():
    m = get_model(SMOL)
    r = m.chat([{"role": "user", "content": "Which is a fruit? A. car B. apple C. rock D. sky\n"
                 "Answer with the letter only."}], max_tokens=1, logprobs=True, top_logprobs=5)
    top = r.top_logprobs(0)
    assert len(top) == 5
    assert all(v <= 0 for v in top.values())
    assert sum(math.exp(v) for v in top.values()) <= 1.0001
    assert r.logprobs[0]["token"] in top


def test_base_model_completion_and_ask():
    g = get_model(GEMMA)
    r = g.ask("Capital of Germany: Berlin\nCapital of Spain: Madrid\nCapital of France:", max_tokens=3)
    assert "paris" in r.text.lower()
    with pytest.raises(ValueError, match="base model"):
        g.chat([{"role": "user", "content": "hi"}])


def test_context_policies_on_a_real_window():
    m = get_model(SMOL, context_window=512)
    long_text = "The sky is blue. " * 400  # ~2000 tokens
    msgs = [{"role": "user", "content": long_text + "\nWhat colour is the sky?"}]
    with pytest.raises(ContextWindowExceeded, match="window"):
        m.chat(msgs, max_tokens=8)
    r = m.chat(msgs, max_tokens=8, context_policy="truncate_middle")
    assert r.truncation["policy"] == "truncate_middle"
    assert r.truncation["original_tokens"] > 1500 and r.truncation["kept_tokens"] < 512
    assert r.prompt_tokens <= 512


def test_prefix_cache_reuses_the_shared_prefix():
    """Two prompts sharing a long prefix: the second evaluates only the tokens after the shared prefix."""
    handle = server.start(SMOL)
    m = get_model(SMOL)
    doc = " ".join(f"Fact {i}: item {i} weighs {i * 3} grams." for i in range(150))
    m.chat([{"role": "user", "content": doc + "\nQuestion: what does item 7 weigh?"}], max_tokens=4)
    log_size = len(open(handle.log, errors="replace").read())
    m.chat([{"role": "user", "content": doc + "\nQuestion: what does item 9 weigh?"}], max_tokens=4)
    new_log = open(handle.log, errors="replace").read()[log_size:]
    hits = re.findall(r"(\d+) prefix-match hit, (?:remaining )?(\d+) prompt tokens to eval", new_log)
    assert hits, new_log[-2000:]
    reused, evaluated = map(int, hits[-1])
    assert reused > 0.95 * m.count_tokens(doc) and evaluated < 30


def test_a_server_that_went_away_is_started_again(monkeypatch, tmp_path):
    m = get_model(SMOL)
    m.chat([{"role": "user", "content": "Say hi."}], max_tokens=3)
    old = server.start(SMOL).pid
    server.stop(SMOL)
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "fresh"))
    r = m.chat([{"role": "user", "content": "Say hi."}], max_tokens=3)
    assert r.source == "network" and r.text
    assert server.start(SMOL).pid != old


def test_a_recorded_server_that_stops_answering_is_ended_before_a_new_one_starts(tmp_path, monkeypatch):
    """A server alive but silent past the grace period (stopped, hung) was left running beside its successor,
    holding the model's memory (6 GB for the 1.5B): it is now terminated first."""
    import json
    import subprocess

    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_compile": False}))
    monkeypatch.setattr(server, "BUSY_GRACE_S", 1.0)
    silent = subprocess.Popen(["sleep", "600"])  # alive, answers nothing
    state_path, _, log_path, _ = server._paths(server.parse_spec(SMOL))
    state_path.write_text(json.dumps({"spec": SMOL, "pid": silent.pid, "port": 9, "base_url": "http://127.0.0.1:9/v1",
                                      "settings": {}, "log": str(log_path)}))
    try:
        handle = server.start(SMOL)
        assert silent.wait(timeout=15) is not None  # ended, not orphaned
        assert handle.pid != silent.pid and server.healthy(handle.base_url)
    finally:
        silent.kill()
        server.stop(SMOL)


def test_a_server_whose_state_directory_is_removed_ends_itself(tmp_path, monkeypatch):
    """A test session removes its state directory at exit; a server it did not stop (found leaking from an xdist
    worker) could then be found and stopped by nobody: it ends itself within seconds."""
    import json
    import shutil
    import time

    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_compile": False}))
    handle = server.start(SMOL)
    assert server.healthy(handle.base_url)
    shutil.rmtree(tmp_path / "state")
    deadline = time.monotonic() + 30
    while server._alive(handle.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    alive = server._alive(handle.pid)
    if alive:
        server._terminate(handle.pid)
    assert not alive, "the server outlived its state directory by 30 s"


def test_an_unused_server_stops_itself_and_the_next_call_starts_it_again(tmp_path, monkeypatch):
    """LCRAG_SERVER_IDLE_S: the server ends itself once unused that long, says so in its log, and a later call is
    neither reported as a crash nor failed: it starts a new server."""
    import json
    import time

    from lcrag.models.client import Model
    from lcrag.models.registry import parse_spec

    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_compile": False}))
    monkeypatch.setenv("LCRAG_SERVER_IDLE_S", "3")
    model = Model(parse_spec(SMOL))
    try:
        first = model.chat([{"role": "user", "content": "Say hello."}], max_tokens=4)
        pid, log = server.status()[0]["pid"], server.status()[0]["log"]
        deadline = time.monotonic() + 30
        while server._alive(pid) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not server._alive(pid), "the server outlived 3 s unused by 30 s"
        assert "=== lcrag: idle for 3 s (LCRAG_SERVER_IDLE_S): stopping ===" in open(log).read()
        assert server.death(SMOL) is None  # stopped on purpose: not a crash
        assert server.status() == []  # and no longer listed
        second = model.chat([{"role": "user", "content": "Say goodbye."}], max_tokens=4)  # the same client
        assert first.source == second.source == "network"
        assert server.status()[0]["pid"] != pid and server.status()[0]["alive"]
    finally:
        server.stop(SMOL)


def test_an_openai_compatible_spec_counts_with_the_served_models_own_tokenizer():
    """Pointed at the embedded server as a user points lcrag at theirs, the counts are the GGUF's own (the server
    speaks llama-cpp-python's /extras/tokenize dialect, which adds BOS by itself: stripped)."""
    handle = server.start(GEMMA)  # Gemma-3's tokenizer adds a BOS token
    remote = get_model(f"openai-compatible/gemma3-270m@{handle.base_url}")
    text = "The needle is 7 blue tulips, hidden deep in a haystack of essays."
    assert remote.tokenizer.name == "endpoint:llama-cpp-python:gemma3-270m" and remote.tokenizer.exact
    assert remote.tokenizer.encode(text) == get_model(GEMMA).tokenizer.encode(text)
    assert remote.tokenizer.decode(remote.tokenizer.encode(text)) == text


def test_a_server_does_not_depend_on_the_working_directory_it_was_started_from(tmp_path, monkeypatch):
    """A server outlives the run that starts it; a recording's checkout replaced under it left it in a deleted
    directory, where torch's first compile failed in os.getcwd() and every long prompt got HTTP 500. It runs in
    its state directory, so the starter's directory may go."""
    import os
    import sys

    start_dir = tmp_path / "checkout"
    start_dir.mkdir()
    monkeypatch.chdir(start_dir)
    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))  # a fresh server for this test
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "cache"))
    handle = server.start(SMOL)
    try:
        if sys.platform.startswith("linux"):
            assert os.readlink(f"/proc/{handle.pid}/cwd") == str(tmp_path / "state" / "servers")
        monkeypatch.chdir(tmp_path)
        start_dir.rmdir()  # the starter's directory is gone
        r = get_model(SMOL).chat([{"role": "user", "content": "Say hi."}], max_tokens=3)
        assert r.source == "network" and r.text and server.start(SMOL).pid == handle.pid
    finally:
        server._terminate(handle.pid)


def test_a_restarted_server_loads_the_kv_snapshot_of_the_last_long_prompt(tmp_path, monkeypatch):
    """The server is started with its snapshot file (lcrag.models.prefix_snapshot): a long prompt's cache is saved,
    and after a restart a prompt sharing its prefix loads it, a line each in the log."""
    import json
    import urllib.request

    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_compile": False, "prefix_snapshot_min_tokens": 128}))
    doc = " ".join(f"Line {i}: the {['red', 'green', 'blue'][i % 3]} key opens door {i * 7 % 11}." for i in range(40))

    def complete(handle, question: str) -> None:
        body = json.dumps({"prompt": f"{doc}\nQuestion: {question}\nAnswer:", "max_tokens": 2, "temperature": 0})
        req = urllib.request.Request(f"{handle.base_url}/completions", body.encode(),
                                     {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as resp:
            assert json.loads(resp.read())["choices"]

    try:
        complete(server.start(SMOL), "Which key opens door 3?")
        kv = server._paths(server.parse_spec(SMOL))[3]
        assert kv.exists()
        server.stop(SMOL)
        handle = server.start(SMOL)
        complete(handle, "Which door does the red key open?")
        log = open(handle.log).read().split("=== lcrag: starting")[-1]
        assert "lcrag prefix snapshot: loaded " in log and "lcrag prefix snapshot: saved" not in log  # a short rest
    finally:
        server.stop(SMOL)
