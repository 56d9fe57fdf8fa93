"""The client against a real HTTP server on loopback that injects faults (no mock objects)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lcrag.models import AuthError, CacheMiss, ModelCallError, UnknownModelError, usage
from lcrag.models.client import Model, RetryPolicy
from lcrag.models.registry import parse_spec
from lcrag.models.store import ResponseStore

FAKE_KEY = "-".join(["sk", "test", "FAKEKEY0123456789abcdefXYZ"])  # fake; built so scanners see no key
MSG = [{"role": "user", "content": "hello"}]


def make_model(srv, retries=4, timeout=5.0, concurrency=1) -> Model:
    info = parse_spec(f"openai-compatible/fault-model@{srv.base_url}")
    return Model(info, retry=RetryPolicy(max_retries=retries, base_delay_s=0.01, max_delay_s=0.05,
                                         timeout_s=timeout), max_concurrency=concurrency)


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("LCRAG_API_KEY", FAKE_KEY)


def test_plain_call_sends_key_and_returns_text(fault_server):
    r = make_model(fault_server).chat(MSG, max_tokens=5)
    assert r.text == "echo: hello"
    assert (r.prompt_tokens, r.completion_tokens, r.source) == (11, 3, "network")
    assert fault_server.requests[0]["auth"] == f"Bearer {FAKE_KEY}"
    assert fault_server.requests[0]["body"]["max_tokens"] == 5
    assert fault_server.requests[0]["body"]["temperature"] == 0.0


@pytest.mark.parametrize("fault", ["429", "500", "503", "malformed", "empty", "null", "timeout"])
def test_transient_faults_are_retried(fault_server, fault):
    fault_server.script([fault, fault, "ok"])
    r = make_model(fault_server, timeout=0.5).chat(MSG)
    assert r.text == "echo: hello"
    assert fault_server.count() == 3


def test_a_null_answer_is_a_failure_never_cached_as_empty(fault_server):
    fault_server.script(["null"] * 3)
    with pytest.raises(ModelCallError, match="no content"):
        make_model(fault_server, retries=2).chat(MSG)
    fault_server.script(["ok"])
    r = make_model(fault_server).chat(MSG)
    assert (r.text, r.source) == ("echo: hello", "network")  # nothing was cached by the failed attempts


def test_the_timeout_is_settable_from_the_environment(monkeypatch):
    monkeypatch.setenv("LCRAG_TIMEOUT_S", "42")
    assert RetryPolicy().timeout_s == 42.0


def test_an_embedded_servers_attempt_may_take_the_whole_deadline(monkeypatch):
    # It answers one request at a time: a timed-out attempt would keep it busy and its retry would repeat the work.
    monkeypatch.setenv("LCRAG_TIMEOUT_S", "600")
    monkeypatch.setenv("LCRAG_DEADLINE_S", "3600")
    policy = RetryPolicy()
    assert (policy.attempt_timeout(local=True), policy.attempt_timeout(local=False)) == (3600.0, 600.0)
    monkeypatch.setenv("LCRAG_TIMEOUT_S", "7200")  # a longer attempt asked for is kept
    assert RetryPolicy().attempt_timeout(local=True) == 7200.0


def test_gives_up_after_max_retries(fault_server):
    fault_server.script(["500"] * 10)
    with pytest.raises(ModelCallError, match="gave up after 3 attempts"):
        make_model(fault_server, retries=2).chat(MSG)
    assert fault_server.count() == 3


def test_retry_after_is_honoured_and_each_failure_is_counted_by_kind(fault_server, tmp_path, monkeypatch):
    """The issue's fault sequence: 500, 429 with Retry-After: 2, a stall past the timeout, malformed JSON, a
    body without choices, a null answer, then a valid answer."""
    from lcrag.book.manifest import read_usage, summarize_usage

    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path / "run"))
    fault_server.script(["500", "429:2", "timeout", "malformed", "empty", "null", "ok"])
    r = make_model(fault_server, retries=8, timeout=0.5).chat(MSG)
    assert (r.text, r.source) == ("echo: hello", "network")
    t = [q["t"] for q in fault_server.requests]
    assert len(t) == 7
    assert t[2] - t[1] >= 2.0  # the backoff alone is <= 0.05 s: the server's Retry-After was waited for
    assert t[1] - t[0] < 1.0
    log = read_usage(tmp_path / "run" / "usage.jsonl")
    assert [rec["failures"] for rec in log.records] == [
        {"server_error": 1, "rate_limited": 1, "timeout": 1, "malformed": 3}]
    totals = summarize_usage(log)
    assert totals["failures"] == {"server_error": 1, "rate_limited": 1, "timeout": 1, "malformed": 3}
    assert (totals["retried_calls"], totals["calls"]) == (1, 1)
    fault_server.script(["ok"])
    assert make_model(fault_server).chat(MSG).source == "disk"  # the good answer was cached, no faulty one


def test_a_call_stops_at_its_deadline_and_the_failure_is_logged(fault_server, tmp_path, monkeypatch):
    from lcrag.book.manifest import keys_used, read_usage, summarize_usage

    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("LCRAG_DEADLINE_S", "1.5")
    fault_server.script(["429:5"] * 3)
    with pytest.raises(ModelCallError, match="deadline"):
        make_model(fault_server, retries=5).chat(MSG)
    assert fault_server.count() == 1  # waiting 5 s would pass the 1.5 s deadline: no second attempt
    log = read_usage(tmp_path / "run" / "usage.jsonl")
    assert summarize_usage(log)["by_source"] == {"failed": 1}
    assert summarize_usage(log)["failures"] == {"rate_limited": 1}
    assert keys_used(log) == []  # a call that gave up names no stored response


def test_retry_after_forms():
    import email.utils

    import httpx2 as httpx  # the HTTP library of the openai SDK (3.x)
    import openai

    from lcrag.models.retry import RetryPolicy, retry_after

    def err(headers):
        response = httpx.Response(429, headers=headers, request=httpx.Request("POST", "http://x"))
        return openai.RateLimitError("slow down", response=response, body=None)

    assert retry_after(err({"retry-after": "3"})) == 3.0
    assert retry_after(err({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    date = email.utils.formatdate(1_000_010, usegmt=True)
    assert retry_after(err({"retry-after": date}), now=1_000_000) == 10.0
    assert retry_after(err({"retry-after": "soon"})) is None
    assert retry_after(err({})) is None and retry_after(ValueError("x")) is None
    policy = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05, max_retry_after_s=60)
    assert policy.wait(0, err({"retry-after": "3"})) == 3.0
    assert policy.wait(0, err({"retry-after": "600"})) == 60.0  # capped
    assert policy.wait(0, err({})) <= 0.05


def test_a_bad_deadline_in_the_environment_is_named(monkeypatch):
    from lcrag.models.retry import RetryPolicy

    monkeypatch.setenv("LCRAG_DEADLINE_S", "ten")
    with pytest.raises(ValueError, match="LCRAG_DEADLINE_S='ten'"):
        RetryPolicy()


def test_auth_failure_is_immediate_and_does_not_leak_the_key(fault_server):
    fault_server.script(["401"])
    with pytest.raises(AuthError) as exc:
        make_model(fault_server).chat(MSG)
    assert fault_server.count() == 1
    assert FAKE_KEY not in str(exc.value)


def test_unknown_model_is_immediate(fault_server):
    fault_server.script(["404"])
    with pytest.raises(UnknownModelError, match="does not know model"):
        make_model(fault_server).chat(MSG)
    assert fault_server.count() == 1


def test_cache_hit_never_touches_the_network(fault_server):
    m = make_model(fault_server)
    first = m.chat(MSG, max_tokens=7)
    fault_server.stop()  # nothing listens any more
    second = m.chat(MSG, max_tokens=7)
    assert second.text == first.text and second.source == "disk"
    with pytest.raises(ModelCallError):  # a different request does need the (dead) network
        make_model(fault_server, retries=0, timeout=0.5).chat(MSG, max_tokens=8)


def test_offline_mode_raises_on_miss(fault_server, monkeypatch):
    monkeypatch.setenv("LCRAG_OFFLINE", "1")
    with pytest.raises(CacheMiss):
        make_model(fault_server).chat(MSG)
    assert fault_server.count() == 0


def test_bounded_concurrency(fault_server):
    fault_server.latency_s = 0.2
    m = make_model(fault_server, concurrency=3)
    out = m.map("chat", [{"messages": [{"role": "user", "content": f"q{i}"}]} for i in range(9)])
    assert [c.text for c in out] == [f"echo: q{i}" for i in range(9)]
    assert 1 < fault_server.max_in_flight <= 3


def test_completions_endpoint_for_base_models(fault_server):
    r = make_model(fault_server).complete("The sky is", max_tokens=4)
    assert r.text == "echo: The sky is"
    assert fault_server.requests[0]["path"].endswith("/completions")


def test_usage_records_go_to_the_run_dir(fault_server, tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path / "run"))
    m = make_model(fault_server)
    m.chat(MSG)
    m.chat(MSG)
    lines = [json.loads(x) for x in (tmp_path / "run" / "usage.jsonl").read_text().splitlines()]
    assert [x["source"] for x in lines] == ["network", "disk"]
    assert lines[0]["prompt_tokens"] == 11 and lines[0]["key"] == lines[1]["key"]
    summary = usage.summary(lines)
    assert set(summary["source"]) == {"network", "disk"}
    lines[0]["latency_s"] = 1.23456
    assert usage.summary(lines).set_index("source").loc["network", "latency_s"] == 1.2  # as the page shows it


def test_store_record_then_read(fault_server, tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "record")
    monkeypatch.setenv("LCRAG_CHAPTER", "demo")
    m = make_model(fault_server)
    r = m.chat(MSG)
    store_file = tmp_path / "store" / "demo" / f"{m.info.slug}.jsonl"
    entry = json.loads(store_file.read_text())
    assert entry["key"] == r.key and entry["response"]["text"] == "echo: hello"
    # a fresh process-level view with an empty disk cache reads it from the store
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "other-cache"))
    monkeypatch.setenv("LCRAG_STORE", "read")
    fault_server.stop()
    again = make_model(fault_server).chat(MSG)
    assert again.source == "store" and again.text == r.text
    assert ResponseStore(tmp_path / "store").keys("demo") == {r.key}


def test_store_skips_a_line_cut_short(tmp_path):
    path = tmp_path / "s" / "ch" / "m.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"key": "a", "response": {"text": "x"}}\n{"key": "b", "resp')
    store = ResponseStore(tmp_path / "s")
    assert store.get("a") == {"text": "x"} and store.get("b") is None
    assert store.skipped == [(str(path), 2)]


def test_an_append_after_a_line_cut_short_starts_on_a_line_of_its_own(tmp_path):
    """A killed append leaves a line without its newline: the next append cuts it off instead of gluing its own entry
    to it (which a fresh load would skip, losing the new entry too)."""
    path = tmp_path / "s" / "ch" / "m.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"key": "a", "response": {"text": "x"}}\n{"key": "b", "resp')
    ResponseStore(tmp_path / "s").append("ch", "m", "c", {"text": "z"}, model="m")
    again = ResponseStore(tmp_path / "s")
    assert again.get("a") == {"text": "x"} and again.get("c") == {"text": "z"} and again.skipped == []
    assert [json.loads(ln)["key"] for ln in path.read_text().splitlines()] == ["a", "c"]
    # a whole entry that only lacks its newline is kept, and the next one starts after it
    path.write_text('{"key": "a", "response": {"text": "x"}}')
    ResponseStore(tmp_path / "s").append("ch", "m", "d", {"text": "w"})
    assert [json.loads(ln)["key"] for ln in path.read_text().splitlines()] == ["a", "d"]


def test_an_offline_miss_names_the_store_lines_it_skipped_and_what_to_do(fault_server, tmp_path, monkeypatch):
    """The answer may be on a malformed store line: the CacheMiss says which line, and how to repair it."""
    bad = tmp_path / "store" / "demo" / "m.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"key": "a", "response": {"text": "x"}}\n{"key": "b", "response": {"te\n')
    monkeypatch.setenv("LCRAG_STORE", "read")
    monkeypatch.setenv("LCRAG_OFFLINE", "1")
    with pytest.raises(CacheMiss) as exc:
        make_model(fault_server).chat(MSG)
    text = str(exc.value)
    assert f"{bad} line 2" in text and "unreadable line" in text and "Delete the line(s)" in text
    assert "LCRAG_STORE=record" in text


def test_store_tally_counts_calls_seconds_and_tokens_per_file_and_answering_model(tmp_path, capsys, monkeypatch):
    from lcrag.cli import main

    lines = {"a": ("m1", 1.5, 100, 5), "b": ("m1", 2.0, 50, 7), "c": ("judge", 0.5, 10, 1)}
    path = tmp_path / "s" / "ch" / "m1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"key": k, "model": m, "response": {"latency_s": s, "prompt_tokens": p,
                                                                           "completion_tokens": c}}) + "\n"
                            for k, (m, s, p, c) in lines.items()) + '{"key": "d", "resp')
    (tmp_path / "s" / "other").mkdir()
    (tmp_path / "s" / "other" / "m2.jsonl").write_text('{"key": "e", "response": {"text": "no timing"}}\n')
    store = ResponseStore(tmp_path / "s")
    assert store.tally("ch") == [
        {"chapter": "ch", "file": "m1", "model": "m1", "calls": 2, "model_s": 3.5, "prompt_tokens": 150,
         "completion_tokens": 12},
        {"chapter": "ch", "file": "m1", "model": "judge", "calls": 1, "model_s": 0.5, "prompt_tokens": 10,
         "completion_tokens": 1}]
    assert store.skipped == [(str(path), 4)]
    assert [r["model"] for r in store.tally()] == ["m1", "judge", "?"]
    monkeypatch.setenv("LCRAG_STORE_DIR", str(tmp_path / "s"))
    assert main(["store", "stats", "--chapter", "other"]) == 0
    assert main(["store", "stats", "--chapter", "none"]) == 0
    out = capsys.readouterr().out
    assert "m2" in out and " 1 " in out and "the store holds no entries for none" in out


def test_api_key_is_in_no_cache_file_store_or_log(fault_server, tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_STORE", "record")
    monkeypatch.setenv("LCRAG_CHAPTER", "demo")
    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path / "run"))
    m = make_model(fault_server)
    m.chat(MSG)
    fault_server.script(["401"])
    with pytest.raises(AuthError):
        m.chat([{"role": "user", "content": "other"}])
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 3
    for p in files:
        assert FAKE_KEY.encode() not in p.read_bytes(), p


def test_killed_process_leaves_cache_usable(fault_server, tmp_path):
    """A process killed right after its calls leaves only whole entries; the rerun repeats no call."""
    code = f"""
