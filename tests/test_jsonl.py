"""lcrag.jsonl: the one JSON Lines reader of the datasets, the response store and the usage log."""

from __future__ import annotations

from lcrag import jsonl
from lcrag.book import manifest
from lcrag.models.store import read_entries


def test_lines_split_on_newline_only_and_name_a_line_that_is_not_utf8(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": "x\ry"}\n\xff\n{"b": 2}\n')
    got = list(jsonl.lines(path))
    assert [(n, t) for n, t, _ in got] == [(1, '{"a": "x\ry"}'), (2, None), (3, '{"b": 2}')]
    assert got[1][2].startswith("not UTF-8") and got[0][2] is None


def test_split_cuts_bytes_on_newline_only_and_keeps_a_cut_last_line():
    assert jsonl.split(b'a\rb\n\nc\n') == [b"a\rb", b"", b"c"]
    assert jsonl.split(b"a\nb") == [b"a", b"b"] and jsonl.split(b"") == [] and jsonl.split(b"\n") == [b""]


def test_record_is_a_lines_json_object_or_none():
    assert jsonl.record(b'{"key": 1}') == {"key": 1}
    assert jsonl.record(b'{"key": 1') is None and jsonl.record(b"[1]") is None and jsonl.record(b"\xff") is None


def test_objects_skip_blank_lines_and_say_why_a_line_is_not_a_record(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"key": 1, "response": "r"}\n\n  \n{"key": 2\n[1, 2]\n{"key": 3}\n', encoding="utf-8")
    got = list(jsonl.objects(path))
    assert [(n, r) for n, r, _ in got] == [(1, {"key": 1, "response": "r"}), (4, None), (5, None),
                                          (6, {"key": 3})]
    assert got[1][2].startswith("not JSON (") and got[2][2] == "not a JSON object"
    skipped: list = []  # the store keeps entries only: line 6 has no response
    assert read_entries(path, skipped) == [{"key": 1, "response": "r"}]
    assert skipped == [(str(path), 4), (str(path), 5), (str(path), 6)]
    log = manifest.read_usage(path)  # the usage log keeps every object and lists the rest by line
    assert len(log.records) == 2 and log.malformed[0].startswith("a.jsonl line 4: not JSON")
