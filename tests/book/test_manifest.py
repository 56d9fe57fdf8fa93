"""Run manifests, usage summaries and the store check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lcrag.book import manifest as mf
from lcrag.book.store_check import check_store, prune_store, read_store_keys

USAGE = [
    {
        "ts": "t",
        "model": "m",
        "kind": "chat",
        "key": "a",
        "source": "network",
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "latency_s": 1.5,
        "cost_usd": 0.01,
        "estimated_tokens": True,
        "truncated": False,
        "serving": {"n_ctx": 4096},
    },
    {
        "ts": "t",
        "model": "m",
        "kind": "chat",
        "key": "b",
        "source": "disk",
        "prompt_tokens": 50,
        "completion_tokens": 10,
        "latency_s": 0.0,
        "cost_usd": 0.0,
        "estimated_tokens": False,
        "truncated": True,
        "serving": {"n_ctx": 4096},
    },
    {
        "ts": "t",
        "model": "e",
        "kind": "embedding",
        "key": "a",
        "source": "store",
        "prompt_tokens": 7,
        "completion_tokens": 0,
        "latency_s": 0.0,
        "cost_usd": None,
        "estimated_tokens": False,
        "truncated": False,
        "serving": None,
    },
]


def write_usage(path: Path, records, extra_lines=()):
    lines = [json.dumps(r) for r in records] + list(extra_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_usage_summary(tmp_path):
    write_usage(tmp_path / "usage.jsonl", USAGE)
    log = mf.read_usage(tmp_path / "usage.jsonl")
    s = mf.summarize_usage(log)
    assert s["calls"] == 3
    assert s["by_source"] == {"network": 1, "disk": 1, "store": 1}
    assert s["by_kind"] == {"chat": 2, "embedding": 1}
    assert s["models"] == ["e", "m"]
    assert (s["prompt_tokens"], s["completion_tokens"]) == (157, 30)
    assert s["cost_usd"] == pytest.approx(0.01)
    assert (s["estimated_token_calls"], s["truncated_calls"]) == (1, 1)
    assert s["serving"] == [{"n_ctx": 4096}]
    assert mf.keys_used(log) == ["a", "b"]


def test_malformed_usage_lines_are_counted_with_their_line(tmp_path):
    write_usage(tmp_path / "usage.jsonl", USAGE[:1], extra_lines=["{not json", "[1, 2]", ""])
    log = mf.read_usage(tmp_path / "usage.jsonl")
    assert len(log.records) == 1
    assert log.malformed[0].startswith("usage.jsonl line 2: not JSON")
    assert log.malformed[1] == "usage.jsonl line 3: not a JSON object"
    assert mf.summarize_usage(log)["malformed_lines"] == log.malformed


def test_missing_usage_log_is_an_empty_run(tmp_path):
    s = mf.summarize_usage(mf.read_usage(tmp_path / "usage.jsonl"))
    assert s["calls"] == 0 and s["by_source"] == {} and s["cost_usd"] == 0


def test_git_info_outside_a_checkout(tmp_path):
    assert mf.git_info(tmp_path) == {"commit": None, "dirty": None}


def test_manifest_markdown_escapes_and_reports():
    m = {
        "status": "ok",
        "chapter": "c",
        "profile": "quick",
        "model": "m",
        "parameters": {"sep": "a|b"},
        "store_mode": "read",
        "git": {"commit": "0123456789abcdef", "dirty": True},
        "started": "s",
        "wall_time_s": 12.34,
        "usage": mf.summarize_usage(mf.UsageLog(records=USAGE)),
        "versions": {"lcrag": "0.1.0", "torch": None},
        "python": "3.11.7",
    }
    md = mf.manifest_markdown(m)
    assert md.startswith("## Run manifest")
    # one line in view, the table folded in a <details> block (folded in the book and in Jupyter)
    assert md.split("\n")[2] == "ok: model `m`, profile `quick`, store `read`, code `0123456789ab (uncommitted changes)`, 12 s, 3 model calls"
    assert md.index("<details>") < md.index("| code |") < md.index("</details>")
    assert "| code | 0123456789ab (uncommitted changes) |" in md
    assert '| parameters | `{"sep": "a\\|b"}` |' in md  # a record in code: printed as written, the pipe escaped
    assert "| model calls | 3 (disk: 1, network: 1, store: 1) |" in md
    assert "| wall time | 12.3 s |" in md
    assert "| calls with truncated input | 1 |" in md
    assert "lcrag 0.1.0, python 3.11.7" in md and "torch" not in md
    assert "failed attempts" not in md  # no call failed
    assert "| model calls | 0 |" in mf.manifest_markdown({**m, "usage": {}})  # no "0 ()"

    m["usage"] = mf.summarize_usage(mf.UsageLog(records=[
        *USAGE, {"model": "m", "kind": "chat", "key": "d", "source": "network", "failures": {"rate_limited": 2}},
        {"model": "m", "kind": "chat", "key": "e", "source": "network", "failures": {"timeout": 1, "rate_limited": 1}},
    ]))
    assert "| failed attempts, retried | 4 in 2 calls (rate_limited: 3, timeout: 1) |" in mf.manifest_markdown(m)


def _book_run(root: Path, chapter: str, slug: str, keys: list[str], finished: str, status="ok", book=True):
    d = root / "runs" / slug / "default" / chapter
    d.mkdir(parents=True, exist_ok=True)
    mf.write_manifest(
        d / mf.MANIFEST_FILE, {"chapter": chapter, "status": status, "book": book, "finished": finished}
    )
    mf.write_keys(d / mf.KEYS_FILE, keys)
    return d


def _store(root: Path, chapter: str, slug: str, keys: list[str]):
    p = root / "responses" / chapter / f"{slug}.jsonl"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("".join(json.dumps({"key": k, "response": {}}) + "\n" for k in keys), encoding="utf-8")
    return p


def test_store_check_finds_orphans_and_missing(tmp_path, monkeypatch):
    monkeypatch.delenv("LCRAG_STORE_DIR", raising=False)
    _store(tmp_path, "quickstart", "m1", ["a", "b", "old"])
    _book_run(tmp_path, "quickstart", "m1", ["a", "b", "new"], "2025-01-02")
    # an older book run, a failed newer one and a non-book run are ignored
    older = tmp_path / "runs" / "m1" / "quick" / "quickstart"
    older.mkdir(parents=True)
    mf.write_manifest(older / mf.MANIFEST_FILE, {"status": "ok", "book": True, "finished": "2025-01-01"})
    mf.write_keys(older / mf.KEYS_FILE, ["old"])
    _store(tmp_path, "other", "m1", ["x"])
    _book_run(tmp_path, "other", "m1", ["x"], "2025-01-01")
    _book_run(tmp_path, "nostore", "m2", ["y"], "2025-01-01", status="failed")

    checks = {(c.chapter, c.slug): c for c in check_store(root=tmp_path)}
    assert set(checks) == {("quickstart", "m1"), ("other", "m1")}
    q = checks[("quickstart", "m1")]
    assert (q.orphans, q.missing, q.store_keys, q.used_keys) == (["old"], ["new"], 3, 3)
    assert not q.ok and checks[("other", "m1")].ok
    assert [c.chapter for c in check_store("other", root=tmp_path)] == ["other"]


def test_store_check_reads_a_chapter_with_two_book_runs_as_one(tmp_path, monkeypatch):
    """The book model's run also calls a second model (its keys land in that model's file), and the second
    model has a companion run of its own: no key is an orphan, whichever run used it."""
    monkeypatch.delenv("LCRAG_STORE_DIR", raising=False)
    _store(tmp_path, "longrag", "m1", ["a", "b"])
    _store(tmp_path, "longrag", "m2", ["t", "c", "stale"])  # t: m1's run calling m2; c: m2's own run
    _book_run(tmp_path, "longrag", "m1", ["a", "b", "t"], "2025-01-02")
    _book_run(tmp_path, "longrag", "m2", ["c", "d"], "2025-01-02")
    checks = {(c.chapter, c.slug): c for c in check_store(root=tmp_path)}
    assert set(checks) == {("longrag", "m1"), ("longrag", "m2")}
    assert checks[("longrag", "m1")].missing == [] and checks[("longrag", "m2")].missing == ["d"]
    assert checks[("longrag", "m1")].orphans == checks[("longrag", "m2")].orphans == ["stale"]


def test_prune_removes_the_chapters_orphans_from_every_file_and_keeps_the_rest_byte_for_byte(tmp_path, monkeypatch):
    monkeypatch.delenv("LCRAG_STORE_DIR", raising=False)
    m1 = _store(tmp_path, "needle", "m1", ["a", "judged-by-m1", "b"])
    m2 = _store(tmp_path, "needle", "m2", ["t", "c"])
    _store(tmp_path, "other", "m1", ["x", "stale"])  # another chapter: pruned only when asked for all
    _book_run(tmp_path, "needle", "m1", ["a", "b", "t"], "2025-01-02")  # now judged by m2 (t)
    _book_run(tmp_path, "needle", "m2", ["c"], "2025-01-02")
    _book_run(tmp_path, "other", "m1", ["x"], "2025-01-02")
    before = m1.read_bytes().splitlines(keepends=True)
    pruned = prune_store(check_store("needle", root=tmp_path))
    assert pruned == {m1: 1}
    assert m1.read_bytes() == before[0] + before[2] and read_store_keys(m2) == ["t", "c"]
    assert read_store_keys(tmp_path / "responses" / "other" / "m1.jsonl") == ["x", "stale"]
    assert all(c.ok for c in check_store("needle", root=tmp_path))
    assert prune_store(check_store("needle", root=tmp_path)) == {}


def test_a_recording_in_progress_serves_requests_but_its_new_keys_are_not_orphans(tmp_path, monkeypatch):
    """A page's store file that a longer recording is extending (declared in recordings.yml): the page run finds
    its keys there, the keys recorded for the longer run are not orphans, and prune leaves the file alone."""
    monkeypatch.delenv("LCRAG_STORE_DIR", raising=False)
    judge = _store(tmp_path, "summhay", "judge", ["j1", "j2", "j-next"])  # the judge's own run is being recorded
    _store(tmp_path, "summhay", "small", ["s1", "stale"])
    _book_run(tmp_path, "summhay", "small", ["s1", "j1", "j2"], "2025-01-02")  # the page calls the judge model
    (tmp_path / "responses" / "recordings.yml").write_text(
        "- chapter: summhay\n  model: judge\n  profile: default\n  started: 2025-01-01\n")
    (c,) = check_store(root=tmp_path)
    assert (c.slug, c.missing, c.orphans) == ("small", [], ["stale"])  # j-next: recorded ahead, not an orphan
    assert prune_store([c]) == {tmp_path / "responses" / "summhay" / "small.jsonl": 1}
    assert read_store_keys(judge) == ["j1", "j2", "j-next"]
    (tmp_path / "responses" / "recordings.yml").write_text("[]\n")  # recording done, but no run of its own yet
    assert check_store(root=tmp_path)[0].orphans == ["j-next"]


def test_prune_refuses_when_a_run_of_the_chapter_misses_keys(tmp_path, monkeypatch):
    """A run the store does not cover (interrupted, or never recorded) would prune what it never asked."""
    monkeypatch.delenv("LCRAG_STORE_DIR", raising=False)
    m1 = _store(tmp_path, "needle", "m1", ["a", "old"])
    _book_run(tmp_path, "needle", "m1", ["a", "new"], "2025-01-02")
    with pytest.raises(ValueError, match=r"not pruning \['needle'\]: needle/m1: 1 keys missing"):
        prune_store(check_store(root=tmp_path))
    assert read_store_keys(m1) == ["a", "old"]


def test_store_without_a_book_run_is_a_problem(tmp_path, monkeypatch):
    monkeypatch.delenv("LCRAG_STORE_DIR", raising=False)
    _store(tmp_path, "quickstart", "m1", ["a"])
    (c,) = check_store(root=tmp_path)
    assert not c.ok and c.problem == "no successful book run to compare with (run `lcrag book` first)"
    _book_run(tmp_path, "quickstart", "m1", ["a"], "2025-01-02", book=False)  # a plain `lcrag run` replaced it
    (c,) = check_store(root=tmp_path)
    assert "holds a run made outside `lcrag book`" in c.problem and "run `lcrag book` again" in c.problem
    _store(tmp_path, "renamed", "m1", ["a"])  # a chapter no longer registered
    problems = {c.chapter: c.problem for c in check_store(root=tmp_path)}
    assert problems["renamed"].startswith("no chapter 'renamed' is registered or has a notebook")


def test_malformed_store_line_names_file_and_line(tmp_path):
    p = tmp_path / "s.jsonl"
    ok = '{"key": "a", "response": {"text": "x"}}\n'
    p.write_text(ok + '{"nokey": 1}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"s.jsonl line 2: not a store entry"):
        read_store_keys(p)
    p.write_text(ok + '\n{oops\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"s.jsonl line 3: not a store entry"):
        read_store_keys(p)
    p.write_text(ok, encoding="utf-8")
    assert read_store_keys(p) == ["a"]


def test_the_latency_note_says_what_latency_s_is_and_how_much_this_run_spent():
    """A page read from the store shows latency_s (the recorded calls' seconds) of hours beside a wall time of
    seconds: the note under its cost table says why, from the records' sources (one home: longrag, long2rag and
    summhay call it)."""
    from helpers import ROOT

    from lcrag.models import usage

    read_back = [{"source": "store"}, {"source": "disk"}]
    said = usage.latency_note(read_back)
    assert said.startswith(f"`latency_s` is {usage.LATENCY_MEANING}. This run read all 2 of its calls back")
    assert "its own wall time is the run manifest's" in said
    assert "the other 1 were made in this run" in usage.latency_note([*read_back, {"source": "network"}])
    assert usage.latency_note([{"source": "network"}]).endswith("All 1 calls were made in this run (its wall time, "
                                                               "the run manifest's, also counts the rest).")
    assert usage.latency_note([]) == ""
    pages = {p: (ROOT / "notebooks" / f"{p}.md").read_text(encoding="utf-8") for p in ("longrag", "long2rag", "summhay")}
    assert all("usage.latency_note()" in text for text in pages.values())
    assert not any(usage.LATENCY_MEANING[:30] in text for text in pages.values())  # said once, in usage