import os, signal
from lcrag.models.client import Model, RetryPolicy
from lcrag.models.registry import parse_spec
m = Model(parse_spec("openai-compatible/fault-model@{fault_server.base_url}"), retry=RetryPolicy(max_retries=0))
for i in range(5):
    m.chat([{{"role": "user", "content": f"q{{i}}"}}])
os.kill(os.getpid(), signal.SIGKILL)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert proc.returncode == -9
    assert fault_server.count() == 5
    m = make_model(fault_server)
    out = [m.chat([{"role": "user", "content": f"q{i}"}]) for i in range(6)]
    assert [c.source for c in out] == ["disk"] * 5 + ["network"]
    assert fault_server.count() == 6


INFLIGHT_CALLER = """
import json, sys
from lcrag.models.client import Model
from lcrag.models.registry import parse_spec
m = Model(parse_spec("openai-compatible/fault-model@" + sys.argv[1]))
print("ready", flush=True)
sys.stdin.readline()  # both processes are started before either asks
c = m.chat([{"role": "user", "content": "the same question"}], max_tokens=8)
print(json.dumps({"text": c.text, "source": c.source}), flush=True)
"""


def test_an_identical_request_in_flight_in_two_processes_is_computed_once(fault_server, tmp_path):
    fault_server.latency_s = 1.5  # the first answer takes a while: the second process asks meanwhile
    procs = [subprocess.Popen([sys.executable, "-c", INFLIGHT_CALLER, fault_server.base_url],  # this test's cache
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    answers = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    assert fault_server.count() == 1  # one request reached the endpoint
    assert [a["text"] for a in answers] == ["echo: the same question"] * 2
    assert sorted(a["source"] for a in answers) == ["disk", "network"]


@pytest.mark.parametrize("dialect", ["llama.cpp", "vllm"])
def test_token_counts_come_from_the_servers_own_tokenizer(fault_server, dialect, tmp_path, monkeypatch):
    fault_server.tokenizer = dialect  # one token per character: a count no stand-in vocabulary gives
    m = make_model(fault_server)
    assert m.tokenizer.name == f"endpoint:{dialect}:fault-model" and m.tokenizer.exact
    assert m.count_tokens("héllo wörld") == 11
    assert m.fit("abcdefghij", 4, "truncate_middle")[0] == "abij"
    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path / "run"))
    m.chat(MSG)
    assert fault_server.count() == 1  # tokenize calls are not completions
    rec = json.loads((tmp_path / "run" / "usage.jsonl").read_text())
    assert rec["tokenizer"] == f"endpoint:{dialect}:fault-model"


