"""LongBench multi-hop QA records (Bai et al., arXiv 2308.14508) and LongRAG's eval question files.

LongBench records (one JSON object per line) hold a question (``input``), its ``answers`` and a
``context`` of passages labelled ``Passage 1:``, ``Passage 2:`` ... on lines of their own.

What is available: the full LongBench files are optional manifest entries (not in the mirror); the
mirror has a 100-record 2WikiMQA subset (rows listed in its ``.meta.json``) and the first 48 MuSiQue
rows. :func:`load_longbench` uses a full file when it has been fetched, else the subset.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from lcrag.data.fetch import DataNotFoundError
from lcrag.data.fetch import path as data_path
from lcrag.data.records import LoadReport, check_errors, finish, jsonl_lines, read_json, reject

TASKS = ("hotpotqa", "2wikimqa", "musique")
FULL = {task: f"longbench/full/{task}.jsonl" for task in TASKS}
SUBSET = {
    "2wikimqa": "longbench/rt-rag-repro/2wikimqa_100_seed42.jsonl",
    "musique": "longbench/lift/musique.jsonl",
}
LONGRAG_EVAL = {
    name: f"longbench/dag-rag_longrag_eval/{name}.json" for name in ("hotpotqa", "2wikimultihopqa", "musique")
}
LONGRAG_ALIASES = {"2wikimqa": "2wikimultihopqa"}
FIELDS = ("_id", "input", "context", "answers", "length", "dataset")
COLUMNS = [*FIELDS, "index", "n_passages"]
_LABEL = re.compile(r"^Passage (\d+):[ \t]*$\n?", re.MULTILINE)


def longbench_file(name_or_path: str | Path) -> Path:
    """A path as given, or for a task name the fetched full file, else the fetched subset."""
    if str(name_or_path) not in TASKS:
        source = Path(name_or_path)
        if not source.is_file():
            raise FileNotFoundError(f"{source} is not a file, nor a LongBench task name {TASKS}")
        return source
    try:
        return data_path(FULL[name_or_path])
    except DataNotFoundError as full_missing:
        if name_or_path not in SUBSET:
            raise DataNotFoundError(f"no {name_or_path} records are available: {full_missing}") from None
        return data_path(SUBSET[name_or_path])


def load_longbench(name_or_path: str | Path, errors: str = "raise") -> pd.DataFrame:
    """LongBench records as a DataFrame: ``_id, input, context, answers, length, dataset``, plus

    - ``index``: the record's row in the full LongBench file: from ``selected_indices`` of a
      ``<stem>.meta.json`` next to the file when there is one, else line number - 1 (right for the full
      files and for the head-of-file MuSiQue subset);
    - ``n_passages``: the number of ``Passage N:`` blocks (labels checked to run 1..N).

    A malformed line, a record with missing fields, a duplicate ``_id`` or badly numbered passages
    raises naming file and line, or is dropped and reported with ``errors="drop"``.
    """
    check_errors(errors)
    source = longbench_file(name_or_path)
    indices = _row_indices(source)
    report = LoadReport(str(source))
    rows, seen = [], set()
    for number, text, problem in jsonl_lines(source):
        report.n_read += 1
        record, reason = _record(text, problem, seen)
        if reason:
            reject(report, number, reason, errors)
            continue
        seen.add(record["_id"])
        index = indices[number - 1] if indices else number - 1
        rows.append({**{k: record[k] for k in FIELDS}, "index": index, "n_passages": record["n_passages"]})
    if indices is not None and report.n_read != len(indices):
        raise ValueError(f"{source}: {report.n_read} lines but its .meta.json lists {len(indices)} indices")
    return finish(pd.DataFrame(rows, columns=COLUMNS), report)


def split_passages(context: str, record_id: str | None = None) -> list[str]:
    """Split a LongBench ``context`` on its ``Passage N:`` label lines; return the passage texts.

    Each text is what follows its label, up to the next label, without the newline that separates it
    from the next label. Raises ``ValueError`` (naming ``record_id``) when there is text before the
    first label or the labels do not run 1, 2, ..., N.
    """
    who = f"record {record_id}" if record_id else "context"
    pieces = _LABEL.split(context)
    numbers = [int(n) for n in pieces[1::2]]
    if not numbers:
        raise ValueError(f"{who}: no 'Passage N:' label lines")
    if pieces[0].strip():
        raise ValueError(f"{who}: text before the first 'Passage 1:' label: {pieces[0][:60]!r}")
    if numbers != list(range(1, len(numbers) + 1)):
        raise ValueError(f"{who}: passage labels run {numbers[:30]}, expected 1..N")
    return [_strip_one_newline(text) for text in pieces[2::2]]


def load_longrag_eval(dataset: str, path: Path | str | None = None) -> pd.DataFrame:
    """LongRAG's standardised eval questions (``data/eval/<dataset>.json``): ``index`` (LongBench row),
    ``question_id`` (= LongBench ``_id``), ``question`` (= ``input``), ``answers`` (list of str).

    ``dataset`` is ``hotpotqa``, ``2wikimultihopqa`` (alias ``2wikimqa``) or ``musique``.
    """
    name = LONGRAG_ALIASES.get(dataset, dataset)
    if name not in LONGRAG_EVAL:
        raise ValueError(f"unknown LongRAG eval set {dataset!r}; expected one of {sorted(LONGRAG_EVAL)}")
    source = Path(path) if path else data_path(LONGRAG_EVAL[name])
    records = read_json(source)
    if not isinstance(records, list):
        raise ValueError(f"{source}: expected a JSON list, got {type(records).__name__}")
    report = LoadReport(str(source), n_read=len(records))
    rows = []
    for i, r in enumerate(records):
        missing = [k for k in ("question_id", "question", "answers") if not isinstance(r, dict) or k not in r]
        if missing:
            raise ValueError(f"{source}, record {i}: missing {missing}")
        rows.append(
            {"index": i, "question_id": r["question_id"], "question": r["question"], "answers": r["answers"]}
        )
    df = pd.DataFrame(rows, columns=["index", "question_id", "question", "answers"])
    if df["question_id"].duplicated().any():
        raise ValueError(
            f"{source}: duplicate question ids {sorted(df.loc[df.question_id.duplicated(), 'question_id'])}"
        )
    return finish(df, report)


def _record(text: str | None, problem: str | None, seen: set[str]) -> tuple[dict | None, str | None]:
    """Parse and check one line; ``(record with n_passages, None)`` or ``(None, reason)``."""
    if problem:
        return None, problem
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON ({exc})"
    reason = _problem(record, seen)
    if reason:
        return None, reason
    try:
        record["n_passages"] = len(split_passages(record["context"], record["_id"]))
    except ValueError as exc:
        return None, str(exc)
    return record, None


def _problem(record: object, seen: set[str]) -> str | None:
    if not isinstance(record, dict):
        return f"record is a JSON {type(record).__name__}, not an object"
    missing = [k for k in FIELDS if k not in record]
    if missing:
        return f"missing fields {missing}"
    if not isinstance(record["context"], str) or not isinstance(record["input"], str):
        return "input and context must be strings"
    if not isinstance(record["answers"], list):
        return "answers is not a list"
    if record["_id"] in seen:
        return f"duplicate _id {record['_id']}"
    return None


def _row_indices(source: Path) -> list[int] | None:
    meta = source.with_name(source.name.removesuffix(".jsonl") + ".meta.json")
    if not meta.is_file():
        return None
    indices = json.loads(meta.read_text(encoding="utf-8")).get("selected_indices")
    if not isinstance(indices, list) or not all(isinstance(i, int) for i in indices):
        raise ValueError(f"{meta}: selected_indices is not a list of ints")
    return indices


def _strip_one_newline(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text
