"""BAMBOO MeetingQA / PaperQA (Dong et al., arXiv 2309.13345): one multiple-choice question per JSONL line.

Parsing policy (documented, counted):

- each line is parsed with ``json.loads``; only when that fails on a raw control character (paperqa_4k
  lines 53-54 hold raw tabs) is it parsed again with ``strict=False``; such lines are listed in
  ``report.lenient``;
- paperqa_16k line 26 is malformed upstream (an unescaped quote). With ``repair_from_previous=True`` (the
  default for paperqa_16k) an unparseable line is taken from the same line of the previous upstream
  version (commit 7a675b9d), provided that record's question occurs in the broken line; it is listed in
  ``report.repaired``. Note that this older record 26 has a whitespace-only ``evidence``;
- any other bad line (or a record with missing/ill-typed fields, an answer outside A-D, no options)
  raises ``ValueError`` naming file and line with ``errors="raise"``, or is dropped and reported with
  ``errors="drop"``.

``case`` is the 1-based line number, which is what the thesis calls "case N".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pandas as pd

from lcrag.data.fetch import path as data_path
from lcrag.data.records import LoadReport, check_errors, finish, jsonl_lines, parse_json_line, reject

TASKS = ("meetingqa", "paperqa")
SIZES = ("4k", "16k")
FIELDS = ("question", "options", "answer", "evidence", "content")
COLUMNS = ["case", *FIELDS, "task", "size"]
ANSWERS = frozenset("ABCD")
PREVIOUS_VERSION = {"paperqa_16k": "bamboo/previous_version_7a675b9d/paperqa_16k.jsonl"}


def bamboo_file(task: str, size: str) -> str:
    """The manifest path of a BAMBOO file, e.g. ``bamboo/paperqa_4k.jsonl``."""
    if task not in TASKS or size not in SIZES:
        raise ValueError(
            f"BAMBOO task must be one of {TASKS} and size one of {SIZES}, got {task!r}, {size!r}"
        )
    return f"bamboo/{task}_{size}.jsonl"


def load_bamboo(
    task: str,
    size: str,
    errors: str = "raise",
    repair_from_previous: bool | None = None,
    path: Path | str | None = None,
    previous_path: Path | str | None = None,
) -> pd.DataFrame:
    """Load one BAMBOO file as a DataFrame with columns ``case, question, options, answer, evidence,
    content, task, size`` (one row per kept record); the :class:`LoadReport` is in ``df.attrs["report"]``.

    ``repair_from_previous`` defaults to True for paperqa_16k (the only file with a previous version
    in the manifest) and must not be True for the others.
    """
    check_errors(errors)
    rel = bamboo_file(task, size)
    name = f"{task}_{size}"
    repair = (name in PREVIOUS_VERSION) if repair_from_previous is None else repair_from_previous
    if repair and name not in PREVIOUS_VERSION and previous_path is None:
        raise ValueError(f"no previous version of {name} is known; repair_from_previous needs previous_path")
    source = Path(path) if path else data_path(rel)
    previous = _previous_lookup(previous_path, name) if repair else None
    report = LoadReport(str(source))
    rows = []
    for number, text, problem in jsonl_lines(source):
        report.n_read += 1
        record, reason = _parse(number, text, problem, report, previous)
        reason = reason or validate_record(record)
        if reason:
            reject(report, number, reason, errors)
            continue
        rows.append({"case": number, **{k: record[k] for k in FIELDS}, "task": task, "size": size})
    return finish(pd.DataFrame(rows, columns=COLUMNS), report)


def validate_record(record: object) -> str | None:
    """``None`` for a well-formed BAMBOO record, else the reason it is not."""
    if not isinstance(record, dict):
        return f"record is a JSON {type(record).__name__}, not an object"
    missing = [k for k in FIELDS if k not in record]
    if missing:
        return f"missing fields {missing}"
    for key in ("question", "answer", "evidence", "content"):
        if not isinstance(record[key], str):
            return f"{key} is a {type(record[key]).__name__}, not a string"
    options = record["options"]
    if not isinstance(options, list) or not options or not all(isinstance(o, str) for o in options):
        return "options is not a non-empty list of strings"
    if record["answer"] not in ANSWERS:
        return f"answer {record['answer']!r} is not one of A, B, C, D"
    if not record["question"].strip() or not record["content"].strip():
        return "empty question or content"
    return None


def _parse(number: int, text: str | None, problem: str | None, report: LoadReport, previous):
    """``(record, None)`` or ``(None, reason)``; notes lenient parses and repairs in ``report``."""
    if problem:
        return None, problem
    try:
        record, lenient = parse_json_line(text)
    except json.JSONDecodeError as exc:
        reason = f"invalid JSON ({exc})"
        return _repair(number, text, reason, report, previous) if previous else (None, reason)
    if lenient:
        report.lenient.append(number)
    return record, None


def _repair(number: int, text: str, reason: str, report: LoadReport, previous: Callable):
    """Take line ``number`` from the previous version if it is recognisably the same question."""
    source, records = previous()
    old = records.get(number)
    if not isinstance(old, dict) or not isinstance(old.get("question"), str):
        return None, f"{reason}; {source} has no usable line {number} to repair it from"
    encodings = {json.dumps(old["question"])[1:-1], json.dumps(old["question"], ensure_ascii=False)[1:-1]}
    if not any(e in text for e in encodings):
        return None, f"{reason}; line {number} of {source} is a different question, not used"
    report.repaired.append((number, f"{reason}; record taken from line {number} of {source}"))
    return old, None


def _previous_lookup(
    previous_path: Path | str | None, name: str
) -> Callable[[], tuple[str, dict[int, dict]]]:
    """A memoised loader of the previous version's parseable lines (read only if a repair is needed)."""

    @cache
    def load() -> tuple[str, dict[int, dict]]:
        source = Path(previous_path) if previous_path else data_path(PREVIOUS_VERSION[name])
        records = {}
        for number, text, problem in jsonl_lines(source):
            if problem is None:
                try:
                    records[number] = parse_json_line(text)[0]
                except json.JSONDecodeError:
                    pass
        return str(source), records

    return load