def test_a_server_without_a_tokenize_endpoint_gets_the_stand_in_and_says_so(fault_server):
    m = make_model(fault_server)
    assert m.tokenizer.name.startswith("proxy:") and not m.tokenizer.exact
    assert {r["path"] for r in fault_server.tokenize_requests} == {"/tokenize", "/extras/tokenize"}


def test_latency_is_the_request_and_the_servers_own_time_is_kept_apart(fault_server, tmp_path, monkeypatch):
    """Six requests, three at a time, each answered after 0.4 s: every latency is one request's (about 0.4 s),
    none includes the time it waited for a free lane in the client; the server's own computing time
    (llama.cpp's timings) is recorded beside it and totalled in the manifest."""
    from lcrag.book.manifest import read_usage, summarize_usage

    fault_server.latency_s, fault_server.timings = 0.4, True
    monkeypatch.setenv("LCRAG_RUN_DIR", str(tmp_path))
    out = make_model(fault_server, concurrency=3).map("chat", [{"messages": [{"role": "user", "content": f"q{i}"}]}
                                                               for i in range(6)])
    assert fault_server.max_in_flight == 3
    assert all(0.4 <= c.latency_s < 0.7 for c in out), [c.latency_s for c in out]
    usage_log = read_usage(tmp_path / "usage.jsonl")
    assert [r["server_s"] for r in usage_log.records] == [0.15] * 6
    assert summarize_usage(usage_log)["server_s"] == 0.9


def test_an_estimate_reads_as_one_line():
    from lcrag.models import estimate_sentence

    est = {"model": "local/m", "calls": 12, "prompt_tokens": 36450, "max_completion_tokens": 60,
           "cost_usd_max": 0.0, "tokens_exact": True}
    assert estimate_sentence(est) == ("12 calls to local/m: 36,450 prompt tokens (counted, the chat template "
                                      "estimated), at most 60 completion tokens; at most 0.00 USD")
    assert estimate_sentence({**est, "cost_usd_max": None, "tokens_exact": False}).endswith(
        "(estimated), at most 60 completion tokens; no price known")


def test_each_provider_gets_its_own_key_when_both_are_set(fault_server, monkeypatch):
    other = FAKE_KEY.replace("FAKEKEY", "OPENAIKEY")
    monkeypatch.setenv("OPENAI_API_KEY", other)
    make_model(fault_server).chat(MSG, max_tokens=5)
    assert fault_server.requests[-1]["auth"] == f"Bearer {FAKE_KEY}"  # a compatible server: LCRAG_API_KEY first
    monkeypatch.setenv("OPENAI_BASE_URL", fault_server.base_url)
    Model(parse_spec("openai/gpt-4o-mini"), retry=RetryPolicy(max_retries=0, timeout_s=5.0)).chat(MSG, max_tokens=5)
    assert fault_server.requests[-1]["auth"] == f"Bearer {other}"  # OpenAI: OPENAI_API_KEY first
    monkeypatch.delenv("OPENAI_API_KEY")
    Model(parse_spec("openai/gpt-4o-mini"), retry=RetryPolicy(max_retries=0, timeout_s=5.0)).chat(MSG, max_tokens=6)
    assert fault_server.requests[-1]["auth"] == f"Bearer {FAKE_KEY}"  # and LCRAG_API_KEY when it is the only one


def test_a_connection_failure_names_the_endpoint():
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    info = parse_spec(f"openai-compatible/m@http://127.0.0.1:{port}/v1")
    model = Model(info, retry=RetryPolicy(max_retries=1, base_delay_s=0.01, max_delay_s=0.02, timeout_s=2))
    with pytest.raises(ModelCallError, match=rf"gave up after 2 attempts: APIConnectionError: .*\(endpoint "
                                             rf"http://127.0.0.1:{port}/v1/?\)"):
        model.chat(MSG)
